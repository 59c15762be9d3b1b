"""``--gold FILE``: take each problem's gold answer from the dataset instead of the log.

Logs carry their own copy of the gold, and some copies are damaged: the Qwen2.5-Math
evaluation scripts normalise theirs (``gt``), which for MATH-500 drops a matrix's ``\\\\`` row
breaks and empties ``\\text{east}``. The dataset file (MATH-500's ``test.jsonl``, or any JSON
Lines, JSON array or CSV file with ``problem``/``question`` and ``answer``) is the reference.

A sample is matched to a dataset record by its problem text, whitespace aside: the same text,
else the one record whose text starts or ends with the sample's (or the reverse), since copies
of a problem differ by an instruction put before or after it (our MATH-500 copy opens with
"Return your final response within \\boxed{}."). A sample that matches no record, or several,
keeps its logged gold; how many did is logged as a warning.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from lm_eval_thinkbench.analyze.samples import InputFormatError, Sample
from lm_eval_thinkbench.datafiles import DatasetError, read_records

log = logging.getLogger(__name__)
_PROBLEM_KEYS = ("problem", "question", "Problem", "Question")
_ANSWER_KEYS = ("answer", "Answer")
_EXPECTED = "records with a problem (problem or question) and its answer (answer)"


def read_gold(path: Path) -> dict[str, str]:
    """Normalised problem text -> gold answer, from a dataset file."""
    try:
        records = read_records(path, _EXPECTED)
    except DatasetError as exc:
        raise InputFormatError(f"--gold: {exc}") from None
    golds: dict[str, str] = {}
    for i, record in enumerate(records, 1):
        problem = next((record[k] for k in _PROBLEM_KEYS if isinstance(record.get(k), str)), None)
        answer = next((record[k] for k in _ANSWER_KEYS if _is_answer(record.get(k))), None)
        if not (problem and problem.strip()) or answer is None or not str(answer).strip():
            raise InputFormatError(f"--gold {path}: record {i} lacks {_EXPECTED}")
        golds[_normal(problem)] = str(answer)
    return golds


def with_gold(samples: Sequence[Sample], golds: dict[str, str]) -> list[Sample]:
    """``samples`` with the dataset's gold wherever their problem matches one record."""
    index = _Index(golds)
    found: dict[str, str | None] = {}
    out = []
    unmatched = 0
    for s in samples:
        if s.problem not in found:
            found[s.problem] = index.match(_normal(s.problem))
        gold = found[s.problem]
        if gold is None:
            unmatched += 1
        out.append(s if gold is None or gold == s.gold else replace(s, gold=gold))
    if unmatched:
        log.warning(
            "--gold: %d of %d samples match no problem of the file; they keep their logged gold",
            unmatched,
            len(out),
        )
    return out


class _Index:
    """The records' texts by their first and last :data:`_EDGE` characters: a text that
    starts or ends with a problem, or that a problem starts or ends with, shares those with it
    when both are that long, so only the records filed there (and the few shorter texts) are
    compared, not every record for every problem (a quadratic scan, minutes on a dataset of
    ten thousand problems)."""

    def __init__(self, golds: dict[str, str]) -> None:
        self.golds = golds
        self.texts = list(golds)
        self.heads: dict[str, list[int]] = {}
        self.tails: dict[str, list[int]] = {}
        self.short: list[int] = []
        for i, text in enumerate(self.texts):
            if len(text) < _EDGE:
                self.short.append(i)
            else:
                self.heads.setdefault(text[:_EDGE], []).append(i)
                self.tails.setdefault(text[-_EDGE:], []).append(i)

    def match(self, problem: str) -> str | None:
        """The gold of ``problem``: its record's, else the one record whose text starts or
        ends with it (or the reverse); None when none or several do."""
        if problem in self.golds:
            return self.golds[problem]
        if not problem:
            return None
        if len(problem) < _EDGE:
            near: Iterable[int] = range(len(self.texts))
        else:
            filed = self.heads.get(problem[:_EDGE], []) + self.tails.get(problem[-_EDGE:], [])
            near = sorted({*filed, *self.short})
        hits = [
            self.golds[text]
            for text in (self.texts[i] for i in near)
            if text.endswith(problem)
            or text.startswith(problem)
            or problem.endswith(text)
            or problem.startswith(text)
        ]
        return hits[0] if len(hits) == 1 else None


#: How many characters at each end of a text :class:`_Index` files it by.
_EDGE = 16


def _is_answer(value: object) -> bool:
    """A string or a number (AMC's answers are floats); anything else is no answer."""
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _normal(text: str) -> str:
    return " ".join(text.split())
