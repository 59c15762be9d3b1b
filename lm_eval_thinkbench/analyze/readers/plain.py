"""Plain JSON Lines, for logs from anywhere else.

One object per line:

* ``id`` (string or number), ``problem``, ``gold`` (the reference answer, LaTeX without ``$``);
* either ``response`` (the raw text, reasoning inline as ``<think>...</think>``) or
  ``reasoning`` + ``answer`` (already split, as a server with a reasoning parser returns them);
* optional: ``level`` (1-5 or "Level 3"), ``model`` (default: the file name), ``task``
  (default: the file name), ``repeat`` (default 0), ``correct`` (a verdict logged elsewhere,
  used with ``--correctness logged``), ``finish_reason`` ("length" marks a truncated response).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lm_eval_thinkbench.analyze.samples import (
    InputFormatError,
    Sample,
    parse_level,
    subset_name,
)
from lm_eval_thinkbench.datafiles import json_lines
from lm_eval_thinkbench.response import ModelResponse

REQUIRED = ("id", "problem", "gold")


def is_plain_record(record: object) -> bool:
    return (
        isinstance(record, dict)
        and all(k in record for k in REQUIRED)
        and ("response" in record or "reasoning" in record or "answer" in record)
    )


def read_file(path: Path, model: str | None = None) -> list[Sample]:
    with path.open(encoding="utf-8") as f:
        return [
            _sample(record, path, model, f"{path}:{lineno}")
            for lineno, record in json_lines(f, path, InputFormatError)
        ]


def _sample(record: Any, path: Path, model: str | None, where: str) -> Sample:
    if not is_plain_record(record):
        raise InputFormatError(
            f"{where}: expected an object with {', '.join(REQUIRED)} and 'response' "
            "(or 'reasoning' + 'answer')"
        )
    if "response" in record:
        response = ModelResponse(content=_text(record["response"]))
    else:
        reasoning = _text(record.get("reasoning"))
        response = ModelResponse(content=_text(record.get("answer")), reasoning=reasoning)
    finish = record.get("finish_reason")
    if isinstance(finish, str):
        response = ModelResponse(response.content, response.reasoning, finish)
    task = str(record.get("task") or path.stem)
    correct = record.get("correct")
    return Sample(
        model=str(model or record.get("model") or path.stem),
        task=task,
        subset=subset_name(parse_level(record.get("level")), task),
        sample_id=str(record["id"]),
        repeat=int(record.get("repeat") or 0),
        problem=_text(record["problem"]),
        gold=_text(record["gold"]),
        response=response,
        where=where,
        logged_correct=correct if isinstance(correct, bool) else None,
    )


def _text(value: object) -> str:
    return "" if value is None else value if isinstance(value, str) else str(value)
