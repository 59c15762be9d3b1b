"""The lm-eval filter that turns each math response (MATH-500, AIME, AMC) into a record.

The record (split, grade, first-correct position, token counts, and what produced them) is
logged as ``filtered_resps``; see ``harness.records`` for how records travel through lm-eval.
With several samples per document each record also carries ``vote``: the repeat index of the
first sample whose answer the grader finds equivalent to its own (None without an answer), from
which ``process_results`` takes the majority answer (``math500.sampling``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Iterable
from typing import Any

from lm_eval_thinkbench.harness import settings
from lm_eval_thinkbench.harness.records import RecordFilter
from lm_eval_thinkbench.math.grader import default_grader
from lm_eval_thinkbench.math500.sampling import vote_classes
from lm_eval_thinkbench.math500.score import score_response, verdict_keys
from lm_eval_thinkbench.response import ModelResponse


class ThinkEfficiencyFilter(RecordFilter):
    """Scores each response against its document's gold answer (``score.score_response``).

    Eight documents at once (``RecordFilter.threads``): a document waits for its checks in the
    grading worker about a third of its time on real traces, and the others' text work fills
    that wait. With two, both were often waiting at once (each document's first wait is its
    final answer's check, right after it starts): on the 500 real Sky-T1 traces, on an idle
    2-core machine, 2 threads gave 21-24 ms per document, 4 gave 19-21.5 and 8 gave 18-20
    (``benchmarks/harness_overhead.py --threads``). The threads take turns, so more of them
    cost no CPU; a real check takes well under a second, so the queue they make at the
    grading worker stays far inside its wall-clock backstop. Documents whose golds have the
    same normal form (the gold as written, and without its unit as the locator grades it: a
    coarser key than the grader's verdict cache's, so it covers every verdict they share) are
    scored in order, one after another, so every record is what it is when scored alone in
    order.
    """

    threads = 8

    def prepare(self) -> None:
        self.scoring = dataclasses.replace(settings.current().scoring, markers=self.markers)
        self.grader = default_grader()
        # Started here, in the calling thread, rather than by the first check on a scoring
        # thread: workers forked from this thread die with the process (``Grader._pool``).
        self.grader.start(wait=False)

    def conflict_keys(self, doc: dict[str, Any]) -> Iterable[Hashable]:
        return verdict_keys(str(doc["answer"]))

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
        with self.grader.waiting_in(self.handing_over):  # the other document scores meanwhile
            records = super().score_doc(responses, doc)
            votes = vote_classes(
                [r["extracted"] for r in records],
                lambda answer, openers: self.grader.first_equivalent(answer, openers).index,
            )
        for record, vote in zip(records, votes, strict=True):
            record["vote"] = vote
        return records
