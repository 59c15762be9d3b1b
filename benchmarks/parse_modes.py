"""Two-stage parsing (``verify.install_two_stage_parsing``) against latex2sympy's own LL mode.

Grading workers parse answers with ANTLR's SLL prediction first and fall back to LL only on a
syntax error. ANTLR guarantees that a successful SLL parse is the tree LL builds; this checks it
on what the grader parses: every (gold, value) pair the harness grades on the real responses
and every answer statement in them and in the R1 traces (``grading_screen.real_pairs``), and
``--random`` expressions of the screen's grammar against random golds. Each mode runs in a
fresh process (cold parser caches, as a new grading worker): every gold reading, candidate
reading (``verify.candidate_readings``) and verdict (``math_verify.verify`` on them) is
compared, and the worker CPU of each mode printed. A parse or verdict is cut at 5 s (counted,
and compared like a result). It asserts nothing; every difference is printed (there should be
none).

    python benchmarks/parse_modes.py [--random 1000] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import logging
import pickle
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from grading_screen import DATA, random_expression, real_pairs

from lm_eval_thinkbench.math import verify
from lm_eval_thinkbench.math500.data import read_math500


class _Overrun(Exception):
    pass


def _alarm(*_: object) -> None:
    raise _Overrun


def _bounded(call: Any, *args: str) -> str:
    """``repr`` of ``call(*args)``, or what stopped it, within 5 s."""
    signal.setitimer(signal.ITIMER_REAL, 5)
    try:
        return repr(call(*args))
    except _Overrun:
        return "cut at 5 s"
    except Exception as exc:  # the grader counts any failure as "no match"; so do we
        return f"error {type(exc).__name__}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _reading(gold: str, candidate: str) -> list[Any]:
    return verify.candidate_readings(verify.rewrite_answer(gold).text, candidate)


def _verdict(gold: str, candidate: str) -> bool:
    from math_verify import verify as math_verify

    gold_readings = list(verify._gold_readings(gold))
    return math_verify(gold_readings, _reading(gold, candidate), timeout_seconds=None)


def run_mode(two_stage: bool, pairs_path: str, out_path: str) -> None:
    """One mode in this (fresh) process: every reading and verdict, and the CPU they took."""
    logging.getLogger("math_verify").setLevel(logging.ERROR)
    verify.install_numeric_witness()
    if two_stage:
        verify.install_two_stage_parsing()
    signal.signal(signal.SIGALRM, _alarm)
    pairs: list[tuple[str, str]] = pickle.loads(Path(pairs_path).read_bytes())
    start = time.process_time()
    golds = {gold: _bounded(verify._gold_readings, gold) for gold, _ in pairs}
    results = [(_bounded(_reading, *pair), _bounded(_verdict, *pair)) for pair in pairs]
    cpu = time.process_time() - start
    Path(out_path).write_text(json.dumps({"golds": golds, "pairs": results, "cpu": cpu}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random", type=int, default=1000, help="random grammar expressions")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mode", choices=("ll", "two-stage"), help=argparse.SUPPRESS)
    parser.add_argument("--pairs", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.mode:
        run_mode(args.mode == "two-stage", args.pairs, args.out)
        return

    docs = read_math500(DATA / "math500" / "test.jsonl")
    golds = [doc["answer"] for doc in docs]
    rng = random.Random(args.seed)
    pairs = sorted(real_pairs(golds, docs))
    real = len(pairs)
    pairs += [(rng.choice(golds), random_expression(rng)) for _ in range(args.random)]
    print(f"pairs: {real:,} from the real responses and traces, {len(pairs) - real:,} random")
    with tempfile.TemporaryDirectory() as tmp:
        pairs_path = Path(tmp) / "pairs.pickle"
        pairs_path.write_bytes(pickle.dumps(pairs))
        outcome = {}
        for mode in ("ll", "two-stage"):
            out = Path(tmp) / f"{mode}.json"
            command = [sys.executable, __file__, "--mode", mode, "--pairs", str(pairs_path)]
            subprocess.run([*command, "--out", str(out)], check=True)
            outcome[mode] = json.loads(out.read_text())
    ll, two = outcome["ll"], outcome["two-stage"]
    differ = [g for g in ll["golds"] if ll["golds"][g] != two["golds"][g]]
    differ += [
        f"{pair!r}: {a} / {b}"
        for pair, a, b in zip(pairs, ll["pairs"], two["pairs"], strict=True)
        if a != b
    ]
    cut = sum("cut at 5 s" in r for result in ll["pairs"] for r in result)
    print(f"{len(ll['golds']):,} gold readings, {len(pairs):,} candidate readings and verdicts")
    print(f"differences: {len(differ)} ({cut} cut at 5 s in LL mode)")
    for line in differ:
        print("  ", line)
    print(f"CPU: LL {ll['cpu']:.1f} s, two-stage {two['cpu']:.1f} s")


if __name__ == "__main__":
    main()
