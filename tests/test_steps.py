import pytest

from lm_eval_thinkbench.steps import (
    PhraseMatcher,
    Span,
    split_keywords,
    split_separator,
    step_index_at,
)


def test_separator_spans_point_into_the_original_text():
    text = "First step.\n\nSecond step.\n \n\n  Third step.  \n"
    spans = split_separator(text)
    assert [s.of(text) for s in spans] == ["First step.", "Second step.", "Third step."]
    assert spans[1] == Span(13, 25)


def test_separator_is_configurable():
    assert len(split_separator("a---b---c", "---")) == 3


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Wait, that is wrong. But wait, again. Alternatively we could.", 3),
        ("But wait, one switch only.", 1),  # "but wait" and "wait," overlap: counted once
        ("WAIT, case does not matter. ALTERNATIVELY!", 2),
        ("We wait for the train. Waiting, he said.", 0),  # bare "wait", "Waiting," no match
        ("alternativelyx is not a word boundary", 0),
        ("Let me reconsider. On second thought, another approach, another way.", 4),
        ("", 0),
    ],
)
def test_switch_counting(text, expected):
    assert PhraseMatcher().count(text) == expected


def test_custom_phrases_and_empty_list_rejected():
    assert PhraseMatcher(["hmm"]).count("Hmm. hmmm hmm") == 2
    with pytest.raises(ValueError):
        PhraseMatcher([" "])


def test_keyword_split_uses_the_same_matcher():
    text = "Try x=1. Wait, no. Alternatively x=2."
    assert [s.of(text) for s in split_keywords(text, PhraseMatcher())] == [
        "Try x=1.",
        "Wait, no.",
        "Alternatively x=2.",
    ]


def test_step_index_at():
    spans = [Span(0, 5), Span(7, 10), Span(12, 20)]
    assert [step_index_at(spans, o) for o in (0, 4, 5, 7, 11, 19, 20)] == [
        0,
        0,
        None,
        1,
        None,
        2,
        None,
    ]
