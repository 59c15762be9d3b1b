"""Small simulated lm-eval runs shared by the compare and leaderboard tests (made once per
session by the ``demo_runs`` fixture in conftest.py).

Each run is one ``lm_eval`` call with the simulated reasoner on ``thinkbench_math500`` and
``hendrycks_math500`` at ``--limit 2`` (``hendrycks_math500`` on the local MATH-500 copy:
the harness's own task YAML, included, with only its dataset pointed at the file), so the
standard grader's own per-sample verdicts are logged beside ours.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from support import lm_eval_runs

from lm_eval_thinkbench import TASKS_DIR
from lm_eval_thinkbench.compare.lm_eval_graders import task_folder

#: Runs made: label -> simulator seed.
SEEDS = {"sim-a": 0, "sim-b": 1}
LIMIT = 2
HENDRYCKS_LOCAL = "hendrycks_math500_local"


def task_dir(root: Path, math500: Path) -> Path:
    """One include path holding this plugin's tasks and the local hendrycks_math500 (lm-eval
    takes a single include path and does not follow symbolic links)."""
    tasks = root / "tasks"
    shutil.copytree(TASKS_DIR, tasks / "thinkbench")
    include = task_folder("hendrycks_math") / "hendrycks_math500.yaml"
    (tasks / f"{HENDRYCKS_LOCAL}.yaml").write_text(
        f"include: {include}\ntask: {HENDRYCKS_LOCAL}\ndataset_path: json\n"
        f"dataset_name: null\ndataset_kwargs:\n  data_files:\n    test: {math500}\n"
    )
    return tasks


def make_runs(root: Path, math500: Path) -> dict[str, Path]:
    """The runs of :data:`SEEDS`, made at once (label -> output folder)."""
    tasks = task_dir(root, math500)
    env = {"THINKBENCH_MATH500_PATH": str(math500)}
    procs = {}
    for label, seed in SEEDS.items():
        tasks_arg = f"thinkbench_math500,{HENDRYCKS_LOCAL}" if seed == 0 else "thinkbench_math500"
        procs[label] = lm_eval_runs.start(
            *("--model", "thinkbench-sim", "--model_args", f"seed={seed}", "--tasks", tasks_arg),
            *("--include_path", str(tasks), "--limit", str(LIMIT)),
            *("--log_samples", "--output_path", str(root / label)),
            env=env,
            plugin=True,
        )
    for proc in procs.values():
        lm_eval_runs.finish(proc)
    return {label: root / label for label in SEEDS}
