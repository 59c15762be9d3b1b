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


def test_separator_steps_are_the_pieces_between_matches_stripped():
    """Each step is what lies between two separator matches less its surrounding whitespace
    (Unicode spaces too), empty ones dropped; every call returns a list of its own."""
    import random
    import re

    def plain(text: str, separator: str) -> list[Span]:
        cuts = [0, *(at for m in re.finditer(separator, text) for at in m.span()), len(text)]
        steps = []
        for a, b in zip(cuts[::2], cuts[1::2], strict=True):
            while a < b and text[a].isspace():
                a += 1
            while b > a and text[b - 1].isspace():
                b -= 1
            if b > a:
                steps.append(Span(a, b))
        return steps

    pieces = ["a", "bc", " ", "\t", "\n", "\n\n", "\n \n", "\u00a0", "\u2003", "\u3000", "-", "x"]
    rng = random.Random(0)
    for _ in range(2000):
        text = "".join(rng.choices(pieces, k=rng.randint(0, 20)))
        for separator in (r"\n[ \t]*\n", "---", "x+", "-|\u00a0"):
            assert split_separator(text, separator) == plain(text, separator), (text, separator)
    text = "One.\n\nTwo."
    split_separator(text).append(Span(0, 1))
    assert split_separator(text) == [Span(0, 4), Span(6, 10)]


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
    """ASCII switch phrases are found by substring search, in texts without the characters
    that fold to ASCII letters; the spans are those of the matcher's regex, for the default
    phrases, user phrases (one non-ASCII) and phrases matched anywhere (``bounded=False``), in
    ASCII texts and in texts with non-ASCII letters, digits and spaces next to the phrases."""
    import random

    pieces = ["wait,", "Wait,", "WAIT", "but wait", "But  wait", "hmm, wait", "Hmm, wait,",
              "alternatively", "Alternativelyx", "x_alternatively", "3wait,", "let me reconsider",
              "on second thought", "another approach", "another way", "anotherway", " ", "\n",
              "wait a.", " a ", "a", "answers", "xanswer", "aaa",
              ".", ",", "x", "ſ", "K", "İ", "ı", "等等", "é", "Σ", "ς", "²", "½", "١", "\u00a0",
              "×"]  # fmt: skip
    ascii_pieces = [p for p in pieces if p.isascii()]
    rng = random.Random(0)
    texts = ["".join(rng.choices(ascii_pieces, k=rng.randint(1, 30))) for _ in range(3000)]
    texts += ["".join(rng.choices(pieces, k=rng.randint(1, 30))) for _ in range(1500)]
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


def test_phrases_match_the_letters_that_fold_to_ascii():
    """Under ``re.IGNORECASE`` "i", "s" and "k" also match dotted and dotless i, long s and the
    Kelvin sign, of which lowering makes "k" alone (and two characters of the dotted I): the
    phrases are found in each."""
    matcher = PhraseMatcher(["wait,", "on second thought", "ok"])
    for text in ("Wa\u0131t, no.", "WA\u0130T, no.", "On \u017fecond thought, no.", "o\u212a."):
        assert [s.start for s in matcher.find(text)] == [0], text
    assert matcher.count("WA\u0130T, a wait, and o\u212a.") == 3
