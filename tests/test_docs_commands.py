"""Every command the README and ``docs/*.md`` show names a subcommand and flags that exist.

The shell blocks of the docs are parsed with the real argument parsers (``thinkbench``,
``thinkbench-logic``, ``thinkbench-prm``, ``thinkbench-sim-server``); for ``lm_eval`` and
``thinkbench-eval``, whose commands hold placeholders (``--model ...``), every ``--flag`` must
be one of lm-eval's ``run`` options (or ``--repeats``, which ``thinkbench-eval`` adds); a
``python FILE`` must name a file of the checkout, a ``python -m MODULE`` a module. A renamed
flag or subcommand then fails here instead of in a reader's shell. Nothing is executed.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import re
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"^ *```(?:bash|sh|shell)\n(.*?)^ *```", re.M | re.S)


def _commands(page: Path) -> list[list[str]]:
    """The commands of a page's shell blocks: continuation lines joined, comments dropped,
    ``a && b`` split, ``x=$(cmd)`` read as ``cmd``."""
    commands = []
    for block in _BLOCK.findall(page.read_text(encoding="utf-8")):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line.replace("$(", " ").replace(")", " "), comments=True)
            while words:
                cut = words.index("&&") if "&&" in words else len(words)
                head, words = words[:cut], words[cut + 1 :]
                if head and "=" in head[0] and not head[0].startswith("-"):
                    head = head[1:]  # sim=... : the command after the assignment
                if head:
                    commands.append(head)
    return commands


def _parsers() -> dict[str, Callable[[], argparse.ArgumentParser]]:
    from lm_eval_thinkbench.critic import prm_cli
    from lm_eval_thinkbench.logic import cli as logic_cli
    from lm_eval_thinkbench.simulate import server
    from lm_eval_thinkbench.thinkbench import build_parser

    return {
        "thinkbench": build_parser,
        "thinkbench-logic": logic_cli.build_parser,
        "thinkbench-prm": prm_cli._parser,
        "thinkbench-sim-server": server.build_parser,
    }


@functools.cache
def _lm_eval_flags() -> frozenset[str]:
    from lm_eval._cli import HarnessCLI

    run = HarnessCLI()._subparsers.choices["run"]
    return frozenset(flag for action in run._actions for flag in action.option_strings)


ALL = [(page, words) for page in PAGES for words in _commands(page)]


def test_the_docs_show_commands() -> None:
    """The extraction finds the commands (a broken pattern would pass every check below)."""
    programs = {words[0] for _, words in ALL}
    assert {"thinkbench", "thinkbench-eval", "lm_eval", "thinkbench-logic"} <= programs
    assert len(ALL) > 30


@pytest.mark.parametrize(
    ("page", "words"),
    [pytest.param(p, w, id=f"{p.name}:{' '.join(w)[:60]}") for p, w in ALL],
)
def test_doc_command_parses(page: Path, words: list[str]) -> None:
    program, args = words[0], words[1:]
    parsers = _parsers()
    if (
        program == "python"
        and args[:1] == ["-m"]
        and args[1] == "lm_eval_thinkbench.critic.prm_cli"
    ):
        program, args = "thinkbench-prm", args[2:]
    if program in parsers:
        try:
            parsers[program]().parse_args(args)
        except SystemExit as exc:  # argparse's usage error (2), or --help (0)
            assert exc.code == 0, f"{page.name}: {' '.join(words)} does not parse"
    elif program in ("lm_eval", "thinkbench-eval"):
        known = _lm_eval_flags() | ({"--repeats"} if program == "thinkbench-eval" else set())
        flags = {w.split("=")[0] for w in args if w.startswith("--")}
        assert flags <= known, f"{page.name}: unknown {program} flags {sorted(flags - known)}"
        if args[:1] not in (["ls"], ["validate"], ["run"]):
            assert "--tasks" in flags or "--config" in flags, f"{page.name}: {' '.join(words)}"
    elif program == "python" and args[0] == "-m":
        assert importlib.util.find_spec(args[1]), f"{page.name}: no module {args[1]}"
    elif program == "python":
        assert (ROOT / args[0]).is_file(), f"{page.name}: no {args[0]}"
