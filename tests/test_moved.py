"""Old import paths still give the objects they moved to (docs/moved.md), with a warning.

The list holds every ``!function`` path the task YAMLs named before the reorganisation (a
user's own YAML may still name them), and the documented names that moved or were renamed.
"""

from __future__ import annotations

import importlib
import re
import warnings
from pathlib import Path

import pytest
from lm_eval.tasks._yaml_loader import load_yaml

CRITIC_METRICS = (
    "correct_acc", "deltabench_results", "error_acc", "excluded", "f1_macro", "f1_micro",
    "flagged_sections", "precision_macro", "precision_micro", "processbench_f1",
    "processbench_results", "recall_macro", "recall_micro", "true_sections", "unparsed",
)  # fmt: skip
#: old path -> new path, both ``module.name``.
ALIASES = {
    **{
        f"lm_eval_thinkbench.critic.harness.{name}": f"lm_eval_thinkbench.critic.metrics.{name}"
        for name in CRITIC_METRICS
    },
    **{
        f"lm_eval_thinkbench.critic.harness.{name}": f"lm_eval_thinkbench.critic.filters.{name}"
        for name in ("ProcessBenchFilter", "DeltaBenchFilter", "processbench_record")
    },
    **{
        f"lm_eval_thinkbench.critic.sections.{name}": f"lm_eval_thinkbench.sections.{name}"
        for name in ("split_sections", "redundant_reflection", "Section", "Redundancy")
    },
    "lm_eval_thinkbench.logic.harness.data.load_logic": "lm_eval_thinkbench.logic.data.load_logic",
    "lm_eval_thinkbench.logic.harness.filters.LogicFilter": (
        "lm_eval_thinkbench.logic.filters.LogicFilter"
    ),
    "lm_eval_thinkbench.logic.harness.filters.LogicGameFilter": (
        "lm_eval_thinkbench.logic.filters.LogicGameFilter"
    ),
    "lm_eval_thinkbench.logic.harness.filters.score_response": (
        "lm_eval_thinkbench.logic.filters.score_logic_response"
    ),
    "lm_eval_thinkbench.logic.harness.metrics.process_results": (
        "lm_eval_thinkbench.logic.metrics.process_results"
    ),
    "lm_eval_thinkbench.logic.harness.metrics.logicgame_results": (
        "lm_eval_thinkbench.logic.metrics.logicgame_results"
    ),
    "lm_eval_thinkbench.logic.harness.logicgame.load_logicgame": (
        "lm_eval_thinkbench.logic.logicgame_files.load_logicgame"
    ),
    "lm_eval_thinkbench.logic.base.Subclass": "lm_eval_thinkbench.logic.base.TaskType",
    "lm_eval_thinkbench.logic.base.ExecutionSubclass": (
        "lm_eval_thinkbench.logic.base.ExecutionTaskType"
    ),
    "lm_eval_thinkbench.logic.base.PlanningSubclass": (
        "lm_eval_thinkbench.logic.base.PlanningTaskType"
    ),
    "lm_eval_thinkbench.efficiency.LocatorError": "lm_eval_thinkbench.locate.rule.LocatorFailure",
}
DOC = Path(__file__).resolve().parents[1] / "docs" / "moved.md"


def _resolve(path: str) -> object:
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize(("old", "new"), sorted(ALIASES.items()))
def test_an_old_path_gives_the_same_object_and_names_the_new_one(old, new):
    with pytest.warns(DeprecationWarning, match=re.escape(f"{old} is now {new};")):
        assert _resolve(old) is _resolve(new)


def test_a_name_that_never_was_is_still_an_attribute_error():
    from lm_eval_thinkbench.critic import harness
    from lm_eval_thinkbench.logic import base

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning either
        assert not hasattr(harness, "no_such_metric")
        assert not hasattr(harness, "_private")
        assert not hasattr(base, "TaskTypo")


def test_an_old_function_path_in_a_task_yaml_still_loads(tmp_path):
    """What lm-eval does with a user's YAML that names an old ``!function`` path."""
    yaml = tmp_path / "mine.yaml"
    yaml.write_text(
        "process_results: !function lm_eval_thinkbench.critic.harness.processbench_results\n"
        "custom_dataset: !function lm_eval_thinkbench.logic.harness.data.load_logic\n"
    )
    with pytest.warns(DeprecationWarning):
        config = load_yaml(str(yaml))
    from lm_eval_thinkbench.critic.metrics import processbench_results
    from lm_eval_thinkbench.logic.data import load_logic

    assert config["process_results"] is processbench_results
    assert config["custom_dataset"] is load_logic


def test_the_docs_list_every_alias_and_nothing_else():
    """docs/moved.md's first table covers exactly the aliased old paths (its last row, the
    re-exports of ``efficiency``, has no warning and is checked by test_layout)."""
    table = DOC.read_text(encoding="utf-8").split("## Moved without an alias", 1)[0]
    documented = set(re.findall(r"^\| `(lm_eval_thinkbench\.[A-Za-z_.]+)`", table, re.MULTILINE))
    documented.discard("lm_eval_thinkbench.efficiency")

    def covers(doc: str, old: str) -> bool:
        return old == doc or old.startswith(doc + ".")

    assert all(any(covers(d, old) for d in documented) for old in ALIASES)
    assert all(any(covers(d, old) for old in ALIASES) for d in documented)
