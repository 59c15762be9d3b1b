"""``process_results`` and aggregations for the MATH-500 tasks.

Per document, the filter's records (one per repeat) become:

* means over repeats, aggregated with lm-eval's ``mean`` (so ``repeats: n`` gives avg@n):
  ``exact_match``, ``reasoning_tokens``, ``answer_tokens``, ``truncated``, ``thought_num``;
* lists of the values of the correctly answered repeats, aggregated by :func:`mean_over_correct`
  (the mean over all correctly answered samples): ``first_correct_tokens``,
  ``reflection_tokens``, ``token_efficiency``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from statistics import fmean
from typing import Any

from lm_eval_thinkbench.harness import groups

MEAN_METRICS = ("reasoning_tokens", "answer_tokens", "truncated", "thought_num")

groups.install()


def process_results(doc: dict, results: Sequence[Any]) -> dict[str, Any]:
    records = [json.loads(r) for r in (results[0] if isinstance(results[0], list) else results)]
    correct = [r for r in records if r["correct"]]
    out: dict[str, Any] = {"exact_match": fmean(float(r["correct"]) for r in records)}
    for name in MEAN_METRICS:
        out[name] = fmean(float(r[name]) for r in records)
    for name in groups.OVER_CORRECT:
        out[name] = [r[name] for r in correct]
    return out


def mean_over_correct(items: Sequence[Sequence[float]]) -> float:
    """Mean of the per-document lists, pooled; NaN when no sample was answered correctly."""
    values = [v for per_doc in items for v in per_doc]
    return fmean(values) if values else math.nan
