"""One response -> one record: the metric definitions, and broken input never crashing."""

import pytest

from lm_eval_thinkbench.math.grader import Grader
from lm_eval_thinkbench.math500.score import score_response
from lm_eval_thinkbench.reading import ScoringConfig
from lm_eval_thinkbench.response import ModelResponse
from lm_eval_thinkbench.tokens import get_counter


@pytest.fixture(scope="module")
def grader():
    with Grader(deadline=3.0) as g:
        yield g


@pytest.fixture(scope="module")
def counter():
    return get_counter(None)


def _score(raw, grader, counter, gold="4", **cfg):
    return score_response(raw, gold, ScoringConfig(**cfg), counter, grader)


def test_overthinking_trace(grader, counter):
    reasoning = (
        "We need 2+2.\n\nSo the answer is 4.\n\nWait, let me double check. 2+2 is 4.\n\n"
        "Alternatively, count on fingers: four. Yes, the answer is 4."
    )
    rec = _score(f"<think>\n{reasoning}\n</think>\n\nThe answer is \\boxed{{4}}.", grader, counter)
    first = counter.count("We need 2+2.\n\nSo the answer is 4.")
    total = counter.count(reasoning)
    assert rec.correct and rec.extracted == "4" and rec.extraction == "boxed"
    assert (rec.first_correct_step, rec.first_correct_source) == (1, "reasoning")
    assert rec.first_correct_tokens == first
    assert rec.reasoning_tokens == total
    assert rec.reflection_tokens == total - first
    assert rec.token_efficiency == pytest.approx(first / total)
    assert rec.thought_num == 2 and rec.steps == 4 and not rec.truncated
    assert rec.answer_tokens == counter.count("The answer is \\boxed{4}.")


def test_correct_answer_never_stated_in_reasoning_counts_all_reasoning(grader, counter):
    rec = _score("<think>2 and 2 make four</think>\\boxed{4}", grader, counter)
    assert rec.first_correct_source == "answer"
    assert rec.first_correct_tokens == rec.reasoning_tokens and rec.reflection_tokens == 0
    assert rec.token_efficiency == 1.0


def test_right_then_abandoned_is_wrong_but_keeps_its_position(grader, counter):
    rec = _score("<think>So the answer is 4.\n\nNo, it is 5.</think>\\boxed{5}", grader, counter)
    assert not rec.correct and rec.first_correct_step == 0


def test_truncated_policies(grader, counter):
    raw = "<think>\nSo the answer is $\\boxed{4}$.\n\nWait, let me also check"
    lenient = _score(raw, grader, counter)
    assert lenient.truncated and lenient.correct and lenient.answer_tokens == 0
    assert not _score(raw, grader, counter, truncated="zero").correct
    # only a box counts in an unfinished thought, not the last formula
    assert not _score("<think>\nthe sum is $4$ so far", grader, counter).correct


def test_separate_reasoning_field(grader, counter):
    wire = ModelResponse(content="\\boxed{4}", reasoning="So the answer is 4.").to_wire()
    rec = _score(wire, grader, counter)
    assert rec.correct and rec.split_source == "field" and rec.first_correct_step == 0


@pytest.mark.parametrize(
    "raw",
    [
        None,
        "",
        "<think>",
        "</think>",
        "<think>only reasoning, no end",
        "<think>x</think>\\boxed{\\frac{1}{2",
        "<think>x</think>\\boxed{}}}}{{{",
        b"\xff\xfe<think>x</think>\\boxed{4}",
        pytest.param(  # > 1 MB
            "<think>" + "So the answer is 7. " * 60_000 + "</think>\\boxed{4}",
            marks=pytest.mark.slow,
        ),
        ModelResponse(content=None, reasoning=None).to_wire(),  # type: ignore[arg-type]
    ],
)
def test_broken_input_is_scored_not_raised(raw, grader, counter):
    rec = _score(raw, grader, counter)
    assert isinstance(rec.correct, bool)
    assert rec.to_dict()["metrics_version"]


def test_bad_policy_is_rejected():
    with pytest.raises(ValueError, match="truncated"):
        ScoringConfig(truncated="maybe")
