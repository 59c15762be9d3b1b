"""The plugin's own cost per document: the thinkbench filter plus ``process_results``.

500 MATH-500 documents (model time excluded), scored in one filter call as lm-eval makes it:
simulated reasoning traces of about 4,000 tokens (``--source sim``) or the 500 real Sky-T1
responses in ``../shared/data/traces`` (``--source real``: about 2,200 tokens each, 304
unfinished thoughts, many wrong attempts stated along the way).

The headline is what a run pays: the wall time of the whole filter call, ``process_results``
of every document included, divided by the documents (amortised ms/doc; the goal is at most
20 ms on a 2-core machine). The filter scores two documents at once (``RecordFilter.threads``:
one's text work runs while the other waits for the grading worker), so that is less than the
sum of the documents' own latencies, which are printed too (median, p95, max: from the start
of a document's scoring to the end of its ``process_results``, waits for the other thread
included; the worst case is bounded by the grading deadline). Also printed: the CPU time of
this process and of the grading worker beside it (on a busy machine the wall times say little,
the CPU times more). ``--threads 1`` scores one document at a time, as before the overlap.

    python benchmarks/harness_overhead.py [--source sim|real|both] [--n 500] [--tokens 4000]
                                          [--threads 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# Set before tqdm is imported: a progress bar would be noise.
os.environ.setdefault("TQDM_DISABLE", "1")

from lm_eval_thinkbench.harness import settings
from lm_eval_thinkbench.math.grader import default_grader
from lm_eval_thinkbench.math500.data import read_math500
from lm_eval_thinkbench.math500.filters import ThinkEfficiencyFilter
from lm_eval_thinkbench.math500.metrics import process_results
from lm_eval_thinkbench.simulate import simulate
from lm_eval_thinkbench.tokens import get_counter

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"


class TimedFilter(ThinkEfficiencyFilter):
    """The real filter, each document's scoring and ``process_results`` timed, and the time
    this process had nothing to do: every document being scored waiting for the worker."""

    def __init__(self, threads: int) -> None:
        super().__init__()
        self.threads = threads
        self.per_doc: list[float] = []
        self.idle = 0.0
        self._scoring = self._waiting = 0
        self._since = 0.0
        self._count = threading.Lock()

    def _tally(self, scoring: int, waiting: int) -> None:
        with self._count:
            now = time.perf_counter()
            if self._scoring and self._waiting == self._scoring:
                self.idle += now - self._since
            self._scoring += scoring
            self._waiting += waiting
            self._since = now

    @contextmanager
    def handing_over(self) -> Iterator[None]:
        self._tally(0, 1)
        try:
            with super().handing_over():
                yield
        finally:
            self._tally(0, -1)

    def score_doc(self, responses: list[Any], doc: dict[str, Any]) -> list[dict]:
        t = time.perf_counter()
        self._tally(1, 0)
        try:
            records = super().score_doc(responses, doc)
        finally:
            self._tally(-1, 0)
        process_results(doc, [[json.dumps(record) for record in records]])
        self.per_doc.append((time.perf_counter() - t) * 1000)  # (list.append: thread-safe)
        return records


def real_responses(docs: list[dict[str, Any]], n: int) -> tuple[list[dict], list[str]]:
    """The Sky-T1 responses and their MATH-500 documents (gold by ``idx``)."""
    path = DATA / "traces" / "skythought_sky-t1-27b_math500.jsonl"
    rows = [json.loads(line) for line in path.open(encoding="utf-8")][:n]
    return [docs[r["idx"]] for r in rows], [r["code"][0] for r in rows]


def children_cpu() -> float:
    """CPU seconds used so far by this process's live children (the grading worker; Linux
    ``/proc``, 0 elsewhere): a worker that is never waited for is not in ``os.times()``."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    for children in Path(f"/proc/{os.getpid()}/task").glob("*/children"):
        for pid in children.read_text().split():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def measure(name: str, docs: list[dict], responses: list[str], threads: int) -> None:
    counter = get_counter(None)
    mean_tokens = statistics.fmean(counter.count(r) for r in responses)
    filt = TimedFilter(threads)
    t, cpu, worker = time.perf_counter(), time.process_time(), children_cpu()
    filt.apply([[r] for r in responses], docs)
    total, cpu = time.perf_counter() - t, time.process_time() - cpu
    worker = children_cpu() - worker
    per_doc = filt.per_doc
    q = statistics.quantiles(per_doc, n=20)
    print(f"[{name}] documents {len(docs)} (mean response {mean_tokens:,.0f} tokens)")
    print(
        f"[{name}] amortised {total / len(docs) * 1000:.1f} ms/doc "
        f"(filter call {total:.2f} s with detection, {threads} thread(s); "
        f"CPU: this process {cpu:.2f} s, the grading worker {worker:.2f} s; "
        f"idle, every document waiting for the worker, {filt.idle:.2f} s)"
    )
    print(
        f"[{name}] per-document latency median {statistics.median(per_doc):.1f} ms, "
        f"p95 {q[18]:.1f} ms, max {max(per_doc):.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", choices=("sim", "real", "both"), default="both")
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--tokens", type=int, default=4000, help="simulated reasoning length")
    parser.add_argument(
        "--threads", type=int, default=ThinkEfficiencyFilter.threads, help="documents at once"
    )
    parser.add_argument(
        "--data",
        default=os.environ.get("THINKBENCH_MATH500_PATH", str(DATA / "math500/test.jsonl")),
    )
    args = parser.parse_args()

    docs = read_math500(Path(args.data))
    settings.configure({})
    t0 = time.perf_counter()
    default_grader().start()  # start the worker pool outside the timed loop
    print(f"grader start-up {(time.perf_counter() - t0) * 1000:.0f} ms (once per run)")
    if args.source in ("sim", "both"):
        sim_docs = docs[: args.n]
        responses = [simulate(d, seed=1, target_tokens=args.tokens).inline() for d in sim_docs]
        measure("sim", sim_docs, responses, args.threads)
    if args.source in ("real", "both"):
        measure("real Sky-T1", *real_responses(docs, args.n), args.threads)


if __name__ == "__main__":
    main()
