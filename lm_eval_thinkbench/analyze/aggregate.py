"""From per-sample records to the reported figures: means with 95% bootstrap intervals.

Every metric is a mean of one ``SampleRecord`` field over the samples it *covers*:

* all samples: accuracy, reasoning and answer tokens, thought switches, truncated rate,
  solution rounds, outcome efficiency;
* correctly answered samples: first-correct tokens, reflection tokens, token efficiency,
  redundant sections (EvalScope's coverage for the first three);
* wrongly answered samples: underthinking (Wang et al. 2025 average over wrong responses).

A sample whose locator failed (``locator_error``) has no value for the figures that need the
first-correct position and is left out of those means only; the failures are counted per group.
Figures are given per subset and overall (all subsets of a model pooled, each sample once).

Intervals are percentile bootstraps over the covered samples of a group (resampled with
replacement, ``iterations`` times, seeded per model, subset and metric so that adding a model
or a metric changes no other interval). Repeats of a problem count as separate samples.
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from statistics import fmean, median

import numpy as np

from lm_eval_thinkbench.analyze.samples import subset_order
from lm_eval_thinkbench.analyze.score import Scored

OVERALL = "overall"


@dataclass(frozen=True)
class Metric:
    """A reported figure: the record field it averages and the samples it covers."""

    name: str
    label: str
    covers: str  # "all", "correct" or "wrong"

    def value(self, scored: Scored) -> float | None:
        record = scored.record
        if self.covers == "correct" and not record.correct:
            return None
        if self.covers == "wrong" and record.correct:
            return None
        raw = record.correct if self.name == "accuracy" else getattr(record, self.name)
        return None if raw is None else float(raw)


METRICS: tuple[Metric, ...] = (
    Metric("accuracy", "Accuracy", "all"),
    Metric("reasoning_tokens", "Reasoning tokens", "all"),
    Metric("first_correct_tokens", "First-correct tokens", "correct"),
    Metric("reflection_tokens", "Reflection tokens", "correct"),
    Metric("token_efficiency", "Token efficiency", "correct"),
    Metric("thought_num", "Thought switches", "all"),
    Metric("truncated", "Truncated rate", "all"),
    Metric("outcome_efficiency", "Outcome efficiency", "all"),
    Metric("underthinking", "Underthinking", "wrong"),
    Metric("solution_rounds", "Solution rounds", "all"),
    Metric("redundant_sections", "Redundant sections", "correct"),
    Metric("answer_tokens", "Answer tokens", "all"),
)
METRIC_BY_NAME = {m.name: m for m in METRICS}
#: The six metrics of the per-model figure, in EvalScope's order.
PLOTTED = (
    "reasoning_tokens",
    "first_correct_tokens",
    "reflection_tokens",
    "token_efficiency",
    "thought_num",
    "accuracy",
)


@dataclass(frozen=True)
class Stat:
    """A mean over ``n`` samples and its interval (None when ``n`` is 0)."""

    mean: float | None
    low: float | None
    high: float | None
    n: int


@dataclass(frozen=True)
class Agreement:
    """``both`` mode: how often the rule and the judge name the same first-correct step.

    ``compared`` counts samples where neither failed; ``agree`` those with the same step (or
    both none). Token distance |judge − rule| of first-correct tokens is summarised over the
    disagreements where both give a value; ``one_sided`` counts disagreements where one of them
    found no position at all.
    """

    compared: int
    agree: int
    distance_n: int
    distance_mean: float | None
    distance_median: float | None
    one_sided: int

    @property
    def rate(self) -> float | None:
        return self.agree / self.compared if self.compared else None


@dataclass(frozen=True)
class Group:
    """The figures of one model on one subset (or ``overall``)."""

    model: str
    subset: str
    samples: int
    judge_errors: int
    dropped: int
    logged_disagreements: int
    stats: dict[str, Stat] = field(default_factory=dict)
    agreement: Agreement | None = None


def aggregate(
    scored: Sequence[Scored],
    dropped: dict[tuple[str, str], int],
    iterations: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> list[Group]:
    """Groups per model, subsets in level order then ``overall``, models in input order."""
    by_model: dict[str, dict[str, list[Scored]]] = defaultdict(lambda: defaultdict(list))
    for s in scored:
        by_model[s.sample.model][s.sample.subset].append(s)
    for model, subset in dropped:
        by_model[model].setdefault(subset, [])
    groups = []
    for model, subsets in by_model.items():
        for subset in sorted(subsets, key=subset_order):
            members = subsets[subset]
            groups.append(
                _group(
                    model,
                    subset,
                    members,
                    dropped.get((model, subset), 0),
                    iterations,
                    confidence,
                    seed,
                )
            )
        everything = [s for members in subsets.values() for s in members]
        lost = sum(n for (m, _), n in dropped.items() if m == model)
        groups.append(_group(model, OVERALL, everything, lost, iterations, confidence, seed))
    return groups


def _group(
    model: str,
    subset: str,
    members: list[Scored],
    dropped: int,
    iterations: int,
    confidence: float,
    seed: int,
) -> Group:
    stats = {
        m.name: mean_with_interval(
            [v for v in (m.value(s) for s in members) if v is not None],
            iterations,
            confidence,
            f"{seed}|{model}|{subset}|{m.name}",
        )
        for m in METRICS
    }
    has_rule = any(s.rule is not None for s in members)
    return Group(
        model=model,
        subset=subset,
        samples=len(members),
        judge_errors=sum(1 for s in members if s.record.locator_error is not None),
        dropped=dropped,
        logged_disagreements=sum(
            1
            for s in members
            if s.sample.logged_correct is not None and s.sample.logged_correct != s.checker_correct
        ),
        stats=stats,
        agreement=agreement(members) if has_rule else None,
    )


def mean_with_interval(
    values: Sequence[float], iterations: int, confidence: float, seed: str
) -> Stat:
    """The mean and its percentile-bootstrap interval (seeded by the string ``seed``)."""
    n = len(values)
    if n == 0:
        return Stat(None, None, None, 0)
    mean = fmean(values)
    if n == 1 or iterations < 1:
        return Stat(mean, mean, mean, n)
    rng = np.random.default_rng(int(hashlib.sha256(seed.encode()).hexdigest()[:16], 16))
    data = np.asarray(values, dtype=float)
    means = np.empty(iterations)
    chunk = max(1, 2_000_000 // n)  # bound the index matrix to ~16 MB
    for start in range(0, iterations, chunk):
        rows = min(chunk, iterations - start)
        means[start : start + rows] = data[rng.integers(0, n, size=(rows, n))].mean(axis=1)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return Stat(mean, float(low), float(high), n)


def agreement(members: Iterable[Scored]) -> Agreement:
    compared = agree = one_sided = 0
    distances: list[float] = []
    for s in members:
        judge, rule = s.record, s.rule
        if rule is None or judge.locator_error is not None or rule.locator_error is not None:
            continue
        compared += 1
        if judge.first_correct_step == rule.first_correct_step:
            agree += 1
        elif judge.first_correct_tokens is not None and rule.first_correct_tokens is not None:
            distances.append(abs(judge.first_correct_tokens - rule.first_correct_tokens))
        else:
            one_sided += 1
    return Agreement(
        compared=compared,
        agree=agree,
        distance_n=len(distances),
        distance_mean=fmean(distances) if distances else None,
        distance_median=float(median(distances)) if distances else None,
        one_sided=one_sided,
    )


def finite(value: float | None) -> float | None:
    """None for None or NaN (JSON has no NaN)."""
    return None if value is None or math.isnan(value) else value
