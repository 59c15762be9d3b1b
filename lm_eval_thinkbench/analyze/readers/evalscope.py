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

import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lm_eval_thinkbench.analyze.samples import (
    InputFormatError,
    Sample,
    level_field,
    optional_text,
    parse_level,
    repeat_field,
    subset_name,
    text_field,
    wrong_type,
)
from lm_eval_thinkbench.datafiles import file_problem, read_json_lines
from lm_eval_thinkbench.math.extract import last_boxed
from lm_eval_thinkbench.response import ModelResponse

log = logging.getLogger(__name__)
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
            files = []
            for f in sorted(root.glob("*/*.jsonl")):
                problem = file_problem(f)
                if problem is None:
                    files.append(f)
                else:  # a folder, a FIFO, a broken link: no model's outputs
                    log.warning("skipping %s: %s", f, problem)
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
    for lineno, record in read_json_lines(path, InputFormatError):
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
        problem = _problem_from_messages(record["messages"], where)
        assistant = _last_assistant(record["messages"], record.get("model_output"), where)
        if assistant is None:
            raise InputFormatError(f"{where}: no assistant message")
        score = _object(record.get("sample_score"), where, "sample_score")
        metadata = _object(
            score.get("sample_metadata"), where, "sample_score.sample_metadata"
        ) or _object(record.get("metadata"), where, "metadata")
        gold = _gold_current(record, metadata, where)
        if gold is None:
            raise InputFormatError(
                f"{where}: no gold answer (no 'target', no \\boxed{{}} in metadata.solution); "
                "read the reviews/ file instead of predictions/"
            )
        sid = _first_id(
            where,
            ("question_id", metadata.get("question_id")),
            ("sample_id", score.get("sample_id")),
            ("index", record.get("index")),
        )
        repeat = repeat_field(score.get("generation_index"), where, "generation_index")
        return [make(assistant, gold, problem, sid, repeat, _verdict(score, where))]

    raw = record.get("raw_input")
    raw_input: dict[str, Any] = raw if isinstance(raw, dict) else {}
    # An absent problem is "", as in the current format.
    problem = (
        optional_text(raw_input.get("question") or raw_input.get("problem"), where, "problem") or ""
    )
    sid = _first_id(
        where, ("unique_id", raw_input.get("unique_id")), ("id", record.get("id")), default=where
    )
    if level is None:
        level = level_field(raw_input.get("level"), where, "raw_input.level")
    out = []
    for k, choice in enumerate(record["choices"]):
        message = choice.get("message") if isinstance(choice, dict) else None
        review = choice.get("review") if isinstance(choice, dict) else None
        review = review if isinstance(review, dict) else {}
        gold = review.get("gold") or raw_input.get("answer")
        if not isinstance(message, dict) or gold in (None, ""):
            raise InputFormatError(f"{where}: legacy choice {k} lacks a message or a gold answer")
        response = _response(message, choice.get("finish_reason"), where)
        gold = text_field(gold, where, f"choices[{k}].review.gold", numbers=True)
        out.append(make(response, gold, problem or "", sid, k, review.get("result")))
    return out


def _object(value: object, where: str, name: str) -> dict[str, Any]:
    """An optional object field ({} when absent)."""
    if value is None:
        return {}
    if isinstance(value, dict):
        return value
    raise wrong_type(where, name, value, "an object")


def _first_id(where: str, *fields: tuple[str, object], default: str | None = None) -> str:
    """The first of the id fields that is set, as text; ``default`` when none is."""
    for name, value in fields:
        if value is not None and value != "":
            return text_field(value, where, name, numbers=True)
    if default is not None:
        return default
    raise InputFormatError(f"{where}: no id ({', '.join(name for name, _ in fields)})")


def _problem_from_messages(messages: object, where: str) -> str:
    for message in messages if isinstance(messages, list) else []:
        if isinstance(message, dict) and message.get("role") == "user":
            text, _ = _blocks(message.get("content"), where)
            return _INSTRUCTION.sub("", text)
    return ""


def _last_assistant(messages: object, model_output: object, where: str) -> ModelResponse | None:
    stop = None
    if isinstance(model_output, dict):
        choices = model_output.get("choices")
        if isinstance(choices, list) and choices and isinstance(choices[0], dict):
            stop = choices[0].get("stop_reason")
    for message in reversed(messages if isinstance(messages, list) else []):
        if isinstance(message, dict) and message.get("role") == "assistant":
            return _response(message, stop, where)
    return None


def _response(message: dict[str, Any], stop: object, where: str) -> ModelResponse:
    """An assistant message as a response: reasoning blocks or field kept separate."""
    text, reasoning = _blocks(message.get("content"), where)
    field = optional_text(message.get("reasoning_content"), where, "reasoning_content")
    if field is not None and field.strip():
        reasoning = field
    stop = optional_text(stop, where, "stop_reason")
    return ModelResponse(
        content=text,
        reasoning=reasoning or None,
        finish_reason="length" if stop in _LENGTH_STOPS else None,
    )


def _blocks(content: object, where: str) -> tuple[str, str]:
    """(text, reasoning) of a message content: a string, a list of typed blocks (others, such
    as images, are not text), or null."""
    if content is None or isinstance(content, str):
        return content or "", ""
    if not isinstance(content, list):
        raise wrong_type(where, "content", content, "a string, an array of blocks or null")
    texts, thoughts = [], []
    for block in content:
        if isinstance(block, str):
            texts.append(block)
        elif isinstance(block, dict) and block.get("type") == "reasoning":
            thoughts.append(text_field(block.get("reasoning"), where, "reasoning", null=True))
        elif isinstance(block, dict) and block.get("type") == "text":
            texts.append(text_field(block.get("text"), where, "text", null=True))
    return "\n".join(texts), "\n".join(thoughts)


def _gold_current(record: dict[str, Any], metadata: dict[str, Any], where: str) -> str | None:
    target = record.get("target")
    if isinstance(target, list) and target:
        target = target[0]
    if target is not None:
        gold = text_field(target, where, "target", numbers=True)
        if gold.strip():
            return gold
    solution = metadata.get("solution")
    return last_boxed(solution) if isinstance(solution, str) else None


def _verdict(score: dict[str, Any], where: str) -> bool | None:
    inner = score.get("score")
    values = inner.get("value") if isinstance(inner, dict) else None
    if not isinstance(inner, dict) or not isinstance(values, dict) or not values:
        return None
    name = optional_text(inner.get("main_score_name"), where, "main_score_name")
    value = values.get(name or next(iter(values)))
    if isinstance(value, bool):
        return value
    return value >= 0.5 if isinstance(value, int | float) else None
