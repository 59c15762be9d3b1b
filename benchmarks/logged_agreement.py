"""``thinkbench analyze`` at its defaults against the grader that produced each log.

For every file given (MATH-500 outputs in the Qwen2.5-Math / SkyThought evaluation format:
``idx, question, code, pred, score``; by default the Qwen2.5-Math-7B responses in shared/),
runs ``thinkbench analyze --no-plots`` with the MATH-500 golds and prints: the samples, the
truncated rate (a model that writes no thought markers and was not cut should read 0), our
accuracy and the logged grader's (``score``) on the same samples, and every sample whose two
verdicts differ, with the gold and both extractions, to be read by eye. Non-reasoning models'
outputs that shared/ does not hold (Qwen2.5-14B-Instruct, gemma-2-27b-it, a short-CoT Sky-T1
32B) are in the public repository NovaSky-AI/SkyThought at commit 505894e, under
``skythought/Qwen2.5-Math/evaluation/outputs/`` (docs/benchmarks.md names the files). Nothing
is asserted.

    python benchmarks/logged_agreement.py [FILE ...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("THINKBENCH_DATA", REPO.parent / "shared" / "data"))
DEFAULT = DATA / "outputs" / "skythought_qwen2.5-math-7b_math500.jsonl"
GOLDS = DATA / "math500" / "test.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, default=[DEFAULT])
    args = parser.parse_args()
    thinkbench = str(Path(sys.executable).with_name("thinkbench"))
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    for path in args.files:
        with tempfile.TemporaryDirectory() as out:
            cmd = [thinkbench, "analyze", "--no-plots", "--no-progress", "--gold", str(GOLDS)]
            subprocess.run([*cmd, "-o", out, str(path)], env=env, check=True, capture_output=True)
            with open(Path(out) / "per_sample.jsonl", encoding="utf-8") as f:
                records = [json.loads(line) for line in f]
        n = len(records)
        ours = sum(bool(r["correct"]) for r in records)
        logged = [r for r in records if r["logged_correct"] is not None]
        print(f"{path.name}: {n} samples")
        print(f"  truncated rate {sum(bool(r['truncated']) for r in records) / n:.3f}")
        print(
            f"  accuracy: ours {ours / n:.3f} ({ours}), logged grader"
            f" {sum(bool(r['logged_correct']) for r in logged) / max(len(logged), 1):.3f}"
            f" ({sum(bool(r['logged_correct']) for r in logged)} of {len(logged)})"
        )
        for r in records:
            if r["logged_correct"] is not None and bool(r["correct"]) != r["logged_correct"]:
                print(
                    f"    {r['id']:>4}  ours {bool(r['correct'])!s:5s}"
                    f" logged {r['logged_correct']!s:5s}  gold {r['gold']!r:30.30s}"
                    f"  ours {r['extracted']!r:40.40s} ({r['extraction']})"
                )


if __name__ == "__main__":
    main()
