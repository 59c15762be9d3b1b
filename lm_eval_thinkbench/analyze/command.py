"""The shape every ``thinkbench`` subcommand over logged runs shares: its description shown as
written, one or more RUN arguments, and an output folder."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_command(
    commands: Any,
    name: str,
    *,
    help: str,
    description: str,
    runs_help: str,
    output: str,
    output_help: str,
) -> argparse.ArgumentParser:
    """The subparser ``name`` of ``commands`` (``add_subparsers``), with its RUN arguments and
    ``-o/--output`` (default ``output``) already added."""
    parser: argparse.ArgumentParser = commands.add_parser(
        name,
        help=help,
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("runs", nargs="+", metavar="RUN", help=runs_help)
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        default=Path(output),
        help=f"{output_help} (default: %(default)s)",
    )
    return parser
