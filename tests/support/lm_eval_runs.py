"""The one way the tests run lm-eval: its commands as a user types them, or ``simple_evaluate``.

The end-to-end tests check what a user gets (the console scripts, their option parsing, the
task path an install finds, the files a run writes), so they run the real commands as processes
(:func:`run`, :func:`start`): plain ``lm_eval`` with lm-eval's own models
(``local-chat-completions`` against ``thinkbench-sim-server``, see :func:`local_chat`) or, with
``plugin=True``, ``thinkbench-eval`` with this plugin's models. Every run imports the same
``lm_eval_thinkbench`` as the test process (the checkout under test, or the installed wheel),
whatever the caller's ``PYTHONPATH``.

In a source checkout the task YAMLs are not inside lm-eval: plain ``lm_eval`` is given them as
``--include_path`` and ``thinkbench-eval`` adds it itself. A run that passes an include path of
its own gets that one alone (lm-eval takes a single path), so it must hold the tasks it names;
with the plugin's models in a checkout such a run cannot go through ``thinkbench-eval`` (which
refuses a second path there), so it runs what ``thinkbench-eval`` runs, less the task path.

Tests that hand lm-eval a model object run it in process (:func:`evaluate`), with
:func:`support.tasks.task_manager`: the thinkbench YAMLs indexed alone, not lm-eval's whole tree.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import lm_eval_thinkbench
from lm_eval_thinkbench import TASKS_DIR
from lm_eval_thinkbench.cli import tasks_installed

BIN = Path(sys.executable).parent
#: What ``thinkbench-eval`` runs (models registered, then lm-eval's CLI), less the task path.
_PLUGIN_LM_EVAL = (
    "import sys, lm_eval_thinkbench.models; from lm_eval.__main__ import cli_evaluate; "
    "sys.argv = ['lm_eval', *sys.argv[1:]]; cli_evaluate()"
)
#: The folder ``lm_eval_thinkbench`` was imported from, put first on a run's ``PYTHONPATH``.
_CODE = str(Path(lm_eval_thinkbench.__file__).resolve().parent.parent)


def command(args: Sequence[str], plugin: bool = False) -> list[str]:
    """The command line of an lm-eval run with ``args`` (see the module docstring)."""
    own_path = any(a == "--include_path" or a.startswith("--include_path=") for a in args)
    if plugin and own_path and not tasks_installed():
        return [sys.executable, "-c", _PLUGIN_LM_EVAL, *args]
    if plugin:
        return [str(BIN / "thinkbench-eval"), *args]
    task_path = [] if own_path or tasks_installed() else ["--include_path", TASKS_DIR]
    return [str(BIN / "lm_eval"), *args, *task_path]


def environment(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The test process's environment, offline, with ``env`` on top and the code under test
    first on ``PYTHONPATH``."""
    merged = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", **(env or {})}
    merged["PYTHONPATH"] = os.pathsep.join(filter(None, [_CODE, merged.get("PYTHONPATH")]))
    return merged


def start(
    *args: str,
    env: Mapping[str, str] | None = None,
    plugin: bool = False,
    cwd: Path | None = None,
) -> subprocess.Popen[str]:
    """An lm-eval run started in the background (several at once); stdout is discarded and
    stderr kept for :func:`finish`."""
    return subprocess.Popen(
        command(args, plugin),
        env=environment(env),
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(proc: subprocess.Popen[str], timeout: float = 600) -> None:
    """Wait for a run of :func:`start`; a failed run fails the test with its error output."""
    _, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, f"lm-eval run failed:\n{err[-6000:]}"


def run(
    *args: str,
    env: Mapping[str, str] | None = None,
    plugin: bool = False,
    cwd: Path | None = None,
    timeout: float = 600,
) -> subprocess.CompletedProcess[str]:
    """An lm-eval run to its end; a failed run fails the test with the end of its output."""
    cmd = command(args, plugin)
    proc = subprocess.run(
        cmd, env=environment(env), cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
    assert proc.returncode == 0, f"{cmd[:2]} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    return proc


def local_chat(base_url: str, **model_args: object) -> list[str]:
    """The options that point lm-eval's own ``local-chat-completions`` model, with the chat
    template, at the OpenAI-compatible server at ``base_url`` (``.../v1``). ``model_args`` are
    more model arguments; a failed request is retried once (lm-eval's default is three times),
    which keeps a scripted fault's run short."""
    merged = {"model": "sim", "base_url": f"{base_url}/chat/completions", "max_retries": 1}
    merged |= model_args
    joined = ",".join(f"{key}={value}" for key, value in merged.items())
    return ["--model", "local-chat-completions", "--model_args", joined, "--apply_chat_template"]


def read_results(out: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The newest results JSON under ``out`` and every logged sample line."""
    results = sorted(out.rglob("results_*.json"))
    assert results, f"no results under {out}"
    samples = [json.loads(line) for f in sorted(out.rglob("samples_*.jsonl")) for line in f.open()]
    return json.loads(results[-1].read_text()), samples


def evaluate(model: Any, tasks: list[str], task_manager: Any = None, **kwargs: Any) -> Any:
    """``lm_eval.simple_evaluate`` of ``model`` (an lm-eval model object) on ``tasks``, with the
    thinkbench tasks alone indexed unless ``task_manager`` is given."""
    import lm_eval

    from support.tasks import task_manager as thinkbench_tasks

    manager = task_manager if task_manager is not None else thinkbench_tasks()
    return lm_eval.simple_evaluate(model=model, tasks=tasks, task_manager=manager, **kwargs)
