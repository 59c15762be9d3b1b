"""Grading throughput and latency on the MATH-500 gold answers, with the cache off and on.

Each gold is graded against (a) itself, (b) an equivalent rewrite that the normalised fast path
does not catch when the rewrite rules allow (``58,500`` -> ``58500``, ``\\frac{a}{b}`` ->
``(a)/(b)``, ``\\sqrt{x}`` -> ``(x)^{1/2}``, ``n`` -> ``n.0``, ...), and (c) a wrong answer (the
first integer in the gold bumped by one, else another problem's gold). Prints answers per
second, median, p95 and max latency per kind, the verdicts and how they were reached, for the
cache off, on (cold: first sight of every pair) and on (warm: the same pairs again), and for
the batched call the first-correct locator makes. Worker start-up is excluded. It asserts
nothing.

    python benchmarks/grading_throughput.py [--n 500] [--deadline 5] [--workers 1]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import time
from collections import Counter
from pathlib import Path

from lm_eval_thinkbench.math.grader import Grader

REPO = Path(__file__).resolve().parent.parent

_THOUSANDS = re.compile(r"^\d{1,3}(?:,\d{3})+$")
_INTEGER = re.compile(r"^-?\d+$")
#: Not after a digit: ``1\frac{4}{5}`` is a mixed number (9/5), not ``1 * 4/5``.
_FLAT_FRAC = re.compile(r"(?<!\d)(?<!\d )\\[dt]?frac\{([^{}]+)\}\{([^{}]+)\}")
_FLAT_SQRT = re.compile(r"\\sqrt\{([^{}]+)\}")
_MATRIX = re.compile(r"\\(begin|end)\{pmatrix\}")
_INT = re.compile(r"\d+")


def perturb(gold: str) -> str:
    """An equivalent spelling of ``gold``: the first rewrite rule that changes it."""
    rules = [
        lambda s: s.replace(",", "") if _THOUSANDS.match(s) else s,
        lambda s: f"{s}.0" if _INTEGER.match(s) else s,
        lambda s: _MATRIX.sub(r"\\\1{bmatrix}", s),
        lambda s: _FLAT_FRAC.sub(r"(\1)/(\2)", s),
        lambda s: _FLAT_SQRT.sub(r"(\1)^{1/2}", s),
        lambda s: s.replace(r"\pi", r"\cdot\pi") if re.search(r"\d\s*\\pi", s) else s,
    ]
    for rule in rules:
        rewritten = rule(gold)
        if rewritten != gold:
            return rewritten
    return gold


def wrong(gold: str, other: str) -> str:
    """A wrong answer: the first integer in ``gold`` plus one, else ``other`` (another gold).

    The first, not the last: a last integer is often a unit exponent (``cm}^2``) or a base
    subscript (``52_8``), which math-verify ignores.
    """
    match = _INT.search(gold)
    if match is None:
        return other
    return gold[: match.start()] + str(int(match.group()) + 1) + gold[match.end() :]


def measure(grader: Grader, pairs: list[tuple[str, str]]) -> dict[str, object]:
    """Grade ``pairs`` one by one; latency figures in milliseconds."""
    latencies, statuses, equivalent = [], Counter(), 0
    start = time.perf_counter()
    for gold, candidate in pairs:
        t = time.perf_counter()
        verdict = grader.equivalent(gold, candidate)
        latencies.append((time.perf_counter() - t) * 1000)
        statuses[verdict.status] += 1
        equivalent += verdict.equivalent
    return _figures(latencies, time.perf_counter() - start, equivalent, statuses)


def measure_batched(grader: Grader, batches: list[tuple[str, list[str]]]) -> dict[str, object]:
    """The locator's call: ``first_equivalent`` over (wrong, perturbed) per gold."""
    latencies, statuses, found = [], Counter(), 0
    start = time.perf_counter()
    for gold, candidates in batches:
        t = time.perf_counter()
        match = grader.first_equivalent(gold, candidates)
        latencies.append((time.perf_counter() - t) * 1000)
        found += match.index is not None
        statuses["checked"] += match.checked
        statuses["timeout"] += match.timeouts
    figures = _figures(latencies, time.perf_counter() - start, found, statuses)
    figures["answers"] = sum(len(c) for _, c in batches)
    figures["per_s"] = figures["answers"] / figures["seconds"]
    return figures


def _figures(latencies, seconds, equivalent, statuses) -> dict[str, object]:
    ordered = sorted(latencies)
    return {
        "answers": len(latencies),
        "seconds": seconds,
        "per_s": len(latencies) / seconds,
        "median": statistics.median(ordered),
        "p95": ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))],
        "max": ordered[-1],
        "equivalent": equivalent,
        "statuses": statuses,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500, help="number of MATH-500 golds")
    parser.add_argument("--deadline", type=float, default=5.0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--data",
        default=os.environ.get(
            "THINKBENCH_MATH500_PATH", str(REPO.parent / "shared/data/math500/test.jsonl")
        ),
    )
    args = parser.parse_args()

    with open(args.data, encoding="utf-8") as f:
        golds = [json.loads(line)["answer"] for line in f if line.strip()][: args.n]
    kinds = {
        "gold": [(g, g) for g in golds],
        "perturbed": [(g, perturb(g)) for g in golds],
        "wrong": [(g, wrong(g, golds[(i + 1) % len(golds)])) for i, g in enumerate(golds)],
    }
    batches = [(g, [kinds["wrong"][i][1], kinds["perturbed"][i][1]]) for i, g in enumerate(golds)]
    rewritten = sum(g != p for g, p in kinds["perturbed"])
    print(f"{len(golds)} MATH-500 golds from {args.data}")
    print(f"deadline {args.deadline} s, {args.workers} worker(s); {rewritten} golds rewritten")
    print()
    header = "cache      kind        answers   ans/s  median ms  p95 ms   max ms  equiv  how"
    print(header)
    print("-" * len(header))

    def row(label: str, kind: str, grader: Grader) -> None:
        if kind == "batched":
            fig = measure_batched(grader, batches)
        else:
            fig = measure(grader, kinds[kind])
        how = " ".join(f"{k}={v}" for k, v in sorted(fig["statuses"].items()))
        print(
            f"{label:10} {kind:10} {fig['answers']:8d} {fig['per_s']:7.0f} "
            f"{fig['median']:10.2f} {fig['p95']:7.2f} {fig['max']:8.1f} "
            f"{fig['equivalent']:6d}  {how}"
        )

    with Grader(deadline=args.deadline, workers=args.workers, cache_size=0) as grader:
        grader.start()
        for kind in (*kinds, "batched"):
            row("off", kind, grader)
    # Cache on: a fresh grader per kind, so "cold" is every pair's first sight and "warm" the
    # same pairs again.
    for kind in (*kinds, "batched"):
        with Grader(deadline=args.deadline, workers=args.workers) as grader:
            grader.start()
            row("on, cold", kind, grader)
            row("on, warm", kind, grader)
    print()
    print("equiv: verdicts 'equivalent' (batched: problems where a candidate matched).")
    print("how: verdict sources (batched: worker checks and timeouts, fast/cached not counted).")


if __name__ == "__main__":
    main()
