"""Read the records of a local data file: a JSON array, JSON Lines, or CSV.

Benchmarks ship their data in different shapes (ProcessBench as one JSON array per subset,
DeltaBench as CSV and JSONL), users keep local copies in whichever shape they downloaded, and
run logs (lm-eval samples, EvalScope reviews, PRM scores) are JSON Lines. A file that cannot be
used at all fails once, with one line naming the file (and line) and what was expected;
judging individual rows is the caller's business.

Everything a hostile file can do is one of those errors, never a traceback or a hang:

* a path that is not a regular file (a directory, a FIFO, a socket, a device, a looping or
  dangling symlink) is refused before it is opened: reading a FIFO would wait forever;
* bytes that are not UTF-8 name the line they are on (lines are decoded one by one);
* JSON nested deeper than :data:`MAX_DEPTH` is refused: Python's parser raises
  ``RecursionError`` (not a ``ValueError``) beyond about 1,000 levels, and a value just under
  that parses but raises it later wherever it is printed, compared or serialised;
* a ``\\ud800`` escape (a lone surrogate, legal JSON but not encodable as UTF-8) becomes
  U+FFFD, so that no report or log written from the value fails at write time.
"""

from __future__ import annotations

import csv
import json
import os
import re
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from lm_eval_thinkbench.response import utf8_safe


class DatasetError(ValueError):
    """A local dataset file that cannot be used; the message names the file and the fix."""


#: Deepest JSON nesting accepted. The formats read here nest a few levels (an lm-eval
#: sample's generation arguments are the deepest, at five), so this only refuses values built
#: to break the reader.
MAX_DEPTH = 100
#: A ``\\uD800``-``\\uDFFF`` escape: the only way a parsed string can hold a lone surrogate.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_KINDS = {
    stat.S_IFDIR: "a directory",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}


def file_problem(path: Path) -> str | None:
    """Why ``path`` cannot be read as a data file (not a regular file, or a link that leads
    nowhere), None when it can be opened. Nothing is opened to find out."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        return exc.strerror or str(exc)
    if stat.S_ISREG(mode):
        return None
    return f"not a regular file ({_KINDS.get(stat.S_IFMT(mode), 'a special file')})"


def open_data(
    path: Path, error: type[Exception] = DatasetError, expected: str = "a data file"
) -> BinaryIO:
    """``path`` opened for binary reading, or ``error`` naming it and what was expected.

    The file type is checked before opening, and checked again on the open descriptor
    (opened non-blocking, so that a FIFO swapped in meanwhile cannot hang the open).
    """
    problem = file_problem(path)
    if problem is None:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as exc:
            problem = exc.strerror or str(exc)
        else:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                return os.fdopen(fd, "rb")
            os.close(fd)
            problem = "not a regular file"
    raise error(f"cannot read {path}: {problem}; expected {expected}")


def read_data(
    path: Path, error: type[Exception] = DatasetError, expected: str = "a data file"
) -> bytes:
    """The whole of the file ``path``, opened as :func:`open_data` opens it."""
    with open_data(path, error, expected) as f:
        try:
            return f.read()
        except OSError as exc:  # an I/O error
            raise error(f"cannot read {path}: {exc.strerror or exc}; expected {expected}") from None


def read_json_lines(
    path: Path, error: type[Exception] = DatasetError, expected: str = "one JSON value per line"
) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for every non-blank line of the file ``path``, streamed; any
    problem raises ``error`` naming the file (and the line)."""
    with open_data(path, error, expected) as f:
        yield from json_lines(_lines(f, path, error, expected), path, error, expected)


def json_lines(
    lines: Iterable[str | bytes],
    path: Path,
    error: type[Exception] = DatasetError,
    expected: str = "one JSON value per line",
) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for every non-blank line (text, or UTF-8 bytes); a line that is
    not UTF-8 or not JSON (see :func:`parse_json`) raises ``error`` naming the file and line."""
    for lineno, line in enumerate(lines, 1):
        try:
            text = line.decode("utf-8") if isinstance(line, bytes) else line
        except UnicodeDecodeError as exc:
            raise error(
                f"cannot read {path}: line {lineno} is not UTF-8 text ({exc.reason} at byte "
                f"{exc.start + 1}); expected {expected}"
            ) from None
        if not text.strip():
            continue
        try:
            yield lineno, parse_json(text)
        except ValueError as exc:
            raise error(f"{path}:{lineno}: not valid JSON ({exc}); expected {expected}") from None


def parse_json(text: str) -> Any:
    """``json.loads`` whose every failure is a ``ValueError`` (see the module docstring: too
    deep is one); lone surrogates in strings become U+FFFD."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels") from None
    if _too_deep(value):
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    return _utf8_safe(value) if _SURROGATE_ESCAPE.search(text) else value


def read_records(path: Path, expected: str) -> list[dict[str, Any]]:
    """Every record of ``path``; ``expected`` describes the wanted fields for error messages.

    The format follows the suffix (``.csv``) or the content (a JSON array starts with ``[``,
    anything else is read as JSON Lines). CSV cells stay strings: callers parse them.
    """
    data = read_data(path, DatasetError, expected)
    if path.suffix.lower() == ".csv":
        records = _csv(_decode(data, path, expected), path, expected)
    elif data.lstrip().startswith(b"["):
        records = _json_array(_decode(data, path, expected), path, expected)
    else:
        records = _json_lines(data, path, expected)
    if not records:
        raise DatasetError(f"{path} holds no records; expected {expected}")
    return records


def _lines(f: BinaryIO, path: Path, error: type[Exception], expected: str) -> Iterator[bytes]:
    """The lines of an open file; a read that fails (an I/O error) raises ``error``."""
    try:
        yield from f
    except OSError as exc:
        raise error(f"cannot read {path}: {exc.strerror or exc}; expected {expected}") from None


def _decode(data: bytes, path: Path, expected: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise DatasetError(
            f"cannot read {path}: line {line} is not UTF-8 text ({exc.reason}); expected {expected}"
        ) from None


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
        data = parse_json(text)
    except ValueError as exc:
        raise DatasetError(f"{path}: not valid JSON ({exc}); expected {expected}") from None
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise DatasetError(f"{path}: not a JSON array of objects; expected {expected}")
    return data


def _json_lines(data: bytes, path: Path, expected: str) -> list[dict[str, Any]]:
    # Split on "\n" only, as JSON Lines is defined: str.splitlines() would also split a
    # record at a U+2028 that json.dumps(ensure_ascii=False) leaves raw inside a string.
    records = []
    for lineno, record in json_lines(data.split(b"\n"), path, DatasetError, expected):
        if not isinstance(record, dict):
            raise DatasetError(f"{path}:{lineno}: not a JSON object; expected {expected}")
        records.append(record)
    return records


def _too_deep(value: Any) -> bool:
    """Whether ``value`` nests containers more than :data:`MAX_DEPTH` deep (no recursion)."""
    stack = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


def _utf8_safe(value: Any) -> Any:
    if isinstance(value, str):
        return utf8_safe(value)
    if isinstance(value, list):
        return [_utf8_safe(v) for v in value]
    if isinstance(value, dict):
        return {utf8_safe(k): _utf8_safe(v) for k, v in value.items()}
    return value
