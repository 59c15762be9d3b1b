"""The deterministic, offline first-correct locator.

The first-correct position is where the reasoning first *commits* to an answer equivalent to
the gold. A restated problem or an intermediate quantity that happens to equal the gold is not
a commitment, so only *answer statements* are graded:

* ``\\boxed{X}`` (or ``\\fbox``);
* "the (final) answer is X", "answer: X";
* a sentence opening with a conclusion word (So, Thus, Therefore, Hence, That gives, Which
  gives) whose last clause is "... is X" or "... = X".

Each statement's value is graded with the same checker as the final answer. The step holding
the earliest equivalent statement is the first-correct step, and the record quotes the
statement so a reader can check it by eye.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from lm_eval_thinkbench.locate.commit import first_commitment
from lm_eval_thinkbench.math.extract import all_boxed, strip_answer
from lm_eval_thinkbench.math.grader import Grader
from lm_eval_thinkbench.steps import PhraseMatcher, Span, step_index_at

# A value runs to the end of its sentence: a period followed by space or end, a newline,
# a question mark, or the end of the text. Inline math is taken whole (``\$`` is a literal
# dollar inside it, as in ``$\$18.90$``).
_VALUE = (
    r"(?P<value>\$(?:\\\$|[^$\n]){1,200}\$|\\\((?:(?!\\\)).){1,200}\\\)"
    r"|[^\n]{1,200}?)(?=\s*(?:[.;!?](?:\s|$)|\n|$))"
)
# The leading lookahead only restates the phrase's possible first letters; it lets the engine
# skip most positions of a long trace at once.
_PHRASE = re.compile(
    r"(?=[tfa])(?<!\w)(?:the\s+)?(?:final\s+)?answer\s*(?:is|:|=|should\s+be|would\s+be)\s*:?\s*"
    + _VALUE,
    re.IGNORECASE,
)
_CONCLUSION = re.compile(
    r"(?:^|(?<=[.!?]\s)|(?<=\n))\s*(?:so|thus|therefore|hence|that\s+gives|which\s+gives|"
    r"this\s+gives)\b[^\n]*?(?:\bis|\$?=)\s*" + _VALUE,
    re.IGNORECASE,
)
_MAX_VALUE_CHARS = 80

# Every phrase contains "answer" and every conclusion starts with its keyword. Scanning a long
# trace with a whole pattern tries it at every position; finding these words first and trying
# the pattern only where a match holding them could start gives the same matches in a fraction
# of the time (``tests/test_locate.py`` compares both on real and random texts).
_ANSWER_WORDS = PhraseMatcher(["answer"], bounded=False)
_CONCLUSION_WORDS = PhraseMatcher(["so", "thus", "therefore", "hence", "that", "which", "this"])


@dataclass(frozen=True)
class Statement:
    """One answer statement: where it is, what it says, and which rule found it."""

    start: int
    end: int
    value: str
    kind: str


@dataclass(frozen=True)
class LocatorFailure:
    """The locator could not say where the answer was first reached, and why: a value the
    locators return (the sample is still scored; its record carries ``locator_error``), never
    raised."""

    message: str


@dataclass(frozen=True)
class FirstCorrect:
    """The located first-correct statement, or None fields when the reasoning has none.

    ``timeouts`` counts checks that hit the grading deadline (scored as not equivalent);
    ``rule`` says why the located statement counts (see :mod:`.commit`), None for a judge.
    """

    step_index: int | None
    char_end: int | None
    quote: str | None
    value: str | None
    candidates: int
    timeouts: int
    rule: str | None = None


def find_statements(text: str) -> list[Statement]:
    """All answer statements in ``text``, in order of position, values lightly cleaned.

    Where rules overlap ("So the answer is $X$" is both a phrase and a conclusion), the
    statement that starts first is kept.
    """
    found = [Statement(s, e, v, "boxed") for s, e, v in all_boxed(text)]
    phrases = _near_words(text, _ANSWER_WORDS, _PHRASE, _phrase_start)
    conclusions = _near_words(text, _CONCLUSION_WORDS, _CONCLUSION, _conclusion_start)
    for kind, matches in (("phrase", phrases), ("conclusion", conclusions)):
        for m in matches:
            value = strip_answer(m.group("value"))
            if value and len(value) <= _MAX_VALUE_CHARS and "\\boxed" not in value:
                found.append(Statement(m.start("value"), m.end("value"), value, kind))
    found.sort(key=lambda s: (s.start, -s.end))
    kept: list[Statement] = []
    for statement in found:
        if not kept or statement.start >= kept[-1].end:
            kept.append(statement)
    return kept


def _near_words(
    text: str, words: PhraseMatcher, pattern: re.Pattern[str], earliest: Callable[[str, int], int]
) -> Iterator[re.Match[str]]:
    """What ``pattern.finditer(text)`` finds, for a pattern whose every match holds one of
    ``words``, starting no earlier than ``earliest(text, word_start)``."""
    resume = 0
    for word in words.find(text):
        at = word.start
        if at < resume:
            continue
        for start in range(max(resume, earliest(text, at)), at + 1):
            if match := pattern.match(text, start):
                yield match
                resume = match.end()
                break


def _phrase_start(text: str, at: int) -> int:
    """Where a phrase with "answer" at ``at`` can start: back over "the final "."""
    return _back_over_word(text, _back_over_word(text, at, len("final")), len("the"))


def _conclusion_start(text: str, at: int) -> int:
    """Where a conclusion with its keyword at ``at`` can start: in the spaces before it, if a
    sentence can start there (the text's start, a line break, or ". " and the like), else
    nowhere (``at + 1``), which settles most keywords (mid-sentence "so", "that", "this")
    without trying the pattern."""
    start = _back_over_word(text, at, 0)
    if start == 0 or "\n" in text[start:at] or (start < at and text[start - 1] in ".!?"):
        return start
    return at + 1


def _back_over_word(text: str, at: int, longest: int) -> int:
    """``at`` moved back over whitespace, then over at most ``longest`` other characters."""
    while at > 0 and text[at - 1].isspace():
        at -= 1
    stop = max(0, at - longest)
    while at > stop and not text[at - 1].isspace():
        at -= 1
    return at


def locate_first_correct(
    reasoning: str,
    steps: Sequence[Span],
    gold: str,
    grader: Grader,
    *,
    problem: str | None = None,
    answer: str | None = None,
) -> FirstCorrect:
    """Find the earliest step of ``reasoning`` that commits to a value equivalent to ``gold``.

    ``problem`` (the question) and ``answer`` (the response's answer part) tell the locator
    what is asked and what the model finally called it; without them only answer statements
    and adopted results (see :mod:`.commit`) count. Candidate values are graded lazily, in
    order, in batched calls; the located step is the one holding the claim's start, and tokens
    are later counted through its end.
    """
    found = first_commitment(reasoning, gold, grader, problem=problem, answer=answer)
    if found.claim is None:
        return FirstCorrect(None, None, None, None, found.candidates, found.timeouts)
    step = step_index_at(steps, found.claim.start)
    if step is None:  # a claim between steps (a splitter that drops text): the step after it
        step = next((i for i, s in enumerate(steps) if s.start >= found.claim.start), None)
    if step is None:
        return FirstCorrect(None, None, None, None, found.candidates, found.timeouts)
    return FirstCorrect(
        step_index=step,
        char_end=steps[step].end,
        quote=reasoning[found.claim.start : found.claim.end],
        value=found.claim.value,
        candidates=found.candidates,
        timeouts=found.timeouts,
        rule=found.rule,
    )
