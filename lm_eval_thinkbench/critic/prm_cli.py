"""``thinkbench-prm``: score a process reward model's saved scores on DeltaBench or ProcessBench.

    python -m lm_eval_thinkbench.critic.prm_cli deltabench scores.jsonl --data Deltabench_v1.csv
    python -m lm_eval_thinkbench.critic.prm_cli processbench scores.jsonl --threshold 0.5

The ground truth comes from ``--data``, else the same environment variables as the tasks
(``THINKBENCH_DELTABENCH_PATH``, ``THINKBENCH_PROCESSBENCH_PATH``), else the Hugging Face Hub.
Prints a table; ``--output`` writes every figure as JSON, ``--samples`` one JSON line per sample
(flags, per-sample score, and why a sample was excluded or unscored).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path
from typing import Any

from lm_eval_thinkbench.critic import data, prm
from lm_eval_thinkbench.critic.scoring import SECTION_FIGURES
from lm_eval_thinkbench.datafiles import DatasetError

DESCRIPTION = """\
Evaluate a process reward model (PRM) post hoc from its per-section / per-step scores.

Input (SCORES): JSON Lines, one object per sample, e.g.
  {"id": "gsm8k-0", "scores": [0.98, 0.91, 0.12, null]}
  - id: the sample id of the data ("id" field; ProcessBench ids look like gsm8k-0);
  - scores[i]: the score of DeltaBench section i+1, or of ProcessBench step i
    (<paragraph_i>); higher = more likely correct; null, or a list that stops early,
    leaves a section unscored; scores beyond the last section are ignored.

DeltaBench: a section is predicted erroneous when its score is below mean - std of the
sample's scores (z-score rule; --threshold T uses score < T instead); reports macro and micro
precision / recall / F1 against the error + unuseful sections, and HitRate@k (the k lowest
scored sections contain a true error section), overall and per domain.

ProcessBench: the prediction is the first step flagged by the same rule (-1 when none);
reports accuracy on erroneous and on correct samples, their harmonic mean (F1) per subset,
and the average F1 over subsets (the paper's headline).
"""


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        score_file = prm.read_scores(Path(args.scores))
        if args.benchmark == "deltabench":
            path = args.data or os.environ.get(data.DELTABENCH_ENV)
            result = prm.evaluate_deltabench(
                data.deltabench_docs(path),
                score_file.scores,
                ks=args.k,
                reference_filter=args.reference_filter,
                threshold=args.threshold,
            )
            table = _deltabench_table(result, args.k)
        else:
            path = args.data or os.environ.get(data.PROCESSBENCH_ENV)
            docs = {s: data.processbench_docs(s, path) for s in args.subsets}
            result = prm.evaluate_processbench(docs, score_file.scores, threshold=args.threshold)
            table = _processbench_table(result)
    except DatasetError as exc:
        print(f"thinkbench-prm: {exc}", file=sys.stderr)
        return 2
    for problem in score_file.problems:
        print(f"thinkbench-prm: skipped {problem}", file=sys.stderr)
    known = {s["id"] for s in result["samples"]}
    unknown = [key for key in score_file.scores if key not in known]
    if unknown:
        print(
            f"thinkbench-prm: {len(unknown)} score lines match no sample (e.g. {unknown[0]})",
            file=sys.stderr,
        )
    print(table)
    samples = result.pop("samples")
    if args.output:
        result["score_file_problems"] = score_file.problems
        result["unmatched_ids"] = unknown
        Path(args.output).write_text(json.dumps(_finite(result), indent=2), encoding="utf-8")
    if args.samples:
        with open(args.samples, "w", encoding="utf-8") as f:
            for sample in samples:
                f.write(json.dumps(sample, ensure_ascii=False) + "\n")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="thinkbench-prm",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("benchmark", choices=("deltabench", "processbench"))
    parser.add_argument("scores", help="the PRM's scores, JSON Lines (schema above)")
    parser.add_argument(
        "--data",
        help="local data: a DeltaBench CSV/JSONL file, or a folder with the four ProcessBench "
        "JSON files (default: the environment variable, else the Hugging Face Hub)",
    )
    parser.add_argument(
        "--threshold", type=float, help="flag score < THRESHOLD instead of the z-score rule"
    )
    parser.add_argument("--k", type=int, nargs="+", default=[1, 3, 5], help="HitRate@k values")
    parser.add_argument(
        "--reference-filter",
        action="store_true",
        help="DeltaBench: drop flags beyond the last true error section, as the reference "
        "script does (default: count them as false positives)",
    )
    parser.add_argument(
        "--subsets",
        nargs="+",
        default=list(data.PROCESSBENCH_SUBSETS),
        choices=data.PROCESSBENCH_SUBSETS,
        help="ProcessBench subsets to score",
    )
    parser.add_argument("--output", help="write all figures as JSON to this file")
    parser.add_argument("--samples", help="write one JSON line per sample to this file")
    return parser


def _deltabench_table(result: dict[str, Any], ks: list[int]) -> str:
    cols = [*SECTION_FIGURES, *(f"hit@{k}" for k in ks)]
    rows = [("overall", result["overall"]), *result["domains"].items()]
    return _table(["domain", *cols, "scored", "excluded", "missing_scores"], rows)


def _processbench_table(result: dict[str, Any]) -> str:
    cols = ["error_acc", "correct_acc", "f1", "scored", "excluded", "missing_scores"]
    table = _table(["subset", *cols], list(result["subsets"].items()))
    return f"{table}\naverage F1 over subsets: {_fmt(result['average_f1'])}"


def _table(header: list[str], rows: list[tuple[str, dict[str, Any]]]) -> str:
    lines = [" | ".join(header)]
    for name, figures in rows:
        lines.append(" | ".join([name, *(_fmt(figures[c]) for c in header[1:])]))
    return "\n".join(lines)


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.4f}"
    return str(value)


def _finite(value: Any) -> Any:
    """NaN (a figure with no samples behind it) as JSON null, so the file is strict JSON."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


if __name__ == "__main__":
    sys.exit(main())
