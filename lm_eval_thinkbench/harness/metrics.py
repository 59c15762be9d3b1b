"""``process_results`` and aggregations for the MATH-500 tasks.

Per document, the filter's records (one per repeat) become:

* means over repeats, aggregated with lm-eval's ``mean`` (so ``repeats: n`` gives avg@n):
  ``exact_match``, ``reasoning_tokens``, ``answer_tokens``, ``truncated``, ``thought_num``;
* lists of the values of the correctly answered repeats, aggregated by
  ``records.pooled_mean`` (the mean over all correctly answered samples):
  ``first_correct_tokens``, ``reflection_tokens``, ``token_efficiency``.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean
from typing import Any

from lm_eval_thinkbench.harness import groups
from lm_eval_thinkbench.harness.records import records

MEAN_METRICS = ("reasoning_tokens", "answer_tokens", "truncated", "thought_num")

groups.install()


def process_results(doc: dict, results: Sequence[Any]) -> dict[str, Any]:
    recs = records(results)
    correct = [r for r in recs if r["correct"]]
    out: dict[str, Any] = {"exact_match": fmean(float(r["correct"]) for r in recs)}
    for name in MEAN_METRICS:
        out[name] = fmean(float(r[name]) for r in recs)
    for name in groups.OVER_CORRECT:
        out[name] = [r[name] for r in correct]
    return out
