"""``process_results`` and the aggregation for the logic tasks.

Per document, the filter's records (one per repeat) become means over repeats (aggregated with
lm-eval's ``mean``): ``answer_acc``, ``step_acc``, ``answer_step_acc``, ``if_error``,
``format_error``, ``valid_process``; and, for ``overall_acc``, the list of ``answer_step``
values of the repeats with neither error, aggregated by :func:`mean_over_valid`.

``overall_acc`` is a mean over a subset, so a group cannot take the size-weighted mean of its
tasks' values; the group YAMLs declare it under ``pooled_over_subset`` (see
``lm_eval_thinkbench/harness/groups.py``), which this import installs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import fmean
from typing import Any

from lm_eval_thinkbench.harness import groups
from lm_eval_thinkbench.logic.parse import FORMAT_ERROR, IF_ERROR, OK

groups.install()


def process_results(doc: dict, results: Sequence[Any]) -> dict[str, Any]:
    records = results[0] if isinstance(results[0], list) else list(results)
    return {
        "answer_acc": fmean(float(r["answer_correct"]) for r in records),
        "step_acc": fmean(float(r["step_similarity"]) for r in records),
        "answer_step_acc": fmean(float(r["answer_step_correct"]) for r in records),
        "if_error": fmean(float(r["status"] == IF_ERROR) for r in records),
        "format_error": fmean(float(r["status"] == FORMAT_ERROR) for r in records),
        "overall_acc": [float(r["answer_step_correct"]) for r in records if r["status"] == OK],
        "valid_process": fmean(float(r["valid_process"]) for r in records),
    }


def mean_over_valid(items: Sequence[Sequence[float]]) -> float:
    """Pooled mean of the per-document lists; NaN when every sample had an error."""
    values = [v for per_doc in items for v in per_doc]
    return fmean(values) if values else math.nan
