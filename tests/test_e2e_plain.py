"""End to end: a model that writes no thought markers, through the real ``lm_eval`` command.

A non-reasoning model (Qwen2.5-Math, GPT-4o) answers in plain text. Its complete answers are
not truncated, and one cut by the length limit is, although lm-eval's
``local-chat-completions`` passes no finish reason: the filter reads the request's
``max_gen_toks`` (here lowered with ``--gen_kwargs``) from the instances lm-eval filters.
"""

from __future__ import annotations

import json

import pytest
from support import lm_eval_runs
from support.lm_eval_runs import read_results

from lm_eval_thinkbench.simulate.server import FakeOpenAIServer
from lm_eval_thinkbench.tokens import get_counter

pytestmark = pytest.mark.e2e

SHORT_RIGHT = "We have $DE = \\sqrt{51}$.\n\nSo the answer is $\\boxed{\\sqrt{51}}$."
LONG_CUT = "Pair the terms: (1-2) + (3-4) + " * 40  # far past 64 tokens, no answer yet
SHORT_WRONG = "The length is $\\boxed{5}$."
# A lone surrogate (as a server's JSON can carry) must not fail lm-eval's sample log.
SURROGATE = "Total calories: \ud800 $\\boxed{2000}$."
# The first four level-1 problems of MATH-500, in file order (gold sqrt(51), -50, 28, 2000).
RULES = [
    {"match": "Suppose $\\sin D = 0.7$", "content": SHORT_RIGHT, "reasoning_field": None},
    {"match": "Compute: $1-2+3-4", "content": LONG_CUT, "reasoning_field": None},
    {"match": "is parallel to", "content": SHORT_WRONG, "reasoning_field": None},
    {"match": "snack-size tin of peaches", "content": SURROGATE, "reasoning_field": None},
]


def test_plain_answers_are_complete_unless_cut_by_the_limit(tmp_path, math500_path):
    env = {"THINKBENCH_MATH500_PATH": str(math500_path)}
    with FakeOpenAIServer(tmp_path / "server", RULES, reasoning_field="none") as server:
        lm_eval_runs.run(
            *lm_eval_runs.local_chat(server.base_url),
            *("--tasks", "thinkbench_math500_level1", "--limit", "4"),
            *("--gen_kwargs", "max_gen_toks=64"),
            *("--log_samples", "--output_path", str(tmp_path / "out")),
            env=env,
        )
    results, samples = read_results(tmp_path / "out")
    by_answer = {s["doc"]["answer"]: json.loads(s["filtered_resps"][0][0]) for s in samples}
    assert len(samples) == 4
    right, cut, wrong = by_answer["\\sqrt{51}"], by_answer["-50"], by_answer["28"]
    assert {r["markers"] for r in (right, cut, wrong)} == {"none"}
    assert (right["truncated"], cut["truncated"], wrong["truncated"]) == (False, True, False)
    assert (right["correct"], cut["correct"], wrong["correct"]) == (True, False, False)
    # The whole output of a non-reasoning model is its "reasoning" (EvalScope's convention).
    counter = get_counter(None)
    assert right["reasoning_tokens"] == counter.count(SHORT_RIGHT)
    assert right["answer_tokens"] == 0
    assert right["first_correct_source"] == "reasoning"
    surrogate = next(s for s in samples if s["doc"]["answer"] == "2000")
    assert surrogate["resps"][0][0] == SURROGATE.replace("\ud800", "\ufffd")
    assert by_answer["2000"]["correct"] is True
    level = results["results"]["thinkbench_math500_level1"]
    assert level["truncated,thinkbench"] == pytest.approx(1 / 4)
    assert level["exact_match,thinkbench"] == pytest.approx(2 / 4)
