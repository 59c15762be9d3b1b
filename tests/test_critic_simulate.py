"""The simulated critics: their answers read back as the verdicts their truth functions state."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from lm_eval_thinkbench.critic import data
from lm_eval_thinkbench.critic.harness import deltabench_record, processbench_record
from lm_eval_thinkbench.response import ModelResponse
from lm_eval_thinkbench.simulate import respond
from lm_eval_thinkbench.simulate.critic import (
    DELTABENCH_WEIGHTS,
    PROCESSBENCH_WEIGHTS,
    deltabench_truth,
    processbench_truth,
    respond_deltabench,
    respond_processbench,
)

FIXTURE = Path(__file__).parent / "fixtures" / "deltabench_sample.jsonl"


def _processbench_folder() -> Path:
    return Path(
        os.environ.get(data.PROCESSBENCH_ENV)
        or Path(__file__).resolve().parents[2] / "shared" / "data" / "processbench"
    )


@pytest.fixture(scope="module")
def gsm8k() -> list[dict]:
    return data.processbench_docs("gsm8k", _processbench_folder())


def test_processbench_answers_read_back_as_their_truth(gsm8k):
    seen = Counter()
    for seed in range(3):
        for doc in gsm8k:
            truth = processbench_truth(doc, seed)
            trace = respond_processbench(doc, seed)
            seen[truth.scenario] += 1
            assert processbench_record(trace.inline(), "think")["prediction"] == truth.prediction
            assert trace.truth.truncated == (truth.scenario == "truncated")
    assert set(seen) == set(PROCESSBENCH_WEIGHTS)


def test_processbench_truth_is_deterministic_and_seeded(gsm8k):
    doc = gsm8k[0]
    assert processbench_truth(doc, 3) == processbench_truth(doc, 3)
    assert len({processbench_truth(doc, s) for s in range(30)}) > 1
    assert respond_processbench(doc, 3) == respond_processbench(doc, 3)


def test_processbench_answers_through_a_separate_reasoning_field(gsm8k):
    for doc in gsm8k[:100]:
        trace = respond_processbench(doc, 0)
        wire = ModelResponse(
            content=trace.content,
            reasoning=trace.reasoning,
            finish_reason="length" if trace.truth.truncated else "stop",
        ).to_wire()
        got = processbench_record(wire, "think")["prediction"]
        assert got == processbench_truth(doc, 0).prediction


def test_deltabench_answers_read_back_as_their_truth():
    docs = data.deltabench_docs(FIXTURE)
    seen = Counter()
    for seed in range(40):
        for doc in docs:
            truth = deltabench_truth(doc, seed)
            record = deltabench_record(respond_deltabench(doc, seed).inline(), "think")
            seen[truth.scenario] += 1
            if truth.sections is None:
                assert record["status"] in ("unparsed", "truncated")
            else:
                assert tuple(record["sections"]) == truth.sections
    assert set(seen) == set(DELTABENCH_WEIGHTS)


def test_the_sim_model_dispatches_critic_documents(gsm8k):
    doc = gsm8k[5]
    assert respond(doc, seed=1) == respond_processbench(doc, 1)
    delta = data.deltabench_docs(FIXTURE)[1]
    assert respond(delta, seed=2) == respond_deltabench(delta, 2)
    math_doc = {"problem": "What is 1+1?", "answer": "2", "unique_id": "x", "level": 1}
    assert "\\boxed{2}" in respond(math_doc, seed=0, scenario="direct").content
