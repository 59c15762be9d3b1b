"""The math sets for the harness: their Hugging Face datasets by default, or local copies.

``custom_dataset`` in a task YAML calls :func:`load_math500` or :func:`load_competition` with
the task's metadata (from ``--metadata`` and ``--model_args``) and its ``dataset_kwargs`` (the
level, or which competition).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import datasets

from lm_eval_thinkbench.datafiles import DatasetError, read_records
from lm_eval_thinkbench.harness import settings
from lm_eval_thinkbench.tokens import get_counter

HF_PATH = "HuggingFaceH4/MATH-500"
PATH_ENV = "THINKBENCH_MATH500_PATH"
FIELDS = ("problem", "answer", "level", "unique_id")
LEVELS = (1, 2, 3, 4, 5)


def load_math500(level: int | None = None, **metadata: Any) -> datasets.DatasetDict:
    """Load MATH-500 (optionally one level) as a ``{"test": Dataset}`` dict.

    A local copy is used when ``--metadata math500_path=...`` or the environment variable
    ``THINKBENCH_MATH500_PATH`` names one; otherwise ``HuggingFaceH4/MATH-500`` (test split)
    is loaded through ``datasets`` as any lm-eval task would.
    """
    _configure(metadata)
    path = metadata.get("math500_path") or os.environ.get(PATH_ENV)
    rows = read_math500(Path(path)) if path else _from_hub()
    if level is not None:
        rows = [r for r in rows if r["level"] == int(level)]
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)})


def _configure(metadata: Mapping[str, Any]) -> None:
    """Make the task's settings current, and load the tokenizer the user named now: lm-eval
    loads the data before generating and scores after, so a ``thinkbench_tokenizer`` that
    cannot load (a typo, no network) stops the run here, not after hours of generation."""
    run = settings.configure(metadata)
    if run.tokenizer:
        get_counter(run.tokenizer)


def read_math500(path: Path) -> list[dict[str, Any]]:
    """Read and validate a local MATH-500 copy (JSON Lines as released; a JSON array or CSV
    also works), failing once with a message that names the file and the fields expected."""
    expected = f"one JSON object per line with fields {', '.join(FIELDS)} (level an integer 1-5)"
    rows = []
    for i, row in enumerate(read_records(path, expected), 1):
        missing = [f for f in FIELDS if f not in row]
        if missing:
            lacks = ", ".join(missing)
            raise DatasetError(f"{path}: record {i} lacks {lacks}; expected {expected}")
        rows.append(_normalise(row, f"{path}: record {i}", expected))
    return rows


def _from_hub() -> list[dict[str, Any]]:
    ds = datasets.load_dataset(HF_PATH, split="test")
    return [_normalise(dict(r), HF_PATH, "the MATH-500 schema") for r in ds]


def _normalise(row: dict[str, Any], where: str, expected: str) -> dict[str, Any]:
    # HF MATH-500 stores 3; other MATH copies store "Level 3".
    digits = re.fullmatch(r"\s*(?:Level\s*)?([1-5])\s*", str(row["level"]))
    level = int(digits.group(1)) if digits else None
    if level not in LEVELS:
        raise DatasetError(f"{where}: level {row['level']!r} is not 1-5; expected {expected}")
    return {
        "problem": str(row["problem"]),
        "answer": str(row["answer"]),
        "solution": str(row.get("solution", "")),
        "subject": str(row.get("subject", "")),
        "level": level,
        "unique_id": str(row["unique_id"]),
    }


@dataclass(frozen=True)
class Competition:
    """Where a competition set lives: its usual Hub dataset (the one lm-eval's own task of the
    same name loads, where there is one) and the environment variable naming a local copy."""

    hub_path: str
    split: str
    path_env: str


COMPETITIONS = {
    "aime24": Competition("Maxwell-Jia/AIME_2024", "train", "THINKBENCH_AIME24_PATH"),
    "aime25": Competition("math-ai/aime25", "test", "THINKBENCH_AIME25_PATH"),
    "amc23": Competition("math-ai/amc23", "test", "THINKBENCH_AMC23_PATH"),
}
#: Field names the copies use: Qwen2.5-Math's files and math-ai's datasets are lower case,
#: Maxwell-Jia/AIME_2024 capitalises them, AMC copies also carry ``question``.
_PROBLEM_FIELDS = ("problem", "Problem", "question")
_ANSWER_FIELDS = ("answer", "Answer")
_ID_FIELDS = ("id", "ID", "unique_id")
_INTEGER = re.compile(r"\s*([+-]?\d+)(?:\.0*)?\s*")


def load_competition(competition: str, **metadata: Any) -> datasets.DatasetDict:
    """Load a competition set (``aime24``, ``aime25``, ``amc23``) as ``{"test": Dataset}``.

    A local copy is used when ``--metadata <competition>_path=...`` or its environment
    variable (``THINKBENCH_AIME24_PATH``, ...) names one; otherwise the Hub dataset of
    :data:`COMPETITIONS`. Every row becomes ``problem``, ``answer`` (the integer as a plain
    string: AMC23 stores ``27.0``, AIME24 ``025``) and ``id``.
    """
    _configure(metadata)
    if competition not in COMPETITIONS:
        raise ValueError(f"unknown competition {competition!r}; known: {', '.join(COMPETITIONS)}")
    spec = COMPETITIONS[competition]
    path = metadata.get(f"{competition}_path") or os.environ.get(spec.path_env)
    expected = "one JSON object per line with a problem (or question), an integer answer and an id"
    if path:
        raw = read_records(Path(path), expected)
        where = [f"{path}: record {i}" for i in range(1, len(raw) + 1)]
    else:
        raw = [dict(r) for r in datasets.load_dataset(spec.hub_path, split=spec.split)]
        where = [f"{spec.hub_path}: row {i}" for i in range(len(raw))]
    rows = [
        competition_row(r, i, w, expected) for i, (r, w) in enumerate(zip(raw, where, strict=True))
    ]
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)})


def competition_row(row: Mapping[str, Any], index: int, where: str, expected: str) -> dict:
    """One problem of a competition copy in the tasks' schema; ``index`` is its id when the
    copy has none."""
    problem = next((row[f] for f in _PROBLEM_FIELDS if isinstance(row.get(f), str)), None)
    answer = next((row[f] for f in _ANSWER_FIELDS if row.get(f) is not None), None)
    if problem is None or answer is None:
        raise DatasetError(f"{where}: lacks a problem or an answer; expected {expected}")
    ident = next((row[f] for f in _ID_FIELDS if row.get(f) is not None), index)
    return {"problem": problem, "answer": integer_answer(answer, where), "id": str(ident)}


def integer_answer(value: object, where: str = "answer") -> str:
    """An AIME/AMC answer as the integer it is (``27.0`` -> ``27``, ``"025"`` -> ``25``), so
    that the gold reads as the number a model writes."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    match = _INTEGER.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise DatasetError(f"{where}: answer {value!r} is not an integer")
    return str(int(match.group(1)))
