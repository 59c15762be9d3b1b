"""Exact group figures for metrics that are means over a subset of the samples, or ratios.

lm-eval 0.4.13 aggregates a group as the mean of its subtasks' values weighted by subtask
size (``lm_eval/api/group.py``). That is exact for plain means, and wrong for a mean over a
subset: level 1 may have 40 correct answers out of 43 and level 5 only 30 of 134. The pooled
value weights each leaf task by the size of its subset, ``share * size``, where the share is
read off per-sample rates the task also reports (repeats included, as every leaf has the same
number of repeats); a ratio of sums (micro precision) is weighted further by the leaf's mean
denominator per sample.

A group YAML declares such metrics under ``metadata``:

* ``pooled_over_subset: {metric: {within: [rate, ...]}}`` or ``{metric: {excluding: [rate,
  ...]}}``: the share is the sum of the listed rates, or one minus that sum (MATH-500's
  ``token_efficiency`` is a mean over the correctly answered samples: ``within:
  [exact_match]``; the logic suite's ``overall_acc`` one over the samples with neither error:
  ``excluding: [if_error, format_error]``). An optional ``times: [metric, ...]`` multiplies
  the weight by those per-sample means (DeltaBench's micro precision: ``times:
  [flagged_sections]``).
* ``harmonic_means: {metric: [a, b]}``: the metric is the harmonic mean of the group's (pooled)
  ``a`` and ``b`` (micro F1 from micro precision and recall).
* ``stderr_over_problems: [metric, ...]``: per-problem means (avg@k, pass@k, maj@k) whose group
  standard error is the one a single task over all the group's problems would report (the
  sample standard deviation of every per-problem value over the square root of their number).
  lm-eval's ``pooled_sample_stderr`` pools only the within-leaf variances, so it leaves out how
  far the levels' means lie apart; :func:`stderr_over_problems` adds that term back, exactly,
  from each leaf's mean, standard error and size.

:func:`install` wraps ``Group.aggregate`` once; it changes only the declared metrics, at every
level of a group tree (each group pools its own leaves), and leaves every other group untouched.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

from lm_eval.api.group import Group

from lm_eval_thinkbench.stats import harmonic


@dataclass(frozen=True)
class Subset:
    """The samples a metric averages over, as a share of a task (the sum of the ``within``
    rates, or one minus the sum of the ``excluding`` rates), and the per-sample means that
    further weight a ratio of sums (``times``)."""

    within: tuple[str, ...] = ()
    excluding: tuple[str, ...] = ()
    times: tuple[str, ...] = ()

    def size(self, res: Mapping[str, Any], filt: str) -> float:
        """How many samples of the leaf ``res`` the metric averages over."""
        total = sum(_number(res, m, filt) for m in self.within or self.excluding)
        share = total if self.within else 1.0 - total
        return share * res.get("sample_len", 0)

    def weight(self, res: Mapping[str, Any], filt: str) -> float:
        return math.prod((_number(res, m, filt) for m in self.times), start=self.size(res, filt))


def declared_subsets(metadata: Mapping[str, Any] | None) -> dict[str, Subset]:
    """The pooled metrics a group's metadata declares, with their subsets."""
    metadata = metadata or {}
    out: dict[str, Subset] = {}
    for metric, spec in (metadata.get("pooled_over_subset") or {}).items():
        keys = set(spec) - {"times"} if isinstance(spec, Mapping) else set()
        if len(keys) != 1 or not keys <= {"within", "excluding"}:
            raise ValueError(
                f"pooled_over_subset: {metric}: expected {{within: [rates]}} or "
                f"{{excluding: [rates]}}, optionally with times: [metrics]; got {spec!r}"
            )
        out[metric] = Subset(**{k: tuple(v) for k, v in spec.items()})
    return out


def install() -> None:
    if getattr(Group.aggregate, "_thinkbench", False):
        return
    original = Group.aggregate

    @functools.wraps(original)
    def aggregate(self: Group, task_metrics: dict[str, Any]) -> Any:
        out = original(self, task_metrics)
        metadata = self.metadata or {}
        subsets = declared_subsets(metadata)
        harmonic_means = metadata.get("harmonic_means") or {}
        over_problems = set(metadata.get("stderr_over_problems") or ())
        if subsets or harmonic_means or over_problems:
            leaves = [task_metrics[t.task_name] for t in self.get_all_tasks()
                      if t.task_name in task_metrics]  # fmt: skip
            for key in list(out):
                metric, _, filt = key.partition(",")
                if metric in subsets and filt:
                    out[key] = group_subset_mean(leaves, metric, filt, subsets[metric])
                if metric in over_problems and filt:
                    out[f"{metric}_stderr,{filt}"] = stderr_over_problems(leaves, metric, filt)
            for metric, (a, b) in harmonic_means.items():
                for key in [k for k in out if k.startswith(f"{a},")]:
                    filt = key.partition(",")[2]
                    if f"{b},{filt}" in out:
                        out[f"{metric},{filt}"] = harmonic(out[key], out[f"{b},{filt}"])
        return out

    aggregate._thinkbench = True  # type: ignore[attr-defined]
    Group.aggregate = aggregate


def group_subset_mean(
    leaf_results: list[dict[str, Any]], metric: str, filt: str, subset: Subset
) -> float:
    """Mean over the subset's samples across leaves, each leaf weighted by its subset size
    (a group's figure; ``records.pooled_mean`` is the task-level mean it pools).

    NaN when no leaf has a sample in the subset; 0 when some do but every weight is 0 (the
    micro precision of a critic that never flags anything), as at task level.
    """
    total = weight = 0.0
    counted = False
    for res in leaf_results:
        value = res.get(f"{metric},{filt}")
        if subset.size(res, filt) <= 0 or not _is_number(value):
            continue
        counted = True
        w = subset.weight(res, filt)
        total += value * w
        weight += w
    if weight:
        return total / weight
    return 0.0 if counted else math.nan


def stderr_over_problems(leaf_results: list[dict[str, Any]], metric: str, filt: str) -> Any:
    """The standard error of a per-problem mean over all the leaves' problems together.

    Each leaf reports its mean ``m``, size ``n`` and lm-eval's ``mean_stderr`` ``se`` (sample
    standard deviation over ``sqrt(n)``), so its sum of squares about its own mean is
    ``(n - 1) * n * se**2``; the group's is the sum of those plus ``n * (m - M)**2`` per leaf
    (``M`` the group mean), and the standard error is ``sqrt(SS / (N - 1) / N)``. "N/A" where
    a leaf has no standard error (one problem has none; lm-eval writes "N/A") or fewer than two
    problems are counted.
    """
    parts = []
    for res in leaf_results:
        n, value = res.get("sample_len", 0), res.get(f"{metric},{filt}")
        stderr = res.get(f"{metric}_stderr,{filt}")
        if not n or not _is_number(value):
            continue
        if n == 1:
            stderr = 0.0
        if not _is_number(stderr):
            return "N/A"
        parts.append((n, float(value), float(stderr)))
    total = sum(n for n, _, _ in parts)
    if total < 2:
        return "N/A"
    mean = sum(n * m for n, m, _ in parts) / total
    squares = sum((n - 1) * n * se**2 + n * (m - mean) ** 2 for n, m, se in parts)
    return math.sqrt(squares / (total - 1) / total)


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not math.isnan(value)


def _number(res: Mapping[str, Any], metric: str, filt: str) -> float:
    value = res.get(f"{metric},{filt}")
    return float(value) if _is_number(value) else 0.0
