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


def test_phrase_search_finds_what_the_pattern_finds():
    """Switch phrases in ASCII text are found by substring search; the spans are those of
    the matcher's regex, for the default phrases, user phrases (one non-ASCII) and phrases
    matched anywhere (``bounded=False``)."""
    import random

    pieces = ["wait,", "Wait,", "WAIT", "but wait", "But  wait", "hmm, wait", "Hmm, wait,",
              "alternatively", "Alternativelyx", "x_alternatively", "3wait,", "let me reconsider",
              "on second thought", "another approach", "another way", "anotherway", " ", "\n",
              "wait a.", " a ", "a", "answers", "xanswer", "aaa",
              ".", ",", "x", "ſ", "K", "等等"]  # fmt: skip
    ascii_pieces = [p for p in pieces if p.isascii()]
    rng = random.Random(0)
    texts = ["".join(rng.choices(ascii_pieces, k=rng.randint(1, 30))) for _ in range(3000)]
    texts += ["".join(rng.choices(pieces, k=rng.randint(1, 30))) for _ in range(500)]
    found = 0
    for matcher in (
        PhraseMatcher(),
        PhraseMatcher(["wait", "wait a", "hmm,", "but wait"]),
        PhraseMatcher(["wait", "等等"]),
        PhraseMatcher(["answer", "aa"], bounded=False),
    ):
        for text in texts:
            spans = [(s.start, s.end) for s in matcher.find(text)]
            assert spans == [m.span() for m in matcher._pattern.finditer(text)], text
            assert matcher.count(text) == len(spans)
            found += len(spans)
    assert found > 3000
