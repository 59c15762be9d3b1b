"""The README's offline demo and the avg@n recipe, run as a user would."""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_support import expected_figures
from support import lm_eval_runs
from support.lm_eval_runs import read_results

from lm_eval_thinkbench import TASKS_DIR
from lm_eval_thinkbench.math500.data import read_math500

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parent.parent


def test_offline_demo_prints_the_per_level_table(tmp_path, math500_path):
    proc = lm_eval_runs.run(
        "--config",
        str(REPO / "configs" / "demo_sim.yaml"),
        env={"THINKBENCH_MATH500_PATH": str(math500_path)},
        plugin=True,
        cwd=tmp_path,
    )
    for row in ["MATH-500 (thinkbench)", *(f"- level {i}" for i in range(1, 6))]:
        assert row in proc.stdout
    assert "token_efficiency" in proc.stdout
    results, samples = read_results(tmp_path / "out" / "demo-sim")
    assert len(samples) == 500

    # thinkbench-replay re-scores the logged responses without generating: same figures.
    lm_eval_runs.run(
        *("--model", "thinkbench-replay"),
        *("--model_args", f"samples={tmp_path / 'out' / 'demo-sim'},strict=true"),
        *("--tasks", "thinkbench_math500", "--output_path", str(tmp_path / "replayed")),
        env={"THINKBENCH_MATH500_PATH": str(math500_path)},
        plugin=True,
    )
    replayed, _ = read_results(tmp_path / "replayed")
    for task, scores in results["results"].items():
        for key, value in scores.items():
            if "," in key and "_stderr" not in key:
                assert replayed["results"][task][key] == pytest.approx(value, nan_ok=True), key


def test_repeats_average_every_sample(tmp_path, math500_path):
    """The README's recipe: a YAML that includes ours and sets ``repeats``."""
    template = Path(TASKS_DIR) / "math500" / "_math500_template_yaml"
    tasks = tmp_path / "my_tasks"
    tasks.mkdir()
    (tasks / "avg3.yaml").write_text(
        f"include: {template}\ntask: thinkbench_math500_avg3\nrepeats: 3\n"
        "dataset_kwargs:\n  level: 2\n"
    )
    lm_eval_runs.run(
        *("--model", "thinkbench-sim", "--model_args", "seed=11"),
        *("--tasks", "thinkbench_math500_avg3", "--include_path", str(tasks)),
        *("--output_path", str(tmp_path / "out")),
        env={"THINKBENCH_MATH500_PATH": str(math500_path)},
        plugin=True,
    )
    results, _ = read_results(tmp_path / "out")
    docs = [d for d in read_math500(math500_path) if d["level"] == 2]
    want = expected_figures(docs, seed=11, repeats=3)["level2"]
    got = results["results"]["thinkbench_math500_avg3"]
    for metric, value in want.items():
        assert got[f"{metric},thinkbench"] == pytest.approx(value, rel=1e-9), metric
