"""The critic tasks' YAMLs list exactly the metrics ``critic.metrics`` declares.

``PROCESSBENCH_METRICS`` and ``DELTABENCH_METRICS`` are where each suite's metric names are
declared (``process_results`` returns those keys); the hand-written task templates and group
YAMLs must list the same names in the same order, and every function they name must load.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lm_eval.tasks._yaml_loader import load_yaml

from lm_eval_thinkbench import TASKS_DIR
from lm_eval_thinkbench.critic import metrics

SUITES = {
    "processbench": ("_processbench_template_yaml", "_thinkbench_processbench.yaml"),
    "deltabench": ("_deltabench_template_yaml", "_thinkbench_deltabench.yaml"),
}
DECLARED = {
    "processbench": metrics.PROCESSBENCH_METRICS,
    "deltabench": metrics.DELTABENCH_METRICS,
}


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_task_and_group_yamls_list_the_declared_metrics(suite):
    template, group = (load_yaml(Path(TASKS_DIR) / suite / name) for name in SUITES[suite])
    declared = list(DECLARED[suite])
    assert [m["metric"] for m in template["metric_list"]] == declared
    assert [m["metric"] for m in group["aggregate_metric_list"]] == declared


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_every_named_function_is_the_suites_own(suite):
    """lm-eval's loader resolves each ``!function``; each must be a function of critic.metrics."""
    template = load_yaml(Path(TASKS_DIR) / suite / SUITES[suite][0])
    named = [m["aggregation"] for m in template["metric_list"]] + [template["process_results"]]
    for function in named:
        assert getattr(metrics, function.__name__) is function
