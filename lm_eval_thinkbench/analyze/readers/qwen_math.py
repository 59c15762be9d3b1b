"""Output of the Qwen2.5-Math evaluation scripts (also used by SkyThought): one JSON line per
problem with ``idx``, ``question``, ``gt`` (the scripts' parsed gold answer), ``level``,
``code`` (the responses), ``pred`` (their extracted answers) and ``score`` (their grader's
verdict per response).

``code``, ``pred`` and ``score`` are lists, or lists written as strings (JSON, or Python
literals such as ``[True]``); they are read with ``json.loads``, then ``ast.literal_eval``
(which evaluates literals only, never code). Each response of ``code`` is one sample (its
repeat is its position), and ``score`` is kept as the logged verdict, so a report shows our
accuracy beside the scripts' grader's.

The gold is ``gt``. The scripts normalise it, and for some problems lose part of it (MATH-500
matrices lose their ``\\\\`` row breaks: ``\\begin{pmatrix}-7165\\end{pmatrix}``); ``--gold``
replaces it with the dataset's own answer (``analyze.gold``). The file carries neither model
nor task name, but its path does when it keeps the scripts' layout,
``<model>/<prompt>_eval/<data>/<split>_<prompt>_<n>_seed<s>_t<temp>_s<start>_e<end>.jsonl``
(SkyThought's ``outputs/Qwen/Qwen2.5-Math-7B/math500_eval/math500/test_...jsonl``): the model is
then the folder above the prompt's, the task the data folder. Otherwise both are the file name.
``NAME=PATH`` names the model.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from lm_eval_thinkbench.analyze.samples import (
    InputFormatError,
    Sample,
    level_field,
    subset_name,
    text_field,
    wrong_type,
)
from lm_eval_thinkbench.datafiles import parse_json, read_json_lines
from lm_eval_thinkbench.response import ModelResponse, utf8_safe

REQUIRED = ("idx", "question", "gt", "code")
#: The scripts' output file name: ``{split}_{prompt_type}_{num_test}_seed{seed}_t{temperature}
#: _s{start}_e{end}.jsonl``.
_SCRIPT_NAME = re.compile(r"[^_]+_.+_-?\d+_seed\d+_t[\d.]+_s\d+_e-?\d+")


def is_qwen_math_record(record: object) -> bool:
    return isinstance(record, dict) and all(k in record for k in REQUIRED)


def read_file(path: Path, model: str | None = None) -> list[Sample]:
    """Every response in one output file of the Qwen2.5-Math evaluation scripts."""
    model_name, task = names(path)
    samples: list[Sample] = []
    for lineno, record in read_json_lines(path, InputFormatError):
        samples.extend(_samples(record, model or model_name, task, f"{path}:{lineno}"))
    return samples


def names(path: Path) -> tuple[str, str]:
    """(model, task) from the scripts' output layout, else the file name for both."""
    resolved = path.absolute()
    layout = _SCRIPT_NAME.fullmatch(resolved.stem) and len(resolved.parents) > 3
    if not layout:
        return path.stem, path.stem
    return resolved.parents[2].name, resolved.parent.name


def _samples(record: Any, model: str, task: str, where: str) -> list[Sample]:
    if not is_qwen_math_record(record):
        raise InputFormatError(
            f"{where}: not a Qwen2.5-Math evaluation record (needs {', '.join(REQUIRED)})"
        )
    responses = [
        utf8_safe(text_field(text, where, f"code[{k}]", null=True))
        for k, text in enumerate(_list(record["code"], where, "code"))
    ]
    scores = _list(record["score"], where, "score") if "score" in record else []
    verdicts = [s if isinstance(s, bool) else None for s in scores]
    if len(verdicts) != len(responses):  # a score per response, or none is usable
        verdicts = [None] * len(responses)
    gold = _gold(record, where)
    subset = subset_name(level_field(record.get("level"), where), task)
    sample_id = text_field(record["idx"], where, "idx", numbers=True)
    problem = text_field(record["question"], where, "question", null=True)
    return [
        Sample(
            model=model,
            task=task,
            subset=subset,
            sample_id=sample_id,
            repeat=k,
            problem=problem,
            gold=gold,
            response=ModelResponse(content=text),
            where=where,
            logged_correct=verdicts[k],
        )
        for k, text in enumerate(responses)
    ]


def _gold(record: dict[str, Any], where: str) -> str:
    """The dataset's own final answer when the record kept it (``answer`` as a LaTeX string, as
    MATH, AIME and most sets give it; not GSM8K's worked ``#### answer``), else ``gt``; empty
    when neither is usable (``--gold`` can still supply it). An ``answer`` that is not a string
    (AMC's floats) is not used: ``gt`` holds it as the scripts compared it."""
    answer = record.get("answer")
    if isinstance(answer, str) and answer.strip() and "####" not in answer:
        return answer
    gt = record["gt"]
    if isinstance(gt, list):  # the scripts' list of answers: usable when there is one
        return text_field(gt[0], where, "gt[0]", numbers=True, null=True) if len(gt) == 1 else ""
    return text_field(gt, where, "gt", numbers=True, null=True)


def _list(value: object, where: str, field: str) -> list[Any]:
    """A list field, as a list or a list written as a string (JSON or a Python literal); a
    string that is neither is one element (a single response)."""
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        for parse in (parse_json, ast.literal_eval):
            try:
                parsed = parse(value)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
            if isinstance(parsed, list):
                return parsed
        return [value]
    if value is None or isinstance(value, (bool, int, float)):
        return [value]
    raise wrong_type(where, field, value, "an array or a string")
