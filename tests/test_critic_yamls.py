"""The critic tasks' YAMLs list exactly the metrics ``critic.metrics`` declares.

``PROCESSBENCH_METRICS`` and ``DELTABENCH_METRICS`` are where each suite's metric names are
declared (``process_results`` returns those keys); the hand-written task templates and group
YAMLs must list the same names in the same order, and every aggregation they name must exist.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
import yaml

from lm_eval_thinkbench import TASKS_DIR
from lm_eval_thinkbench.critic import metrics


class _Loader(yaml.SafeLoader):
    """Reads ``!function a.b.c`` as the string ``a.b.c``."""


_Loader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))

SUITES = {
    "processbench": ("_processbench_template_yaml", "_thinkbench_processbench.yaml"),
    "deltabench": ("_deltabench_template_yaml", "_thinkbench_deltabench.yaml"),
}
DECLARED = {
    "processbench": metrics.PROCESSBENCH_METRICS,
    "deltabench": metrics.DELTABENCH_METRICS,
}


def _load(suite: str, name: str) -> dict:
    return yaml.load((Path(TASKS_DIR) / suite / name).read_text(encoding="utf-8"), _Loader)


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_task_and_group_yamls_list_the_declared_metrics(suite):
    template, group = (_load(suite, name) for name in SUITES[suite])
    declared = list(DECLARED[suite])
    assert [m["metric"] for m in template["metric_list"]] == declared
    assert [m["metric"] for m in group["aggregate_metric_list"]] == declared


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_every_named_function_exists(suite):
    template = _load(suite, SUITES[suite][0])
    paths = [m["aggregation"] for m in template["metric_list"]] + [template["process_results"]]
    for path in paths:
        module, _, name = path.rpartition(".")
        assert callable(getattr(importlib.import_module(module), name)), path
