"""math-verify with and without the numeric witness (``verify.install_numeric_witness``):
the verdicts must be the same, and the time is what the witness saves.

Pairs: every answer statement of the real R1 traces against its gold; 3,000 random pairs of
MATH-500 golds; each gold against ``gold+0``, ``2*(gold)/2`` and a random integer; and a list of
identities that ``simplify`` proves and a naive evaluation could get wrong (``\\sin^2 x + \\cos^2
x`` = 1, removable singularities, branch cuts, floors, percentages). Each pair is parsed once and
checked both ways in this process (a pair that runs past 5 s is skipped and counted). Prints the
pairs whose verdicts differ (there should be none), the counts and the time of each way. It
asserts nothing.

    python benchmarks/numeric_witness.py [--random-pairs 3000] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import time
from pathlib import Path

from lm_eval_thinkbench.locate.rule import find_statements
from lm_eval_thinkbench.math import verify
from lm_eval_thinkbench.math500.data import read_math500

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("THINKBENCH_DATA", REPO.parent / "shared" / "data"))

IDENTITIES = [
    ("1", r"\sin^2 x + \cos^2 x"),
    (r"\frac{x}{x}", "1"),
    ("x+1", r"\frac{x^2-1}{x-1}"),
    ("x", r"\sqrt{x^2}"),
    ("x", r"\log(e^x)"),
    ("2", r"\sqrt{4}"),
    (r"\frac{\pi}{4}", r"\arctan 1"),
    ("0", r"\sin \pi"),
    ("1", r"e^{i\pi}+2"),
    (r"2\cos^2 x - 1", r"\cos 2x"),
    (r"\binom{n}{2}", r"\frac{n(n-1)}{2}"),
    ("a^2-b^2", "(a-b)(a+b)"),
    (r"\sqrt{2}", "1.41421356"),
    (r"\frac{1}{3}", "0.333333"),
    ("x^2", "x*x"),
    (r"\lfloor \pi \rfloor", "3"),
    ("3", r"\lfloor \pi \rfloor"),
    ("n!", "n(n-1)!"),
    (r"\tan x", r"\frac{\sin x}{\cos x}"),
    ("|x|", "x"),
    ("e", "2.718281828"),
    (r"10\%", "0.1"),
    ("0.1", r"10\%"),
    ("2", r"200\%"),  # percentages evaluated (the witness strips latex2sympy's UnevaluatedExpr)
    (r"\frac{1}{50}", "2%"),
    ("x", r"100x\%"),
    (r"\frac{x}{2}", r"50\% x"),
    (r"\sqrt{xy}", r"\sqrt{x}\sqrt{y}"),
    (r"\ln(ab)", r"\ln a + \ln b"),
]


class _Overrun(Exception):
    pass


def pairs(random_pairs: int, seed: int) -> list[tuple[str, str]]:
    golds = [doc["answer"] for doc in read_math500(DATA / "math500" / "test.jsonl")]
    out = []
    for name in ("r1_openrouter_math_train.json", "r1_8b_ollama_math_train.json"):
        for trace in json.loads((DATA / "traces" / name).read_text()):
            out += [(trace["gtruth_answer"], s.value) for s in find_statements(
                trace["message_thinking"])]  # fmt: skip
    rng = random.Random(seed)
    out += [(rng.choice(golds), rng.choice(golds)) for _ in range(random_pairs)]
    for gold in golds:
        out += [(gold, gold + "+0"), (gold, f"2*({gold})/2"), (gold, str(rng.randint(-50, 9999)))]
    return out + IDENTITIES


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random-pairs", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from math_verify import grader
    from math_verify import verify as math_verify

    plain = grader.sympy_symbolic_eq
    verify.install_numeric_witness()
    witnessed = grader.sympy_symbolic_eq

    def overrun(*_: object) -> None:
        raise _Overrun

    signal.signal(signal.SIGALRM, overrun)
    todo = pairs(args.random_pairs, args.seed)
    seconds = {"plain": 0.0, "witness": 0.0}
    differ = skipped = 0
    for gold, candidate in todo:
        verdicts = {}
        try:
            signal.alarm(5)
            gold_parsed = verify.parse_gold(gold)
            parsed = verify.parse_candidate(candidate)
            for name, step in (("plain", plain), ("witness", witnessed)):
                grader.sympy_symbolic_eq = step
                start = time.perf_counter()
                verdicts[name] = math_verify(gold_parsed, parsed, timeout_seconds=None)
                seconds[name] += time.perf_counter() - start
            signal.alarm(0)
        except _Overrun:
            skipped += 1
            continue
        if verdicts["plain"] != verdicts["witness"]:
            differ += 1
            print(f"DIFFERENT: gold {gold!r} answer {candidate!r}: {verdicts}")
    print(f"{len(todo):,} pairs, {skipped} skipped (over 5 s), {differ} with different verdicts")
    print(f"math-verify alone:        {seconds['plain']:.2f} s")
    print(f"with the numeric witness: {seconds['witness']:.2f} s")


if __name__ == "__main__":
    main()
