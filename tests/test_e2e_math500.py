"""End to end: the real ``lm_eval`` command on all 500 MATH-500 problems.

A simulated reasoning model behind a real HTTP server on 127.0.0.1 (OpenAI chat API) writes
R1-style traces with known truth; every per-level and group figure must equal that truth.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from e2e_support import expected_figures, sim_server
from support import lm_eval_runs
from support.lm_eval_runs import read_results

from lm_eval_thinkbench.math500.data import read_math500

pytestmark = pytest.mark.e2e
SEED = 7
METRICS = (
    "exact_match",
    "reasoning_tokens",
    "answer_tokens",
    "truncated",
    "thought_num",
    "first_correct_tokens",
    "reflection_tokens",
    "token_efficiency",
)


def _env(math500_path: Path) -> dict[str, str]:
    return {"THINKBENCH_MATH500_PATH": str(math500_path)}


def _assert_matches_truth(results: dict, expected: dict[str, dict[str, float]]) -> None:
    scores = results["results"]
    for level in range(1, 6):
        _assert_close(scores[f"thinkbench_math500_level{level}"], expected[f"level{level}"], level)
    _assert_close(scores["thinkbench_math500"], expected["all"], "group")


def _assert_close(got: dict, want: dict[str, float], where: object) -> None:
    for metric in METRICS:
        value = got[f"{metric},thinkbench"]
        assert not math.isnan(want[metric]), f"{where}: truth has no {metric}"
        assert value == pytest.approx(want[metric], rel=1e-9, abs=1e-9), f"{where} {metric}"


def test_lm_eval_local_chat_completions_matches_truth(tmp_path, math500_path):
    docs = read_math500(math500_path)
    with sim_server(math500_path, "--seed", str(SEED)) as url:
        lm_eval_runs.run(
            *lm_eval_runs.local_chat(url, num_concurrent=8, seed=SEED),
            *("--tasks", "thinkbench_math500", "--log_samples", "--output_path", str(tmp_path)),
            env=_env(math500_path),
        )
    results, samples = read_results(tmp_path)
    _assert_matches_truth(results, expected_figures(docs, SEED))
    assert len(samples) == 500
    sample = samples[0]
    assert sample["resps"][0][0].startswith("<think>")  # the raw response is kept
    record = json.loads(sample["filtered_resps"][0][0])
    assert record["tokenizer"].startswith("qwen2.5") and record["locator"] == "rule"
    assert results["results"]["thinkbench_math500"]["alias"]


def test_thinkbench_chat_with_separate_reasoning_field(tmp_path, math500_path):
    docs = [d for d in read_math500(math500_path) if d["level"] in (1, 5)]
    with sim_server(
        math500_path, "--seed", str(SEED), "--reasoning-field", "reasoning_content"
    ) as url:
        lm_eval_runs.run(
            "--model",
            "thinkbench-chat",
            "--model_args",
            f"model=sim,base_url={url},num_concurrent=8,seed={SEED}",
            *("--tasks", "thinkbench_math500_level1,thinkbench_math500_level5"),
            *("--apply_chat_template", "--log_samples", "--output_path", str(tmp_path)),
            env=_env(math500_path),
            plugin=True,
        )
    results, samples = read_results(tmp_path)
    expected = expected_figures(docs, SEED)
    for level in (1, 5):
        _assert_close(
            results["results"][f"thinkbench_math500_level{level}"], expected[f"level{level}"], level
        )
    raw = json.loads(samples[0]["resps"][0][0])
    assert raw["reasoning"] and "usage" in raw  # the server's separate field and counts are kept
