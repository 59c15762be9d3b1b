"""The lm-eval filter that turns each response into a think-efficiency record.

A filter sees every response together with its document, so it is where the gold answer meets
the response; its output (one record per response, as a JSON string) is what
``--log_samples`` writes as ``filtered_resps``, so each logged sample shows how it was split,
graded, located and counted, next to the untouched raw response in ``resps``. JSON text and
not a dict because lm-eval logs every filtered response with ``str()``.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from lm_eval.api.filter import Filter
from tqdm import tqdm

from lm_eval_thinkbench.efficiency import score_response
from lm_eval_thinkbench.harness import settings
from lm_eval_thinkbench.math.grader import default_grader
from lm_eval_thinkbench.tokens import counter_for_run

log = logging.getLogger(__name__)


class ThinkEfficiencyFilter(Filter):
    """``resps`` -> JSON records. Keeps every repeat (``repeats: n``) so metrics average them."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)

    def apply(self, resps: list[list[Any]], docs: list[dict]) -> list[list[str]]:
        run = settings.current()
        counter = counter_for_run(run.tokenizer, list(run.model_names))
        grader = default_grader()
        log.info("thinkbench: counting tokens with %s", counter.name)
        out = []
        for doc_resps, doc in tqdm(
            list(zip(resps, docs, strict=True)), desc="thinkbench scoring", unit="doc", leave=False
        ):
            gold = str(doc["answer"])
            out.append(
                [
                    json.dumps(score_response(r, gold, run.scoring, counter, grader).to_dict())
                    for r in doc_resps
                ]
            )
        return out
