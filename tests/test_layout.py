"""The floor plan: shared layers know no suite, and a suite's filter loads only what it needs."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import lm_eval_thinkbench

PACKAGE = Path(lm_eval_thinkbench.__file__).parent
#: What a response says and how it is graded, located and carried through lm-eval: every
#: suite builds on these, so none of them may import a suite or a tool above them.
SHARED = (
    "__init__.py",
    "datafiles.py",
    "flags.py",
    "lifetime.py",
    "moved.py",
    "options.py",
    "reading.py",
    "response.py",
    "sections.py",
    "settings.py",
    "stats.py",
    "steps.py",
    "tokens.py",
    "trace.py",
    "harness",
    "judge",
    "locate",
    "math",
)
ABOVE = {
    "analyze",
    "board",
    "cli",
    "compare",
    "critic",
    "efficiency",
    "logic",
    "math500",
    "models",
    "simulate",
}


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _layer(module: str) -> str | None:
    """``lm_eval_thinkbench.X...`` -> ``X``; None for another package's module."""
    parts = module.split(".")
    return parts[1] if parts[0] == "lm_eval_thinkbench" and len(parts) > 1 else None


def test_shared_layers_import_no_suite():
    files = [p for name in SHARED for p in sorted((PACKAGE / name).glob("**/*.py"))] + [
        PACKAGE / name for name in SHARED if name.endswith(".py")
    ]
    upward = {
        f"{path.relative_to(PACKAGE)} -> {module}"
        for path in files
        for module in _imports(path)
        if _layer(module) in ABOVE
    }
    assert not upward


def test_the_logic_filter_does_not_start_the_math_grading_stack():
    """A logic run grades no formula: math-verify, its pebble pool and the MATH-500 suite stay
    unloaded (they take seconds to import and start)."""
    code = (
        "import sys, lm_eval_thinkbench.logic.filters, lm_eval_thinkbench.logic"
        ".metrics; print(sorted(m for m in ('math_verify', 'pebble', 'lm_eval_thinkbench.math500',"
        " 'lm_eval_thinkbench.math.grader') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_old_scoring_path_still_imports():
    """Code written against ``lm_eval_thinkbench.efficiency`` gets the same objects."""
    from lm_eval_thinkbench import efficiency, reading
    from lm_eval_thinkbench.math500 import score

    assert efficiency.score_response is score.score_response
    assert efficiency.SampleRecord is score.SampleRecord
    assert efficiency.ScoringConfig is reading.ScoringConfig


def test_analyze_knows_no_other_tool():
    """``thinkbench``'s subcommands meet in ``lm_eval_thinkbench.thinkbench``, not in analyze."""
    others = {
        f"{path.relative_to(PACKAGE)} -> {module}"
        for path in sorted((PACKAGE / "analyze").glob("**/*.py"))
        for module in _imports(path)
        if _layer(module) in {"board", "compare"}
    }
    assert not others


def test_the_thinkbench_console_script_runs_every_subcommand(capsys):
    """The installed ``thinkbench`` is the dispatcher's ``main``, and it reaches every tool."""
    import tomllib

    from lm_eval_thinkbench.thinkbench import build_parser, main

    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    scripts = tomllib.loads(pyproject.read_text())["project"]["scripts"]
    assert scripts["thinkbench"] == "lm_eval_thinkbench.thinkbench:main"
    commands = next(a for a in build_parser()._actions if a.dest == "command")
    assert set(commands.choices) == {"analyze", "compare", "leaderboard"}
    for command in commands.choices:
        with pytest.raises(SystemExit) as exit:
            main([command, "--help"])
        assert exit.value.code == 0
        assert capsys.readouterr().out.startswith(f"usage: thinkbench {command}")
