"""``thinkbench compare RUN [RUN ...]``: our verdicts beside the standard harness graders'.

Registered on the ``thinkbench`` command by ``lm_eval_thinkbench.thinkbench``; reads runs as
``thinkbench analyze`` does (any of its formats, ``NAME=PATH`` labels).
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from lm_eval_thinkbench.analyze.api import AnalyzeOptions
from lm_eval_thinkbench.analyze.command import add_command
from lm_eval_thinkbench.analyze.readers import read_runs
from lm_eval_thinkbench.analyze.samples import InputFormatError
from lm_eval_thinkbench.analyze.select import select
from lm_eval_thinkbench.options import add_shared

DESCRIPTION = """\
Grade the same responses with this project's checker and with the standard lm-eval graders:
hendrycks_math500 (is_equiv), minerva_math500 (its sympy exact_match and its math_verify
metric) and plain math-verify. Writes compare.md (per-grader accuracy, and every document
where the graders disagree with the strings each one compared), compare.json and compare.csv.
minerva's sympy comparison runs with sympy's lark LaTeX parser (docs/compare.md says why).
"""


def register(commands: Any) -> None:
    p = add_command(
        commands,
        "compare",
        help="our verdicts beside the standard harness graders' on the same responses",
        description=DESCRIPTION,
        runs_help="a log folder or file, or NAME=PATH",
        output="thinkbench-compare",
        output_help="folder for compare.md/.json/.csv",
    )
    # Declared once, as analyze's (``options.add_shared``); --gold also brings the solutions.
    add_shared(
        p,
        AnalyzeOptions,
        ("input_format", "gold", "limit"),
        gold="the dataset (MATH-500's test.jsonl): its answers replace the logged golds and "
        "its solutions are what the harness graders read, matched by problem text",
    )
    p.set_defaults(run=main)


def main(args: argparse.Namespace) -> int:
    from lm_eval_thinkbench.analyze.gold import read_gold, with_gold
    from lm_eval_thinkbench.compare.core import compare, with_solutions
    from lm_eval_thinkbench.compare.report import write_compare
    from lm_eval_thinkbench.datafiles import DatasetError, read_records

    # math-verify logs every parse that times out with the whole text it parsed
    logging.getLogger("math_verify").setLevel(logging.CRITICAL)
    try:
        samples = select(read_runs(args.runs, args.input_format).samples, args.limit)
        solutions = None
        if args.gold is not None:
            samples = with_gold(samples, read_gold(args.gold))
            try:
                records = read_records(args.gold, "records with problem and solution")
            except DatasetError as exc:
                raise InputFormatError(f"--gold: {exc}") from None
            solutions = with_solutions(samples, records)
    except (InputFormatError, ValueError) as exc:
        print(f"thinkbench compare: {exc}", file=sys.stderr)
        return 2
    rows, summaries = compare(samples, solutions)
    files = write_compare(args.output, rows, summaries)
    for s in summaries:
        print(
            f"{s.model} · {s.task}: {s.samples} responses, "
            + ", ".join(f"{g} {a:.3f}" for g, a in s.accuracy.items())
            + f"; {len(s.disagreements)} disagree"
        )
    print(f"reports in {args.output}: " + ", ".join(p.name for p in files))
    return 0
