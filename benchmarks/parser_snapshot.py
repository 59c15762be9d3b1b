"""Build the grading workers' parser snapshot (``math/parser_snapshot.py``) and check it.

``build`` fills latex2sympy's ANTLR DFAs the way a grading worker does, from inputs the check
never sees: the 500 MATH-500 golds, every worker call of ``thinkbench analyze`` (rule locator)
on the Qwen2.5-Math-7B outputs and on 200 simulated traces (the simulator's seeds 0..199, as
the verdict-identity dumps make them) and the answer statements of the 10 R1 traces, parsed
as candidates; then it writes ``math/latex_dfa.json.gz``. Run
it again when latex2sympy2_extended or the ANTLR runtime changes (a snapshot written for
another parser is refused, and workers start cold as before).

``check`` collects every worker call of the same analyze on the Sky-T1 traces (not used to
build) and replays them in two fresh processes, one cold and one with the snapshot loaded:
every gold reading, candidate reading (``verify.candidate_readings``) and first match
(``verify.first_equivalent``) is compared, and the CPU of each process printed, the load
included. It asserts nothing; every difference is printed (there should be none).

    python benchmarks/parser_snapshot.py build
    python benchmarks/parser_snapshot.py check [--run FILE]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("TQDM_DISABLE", "1")

from lm_eval_thinkbench.analyze import score
from lm_eval_thinkbench.analyze.api import AnalyzeOptions, analyze
from lm_eval_thinkbench.locate.rule import find_statements
from lm_eval_thinkbench.math import grader, parser_snapshot, verify
from lm_eval_thinkbench.math500.data import read_math500
from lm_eval_thinkbench.simulate import simulate

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("THINKBENCH_DATA", REPO.parent / "shared" / "data"))
GOLD = DATA / "math500" / "test.jsonl"
QWEN = DATA / "outputs" / "skythought_qwen2.5-math-7b_math500.jsonl"
SKY = DATA / "traces" / "skythought_sky-t1-27b_math500.jsonl"
R1_TRACES = ("r1_openrouter_math_train.json", "r1_8b_ollama_math_train.json")

Call = tuple[str, list[str]]


class _Inline(grader.Grader):
    """A grader that runs each worker call in this process and records it."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[Call] = []

    def _run_call(
        self, gold: str, candidates: list[str], budget: float, wall_end: float
    ) -> grader._Outcome:
        self.calls.append((gold, list(candidates)))
        return grader._Outcome("done", found=verify.first_equivalent(gold, candidates))


def _prepare_worker() -> None:
    logging.getLogger("math_verify").setLevel(logging.ERROR)
    verify.install_numeric_witness()
    verify.install_two_stage_parsing()


def worker_calls(run: Path, gold: Path | None, out: Path) -> list[Call]:
    """Every worker call of ``thinkbench analyze`` (rule locator) on ``run``, run here."""
    inline = _Inline()
    score.default_grader = lambda preload=True: inline  # type: ignore[assignment]
    options = AnalyzeOptions(
        runs=[str(run)],
        output=out,
        gold=gold,
        locator="rule",
        plots=False,
        progress=False,
        workers=1,
    )
    analyze(options)
    return inline.calls


def _simulated(path: Path) -> Path:
    with path.open("w", encoding="utf-8") as out:
        for i, doc in enumerate(read_math500(GOLD)[:200]):
            trace = simulate(doc, seed=i)
            record = {"id": i, "problem": doc["problem"], "gold": doc["answer"]}
            out.write(json.dumps({**record, "response": trace.inline()}) + "\n")
    return path


def build() -> None:
    _prepare_worker()
    verify.warm_up()
    for doc in read_math500(GOLD):
        verify._gold_readings(doc["answer"])
    with tempfile.TemporaryDirectory() as tmp:
        calls = worker_calls(QWEN, GOLD, Path(tmp) / "qwen")
        calls += worker_calls(_simulated(Path(tmp) / "sim.jsonl"), None, Path(tmp) / "sim")
    statements = sorted(
        {
            (trace["gtruth_answer"], statement.value)
            for name in R1_TRACES
            for trace in json.loads((DATA / "traces" / name).read_text(encoding="utf-8"))
            for statement in find_statements(trace["message_thinking"])
        }
    )
    for gold, value in statements:  # parsed only: the DFAs hold predictions, not verdicts
        verify.candidate_readings(gold, value)
    states = parser_snapshot.dump(parser_snapshot.SNAPSHOT)
    size = parser_snapshot.SNAPSHOT.stat().st_size
    print(f"{len(calls)} worker calls, {len(statements)} R1 statements; {states} DFA states, "
          f"{size:,} bytes")  # fmt: skip


def _replay(calls_path: str, snapshot: bool, out_path: str) -> None:
    """One side of the check, in this (fresh) process."""
    _prepare_worker()
    start = time.process_time()
    loaded = parser_snapshot.load() if snapshot else False
    verify.warm_up()
    results: list[Any] = []
    for gold, candidates in json.loads(Path(calls_path).read_text()):
        rewritten = verify.rewrite_answer(gold).text
        readings = [repr(verify.candidate_readings(rewritten, c)) for c in candidates]
        found = verify.first_equivalent(gold, candidates)
        results.append([repr(verify._gold_readings(gold)), readings, found])
    cpu = time.process_time() - start
    Path(out_path).write_text(json.dumps({"results": results, "cpu": cpu, "loaded": loaded}))


def check(run: Path) -> None:
    _prepare_worker()
    with tempfile.TemporaryDirectory() as tmp:
        calls = worker_calls(run, GOLD, Path(tmp) / "out")
        calls_path = Path(tmp) / "calls.json"
        calls_path.write_text(json.dumps(calls))
        outcome = {}
        for side in ("cold", "snapshot"):
            out = Path(tmp) / f"{side}.json"
            command = [sys.executable, __file__, "replay", "--calls", str(calls_path)]
            command += ["--out", str(out)] + (["--snapshot"] if side == "snapshot" else [])
            subprocess.run(command, check=True)
            outcome[side] = json.loads(out.read_text())
    cold, warm = outcome["cold"], outcome["snapshot"]
    differ = [
        f"{call[0]!r}: {a} / {b}"
        for call, a, b in zip(calls, cold["results"], warm["results"], strict=True)
        if a != b
    ]
    candidates = sum(len(c) for _, c in calls)
    print(f"{len(calls)} worker calls, {candidates} candidates; snapshot loaded: {warm['loaded']}")
    print(f"differences: {len(differ)}")
    for line in differ:
        print("  ", line)
    print(
        f"CPU (load and warm-up included): cold {cold['cpu']:.2f} s, snapshot {warm['cpu']:.2f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("build", "check", "replay"))
    parser.add_argument("--run", type=Path, default=SKY, help="check: the run to replay")
    parser.add_argument("--calls", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--snapshot", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.action == "build":
        build()
    elif args.action == "check":
        check(args.run)
    else:
        _replay(args.calls, args.snapshot, args.out)


if __name__ == "__main__":
    main()
