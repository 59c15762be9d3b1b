"""The lm-eval filter that turns each response into a logic score record.

The record (status, answer and step scores, replay) is what ``--log_samples`` writes as
``filtered_resps``, next to the untouched raw response in ``resps``. Scoring reads only the text
after the reasoning: a response with no end-of-reasoning marker is truncated and has no answer
part.
"""

from __future__ import annotations

from typing import Any

from lm_eval_thinkbench.harness.records import RecordFilter
from lm_eval_thinkbench.logic.logicgame import reference_of
from lm_eval_thinkbench.logic.parse import UNSCORED
from lm_eval_thinkbench.logic.score import Reference, score_output
from lm_eval_thinkbench.trace import MarkerSet, split_trace


def score_logic_response(
    doc: dict[str, Any], raw: object, markers: str | MarkerSet
) -> dict[str, Any]:
    """The logic record of one response to ``doc`` (what :class:`LogicFilter` logs)."""
    trace = split_trace(raw, markers)
    record = score_output(Reference.from_doc(doc), None if trace.truncated else trace.answer)
    record["truncated"] = trace.truncated
    return record


class LogicFilter(RecordFilter):
    """Scores each response against its item's reference answer and steps."""

    def score(self, raw: object, doc: dict[str, Any]) -> dict[str, Any]:
        return score_logic_response(doc, raw, self.markers)


class LogicGameFilter(RecordFilter):
    """Scores a reply to one of LogicGame's own items against its reference, or records it
    unscored (the whole sets have none); either way the record keeps the reply's answer part
    (``answer_text``), which the leaderboard submission is made of."""

    def score(self, raw: object, doc: dict[str, Any]) -> dict[str, Any]:
        trace = split_trace(raw, self.markers)
        answer = None if trace.truncated else trace.answer
        ref = reference_of(doc)
        record: dict[str, Any] = (
            {"status": UNSCORED, "error": None} if ref is None else score_output(ref, answer)
        )
        record["truncated"] = trace.truncated
        record["answer_text"] = answer
        return record
