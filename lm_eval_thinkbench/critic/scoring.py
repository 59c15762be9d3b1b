"""Scores of critic and PRM predictions, per sample and over a set of samples.

DeltaBench (section level). For one sample with true error sections T (the union of error and
unuseful sections) and predicted sections P:

    TP = |P ∩ T|, FP = |P - T|, FN = |T - P|
    precision = TP / (TP + FP), recall = TP / (TP + FN), F1 = their harmonic mean

each 0 when its denominator is 0 (so "no error" on a sample with errors scores 0, 0, 0).
*Macro* figures average the per-sample values (DeltaBench's headline macro-F1); *micro* figures
pool TP, FP and FN over the samples first. Only samples with at least one true error section
are scored, as in the reference script.

The reference script also drops predicted numbers larger than the largest true section before
counting; ``reference_filter=True`` does the same (the harness's default, under the official
reading). Without it every prediction counts, so a critic that flags a late, correct section
is charged a false positive: a precision stricter than the published one.

ProcessBench (step level): accuracy on the erroneous samples (prediction == the label),
accuracy on the correct samples (prediction == -1), and their harmonic mean, the ProcessBench
F1. An unreadable prediction is wrong on either kind.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import fmean

from lm_eval_thinkbench.stats import harmonic


@dataclass(frozen=True)
class SectionScore:
    tp: int
    fp: int
    fn: int
    precision: float
    recall: float
    f1: float


def score_sections(
    predicted: Iterable[int], truth: Iterable[int], reference_filter: bool = False
) -> SectionScore:
    """One sample's section-level score; duplicates in ``predicted`` count once."""
    true_set, pred_set = set(truth), set(predicted)
    if reference_filter and true_set:
        pred_set = {n for n in pred_set if n <= max(true_set)}
    tp = len(pred_set & true_set)
    fp = len(pred_set - true_set)
    fn = len(true_set - pred_set)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return SectionScore(tp, fp, fn, precision, recall, harmonic(precision, recall))


MACRO = ("precision_macro", "recall_macro", "f1_macro")
MICRO = ("precision_micro", "recall_micro", "f1_micro")
#: The section figures in DeltaBench's reporting order (F1 first), for tables and metric lists.
SECTION_FIGURES = ("f1_macro", "precision_macro", "recall_macro", "f1_micro", "precision_micro",
                   "recall_micro")  # fmt: skip


def summarize_sections(scores: Sequence[SectionScore]) -> dict[str, float]:
    """Macro and micro precision, recall and F1 over scored samples (NaN when there are none)."""
    if not scores:
        return dict.fromkeys(MACRO + MICRO, math.nan)
    tp = sum(s.tp for s in scores)
    fp = sum(s.fp for s in scores)
    fn = sum(s.fn for s in scores)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return {
        "precision_macro": fmean(s.precision for s in scores),
        "recall_macro": fmean(s.recall for s in scores),
        "f1_macro": fmean(s.f1 for s in scores),
        "precision_micro": precision,
        "recall_micro": recall,
        "f1_micro": harmonic(precision, recall),
    }


def processbench_summary(pairs: Iterable[tuple[int, int | None]]) -> dict[str, float]:
    """``error_acc``, ``correct_acc`` and ``f1`` from (label, prediction) pairs.

    A side with no samples is NaN, and so is the F1 then.
    """
    on_error: list[bool] = []
    on_correct: list[bool] = []
    for label, prediction in pairs:
        (on_correct if label == -1 else on_error).append(prediction == label)
    error_acc = fmean(on_error) if on_error else math.nan
    correct_acc = fmean(on_correct) if on_correct else math.nan
    f1 = harmonic(error_acc, correct_acc)
    return {"error_acc": error_acc, "correct_acc": correct_acc, "f1": f1}
