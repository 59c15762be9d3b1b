"""DeltaBench-style sections of a reasoning trace, and redundant reflection after the answer."""

from __future__ import annotations

import itertools

import pytest
from support.data import r1_traces

from lm_eval_thinkbench.sections import (
    opening_cue,
    redundant_reflection,
    split_sections,
)
from lm_eval_thinkbench.simulate.traces import simulate

TRACE = "\n\n".join(
    [
        "Okay, let me look at this problem. We need the sum of 2 and 3.",  # 0: section 0
        "First, add the numbers: 2 + 3 = 5.",  # 1: step cue -> section 1
        "So the answer is 5.",  # 2: continues section 1 (answer reached here)
        "Wait, let me double-check that. Counting up from 2 gives 3, 4, 5.",  # 3: section 2
        "Now, negative numbers do not matter here.",  # 4: section 3 (no restatement, no check)
        "Hmm, is there another reading of the question? Adding is what it asks.",  # 5: section 4
        "Therefore, the final answer is $5$.",  # 6: continues section 4 (restates)
    ]
)


def test_paragraphs_group_into_sections_at_transition_cues():
    sections = split_sections(TRACE)
    assert [s.cue for s in sections] == [None, "first", "wait", "now", "hmm"]
    assert [s.kind for s in sections] == [None, "step", "reflect", "step", "reflect"]
    assert sections[1].of(TRACE) == "First, add the numbers: 2 + 3 = 5.\n\nSo the answer is 5."
    assert sections[-1].of(TRACE).endswith("the final answer is $5$.")
    assert sections[0].start == 0 and sections[-1].end == len(TRACE)


@pytest.mark.parametrize(
    ("paragraph", "cue"),
    [
        ("But wait, the sign is off.", ("but wait", "reflect")),
        ("**Let me verify** by substitution.", ("let me verify", "reflect")),
        ("Just to be safe, recompute.", ("just to be safe", "reflect")),
        ("Alternatively, use symmetry.", ("alternatively", "reflect")),
        ("Let's compute the area next.", ("let's compute", "step")),
        ("Case 2: x < 0.", ("case 2", "step")),
        ("Actually, that was fine.", ("actually", "reflect")),
        ("- > **Wait**, the sign.", ("wait", "reflect")),
        ("#### Step  3: expand", ("step 3", "step")),
        ("So x = 3.", None),
        ("Waiting is not a cue.", None),
        ("Nowhere is x negative.", None),
    ],
)
def test_opening_cues(paragraph, cue):
    assert opening_cue(paragraph) == cue


def test_redundant_reflection_from_the_answer_value():
    red = redundant_reflection(TRACE, answer="5")
    assert red.answer_section == 1
    assert red.after_answer == (2, 3, 4)
    assert red.rechecking == (2, 4)  # opens with "Wait" / "Hmm"
    assert red.restating == (4,)  # "the final answer is $5$"
    assert red.redundant == (2, 4)
    assert red.redundant_chars == sum(red.sections[i].end - red.sections[i].start for i in (2, 4))


def test_redundant_reflection_from_the_first_correct_offset():
    answer_end = TRACE.index("So the answer is 5.") + len("So the answer is 5.")
    assert redundant_reflection(TRACE, answer_end=answer_end, answer="5").answer_section == 1
    # without the value, only re-checks are recognised
    red = redundant_reflection(TRACE, answer_end=answer_end)
    assert red.redundant == (2, 4) and red.restating == ()
    # reached in the last section: nothing after it
    assert redundant_reflection(TRACE, answer_end=len(TRACE)).after_answer == ()


def test_nothing_is_redundant_when_the_answer_is_never_reached():
    red = redundant_reflection(TRACE, answer="7")
    assert (red.answer_section, red.redundant, red.redundant_chars) == (None, (), 0)
    assert redundant_reflection("", answer="5").sections == ()


def test_a_custom_equivalence_recognises_other_spellings():
    trace = "First, 10/4 simplifies.\n\nSo it is 2.5.\n\nWait, the answer is $\\frac{5}{2}$."
    assert redundant_reflection(trace, answer="5/2").answer_section is None
    red = redundant_reflection(
        trace, answer="5/2", equivalent=lambda v, a: v.replace("\\frac{5}{2}", "2.5") == "2.5"
    )
    assert red.answer_section == 0 and red.restating == (1,)


def test_overthinking_simulated_traces_have_redundant_sections_after_the_answer():
    """In the simulator's overthink scenario every paragraph after the first commit is a
    re-check opened by a verification lead or a closing restatement."""
    doc = {"problem": "What is 6 times 7?", "answer": "42", "unique_id": "sim/1", "level": 3}
    for seed in range(10):
        trace = simulate(doc, seed=seed, scenario="overthink")
        red = redundant_reflection(
            trace.reasoning, answer_end=trace.truth.first_correct_char_end, answer="42"
        )
        assert red.answer_section is not None
        assert len(red.redundant) >= 1
        assert set(red.redundant) <= set(red.after_answer)


def test_real_r1_traces_split_into_plausible_sections():
    for trace in r1_traces("r1_8b_ollama_math_train"):
        text = trace["message_thinking"]
        sections = split_sections(text)
        paragraphs = len([p for p in text.split("\n\n") if p.strip()])
        assert 1 <= len(sections) <= paragraphs
        assert all(a.end <= b.start for a, b in itertools.pairwise(sections))
        red = redundant_reflection(text, answer=trace["gtruth_answer"])
        assert set(red.redundant) <= set(red.after_answer)
