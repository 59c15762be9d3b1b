"""The rule locator's shortcuts find what the plain reading finds, and grade only what can count."""

import random

from support.data import r1_reasonings

from lm_eval_thinkbench.locate import claims
from lm_eval_thinkbench.locate.rule import locate_first_correct
from lm_eval_thinkbench.math.grader import FirstMatch
from lm_eval_thinkbench.steps import split_separator


class StringGrader:
    """Equal means the same string; records every batch it is asked to grade."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def first_equivalent(self, gold, candidates, budget=None):
        self.batches.append(list(candidates))
        index = next((i for i, c in enumerate(candidates) if c == gold), None)
        return FirstMatch(index, 0, len(candidates))

    @property
    def graded(self) -> list[str]:
        return [c for batch in self.batches for c in batch]


def _prose_texts() -> list[str]:
    """Real R1 traces and seeded random texts of the pieces the prose pattern looks at
    (its phrases, look-alike letters, symbols and spacing around them)."""
    pieces = ["which", "Which", "WHICH is", ", which is", " which  gives", "is", "İs", "ıs", "   ",
              "\n \n", "\u3000", " which",
              "ſo", "So", "K", "it's", "that’s", "what's", "i.e.", ", i.e.,", "or equal", "or",
              "and", "=", "≡", "≈", "=>", "->", "→", "⇒", "⟹", ";", ":", ",", " ", "  ", "\n",
              "\t", "5", "x", "is equal to", "should be", "comes out to", "other than", "just",
              "a", "the value", "'s", "’s", "_is", "3is"]  # fmt: skip
    rng = random.Random(0)
    texts = ["".join(rng.choices(pieces, k=rng.randint(1, 40))) for _ in range(3000)]
    return r1_reasonings() + texts


def test_prose_scan_finds_what_the_plain_pattern_finds():
    """The scanning pattern's lookahead and its start inside a run of spaces: the same matches
    as the plain pattern, on whole texts and on windows that start anywhere."""
    rng = random.Random(1)
    found = 0
    for text in _prose_texts():
        windows = [(0, len(text))]
        windows += [tuple(sorted(rng.choices(range(len(text) + 1), k=2))) for _ in range(2)]
        for start, end in windows:
            fast = [
                (m.span(), m.group("link"), m.group("brk"))
                for m in claims._prose_matches(text, start, end)
            ]
            plain = claims._PROSE_PLAIN.finditer(text, start, end)
            assert fast == [(m.span(), m.group("link"), m.group("brk")) for m in plain]
            found += len(fast)
    assert found > 10_000


def test_a_long_run_of_spaces_is_read_in_linear_time():
    """The plain pattern scans the rest of a run of spaces from each of its positions
    (40,000 spaces: about 7 s)."""
    import time

    text = "The answer is" + " " * 40_000 + "which is \\boxed{3}."
    started = time.process_time()
    found = claims.read(text).claims
    assert time.process_time() - started < 1
    assert [c.value for c in found] == ["3"]


def test_memoised_term_readings_keep_each_claims_own_position():
    text = "So x = 5. Then x = 5.\n\nSo x = 5 and the area is 36 miles."
    found = claims.read(text).claims
    fives = [c for c in found if c.value == "5"]
    assert len(fives) == 3
    assert len({c.value_start for c in fives}) == 3
    assert all(text[c.value_start : c.end].startswith("5") for c in found if c.value == "5")
    miles = next(c for c in found if c.value == "36")
    assert text[miles.value_start : miles.value_start + 2] == "36"


def test_a_value_that_nothing_could_adopt_is_not_graded():
    problem = "Find the area of the square."
    gold = "7"
    # "the radius is 7": named in words of its own, for an integer gold, and no answer
    # statement follows to adopt it: it cannot count whatever its value, so it is not graded
    alone = "The radius is 7."
    grader = StringGrader()
    found = locate_first_correct(alone, split_separator(alone), gold, grader, problem=problem)
    assert found.step_index is None
    assert "7" not in grader.graded
    # adopted by the answer statement in the next paragraph: graded, and the commitment
    adopted = "The radius is 7.\n\nSo the answer is 7."
    grader = StringGrader()
    found = locate_first_correct(adopted, split_separator(adopted), gold, grader, problem=problem)
    assert (found.step_index, found.rule) == (0, "adopted")
    assert "7" in grader.graded


def test_a_line_of_thousands_of_loose_boxes_reads_in_linear_time():
    """Each loose box once looked up its sentence by cutting the whole text again and read
    that sentence's flags again (4,000 boxes: about 40 s); now well under a second."""
    import time

    boxes = " ".join(f"\\boxed{{{i}}}" for i in range(4000))
    text = f"Options: {boxes} maybe.\n\n" + "So x = 1. " * 4000
    started = time.process_time()
    found = claims.read(text).claims
    assert time.process_time() - started < 3
    boxed = [c for c in found if "boxed" in c.flags]
    assert [c.value for c in boxed] == [str(i) for i in range(4000)]
    first = boxed[0].sentence
    assert all(c.sentence == first and "option" in c.flags for c in boxed)
    assert text[first[0] : first[1]].startswith("Options:")
