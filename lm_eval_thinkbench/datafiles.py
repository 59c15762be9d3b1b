"""Read the records of a local benchmark file: a JSON array, JSON Lines, or CSV.

Benchmarks ship their data in different shapes (ProcessBench as one JSON array per subset,
DeltaBench as CSV and JSONL), and users keep local copies in whichever shape they downloaded.
A file that cannot be used at all fails once, with one line naming the file and what was
expected; judging individual rows is the caller's business.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any


class DatasetError(ValueError):
    """A local dataset file that cannot be used; the message names the file and the fix."""


def read_records(path: Path, expected: str) -> list[dict[str, Any]]:
    """Every record of ``path``; ``expected`` describes the wanted fields for error messages.

    The format follows the suffix (``.csv``) or the content (a JSON array starts with ``[``,
    anything else is read as JSON Lines). CSV cells stay strings: callers parse them.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"cannot read {path}: {exc}; expected {expected}") from exc
    if path.suffix.lower() == ".csv":
        records = _csv(text, path, expected)
    elif text.lstrip().startswith("["):
        records = _json_array(text, path, expected)
    else:
        records = _json_lines(text, path, expected)
    if not records:
        raise DatasetError(f"{path} holds no records; expected {expected}")
    return records


def _csv(text: str, path: Path, expected: str) -> list[dict[str, Any]]:
    # Long chains of thought exceed the csv module's default 128 KiB cell limit.
    csv.field_size_limit(2**31 - 1)
    try:
        rows = list(csv.DictReader(text.splitlines(keepends=True)))
    except csv.Error as exc:
        raise DatasetError(f"{path}: not valid CSV ({exc}); expected {expected}") from exc
    return [dict(r) for r in rows]


def _json_array(text: str, path: Path, expected: str) -> list[dict[str, Any]]:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise DatasetError(f"{path}: not valid JSON ({exc}); expected {expected}") from exc
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise DatasetError(f"{path}: not a JSON array of objects; expected {expected}")
    return data


def _json_lines(text: str, path: Path, expected: str) -> list[dict[str, Any]]:
    records = []
    for lineno, record in json_lines(text.splitlines(), path, DatasetError, expected):
        if not isinstance(record, dict):
            raise DatasetError(f"{path}:{lineno}: not a JSON object; expected {expected}")
        records.append(record)
    return records


def json_lines(
    lines: Iterable[str],
    path: Path,
    error: type[Exception] = DatasetError,
    expected: str = "one JSON value per line",
) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for every non-blank line, streamed (a file object works as
    ``lines``); a line that is not JSON raises ``error`` naming the file and the line."""
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield lineno, json.loads(line)
        except ValueError as exc:
            raise error(f"{path}:{lineno}: not valid JSON ({exc}); expected {expected}") from None
