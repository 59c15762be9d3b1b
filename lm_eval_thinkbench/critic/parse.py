"""Read a critic's verdict out of its answer text (the part after its own reasoning).

A reasoning critic drafts verdicts in its chain of thought, so only its answer is parsed; a
critic that writes no reasoning (GPT-4o) is all answer. Nothing here raises on model output or
takes more than linear time on it (a megabyte of spaces, of ``\\boxed{`` or of ``Conclusion:``
reads in well under a second); what cannot be read is reported as unparsed, never guessed.
A number of more than :data:`MAX_DIGITS` digits is read as :data:`BEYOND` (further than any
step or section) without converting it: Python refuses to convert more than 4,300 digits, and a
record must stay printable.

Each benchmark has two readings (``processbench_reading``, ``deltabench_reading``):

* ``official`` (the default): exactly what the benchmark's own evaluation script reads, edge
  cases included, so figures are comparable with published ones (:func:`official_step_index`,
  :func:`official_sections`);
* ``tolerant``: reads the formats critics actually write, for critics whose format is not the
  point (:func:`parse_step_index`, :func:`parse_sections`).

ProcessBench asks for the index in ``\\boxed{}``. The tolerant reading takes the last box,
nested braces allowed, holding one integer among words and punctuation a critic adds
(``\\boxed{\\text{paragraph 3}}``, ``\\boxed{3.}``, ``\\boxed{−1}``).

DeltaBench asks for ``Conclusion: no error`` or ``Conclusion: yes`` followed by
``Error Section Number: k`` / ``Explanation: ...`` pairs. The tolerant reading:

* markdown emphasis and heading marks are ignored; labels are case-insensitive;
* the conclusion is the last ``Conclusion:`` before the first ``Error Section Number:`` (the
  reference script's rule), else the last one in the answer;
* an ``Error Section Number:`` entry may list several numbers ("3, 5", "[3, 5]", "sections 3
  and 5"); numbers after other words ("3 (see step 12)") are not read; duplicates count once;
* a ``no error`` conclusion wins over any listed numbers (as in the reference script);
* without a ``Conclusion:`` line, listed entries still count, and a free-form reply is read
  sentence by sentence: "no errors" / "all sections are correct" alone means no error; sentences
  that name an error word and sections ("the mistake is in section 4") give those sections.
  Such verdicts are marked ``format="free_form"`` so their share is visible.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lm_eval_thinkbench.math.extract import last_boxed

OFFICIAL, TOLERANT = "official", "tolerant"
READINGS = (OFFICIAL, TOLERANT)

#: Longer numbers are not converted; each stands for :data:`BEYOND`.
MAX_DIGITS = 9
BEYOND = 10**MAX_DIGITS


def _to_int(digits: str) -> int:
    """``int(digits)`` for a run of decimal digits, :data:`BEYOND` when more than
    :data:`MAX_DIGITS` are left after leading ``0``s (a verdict that names section 10^9 or
    10^5000 names a section no sample has, whichever it is)."""
    significant = digits.lstrip("0")
    return BEYOND if len(significant) > MAX_DIGITS else int(significant or "0")


def _check(reading: str, benchmark: str) -> None:
    if reading not in READINGS:
        raise ValueError(f"unknown {benchmark} reading {reading!r}; known: {', '.join(READINGS)}")


# ----- ProcessBench --------------------------------------------------------------------------

_BOX_NOISE = re.compile(
    r"\\text\{|\\mathrm\{|[{}$]|\\[(),]|\b(?:paragraph|step|index)(?:_|\b)", re.IGNORECASE
)
#: Applied to stripped text: one ``\s*`` between any two parts, so no run of spaces can be
#: split between two quantifiers (that ambiguity made the old pattern quadratic).
_SIGNED_INT = re.compile(r"([-−–+]?)\s*(\d+)\s*\.?")
_OFFICIAL_OPEN = "\\boxed{"


@dataclass(frozen=True)
class StepVerdict:
    """``index`` is the earliest wrong step (-1: none), or None when no integer was boxed."""

    index: int | None
    boxed: str | None


def read_step_index(answer: str, reading: str = OFFICIAL) -> StepVerdict:
    """The index a ProcessBench answer gives under ``reading`` (``official`` or ``tolerant``)."""
    _check(reading, "ProcessBench")
    return official_step_index(answer) if reading == OFFICIAL else parse_step_index(answer)


def official_step_index(answer: str) -> StepVerdict:
    """The index as ProcessBench's evaluation script reads it, edge cases included.

    Source: ``QwenLM/ProcessBench``, ``code/run_eval.py`` (commit e802463), ``extract_answer``
    and the ``int()`` after it: the content of the last ``\\boxed{...}`` whose content has no
    ``}``, stripped, then Python's ``int()``, ``None`` when that fails. So ``\\boxed{+3}``,
    ``\\boxed{ 3 }`` and ``\\boxed{３}`` read 3; ``\\boxed{3.}``, ``\\boxed{paragraph 3}``,
    ``\\boxed{\\text{3}}`` (the match stops at the inner ``}``), ``\\boxed{−1}`` (a Unicode
    minus) and a number of more than 4,300 digits (``int()`` refuses it) read nothing; a
    trailing empty ``\\boxed{}`` hides every earlier box; text after the last box does not
    matter. Published ProcessBench F1s were computed this way.
    """
    boxed = _official_last_box(answer)
    if boxed is None:
        return StepVerdict(None, None)
    boxed = boxed.strip()
    try:
        return StepVerdict(int(boxed), boxed)
    except ValueError:  # the script's bare ``except``: int() of a str raises nothing else
        return StepVerdict(None, boxed)


def _official_last_box(answer: str) -> str | None:
    """``re.findall(r"\\\\boxed\\{([^}]*)\\}", answer)[-1]`` (None for no match), linear.

    The script's regex rescans to the end of the text from every ``\\boxed{`` that no ``}``
    closes: hours on 100,000 of them. Its matches cannot overlap and each ends at the first
    ``}`` after its ``\\boxed{``, so every stretch between two ``}`` (or before the first) that
    holds a ``\\boxed{`` gives one match, from its first ``\\boxed{`` to its end; the last such
    stretch gives the last match. tests/test_critic_official.py replays the regex.
    """
    end = answer.rfind("}")
    while end != -1:
        start = answer.rfind("}", 0, end) + 1
        opening = answer.find(_OFFICIAL_OPEN, start, end)
        if opening != -1:
            return answer[opening + len(_OFFICIAL_OPEN) : end]
        end = start - 1
    return None


def parse_step_index(answer: str) -> StepVerdict:
    """The tolerant reading: the single integer in the last ``\\boxed{}`` of an answer."""
    boxed = last_boxed(answer)
    if boxed is None:
        return StepVerdict(None, None)
    m = _SIGNED_INT.fullmatch(_BOX_NOISE.sub(" ", boxed).strip())
    if not m:
        return StepVerdict(None, boxed)
    value = _to_int(m.group(2))
    return StepVerdict(-value if m.group(1) not in ("", "+") else value, boxed)


# ----- DeltaBench ----------------------------------------------------------------------------

NO_ERROR, ERROR, UNPARSED = "no_error", "error", "unparsed"


@dataclass(frozen=True)
class SectionVerdict:
    """A DeltaBench verdict.

    ``status``: ``no_error``, ``error`` or ``unparsed``. ``sections``: the distinct section
    numbers flagged, sorted; ``listed``: every number as written, duplicates included.
    ``format``: ``template`` (a ``Conclusion:`` / ``Error Section Number:`` reply),
    ``free_form`` or None (unparsed).
    """

    status: str
    sections: tuple[int, ...] = ()
    listed: tuple[int, ...] = ()
    format: str | None = None


def read_sections(answer: str, reading: str = OFFICIAL) -> SectionVerdict:
    """The verdict of a DeltaBench answer under ``reading`` (``official`` or ``tolerant``)."""
    _check(reading, "DeltaBench")
    return official_sections(answer) if reading == OFFICIAL else parse_sections(answer)


# The labels exactly as DeltaBench's evaluation.py splits on them (case and spacing included).
_REF_ENTRY, _REF_CONCLUSION, _REF_EXPLANATION = (
    "Error Section Number:",
    "Conclusion:",
    "Explanation:",
)
_FIRST_NUMBER = re.compile(r"\d+")


def official_sections(answer: str) -> SectionVerdict:
    """The verdict as DeltaBench's evaluation script reads it, edge cases included.

    Source: ``OpenStellarTeam/DeltaBench``, ``evaluation.py`` (commit 6b67c64),
    ``parse_output``. The conclusion is the text after the last ``Conclusion:`` before the
    first ``Error Section Number:`` (the whole head when there is none); it means an error when
    it contains "yes" anywhere, in any case ("Yes", "eyes"), else no error, and then nothing is
    flagged whatever follows. With an error, every ``Error Section Number:`` entry gives the
    first run of digits before its ``Explanation:`` ("[3, 5]" and "sections 3 and 5" give 3
    only), or -1 when it has none (an entry that copies the template's "[section number]"), a
    flag on no section. Labels are matched exactly: "Error Section Numbers:" or "conclusion:"
    are not labels; markdown around them (``**Conclusion:**``) does not matter.

    The script counts every reply as parsed; here one with no ``Conclusion:`` and no "yes" is
    ``unparsed`` (it flags nothing either way, so the scores are the same), and a "yes" in a
    reply without either label is a ``free_form`` error verdict.
    """
    head, *entries = answer.split(_REF_ENTRY)
    _, has_conclusion, conclusion = head.rpartition(_REF_CONCLUSION)
    template = bool(has_conclusion or entries)
    if "yes" not in conclusion.lower():
        if template:
            return SectionVerdict(NO_ERROR if has_conclusion else UNPARSED, format="template")
        return SectionVerdict(UNPARSED)
    listed = []
    for entry in entries:
        number = _FIRST_NUMBER.search(entry.partition(_REF_EXPLANATION)[0])
        listed.append(_to_int(number.group()) if number else -1)
    fmt = "template" if template else "free_form"
    return SectionVerdict(ERROR, tuple(sorted(set(listed))), tuple(listed), fmt)


_EMPHASIS = re.compile(r"\*\*|__|^[ \t]*#+[ \t]*", re.M)
_CONCLUSION = re.compile(r"(?i)\bconclusion\s*[:：]\s*([^\n]*)")
_ENTRY = re.compile(r"(?i)\berror\s+section\s+numbers?\s*[:：]\s*([^\n]*)")
#: "3", "[3, 5]", "sections 3 and 5", "3 5": a separator is punctuation or "and" (spaces
#: around it) or spaces alone, and the two alternatives share no way of splitting one run of
#: spaces, so the pattern is linear (``\s*(?:…|\s)\s*`` was cubic on a run of spaces).
_NUMBER_LIST = re.compile(
    r"(?i)\s*(?:\[\s*)?(?:sections?\s*)?"
    r"(\d+(?:(?:\s*(?:[,;/&]|\band\b)\s*|\s+)(?:sections?\s*)?\d+)*)"
)
_POSITIVE = re.compile(r"(?i)\byes\b|\berrors?\b|\bincorrect\b|\bwrong\b|\bmistakes?\b")
_SENTENCE = re.compile(r"[^.!?\n]+")
_ERROR_WORD = re.compile(r"(?i)\b(?:errors?|erroneous|incorrect|wrong|mistakes?|flawed|flaws?)\b")
_NEGATED_ERROR = re.compile(
    r"(?i)\b(?:no|not|without|free\s+of)\s+(?:any\s+)?(?:errors?|mistakes?|flaws?)\b"
    r"|\bnot\s+(?:incorrect|wrong|erroneous|flawed)\b"
)
_ALL_CORRECT = re.compile(
    r"(?i)(?<!not )\b(?:no\s+(?:errors?|mistakes?)|all\s+(?:the\s+)?sections\s+(?:are|look|seem)\s+"
    r"(?:correct|right|fine)|(?:is|are)\s+(?:entirely|all|completely)\s+correct)\b"
)
_MENTION = re.compile(
    r"(?i)\bsections?\s*(\d+(?:\s*(?:,|&|\band\b|\bor\b)\s*(?:sections?\s*)?\d+)*)"
)
_DIGITS = re.compile(r"\d+")


def parse_sections(answer: str) -> SectionVerdict:
    """The tolerant reading of a DeltaBench critic answer."""
    text = _EMPHASIS.sub("", answer)
    first_entry = _ENTRY.search(text)
    head = text[: first_entry.start()] if first_entry else text
    conclusions = _CONCLUSION.findall(head) or _CONCLUSION.findall(text)
    listed = tuple(n for entry in _ENTRY.findall(text) for n in _numbers(entry))
    if conclusions:
        kind = _conclusion_kind(conclusions[-1])
        if kind == NO_ERROR:
            return SectionVerdict(NO_ERROR, format="template")
        if kind == ERROR or listed:
            return SectionVerdict(ERROR, tuple(sorted(set(listed))), listed, "template")
    elif listed:
        return SectionVerdict(ERROR, tuple(sorted(set(listed))), listed, "template")
    return _free_form(text)


def _numbers(entry: str) -> list[int]:
    m = _NUMBER_LIST.match(entry)
    return [_to_int(n) for n in _DIGITS.findall(m.group(1))] if m else []


def _conclusion_kind(value: str) -> str | None:
    value = value.strip()
    if re.match(r"(?i)yes\b", value):
        return ERROR
    if re.match(r"(?i)(?:no|none)\b", value) or _ALL_CORRECT.search(value):
        return NO_ERROR
    if _NEGATED_ERROR.search(value):
        return NO_ERROR
    if _POSITIVE.search(value):
        return ERROR
    if re.search(r"(?i)\bcorrect\b", value) and not re.search(r"(?i)\bnot\b", value):
        return NO_ERROR
    return None


def _free_form(text: str) -> SectionVerdict:
    listed: list[int] = []
    for sentence in _SENTENCE.findall(text):
        if _ERROR_WORD.search(sentence) and not _NEGATED_ERROR.search(sentence):
            for mention in _MENTION.findall(sentence):
                listed.extend(_to_int(n) for n in _DIGITS.findall(mention))
    if listed:
        return SectionVerdict(ERROR, tuple(sorted(set(listed))), tuple(listed), "free_form")
    if _ALL_CORRECT.search(text):
        return SectionVerdict(NO_ERROR, format="free_form")
    return SectionVerdict(UNPARSED)
