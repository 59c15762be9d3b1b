"""``thinkbench analyze`` on the 500 real Sky-T1 traces against a bare tokenize-everything process.

The yardstick is the least any such tool must do: a process that loads the offline Qwen2.5
tokenizer (the one analyze counts Sky-T1 with) and counts the tokens of every response. The
rule run is ``thinkbench analyze --locator rule --no-plots`` on
``../shared/data/traces/skythought_sky-t1-27b_math500.jsonl`` with the MATH-500 golds
(``--gold``), once with the default scoring processes and once with ``--workers 1``. Each is a
separate process, run ``--repeats`` times; the table shows the median wall time, the CPU time
of the process and the children it waited for, and the wall time as a multiple of the bare
process's. A busy machine's noise is large: compare the CPU column when others are running.
Nothing is asserted.

    python benchmarks/analyze_real.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from timing import timed

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("THINKBENCH_DATA", REPO.parent / "shared" / "data"))
TRACES = DATA / "traces" / "skythought_sky-t1-27b_math500.jsonl"
GOLDS = DATA / "math500" / "test.jsonl"

BARE = """
import ast, json, sys
from lm_eval_thinkbench.tokens import get_counter
counter = get_counter(None)
total = 0
for line in open(sys.argv[1], encoding="utf-8"):
    if line.strip():
        code = json.loads(line)["code"]
        total += counter.count((ast.literal_eval(code) if isinstance(code, str) else code)[0])
print(total)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    thinkbench = str(Path(sys.executable).with_name("thinkbench"))
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    with tempfile.TemporaryDirectory() as out:
        analyze = [thinkbench, "analyze", "--locator", "rule", "--no-plots", "--no-progress"]
        analyze += ["--gold", str(GOLDS), "-o", out, str(TRACES)]
        runs = {
            "bare: load the Qwen tokenizer, count every response": [
                sys.executable, "-c", BARE, str(TRACES)
            ],
            "thinkbench analyze, rule, --no-plots": analyze,
            "thinkbench analyze, rule, --no-plots --workers 1": [*analyze, "--workers", "1"],
        }  # fmt: skip
        rows = []
        for name, cmd in runs.items():
            times = [timed(cmd, env) for _ in range(args.repeats)]
            wall = statistics.median(t[0] for t in times)
            cpu = statistics.median(t[1] for t in times)
            rows.append((name, wall, cpu))
    bare_wall = rows[0][1]
    print(f"500 real Sky-T1 traces, median of {args.repeats} runs")
    print(f"{'run':52} {'wall s':>7} {'CPU s':>7} {'x bare':>7}")
    for name, wall, cpu in rows:
        print(f"{name:52} {wall:7.2f} {cpu:7.2f} {wall / bare_wall:7.1f}")


if __name__ == "__main__":
    main()
