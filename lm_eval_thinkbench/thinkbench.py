"""``thinkbench``: one command over the tools that read logged runs.

Each tool registers its own subcommand (``analyze``, ``compare``, ``leaderboard``) and runs it
(``args.run``); this module only puts them under one name, so that no tool has to know the
others.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from lm_eval_thinkbench.analyze import subcommand as analyze_subcommand
from lm_eval_thinkbench.board import cli as board_cli
from lm_eval_thinkbench.compare import cli as compare_cli


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="thinkbench", description="lm-eval-thinkbench tools")
    commands = parser.add_subparsers(dest="command", required=True)
    for tool in (analyze_subcommand, compare_cli, board_cli):
        tool.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
