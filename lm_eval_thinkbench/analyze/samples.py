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
