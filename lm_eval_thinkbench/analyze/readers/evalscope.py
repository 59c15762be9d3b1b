"""EvalScope outputs: ``reviews/<model>/<dataset>_<subset>.jsonl`` (or ``predictions/``).

Two record formats are read:

* current (EvalScope 1.x): ``messages`` (the user prompt, then the assistant message whose
  ``content`` is text or a list of ``reasoning``/``text`` blocks, or has ``reasoning_content``),
  ``target`` (the gold answers; reviews only), ``sample_score`` (the verdict, ids, repeat
  index; reviews only). A prediction record has ``model_output`` instead; its gold is the last
  ``\\boxed{}`` of ``metadata.solution`` (MATH's convention), since predictions carry no target.
* legacy (EvalScope 0.x): ``choices[i].message.content`` with the reasoning inline in
  ``<think>``, ``choices[i].review.gold`` / ``.result``, ``raw_input`` holding the problem.

The subset comes from the file name (``math_500_Level 3.jsonl`` -> "Level 3"); the problem is
the user prompt without EvalScope's "Please reason step by step ..." instruction. Reviews are
preferred over predictions when a folder has both: they carry the gold and the verdict.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lm_eval_thinkbench.analyze.samples import (
    InputFormatError,
    Sample,
    parse_level,
    subset_name,
)
from lm_eval_thinkbench.datafiles import json_lines
from lm_eval_thinkbench.math.extract import last_boxed
from lm_eval_thinkbench.response import ModelResponse

_INSTRUCTION = re.compile(r"\s*Please reason step by step\b.*\Z", re.DOTALL | re.IGNORECASE)
_LENGTH_STOPS = {"length", "max_tokens", "model_length"}


def is_evalscope_record(record: object) -> bool:
    if not isinstance(record, dict):
        return False
    if "sample_score" in record or "model_output" in record:
        return True
    choices = record.get("choices")
    return isinstance(choices, list) and bool(choices) and isinstance(choices[0], dict)


def is_output_folder(folder: Path) -> bool:
    return any((folder / sub).is_dir() for sub in ("reviews", "predictions"))


def find_files(folder: Path) -> list[tuple[str, Path]]:
    """(model, file) for every JSONL of an output folder: reviews if any, else predictions."""
    for sub in ("reviews", "predictions"):
        root = folder / sub
        if root.is_dir():
            files = sorted(root.glob("*/*.jsonl"))
            if files:
                return [(f.parent.name, f) for f in files]
    raise InputFormatError(f"{folder}: no reviews/<model>/*.jsonl or predictions/<model>/*.jsonl")


def read_file(path: Path, model: str | None = None) -> list[Sample]:
    """Every response in one EvalScope JSONL file."""
    dataset, _, subset = path.stem.rpartition("_")
    if not dataset:
        dataset, subset = path.stem, "default"
    level = parse_level(subset)
    samples: list[Sample] = []
    for lineno, record in _records(path):
        where = f"{path}:{lineno}"
        samples.extend(_samples(record, model or path.parent.name, dataset, subset, level, where))
    return samples


def _records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open(encoding="utf-8") as f:
        for lineno, record in json_lines(f, path, InputFormatError):
            if not is_evalscope_record(record):
                raise InputFormatError(
                    f"{path}:{lineno}: not an EvalScope review/prediction record (needs "
                    "'messages' with 'sample_score' or 'model_output', or legacy 'choices')"
                )
            yield lineno, record


def _samples(
    record: dict[str, Any], model: str, dataset: str, subset: str, level: int | None, where: str
) -> list[Sample]:
    def make(response: ModelResponse, gold: str, problem: str, sid: str, k: int, ok: object):
        return Sample(
            model=model,
            task=dataset,
            subset=subset_name(level, subset) if level is not None else subset,
            sample_id=sid,
            repeat=k,
            problem=problem,
            gold=gold,
            response=response,
            where=where,
            logged_correct=ok if isinstance(ok, bool) else None,
        )

    if "messages" in record and ("sample_score" in record or "model_output" in record):
        problem = _problem_from_messages(record["messages"])
        assistant = _last_assistant(record["messages"], record.get("model_output"))
        if assistant is None:
            raise InputFormatError(f"{where}: no assistant message")
        score = record.get("sample_score") or {}
        gold = _gold_current(record, score)
        if gold is None:
            raise InputFormatError(
                f"{where}: no gold answer (no 'target', no \\boxed{{}} in metadata.solution); "
                "read the reviews/ file instead of predictions/"
            )
        metadata = score.get("sample_metadata") or record.get("metadata") or {}
        sid = str(metadata.get("question_id") or score.get("sample_id") or record.get("index"))
        repeat = score.get("generation_index") or 0
        return [make(assistant, gold, problem, sid, int(repeat), _verdict(score))]

    raw_input = record.get("raw_input") if isinstance(record.get("raw_input"), dict) else {}
    problem = str(raw_input.get("question") or raw_input.get("problem") or "")
    sid = str(raw_input.get("unique_id") or record.get("id") or where)
    if level is None:
        level = parse_level(raw_input.get("level"))
    out = []
    for k, choice in enumerate(record["choices"]):
        message = choice.get("message") if isinstance(choice, dict) else None
        review = choice.get("review") if isinstance(choice, dict) else None
        review = review if isinstance(review, dict) else {}
        gold = review.get("gold") or raw_input.get("answer")
        if not isinstance(message, dict) or gold in (None, ""):
            raise InputFormatError(f"{where}: legacy choice {k} lacks a message or a gold answer")
        response = _response(message, choice.get("finish_reason"))
        out.append(make(response, str(gold), problem, sid, k, review.get("result")))
    return out


def _problem_from_messages(messages: object) -> str:
    for message in messages if isinstance(messages, list) else []:
        if isinstance(message, dict) and message.get("role") == "user":
            text, _ = _blocks(message.get("content"))
            return _INSTRUCTION.sub("", text)
    return ""


def _last_assistant(messages: object, model_output: object) -> ModelResponse | None:
    stop = None
    if isinstance(model_output, dict):
        choices = model_output.get("choices")
        if isinstance(choices, list) and choices and isinstance(choices[0], dict):
            stop = choices[0].get("stop_reason")
    for message in reversed(messages if isinstance(messages, list) else []):
        if isinstance(message, dict) and message.get("role") == "assistant":
            return _response(message, stop)
    return None


def _response(message: dict[str, Any], stop: object) -> ModelResponse:
    """An assistant message as a response: reasoning blocks or field kept separate."""
    text, reasoning = _blocks(message.get("content"))
    field = message.get("reasoning_content")
    if isinstance(field, str) and field.strip():
        reasoning = field
    return ModelResponse(
        content=text,
        reasoning=reasoning or None,
        finish_reason="length" if stop in _LENGTH_STOPS else None,
    )


def _blocks(content: object) -> tuple[str, str]:
    """(text, reasoning) of a message content: a string, or a list of typed blocks."""
    if isinstance(content, str):
        return content, ""
    texts, thoughts = [], []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, str):
            texts.append(block)
        elif isinstance(block, dict) and block.get("type") == "reasoning":
            thoughts.append(str(block.get("reasoning") or ""))
        elif isinstance(block, dict) and block.get("type") == "text":
            texts.append(str(block.get("text") or ""))
    return "\n".join(texts), "\n".join(thoughts)


def _gold_current(record: dict[str, Any], score: dict[str, Any]) -> str | None:
    target = record.get("target")
    if isinstance(target, list) and target:
        target = target[0]
    if isinstance(target, (str, int, float)) and str(target).strip():
        return str(target)
    metadata = score.get("sample_metadata") or record.get("metadata") or {}
    solution = metadata.get("solution") if isinstance(metadata, dict) else None
    return last_boxed(solution) if isinstance(solution, str) else None


def _verdict(score: dict[str, Any]) -> bool | None:
    inner = score.get("score") if isinstance(score, dict) else None
    values = inner.get("value") if isinstance(inner, dict) else None
    if not isinstance(values, dict) or not values:
        return None
    name = inner.get("main_score_name") or next(iter(values))
    value = values.get(name)
    if isinstance(value, bool):
        return value
    return float(value) >= 0.5 if isinstance(value, (int, float)) else None
