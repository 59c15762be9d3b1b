"""The lm-eval filter that turns each response into a logic score record.

The record (status, answer and step scores, replay) is what ``--log_samples`` writes as
``filtered_resps``, next to the untouched raw response in ``resps``. Scoring reads only the text
after the reasoning: a response with no end-of-reasoning marker is truncated and has no answer
part.
"""

from __future__ import annotations

from typing import Any

from lm_eval.api.filter import Filter

from lm_eval_thinkbench.harness import settings
from lm_eval_thinkbench.logic.score import Reference, score_output
from lm_eval_thinkbench.trace import split_trace


def score_response(doc: dict[str, Any], raw: object, markers: str) -> dict[str, Any]:
    trace = split_trace(raw, markers)
    record = score_output(Reference.from_doc(doc), None if trace.truncated else trace.answer)
    record["truncated"] = trace.truncated
    return record


class LogicFilter(Filter):
    """``resps`` -> records. Keeps every repeat (``repeats: n``) so metrics can average them."""

    def apply(self, resps: list[list[Any]], docs: list[dict]) -> list[list[dict]]:
        markers = settings.current().scoring.markers
        return [
            [score_response(doc, r, markers) for r in rs]
            for rs, doc in zip(resps, docs, strict=True)
        ]
