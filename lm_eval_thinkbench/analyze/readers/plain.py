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
    level_field,
    optional_text,
    repeat_field,
    subset_name,
    text_field,
    wrong_type,
)
from lm_eval_thinkbench.datafiles import read_json_lines
from lm_eval_thinkbench.response import ModelResponse

REQUIRED = ("id", "problem", "gold")


def is_plain_record(record: object) -> bool:
    return (
        isinstance(record, dict)
        and all(k in record for k in REQUIRED)
        and ("response" in record or "reasoning" in record or "answer" in record)
    )


def read_file(path: Path, model: str | None = None) -> list[Sample]:
    return [
        _sample(record, path, model, f"{path}:{lineno}")
        for lineno, record in read_json_lines(path, InputFormatError)
    ]


def _sample(record: Any, path: Path, model: str | None, where: str) -> Sample:
    if not is_plain_record(record):
        raise InputFormatError(
            f"{where}: expected an object with {', '.join(REQUIRED)} and 'response' "
            "(or 'reasoning' + 'answer')"
        )
    finish = optional_text(record.get("finish_reason"), where, "finish_reason")
    if "response" in record:
        content = text_field(record["response"], where, "response", null=True)
        response = ModelResponse(content=content, finish_reason=finish)
    else:
        response = ModelResponse(
            content=text_field(record.get("answer"), where, "answer", null=True),
            reasoning=text_field(record.get("reasoning"), where, "reasoning", null=True),
            finish_reason=finish,
        )
    task = optional_text(record.get("task"), where, "task") or path.stem
    correct = record.get("correct")
    if correct is not None and not isinstance(correct, bool):
        raise wrong_type(where, "correct", correct, "true, false or null")
    return Sample(
        model=model or optional_text(record.get("model"), where, "model") or path.stem,
        task=task,
        subset=subset_name(level_field(record.get("level"), where), task),
        sample_id=text_field(record["id"], where, "id", numbers=True),
        repeat=repeat_field(record.get("repeat"), where, "repeat"),
        problem=text_field(record["problem"], where, "problem", null=True),
        gold=text_field(record["gold"], where, "gold", numbers=True, null=True),
        response=response,
        where=where,
        logged_correct=correct,
    )
