"""End to end: hostile model output never costs a run.

A scripted OpenAI-compatible server on 127.0.0.1 answers each MATH-500 problem with one
hostile response (a million spaces, a 5,000-digit integer, unbalanced or deeply nested braces,
a lone surrogate, null content, thousands of distinct candidate values, ...), and plain
``lm_eval --model local-chat-completions`` runs the task: it must finish, write one scored
record per document, and stay within the per-sample budget the README states.
"""

from __future__ import annotations

import json
import time

import pytest
from support import lm_eval_runs
from support.lm_eval_runs import read_results

from lm_eval_thinkbench.math500.data import read_math500
from lm_eval_thinkbench.simulate.server import FakeOpenAIServer

pytestmark = pytest.mark.e2e

#: Seconds of scoring per hostile sample the README promises at most (grading deadline 5 s).
BUDGET_S = 10.0

HOSTILE: list[object] = [
    "<think>" + " " * 1_000_000 + "</think> \\boxed{1}",
    "\t\u00a0\u3000" * 400_000,
    "<think>big</think>\\boxed{" + "9" * 5000 + "}",
    "<think>The answer is" + " " * 40_000 + "\\boxed{3}</think>\\boxed{3}",
    "<think>x\ud800</think>\\boxed{\ud800}",
    "<think>a</think>\\boxed{" + "{" * 50_000 + "}" * 50_000 + "}",
    '{"thinkbench_response": 1, "content": ' + "[" * 100_000,
    None,
    "<think>tower</think>\\boxed{5^{5^{5^{5^{5^{5}}}}}}",
    "<think>" + " ".join(f"So x = {i}." for i in range(20_000)) + "</think>\\boxed{7}",
    "\\boxed{" * 100_000,
    "<think>" + "So " * 100_000 + "the answer is " * 50_000 + "</think>",
    "<think>\u0663\u200f\u202e emoji \U0001f600 e\u0301</think>\\boxed{\u0663}",
    "<think>" + ("Wait, " * 200_000) + "</think>\\boxed{2}",
    "</think>" * 100_000,
    "\x00\x01\x02 <think>\x7f</think> \\boxed{\x00}",
]


def test_hostile_responses_are_scored_and_logged(tmp_path, math500_path):
    docs = [d for d in read_math500(math500_path) if d["level"] == 2][: len(HOSTILE)]
    rules = [
        {"match": doc["problem"][-60:], "content": reply, "reasoning_field": None}
        for doc, reply in zip(docs, HOSTILE, strict=True)
    ]
    env = {"THINKBENCH_MATH500_PATH": str(math500_path)}
    with FakeOpenAIServer(tmp_path / "server", rules, reasoning_field="none") as server:
        start = time.monotonic()
        lm_eval_runs.run(
            *lm_eval_runs.local_chat(server.base_url, num_concurrent=4),
            *("--tasks", "thinkbench_math500_level2", "--limit", str(len(HOSTILE))),
            *("--log_samples", "--output_path", str(tmp_path / "out")),
            env=env,
        )
        elapsed = time.monotonic() - start
    results, samples = read_results(tmp_path / "out")
    assert len(samples) == len(HOSTILE)
    for sample in samples:
        record = json.loads(sample["filtered_resps"][0][0])
        assert isinstance(record["correct"], bool) and record["reasoning_tokens"] >= 0
    assert results["results"]["thinkbench_math500_level2"]["exact_match,thinkbench"] >= 0
    assert elapsed < 30 + BUDGET_S * len(HOSTILE)
