"""MATH-500 for the harness: the Hugging Face dataset by default, or a local JSONL copy.

``custom_dataset`` in a task YAML calls :func:`load_math500` with the task's metadata (from
``--metadata`` and ``--model_args``) and its ``dataset_kwargs`` (the level).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import datasets

from lm_eval_thinkbench.datafiles import DatasetError, read_records
from lm_eval_thinkbench.harness import settings

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
    settings.configure(metadata)
    path = metadata.get("math500_path") or os.environ.get(PATH_ENV)
    rows = read_jsonl(Path(path)) if path else _from_hub()
    if level is not None:
        rows = [r for r in rows if r["level"] == int(level)]
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)})


def read_jsonl(path: Path) -> list[dict[str, Any]]:
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
