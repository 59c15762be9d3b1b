"""Exact group figures for the metrics averaged over correctly answered samples.

lm-eval 0.4.13 aggregates a group as the mean of its subtasks' values weighted by subtask
size (``lm_eval/api/group.py``). That is exact for plain means, and wrong for a mean over a
subset: level 1 may have 40 correct answers out of 43 and level 5 only 30 of 134. The pooled
value weights each level by its number of correct samples, which is ``exact_match * size``
(repeats included, as every level has the same number of repeats).

:func:`install` wraps ``Group.aggregate`` once; it changes only the metrics that a group's
YAML lists under ``metadata: pooled_over_correct`` and leaves every other group untouched.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from lm_eval.api.group import Group

OVER_CORRECT = ("first_correct_tokens", "reflection_tokens", "token_efficiency")
ACCURACY = "exact_match"


def install() -> None:
    if getattr(Group.aggregate, "_thinkbench", False):
        return
    original = Group.aggregate

    @functools.wraps(original)
    def aggregate(self: Group, task_metrics: dict[str, Any]) -> Any:
        out = original(self, task_metrics)
        pooled = (self.metadata or {}).get("pooled_over_correct") or ()
        if pooled:
            leaves = [t.task_name for t in self.get_all_tasks() if t.task_name in task_metrics]
            for key in list(out):
                metric, _, filt = key.partition(",")
                if metric in pooled and filt and "_stderr" not in metric:
                    out[key] = pooled_mean([task_metrics[t] for t in leaves], metric, filt)
        return out

    aggregate._thinkbench = True  # type: ignore[attr-defined]
    Group.aggregate = aggregate  # type: ignore[method-assign]


def pooled_mean(leaf_results: list[dict[str, Any]], metric: str, filt: str) -> float:
    """Mean over correct samples across leaves: each leaf weighted by its correct count."""
    total = weight = 0.0
    for res in leaf_results:
        value = res.get(f"{metric},{filt}")
        n_correct = res.get(f"{ACCURACY},{filt}", 0.0) * res.get("sample_len", 0)
        if n_correct > 0 and isinstance(value, float) and not math.isnan(value):
            total += value * n_correct
            weight += n_correct
    return total / weight if weight else math.nan
