"""Exact group figures for metrics that are means over a subset of the samples.

lm-eval 0.4.13 aggregates a group as the mean of its subtasks' values weighted by subtask
size (``lm_eval/api/group.py``). That is exact for plain means, and wrong for a mean over a
subset: level 1 may have 40 correct answers out of 43 and level 5 only 30 of 134. The pooled
value weights each leaf task by the size of its subset, ``share * size``, where the share is
read off per-sample rates the task also reports (repeats included, as every leaf has the same
number of repeats).

A group YAML declares such metrics under ``metadata``:

* ``pooled_over_correct: [metric, ...]``: means over correctly answered samples (MATH-500); the
  share is ``exact_match``.
* ``pooled_over_subset: {metric: {within: [rate, ...]}}`` or ``{metric: {excluding: [rate,
  ...]}}``: the share is the sum of the listed rates, or one minus that sum (the logic suite's
  ``overall_acc`` is a mean over the samples with neither error: ``excluding: [if_error,
  format_error]``).

:func:`install` wraps ``Group.aggregate`` once; it changes only the declared metrics, at every
level of a group tree (each group pools its own leaves), and leaves every other group untouched.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lm_eval.api.group import Group

OVER_CORRECT = ("first_correct_tokens", "reflection_tokens", "token_efficiency")
ACCURACY = "exact_match"


@dataclass(frozen=True)
class Subset:
    """The samples a metric averages over, as a share of a task: the sum of the ``within``
    rates, or one minus the sum of the ``excluding`` rates."""

    within: tuple[str, ...] = ()
    excluding: tuple[str, ...] = ()

    def share(self, res: Mapping[str, Any], filt: str) -> float:
        def total(metrics: tuple[str, ...]) -> float:
            return sum(res.get(f"{m},{filt}", 0.0) for m in metrics)

        return total(self.within) if self.within else 1.0 - total(self.excluding)


CORRECT = Subset(within=(ACCURACY,))


def declared_subsets(metadata: Mapping[str, Any] | None) -> dict[str, Subset]:
    """The pooled metrics a group's metadata declares, with their subsets."""
    metadata = metadata or {}
    out = {m: CORRECT for m in metadata.get("pooled_over_correct") or ()}
    for metric, spec in (metadata.get("pooled_over_subset") or {}).items():
        if (
            not isinstance(spec, Mapping)
            or len(spec) != 1
            or not {"within", "excluding"} >= set(spec)
        ):
            raise ValueError(
                f"pooled_over_subset: {metric}: expected {{within: [rates]}} or "
                f"{{excluding: [rates]}}, got {spec!r}"
            )
        key, rates = next(iter(spec.items()))
        out[metric] = Subset(**{key: tuple(rates)})
    return out


def install() -> None:
    if getattr(Group.aggregate, "_thinkbench", False):
        return
    original = Group.aggregate

    @functools.wraps(original)
    def aggregate(self: Group, task_metrics: dict[str, Any]) -> Any:
        out = original(self, task_metrics)
        subsets = declared_subsets(self.metadata)
        if subsets:
            leaves = [t.task_name for t in self.get_all_tasks() if t.task_name in task_metrics]
            for key in list(out):
                metric, _, filt = key.partition(",")
                if metric in subsets and filt and "_stderr" not in metric:
                    results = [task_metrics[t] for t in leaves]
                    out[key] = pooled_mean(results, metric, filt, subsets[metric])
        return out

    aggregate._thinkbench = True  # type: ignore[attr-defined]
    Group.aggregate = aggregate  # type: ignore[method-assign]


def pooled_mean(
    leaf_results: list[dict[str, Any]], metric: str, filt: str, subset: Subset = CORRECT
) -> float:
    """Mean over the subset's samples across leaves: each leaf weighted by its subset size."""
    total = weight = 0.0
    for res in leaf_results:
        value = res.get(f"{metric},{filt}")
        n = subset.share(res, filt) * res.get("sample_len", 0)
        if n > 0 and isinstance(value, float) and not math.isnan(value):
            total += value * n
            weight += n
    return total / weight if weight else math.nan
