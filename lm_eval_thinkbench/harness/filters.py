"""The lm-eval filter that turns each MATH-500 response into a think-efficiency record.

The record (split, grade, first-correct position, token counts, and what produced them) is
logged as ``filtered_resps``; see ``harness.records`` for how records travel through lm-eval.
"""

from __future__ import annotations

import logging
from typing import Any

from lm_eval_thinkbench.efficiency import score_response
from lm_eval_thinkbench.harness import settings
from lm_eval_thinkbench.harness.records import RecordFilter
from lm_eval_thinkbench.math.grader import default_grader
from lm_eval_thinkbench.tokens import counter_for_run

# Under lm-eval's logger, so the line shows in an lm_eval run (lm-eval configures only its own).
log = logging.getLogger("lm_eval.thinkbench")


class ThinkEfficiencyFilter(RecordFilter):
    """Scores each response against its document's gold answer (``efficiency.score_response``)."""

    def prepare(self) -> None:
        self.run = settings.current()
        self.counter = counter_for_run(self.run.tokenizer, list(self.run.model_names))
        self.grader = default_grader()
        log.info("thinkbench: counting tokens with %s", self.counter.name)

    def score(self, raw: object, doc: dict[str, Any]) -> dict[str, Any]:
        gold = str(doc["answer"])
        return score_response(raw, gold, self.run.scoring, self.counter, self.grader).to_dict()
