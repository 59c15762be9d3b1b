"""``process_results`` and the aggregation for the logic tasks.

Per document, the filter's records (one per repeat) become means over repeats (aggregated with
lm-eval's ``mean``): ``answer_acc``, ``step_acc``, ``answer_step_acc``, ``if_error``,
``format_error``, ``valid_process``; and, for ``overall_acc``, the list of ``answer_step``
values of the repeats with neither error, aggregated by ``records.pooled_mean``.

``overall_acc`` is a mean over a subset, so a group cannot take the size-weighted mean of its
tasks' values; the group YAMLs declare it under ``pooled_over_subset`` (see
``lm_eval_thinkbench/harness/groups.py``), which this import installs.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean
from typing import Any

from lm_eval_thinkbench.harness import groups
from lm_eval_thinkbench.harness.records import records
from lm_eval_thinkbench.logic.parse import FORMAT_ERROR, IF_ERROR, OK, UNSCORED

groups.install()


def process_results(doc: dict, results: Sequence[Any]) -> dict[str, Any]:
    recs = records(results)
    return {
        "answer_acc": fmean(float(r["answer_correct"]) for r in recs),
        "step_acc": fmean(float(r["step_similarity"]) for r in recs),
        "answer_step_acc": fmean(float(r["answer_step_correct"]) for r in recs),
        "if_error": fmean(float(r["status"] == IF_ERROR) for r in recs),
        "format_error": fmean(float(r["status"] == FORMAT_ERROR) for r in recs),
        "overall_acc": [float(r["answer_step_correct"]) for r in recs if r["status"] == OK],
        "valid_process": fmean(float(r["valid_process"]) for r in recs),
    }


def logicgame_results(doc: dict, results: Sequence[Any]) -> dict[str, Any]:
    """LogicGame's own metrics, over the scored repeats only (lists, aggregated by
    ``records.pooled_mean``: NaN for a task with no reference at all), and ``unscored``, the
    share of repeats without a reference. The groups pool the lists over ``1 - unscored``."""
    recs = records(results)
    scored = [r for r in recs if r["status"] != UNSCORED]
    return {
        "answer_acc": [float(r["answer_correct"]) for r in scored],
        "step_acc": [float(r["step_similarity"]) for r in scored],
        "answer_step_acc": [float(r["answer_step_correct"]) for r in scored],
        "if_error": [float(r["status"] == IF_ERROR) for r in scored],
        "format_error": [float(r["status"] == FORMAT_ERROR) for r in scored],
        "unscored": 1.0 - len(scored) / len(recs),
    }
