"""Pure pieces around the judge: prompts, reading verdicts, mapping a rewrite back to spans."""

from __future__ import annotations

import re

import pytest

from lm_eval_thinkbench.locate.judge import first_correct_prompt, quote_step, read_first_correct
from lm_eval_thinkbench.locate.rule import FirstCorrect, LocatorFailure
from lm_eval_thinkbench.locate.split import read_split, split_prompt
from lm_eval_thinkbench.math.screen import surely_different
from lm_eval_thinkbench.steps import Span, align_steps, split_separator

REASONING = "We need 2+2.\n\nSo the answer is 4.\n\n  Wait, let me check: 4.  "
STEPS = split_separator(REASONING)


def test_first_correct_prompt_numbers_the_steps():
    prompt = first_correct_prompt("What is 2+2?", "4", REASONING, STEPS)
    assert "[Correct Answer]\n\n4\n\n[Solution]" in prompt
    assert "<paragraph_1>\nSo the answer is 4.\n</paragraph_1>" in prompt
    assert "<paragraph_2>\nWait, let me check: 4.\n</paragraph_2>" in prompt
    assert prompt.rstrip().endswith("Put the index (an integer) in \\boxed{}.")


@pytest.mark.parametrize(
    ("reply", "step"),
    [
        ("The first correct paragraph is \\boxed{1}.", 1),
        ("<think>maybe \\boxed{0}</think>It is \\boxed{\\text{paragraph 2}}", 2),
        ("\\boxed{-1}", None),
    ],
)
def test_verdicts_are_read(reply, step):
    found = read_first_correct(reply, REASONING, STEPS)
    assert isinstance(found, FirstCorrect) and found.step_index == step
    if step is not None:
        assert found.char_end == STEPS[step].end
        assert found.quote == STEPS[step].of(REASONING)


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        ("paragraph 1", "no \\\\boxed"),
        ("\\boxed{1 or 2}", "not one index"),
        ("\\boxed{7}", "outside steps 0..2"),
        ("", "no \\\\boxed"),
    ],
)
def test_unusable_verdicts_are_errors(reply, error):
    found = read_first_correct(reply, REASONING, STEPS)
    assert isinstance(found, LocatorFailure)
    assert re.search(error, found.message)


def test_long_steps_are_quoted_head_and_tail():
    text = "a" * 400 + "b" * 400
    quoted = quote_step(text, limit=100)
    assert len(quoted) <= 101 and quoted.startswith("a") and quoted.endswith("b")
    assert " … " in quoted


def test_align_steps_accepts_whitespace_changes_only():
    text = "First line.\nStill first.\n\nSecond   step here."
    spans = align_steps(text, ["First line. Still first.", "Second step\nhere."])
    assert spans == [Span(0, 24), Span(26, 45)]
    assert [s.of(text) for s in spans] == ["First line.\nStill first.", "Second   step here."]
    assert align_steps(text, ["First line. Still first.", "Second step."]) is None  # dropped
    assert align_steps(text, ["First line. Still first! Second step here."]) is None  # edited
    assert align_steps(text, ["First", "line. Still first. Second step here.", "extra"]) is None
    assert align_steps("", []) == []


def test_read_split():
    reasoning = "A one.\n\nB two."
    assert read_split("<step>A one.</step>\n<step>B two.</step>", reasoning) == [
        Span(0, 6),
        Span(8, 14),
    ]
    assert "no <step>" in read_split("A one. B two.", reasoning).message
    assert "changed" in read_split("<step>A one.</step><step>B 2.</step>", reasoning).message
    assert "[Reasoning]\n\nA one.\n\nB two." in split_prompt(" p ", reasoning)


@pytest.mark.parametrize(
    ("gold", "candidate", "different"),
    [
        ("5", "7932", True),
        ("\\frac{14}{3}", "4", True),
        ("\\dfrac{1}{2}", "0.5", False),  # equal: the checker decides
        ("0.5", "0.500001", False),  # within math-verify's rounding: the checker decides
        ("0.5", "0.6", True),
        ("-3", "3", True),
        ("5", "5", False),
        ("30", "45^\\circ", True),  # math-verify drops a final degree mark: 45 against 30
        ("30", "30^\\circ", False),  # equal once the mark is dropped: the checker decides
        ("\\sqrt{2}", "1", True),
        ("1,000", "1000", False),
    ],
)
def test_surely_different(gold, candidate, different):
    assert surely_different(gold, candidate) is different
