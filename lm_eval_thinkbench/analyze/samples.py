"""The one shape every input format is read into: a logged response with its problem and gold.

Readers (``readers/``) know file formats; everything after them (selection, scoring,
aggregation, reports) sees only :class:`Sample`, so a new log format is one new reader.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lm_eval_thinkbench.response import ModelResponse


class InputFormatError(ValueError):
    """An input that cannot be read; the message names the file (and line) and what was
    expected."""


_JSON_TYPES = {
    type(None): "null",
    bool: "a boolean",
    int: "a number",
    float: "a number",
    str: "a string",
    list: "an array",
    dict: "an object",
}


def wrong_type(where: str, name: str, value: object, expected: str) -> InputFormatError:
    """The error for a field of the wrong type, naming the line, the field and both types:
    readers check every field they use, so that a file never fails with a traceback."""
    got = _JSON_TYPES.get(type(value), type(value).__name__)
    return InputFormatError(f"{where}: {name!r} is {got}, expected {expected}")


def text_field(
    value: object, where: str, name: str, *, numbers: bool = False, null: bool = False
) -> str:
    """A string field; ``numbers`` also takes a number (an id, an answer such as ``27.0``),
    ``null`` reads null as "" (a server's null content)."""
    if isinstance(value, str):
        return value
    if null and value is None:
        return ""
    if numbers and isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    kinds = ["a string", *(["a number"] if numbers else []), *(["null"] if null else [])]
    raise wrong_type(where, name, value, " or ".join(kinds))


def optional_text(value: object, where: str, name: str) -> str | None:
    """A string field that may be absent (None)."""
    return None if value is None else text_field(value, where, name)


def repeat_field(value: object, where: str, name: str) -> int:
    """A repeat index: a non-negative integer, 0 when absent."""
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise wrong_type(where, name, value, "a non-negative integer")


def level_field(value: object, where: str, name: str = "level") -> int | None:
    """A MATH level (:func:`parse_level`) from a field that must be a number, a string or
    null; None when it names no level."""
    if isinstance(value, bool) or not isinstance(value, str | int | float | None):
        raise wrong_type(where, name, value, "a number, a string or null")
    return parse_level(value)


@dataclass(frozen=True)
class Sample:
    """One response to analyse.

    ``subset`` is "Level k" when the problem has a MATH level, else the task name; ``repeat``
    tells apart several responses to one problem. ``logged_correct`` is the verdict the
    producing run logged for this response (a task's ``exact_match``, EvalScope's score),
    None when it logged none. ``where`` is ``file:line``, for error messages and the reader.
    ``tokenizers`` are the tokenizers the run itself names, best first (the one its records
    say counted, then its model's), so that analyze counts as the run did (``counting.py``).
    ``max_gen_toks`` is the token limit the request was sent with, where the log records it:
    a response with no finish reason that reaches it was cut (``trace.mark_length_stop``),
    as the harness decides.
    """

    model: str
    task: str
    subset: str
    sample_id: str
    repeat: int
    problem: str
    gold: str
    response: ModelResponse
    where: str
    logged_correct: bool | None = None
    tokenizers: tuple[str, ...] = ()
    max_gen_toks: int | None = None

    @property
    def key(self) -> tuple[str, str, str, int]:
        return (self.model, self.task, self.sample_id, self.repeat)

    def identity(self) -> dict[str, str | int]:
        """Which sample this is, as the compare rows and the trace view write it (first keys)."""
        return {
            "model": self.model,
            "task": self.task,
            "subset": self.subset,
            "id": self.sample_id,
            "repeat": self.repeat,
        }


@dataclass(frozen=True)
class Skipped:
    """A samples file of a task that is not a math task (logic, ProcessBench, DeltaBench...).

    It is left out of every figure, and the reports name it, so that another suite's samples
    are never scored as math problems nor silently dropped.
    """

    model: str
    task: str
    samples: int
    reason: str
    path: str


@dataclass(frozen=True)
class Inputs:
    """What the runs hold: the samples to score, and the files left out as not math."""

    samples: list[Sample]
    skipped: list[Skipped]


_LEVEL = re.compile(r"\s*(?:level\s*)?([1-9])\s*", re.IGNORECASE)


def parse_level(raw: object) -> int | None:
    """A MATH difficulty level from ``3``, ``"3"`` or ``"Level 3"``; None otherwise."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw if 1 <= raw <= 9 else None
    m = _LEVEL.fullmatch(str(raw)) if raw is not None else None
    return int(m.group(1)) if m else None


def subset_name(level: int | None, task: str) -> str:
    """The reporting subset: the MATH level when known, else the task."""
    return f"Level {level}" if level is not None else task


def subset_order(subset: str) -> tuple[int, int, str]:
    """Sort key: levels in numeric order first, then other subsets by name."""
    level = parse_level(subset) if subset.lower().startswith("level") else None
    return (0, level, "") if level is not None else (1, 0, subset)
