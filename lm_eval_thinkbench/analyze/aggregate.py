"""From per-sample records to the reported figures: means with 95% bootstrap intervals.

Every metric is a mean of one ``SampleRecord`` field over the samples it *covers*, as the
MATH-500 metric table declares (``math500.table``):

* all samples: accuracy, reasoning and answer tokens, thought switches, truncated rate,
  solution rounds, outcome efficiency;
* correctly answered samples: first-correct tokens, reflection tokens, token efficiency,
  redundant sections (EvalScope's coverage for the first three);
* wrongly answered samples: underthinking (Wang et al. 2025 average over wrong responses);
* samples with a verdict the producing run logged: logged accuracy (that run's own grader).

A sample whose locator failed (``locator_error``) has no value for the figures that need the
first-correct position and is left out of those means only; the failures are counted per group.
Figures are given per subset and overall (all subsets of a model pooled, each sample once).

Intervals are percentile bootstraps over the covered samples of a group (resampled with
replacement, ``iterations`` times, seeded per model, subset and metric so that adding a model
or a metric changes no other interval). The unit resampled is the problem: the repeats of one
problem are not independent draws (a hard problem is hard for every repeat), so a resample
draws problems with all their covered samples and takes the mean over those samples (a cluster
bootstrap). With one sample per problem this is the ordinary bootstrap of the samples.
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from statistics import fmean, median

import numpy as np

from lm_eval_thinkbench.analyze.samples import subset_order
from lm_eval_thinkbench.analyze.score import Scored
from lm_eval_thinkbench.math500.table import REPORTED, Metric

OVERALL = "overall"


def covered_value(metric: Metric, scored: Scored) -> float | None:
    """The metric's value on one sample, None when the metric does not cover the sample."""
    if metric.covers == "logged":
        logged = scored.sample.logged_correct
        return None if logged is None else float(logged)
    record = scored.record
    if metric.covers == "correct" and not record.correct:
        return None
    if metric.covers == "wrong" and record.correct:
        return None
    raw = getattr(record, metric.record_field)
    return None if raw is None else float(raw)


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
    """The figures of one model on one subset (or ``overall``).

    ``tokenizer`` and ``markers`` name the counter and the reasoning marker set its records
    were measured with (comma-separated if they differ, empty for a group with no sample).
    """

    model: str
    subset: str
    samples: int
    judge_errors: int
    dropped: int
    logged_disagreements: int
    stats: dict[str, Stat] = field(default_factory=dict)
    agreement: Agreement | None = None
    tokenizer: str = ""
    markers: str = ""


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
    stats = {}
    for m in REPORTED:
        covered = [(v, s) for s in members if (v := covered_value(m, s)) is not None]
        stats[m.name] = mean_with_interval(
            [v for v, _ in covered],
            iterations,
            confidence,
            f"{seed}|{model}|{subset}|{m.name}",
            clusters=[(s.sample.task, s.sample.sample_id) for _, s in covered],
        )
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
        tokenizer=", ".join(sorted({s.record.tokenizer for s in members})),
        markers=", ".join(sorted({s.record.markers for s in members})),
    )


def mean_with_interval(
    values: Sequence[float],
    iterations: int,
    confidence: float,
    seed: str,
    clusters: Sequence[Hashable] | None = None,
) -> Stat:
    """The mean and its percentile-bootstrap interval (seeded by the string ``seed``).

    ``clusters`` names each value's problem: a resample draws as many problems as there are,
    with replacement, and averages all the values of the problems drawn (see the module
    docstring). Without it every value is its own problem.
    """
    n = len(values)
    if n == 0:
        return Stat(None, None, None, 0)
    mean = fmean(values)
    if n == 1 or iterations < 1:
        return Stat(mean, mean, mean, n)
    rng = np.random.default_rng(int(hashlib.sha256(seed.encode()).hexdigest()[:16], 16))
    sums, sizes = cluster_totals(values, clusters)
    k = len(sums)
    singletons = k == n  # every draw then holds k values: no need to add up the sizes
    means = np.empty(iterations)
    chunk = max(1, 2_000_000 // k)  # bound the index matrix to ~16 MB
    for start in range(0, iterations, chunk):
        rows = min(chunk, iterations - start)
        drawn = rng.integers(0, k, size=(rows, k))
        drawn_sizes = k if singletons else sizes[drawn].sum(axis=1)
        means[start : start + rows] = sums[drawn].sum(axis=1) / drawn_sizes
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return Stat(mean, float(low), float(high), n)


def cluster_totals(
    values: Sequence[float], clusters: Sequence[Hashable] | None
) -> tuple[np.ndarray, np.ndarray]:
    """Per cluster, in order of first appearance: the sum of its values and their number."""
    if clusters is None:
        return np.asarray(values, dtype=float), np.ones(len(values))
    if len(clusters) != len(values):
        raise ValueError(f"{len(clusters)} cluster keys for {len(values)} values")
    index: dict[Hashable, int] = {}
    ids = np.fromiter((index.setdefault(c, len(index)) for c in clusters), int, len(clusters))
    sums = np.bincount(ids, weights=np.asarray(values, dtype=float))
    return sums, np.bincount(ids).astype(float)


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
