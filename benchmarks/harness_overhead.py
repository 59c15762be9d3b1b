"""The plugin's own cost per document: the thinkbench filter plus ``process_results``.

500 MATH-500 documents, one simulated reasoning trace of about 4,000 tokens each (model time
excluded). Prints the per-document median, p95 and max, and the total. The goal is a median
under 20 ms on a 2-core machine, with the worst case bounded by the grading deadline.

    python benchmarks/harness_overhead.py [--n 500] [--tokens 4000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

# Set before tqdm is imported: one progress bar per single-document call would be noise.
os.environ.setdefault("TQDM_DISABLE", "1")

from lm_eval_thinkbench.harness import settings
from lm_eval_thinkbench.harness.data import read_jsonl
from lm_eval_thinkbench.harness.filters import ThinkEfficiencyFilter
from lm_eval_thinkbench.harness.metrics import process_results
from lm_eval_thinkbench.math.grader import default_grader
from lm_eval_thinkbench.simulate import simulate
from lm_eval_thinkbench.tokens import get_counter

REPO = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--tokens", type=int, default=4000, help="target reasoning length")
    parser.add_argument(
        "--data",
        default=os.environ.get(
            "THINKBENCH_MATH500_PATH", str(REPO.parent / "shared/data/math500/test.jsonl")
        ),
    )
    args = parser.parse_args()

    docs = read_jsonl(Path(args.data))[: args.n]
    responses = [simulate(d, seed=1, target_tokens=args.tokens).inline() for d in docs]
    counter = get_counter(None)
    mean_tokens = statistics.fmean(counter.count(r) for r in responses)
    settings.configure({})
    filt = ThinkEfficiencyFilter()

    t0 = time.perf_counter()
    default_grader().start()  # start the worker pool outside the timed loop
    startup = time.perf_counter() - t0

    per_doc = []
    for doc, resp in zip(docs, responses, strict=True):
        t = time.perf_counter()
        records = filt.apply([[resp]], [doc])
        process_results(doc, records)
        per_doc.append((time.perf_counter() - t) * 1000)

    q = statistics.quantiles(per_doc, n=20)
    print(f"documents          {len(docs)} (mean response {mean_tokens:,.0f} tokens)")
    print(f"grader start-up    {startup * 1000:.0f} ms (once per run)")
    print(
        f"per document       median {statistics.median(per_doc):.1f} ms, "
        f"p95 {q[18]:.1f} ms, max {max(per_doc):.1f} ms"
    )
    print(f"total              {sum(per_doc) / 1000:.2f} s")


if __name__ == "__main__":
    main()
