"""``thinkbench-eval``: the ``lm_eval`` command, with this plugin's tasks and models known.

Plain ``lm_eval`` finds the tasks once the package is pip-installed (the wheel puts them in
lm-eval's own task tree) but cannot load plugin models, because lm-eval 0.4.13 resolves
``--model`` before anything imports a plugin. This wrapper registers the models first and, in
a source checkout or editable install where the YAMLs are not inside lm-eval, adds the task
folder as ``--include_path``. Every ``lm_eval`` argument and subcommand works unchanged, and
one more is understood: ``--repeats K`` (K samples per problem for the math tasks, with
DeepSeek-R1's sampling where a task decodes greedily), which it passes on as
``--metadata repeats=K`` (``math500.metrics.apply_repeats``), since lm-eval has no such option.
"""

from __future__ import annotations

import sys
from pathlib import Path

from lm_eval_thinkbench import TASKS_DIR


def tasks_installed() -> bool:
    """True when the wheel placed the task YAMLs inside lm-eval's task tree."""
    import lm_eval.tasks

    return any((Path(lm_eval.tasks.__file__).parent / "thinkbench").rglob("*.yaml"))


def with_task_path(argv: list[str]) -> list[str]:
    """``argv`` with ``--include_path`` added when the tasks are not installed in lm-eval."""
    if tasks_installed() or not Path(TASKS_DIR).is_dir():
        return argv
    if any(a == "--include_path" or a.startswith("--include_path=") for a in argv):
        raise SystemExit(
            "thinkbench-eval: this is a source checkout, so the thinkbench tasks need "
            f"--include_path {TASKS_DIR}; lm-eval takes a single include path, so put your "
            "own tasks beside them or pip install the package (non-editable)."
        )
    return [*argv, "--include_path", TASKS_DIR] if argv else argv


def with_repeats(argv: list[str]) -> list[str]:
    """``argv`` with ``--repeats K`` (or ``--repeats=K``) turned into ``--metadata repeats=K``."""
    out: list[str] = []
    args = iter(argv)
    for arg in args:
        if arg != "--repeats" and not arg.startswith("--repeats="):
            out.append(arg)
            continue
        value = arg.partition("=")[2] if "=" in arg else next(args, "")
        if not value.isdigit() or int(value) < 1:
            raise SystemExit(f"thinkbench-eval: --repeats needs a positive integer, got {value!r}")
        out += ["--metadata", f"repeats={int(value)}"]
    return out


def eval_main(argv: list[str] | None = None) -> None:
    from lm_eval.__main__ import cli_evaluate

    import lm_eval_thinkbench.models  # noqa: F401  - registers thinkbench-* models

    args = sys.argv[1:] if argv is None else argv
    sys.argv = [sys.argv[0], *with_task_path(with_repeats(list(args)))]
    cli_evaluate()


if __name__ == "__main__":
    eval_main()
