"""The lm-eval filter that turns each math response (MATH-500, AIME, AMC) into a record.

The record (split, grade, first-correct position, token counts, and what produced them) is
logged as ``filtered_resps``; see ``harness.records`` for how records travel through lm-eval.
With several samples per document each record also carries ``vote``: the repeat index of the
first sample whose answer the grader finds equivalent to its own (None without an answer), from
which ``process_results`` takes the majority answer (``math500.sampling``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from lm_eval_thinkbench.harness import settings
from lm_eval_thinkbench.harness.records import RecordFilter
from lm_eval_thinkbench.math.grader import default_grader
from lm_eval_thinkbench.math500.sampling import vote_classes
from lm_eval_thinkbench.math500.score import score_response
from lm_eval_thinkbench.response import ModelResponse


class ThinkEfficiencyFilter(RecordFilter):
    """Scores each response against its document's gold answer (``score.score_response``)."""

    def prepare(self) -> None:
        self.scoring = dataclasses.replace(settings.current().scoring, markers=self.markers)
        self.grader = default_grader()

    def score(self, raw: ModelResponse, doc: dict[str, Any]) -> dict[str, Any]:
        gold = str(doc["answer"])
        problem = doc.get("problem")
        return score_response(
            raw,
            gold,
            self.scoring,
            self.counter,
            self.grader,
            problem=problem if isinstance(problem, str) else None,
        ).to_dict()

    def score_doc(self, responses: list[ModelResponse], doc: dict[str, Any]) -> list[dict]:
        records = super().score_doc(responses, doc)
        votes = vote_classes(
            [r["extracted"] for r in records],
            lambda answer, openers: self.grader.first_equivalent(answer, openers).index,
        )
        for record, vote in zip(records, votes, strict=True):
            record["vote"] = vote
        return records
