"""``thinkbench leaderboard RUN [RUN ...] -o board/``: registered on the ``thinkbench`` command
by ``lm_eval_thinkbench.thinkbench``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from lm_eval_thinkbench.analyze.api import AnalyzeOptions
from lm_eval_thinkbench.analyze.command import add_command
from lm_eval_thinkbench.analyze.samples import InputFormatError
from lm_eval_thinkbench.options import add_shared

DESCRIPTION = """\
One row per model over any number of runs: lm-eval output folders (results_*.json and
samples_*.jsonl; this plugin's tasks and standard ones such as minerva_math500,
hendrycks_math500, aime24, gsm8k), thinkbench analyze outputs (summary.json,
per_sample.jsonl) and thinkbench compare outputs (compare.json). Writes board.md, board.csv,
board.json, the PNG plots and index.html: a self-contained page (open it from disk) with the
sortable table, the per-level plots, the accuracy-vs-reasoning-tokens scatter and a trace view
of every logged sample (loaded from traces/ when opened). Documented in docs/leaderboard.md.
"""


def register(commands: Any) -> None:
    p = add_command(
        commands,
        "leaderboard",
        help="one row per model over many runs: Markdown, CSV, JSON, PNGs and an HTML page",
        description=DESCRIPTION,
        runs_help="a run folder, or NAME=PATH",
        output="board",
        output_help="output folder",
    )
    p.add_argument(
        "--sort", metavar="COLUMN",
        help="order rows by a column (its key, e.g. thinkbench_math500:exact_match, or its "
        "label), best first; add :asc or :desc to choose",
    )  # fmt: skip
    p.add_argument(
        "--rename", action="append", default=[], metavar="OLD=NEW",
        help="show model OLD as NEW (repeatable)",
    )  # fmt: skip
    p.add_argument("--no-traces", action="store_true", help="no trace view (faster)")
    # Declared once, as analyze's (``options.add_shared``); here the workers score the traces.
    add_shared(
        p,
        AnalyzeOptions,
        ("plots", "workers"),
        workers="processes that score the traces (default: %(default)s)",
    )
    p.set_defaults(run=main)


def parse_renames(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        old, sep, new = pair.partition("=")
        if not sep or not old or not new:
            raise ValueError(f"--rename takes OLD=NEW, not {pair!r}")
        out[old] = new
    return out


def main(args: argparse.Namespace) -> int:
    from lm_eval_thinkbench.board.collect import collect
    from lm_eval_thinkbench.board.table import build
    from lm_eval_thinkbench.board.traces import run_traces
    from lm_eval_thinkbench.board.write import write_board

    try:
        renames = parse_renames(args.rename)
        board = build(collect(args.runs, renames), args.sort)
        traces = [] if args.no_traces else run_traces(args.runs, renames, args.workers)
    except (InputFormatError, ValueError) as exc:
        print(f"thinkbench leaderboard: {exc}", file=sys.stderr)
        return 2
    files = write_board(args.output, board, traces, plots=args.plots)
    print(
        f"{len(board.models)} models, {len(board.columns)} columns, {len(traces)} traces; "
        f"in {args.output}: " + ", ".join(p.name for p in files)
    )
    return 0
