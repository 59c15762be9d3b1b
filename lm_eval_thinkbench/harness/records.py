"""Per-sample records through lm-eval, shared by every suite of the plugin.

Each suite scores a response into one *record* (a JSON-ready dict) inside an lm-eval filter:
the filter is where a response meets its document, and its output is what ``--log_samples``
writes as ``filtered_resps``, next to the untouched response in ``resps``. Records travel as
JSON text because lm-eval logs every filtered response with ``str()``. ``process_results``
turns a document's records (one per repeat) into metric items, and :func:`pooled_mean`
aggregates metrics defined on a subset of the samples.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from statistics import fmean
from typing import Any

from lm_eval.api.filter import Filter
from tqdm import tqdm


class RecordFilter(Filter):
    """``resps`` -> one JSON record per response, every repeat kept (``repeats: n``).

    Subclasses implement :meth:`score`; :meth:`prepare` runs once per ``apply`` for work that
    should not be repeated per response (loading a tokenizer, starting the grading pool).
    """

    #: The progress bar's label.
    desc = "thinkbench scoring"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)

    def prepare(self) -> None:
        """Per-run set-up before scoring; nothing by default."""

    def score(self, raw: object, doc: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def apply(self, resps: list[list[Any]], docs: list[dict]) -> list[list[str]]:
        self.prepare()
        pairs = list(zip(resps, docs, strict=True))
        return [
            [json.dumps(self.score(raw, doc), ensure_ascii=False) for raw in doc_resps]
            for doc_resps, doc in tqdm(pairs, desc=self.desc, unit="doc", leave=False)
        ]


def records(results: Sequence[Any]) -> list[dict[str, Any]]:
    """The records of one document, as ``process_results`` receives them (lm-eval wraps the
    per-document list once more)."""
    per_doc = results[0] if isinstance(results[0], list) else results
    return [json.loads(r) if isinstance(r, str) else r for r in per_doc]


def pooled_mean(items: Iterable[Sequence[float]]) -> float:
    """Mean of per-document value lists, pooled over samples; NaN when no sample qualified.

    For metrics defined on a subset of the samples (correct answers, error-free outputs): each
    document contributes the values of its qualifying repeats, possibly none.
    """
    values = [v for per_doc in items for v in per_doc]
    return fmean(values) if values else math.nan
