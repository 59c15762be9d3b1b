"""The simulated critics: their answers read back as the verdicts their truth functions state."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from lm_eval_thinkbench.critic import data
from lm_eval_thinkbench.critic.filters import deltabench_record, processbench_record
from lm_eval_thinkbench.critic.parse import TOLERANT
from lm_eval_thinkbench.response import ModelResponse
from lm_eval_thinkbench.simulate import respond
from lm_eval_thinkbench.simulate.critic import (
    DELTABENCH_WEIGHTS,
    PLAIN,
    PROCESSBENCH_WEIGHTS,
    REASONING,
    deltabench_truth,
    processbench_truth,
    respond_critic,
    respond_deltabench,
    respond_processbench,
)
from lm_eval_thinkbench.simulate.served_model import assistant_message as _message

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
            tolerant = processbench_record(trace.inline(), "think", TOLERANT)["prediction"]
            assert tolerant == truth.tolerant
            assert trace.truth.truncated == (truth.scenario == "truncated")
    assert set(seen) == set(PROCESSBENCH_WEIGHTS)
    # The readings disagree on some critiques, so a test can tell which one a run used.
    assert any(processbench_truth(d).prediction != processbench_truth(d).tolerant for d in gsm8k)


def test_plain_processbench_critiques_have_no_thought_and_read_back_as_their_truth(gsm8k):
    seen = Counter()
    for seed in range(3):
        for doc in gsm8k:
            truth = processbench_truth(doc, seed, PLAIN)
            trace = respond_processbench(doc, seed, PLAIN)
            seen[truth.scenario] += 1
            assert trace.reasoning == "" and not trace.truth.truncated
            assert "think" not in trace.content and trace.content.startswith("Paragraph 0 ")
            # What the server sends: the reply alone, whatever reasoning field it is set to use.
            assert _message(trace, "reasoning_content") == {
                "role": "assistant",
                "content": trace.content,
            }
            for reading, want in (("official", truth.prediction), (TOLERANT, truth.tolerant)):
                got = processbench_record(trace.content, "auto", reading)
                assert got["prediction"] == want and got["status"] != "truncated"
    assert set(seen) == set(PROCESSBENCH_WEIGHTS) - {"truncated"}


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


def _assert_deltabench_reads(record: dict, want: tuple[int, ...] | None, *unread: str) -> None:
    if want is None:
        assert record["status"] in unread
    else:
        assert record["status"] not in ("unparsed", "truncated")
        assert tuple(record["sections"]) == want


def test_deltabench_answers_read_back_as_their_truth():
    docs = data.deltabench_docs(FIXTURE)
    seen, differ = Counter(), Counter()
    for seed in range(40):
        for doc in docs:
            truth = deltabench_truth(doc, seed)
            raw = respond_deltabench(doc, seed).inline()
            seen[truth.scenario] += 1
            differ[truth.scenario] += truth.official != truth.sections
            unread = ("unparsed", "truncated")
            _assert_deltabench_reads(deltabench_record(raw, "think"), truth.official, *unread)
            tolerant = deltabench_record(raw, "think", TOLERANT)
            _assert_deltabench_reads(tolerant, truth.sections, *unread)
    assert set(seen) == set(DELTABENCH_WEIGHTS)
    # The readings part on lists in one entry, the template's placeholder, free-form prose.
    assert {s for s, n in differ.items() if n} == {"inline_list", "placeholder", "free_form"}


def test_plain_deltabench_critiques_have_no_thought_and_read_back_as_their_truth():
    docs = data.deltabench_docs(FIXTURE)
    seen = Counter()
    for seed in range(40):
        for doc in docs:
            truth = deltabench_truth(doc, seed, PLAIN)
            trace = respond_deltabench(doc, seed, PLAIN)
            seen[truth.scenario] += 1
            assert trace.reasoning == "" and "think" not in trace.content
            official = deltabench_record(trace.content, "auto")
            _assert_deltabench_reads(official, truth.official, "unparsed")
            tolerant = deltabench_record(trace.content, "auto", TOLERANT)
            _assert_deltabench_reads(tolerant, truth.sections, "unparsed")
    assert set(seen) == set(DELTABENCH_WEIGHTS) - {"truncated"}


def test_critic_styles_are_seeded_apart_and_dispatched(gsm8k):
    doc, delta = gsm8k[5], data.deltabench_docs(FIXTURE)[1]
    assert respond_critic(doc, 1, REASONING) == respond(doc, seed=1)
    assert respond_critic(delta, 2, PLAIN) == respond_deltabench(delta, 2, PLAIN)
    assert respond_critic({"problem": "1+1?", "answer": "2"}, 0, PLAIN) is None
    plain = [processbench_truth(d, 0, PLAIN).scenario for d in gsm8k]
    assert plain != [processbench_truth(d, 0).scenario for d in gsm8k]
    with pytest.raises(ValueError, match="unknown critic style"):
        processbench_truth(doc, 0, "terse")


def test_the_sim_model_dispatches_critic_documents(gsm8k):
    doc = gsm8k[5]
    assert respond(doc, seed=1) == respond_processbench(doc, 1)
    delta = data.deltabench_docs(FIXTURE)[1]
    assert respond(delta, seed=2) == respond_deltabench(delta, 2)
    math_doc = {"problem": "What is 1+1?", "answer": "2", "unique_id": "x", "level": 1}
    assert "\\boxed{2}" in respond(math_doc, seed=0, scenario="direct").content
