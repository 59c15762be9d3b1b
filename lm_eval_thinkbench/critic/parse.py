"""Read a critic's verdict out of its answer text (the part after its own reasoning).

A reasoning critic drafts verdicts in its chain of thought, so only its answer is parsed; a
critic that writes no reasoning (GPT-4o) is all answer. Nothing here raises on model output;
what cannot be read is reported as unparsed, never guessed.

ProcessBench asks for the index in ``\\boxed{}``. Two readings (``processbench_reading``):

* ``official`` (the default): exactly what ProcessBench's own ``run_eval.py`` reads, so F1s are
  comparable with published ones (:func:`official_step_index`);
* ``tolerant``: the last box, nested braces allowed, holding one integer among words and
  punctuation a critic adds (``\\boxed{\\text{paragraph 3}}``, ``\\boxed{3.}``, ``\\boxed{−1}``),
  for critics whose format is not the point (:func:`parse_step_index`).

DeltaBench asks for ``Conclusion: no error`` or ``Conclusion: yes`` followed by
``Error Section Number: k`` / ``Explanation: ...`` pairs. Read tolerantly:

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

# ----- ProcessBench --------------------------------------------------------------------------

_BOX_NOISE = re.compile(
    r"\\text\{|\\mathrm\{|[{}$]|\\[(),]|\b(?:paragraph|step|index)(?:_|\b)", re.IGNORECASE
)
_SIGNED_INT = re.compile(r"\s*([-−–+]?)\s*(\d+)\s*\.?\s*")
#: ``extract_answer``'s pattern in ProcessBench's ``run_eval.py``: no brace inside the box.
_OFFICIAL_BOX = re.compile(r"\\boxed\{([^}]*)\}")

OFFICIAL, TOLERANT = "official", "tolerant"
READINGS = (OFFICIAL, TOLERANT)


@dataclass(frozen=True)
class StepVerdict:
    """``index`` is the earliest wrong step (-1: none), or None when no integer was boxed."""

    index: int | None
    boxed: str | None


def read_step_index(answer: str, reading: str = OFFICIAL) -> StepVerdict:
    """The index a ProcessBench answer gives under ``reading`` (``official`` or ``tolerant``)."""
    if reading == OFFICIAL:
        return official_step_index(answer)
    if reading == TOLERANT:
        return parse_step_index(answer)
    raise ValueError(f"unknown ProcessBench reading {reading!r}; known: {', '.join(READINGS)}")


def official_step_index(answer: str) -> StepVerdict:
    """The index as ProcessBench's evaluation script reads it, edge cases included.

    Source: ``QwenLM/ProcessBench``, ``code/run_eval.py`` (commit e802463), ``extract_answer``
    and the ``int()`` after it: the content of the last ``\\boxed{...}`` whose content has no
    ``}``, stripped, then Python's ``int()``, ``None`` when that fails. So ``\\boxed{+3}``,
    ``\\boxed{ 3 }`` and ``\\boxed{３}`` read 3; ``\\boxed{3.}``, ``\\boxed{paragraph 3}``,
    ``\\boxed{\\text{3}}`` (the match stops at the inner ``}``) and ``\\boxed{−1}`` (a Unicode
    minus) read nothing; a trailing empty ``\\boxed{}`` hides every earlier box; text after the
    last box does not matter. Published ProcessBench F1s were computed this way.
    """
    matches = _OFFICIAL_BOX.findall(answer)
    if not matches:
        return StepVerdict(None, None)
    boxed = matches[-1].strip()
    try:
        return StepVerdict(int(boxed), boxed)
    except ValueError:  # the script's bare ``except``: int() of a str raises nothing else
        return StepVerdict(None, boxed)


def parse_step_index(answer: str) -> StepVerdict:
    """The tolerant reading: the single integer in the last ``\\boxed{}`` of an answer."""
    boxed = last_boxed(answer)
    if boxed is None:
        return StepVerdict(None, None)
    m = _SIGNED_INT.fullmatch(_BOX_NOISE.sub(" ", boxed))
    if not m:
        return StepVerdict(None, boxed)
    value = int(m.group(2))
    return StepVerdict(-value if m.group(1) not in ("", "+") else value, boxed)


# ----- DeltaBench ----------------------------------------------------------------------------

NO_ERROR, ERROR, UNPARSED = "no_error", "error", "unparsed"

_EMPHASIS = re.compile(r"\*\*|__|^[ \t]*#+[ \t]*", re.M)
_CONCLUSION = re.compile(r"(?i)\bconclusion\s*[:：]\s*([^\n]*)")
_ENTRY = re.compile(r"(?i)\berror\s+section\s+numbers?\s*[:：]\s*([^\n]*)")
_NUMBER_LIST = re.compile(
    r"(?i)^\s*\[?\s*(?:sections?\s*)?(\d+(?:\s*(?:,|;|/|&|\band\b|\s)\s*(?:sections?\s*)?\d+)*)"
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


def parse_sections(answer: str) -> SectionVerdict:
    """The verdict of a DeltaBench critic answer."""
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
    return [int(n) for n in re.findall(r"\d+", m.group(1))] if m else []


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
                listed.extend(int(n) for n in re.findall(r"\d+", mention))
    if listed:
        return SectionVerdict(ERROR, tuple(sorted(set(listed))), tuple(listed), "free_form")
    if _ALL_CORRECT.search(text):
        return SectionVerdict(NO_ERROR, format="free_form")
    return SectionVerdict(UNPARSED)
