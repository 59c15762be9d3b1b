"""Exact DeltaBench group figures: pooled over the domains' scored samples.

lm-eval 0.4.13 aggregates a group as the size-weighted mean of its subtasks' values
(``lm_eval/api/group.py``). For the DeltaBench domains that is wrong twice over: macro figures
average over *scored* samples only (not every sample has usable labels), and micro precision
and recall are ratios of sums. Both are recovered exactly from figures each domain reports:

* a macro figure or a per-sample mean weights a domain by its scored samples,
  ``sample_len * (1 - excluded)``;
* micro precision weights it by its flagged sections, ``... * flagged_sections`` (a domain's
  micro precision times its flagged count is its true-positive count); micro recall by its
  true sections, ``... * true_sections``;
* micro F1 is the harmonic mean of the pooled micro precision and recall, which equals
  2·TP / (2·TP + FP + FN) over all domains.

:func:`install` wraps ``Group.aggregate`` once and changes only groups whose YAML sets
``metadata: pooled_sections: true``. It is the same kind of re-weighting as
``harness.groups`` (means over correct answers) and can move there once that mechanism takes
per-metric weights.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any

from lm_eval.api.group import Group

from lm_eval_thinkbench.critic.scoring import harmonic

#: metric -> leaf metrics multiplied into its weight (besides the scored-sample count).
WEIGHTS: dict[str, tuple[str, ...]] = {
    "precision_macro": (),
    "recall_macro": (),
    "f1_macro": (),
    "flagged_sections": (),
    "true_sections": (),
    "precision_micro": ("flagged_sections",),
    "recall_micro": ("true_sections",),
}
EXCLUDED = "excluded"
_MARK = "_thinkbench_pooled_sections"


def install() -> None:
    if getattr(Group.aggregate, _MARK, False):
        return
    original = Group.aggregate

    @functools.wraps(original)
    def aggregate(self: Group, task_metrics: dict[str, Any]) -> Any:
        out = original(self, task_metrics)
        if (self.metadata or {}).get("pooled_sections"):
            leaves = [task_metrics[t.task_name] for t in self.get_all_tasks()
                      if t.task_name in task_metrics]
            out.update(pooled_figures(leaves, out))
        return out

    setattr(aggregate, _MARK, True)
    Group.aggregate = aggregate  # type: ignore[method-assign]


def pooled_figures(
    leaves: list[Mapping[str, Any]], group: Mapping[str, Any]
) -> dict[str, float]:
    """The pooled value of every metric in ``WEIGHTS`` (and ``f1_micro``) the group reports."""
    out: dict[str, float] = {}
    for key in group:
        metric, _, filt = key.partition(",")
        if metric in WEIGHTS and filt:
            out[key] = pooled_mean(leaves, metric, filt)
    for key in group:
        metric, _, filt = key.partition(",")
        if metric == "f1_micro" and filt:
            precision = out.get(f"precision_micro,{filt}", math.nan)
            recall = out.get(f"recall_micro,{filt}", math.nan)
            out[key] = harmonic(precision, recall)
    return out


def pooled_mean(leaves: list[Mapping[str, Any]], metric: str, filt: str) -> float:
    """Weighted mean of the leaves' values.

    NaN when no leaf has a scored sample; 0 when samples were scored but every weight is 0
    (micro precision of a critic that never flags anything), as at task level.
    """
    total = weight = 0.0
    scored = False
    for leaf in leaves:
        value = leaf.get(f"{metric},{filt}")
        base = leaf.get("sample_len", 0) * (1.0 - _number(leaf, EXCLUDED, filt))
        if base <= 0 or not isinstance(value, (int, float)) or math.isnan(value):
            continue
        scored = True
        w = base
        for factor in WEIGHTS[metric]:
            w *= _number(leaf, factor, filt)
        total += value * w
        weight += w
    if weight:
        return total / weight
    return 0.0 if scored else math.nan


def _number(leaf: Mapping[str, Any], metric: str, filt: str) -> float:
    value = leaf.get(f"{metric},{filt}")
    return value if isinstance(value, (int, float)) and not math.isnan(value) else 0.0
