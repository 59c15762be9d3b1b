"""lm-eval ``--log_samples`` output: ``samples_<task>_<timestamp>.jsonl`` files.

An output folder holds whatever tasks the run had, so each file is first recognised by its
task name and its first logged document. Math tasks are scored: this plugin's
``thinkbench_math500`` tasks, the harness's own (``hendrycks_math500``, ``minerva_math500``,
``aime24``, ``aime25``, ...) and any task whose document has a problem and a final answer.
Problem, gold answer and level come from the logged document (``problem``/``Problem``/
``question``, ``answer``/``Answer``, else the last ``\\boxed{}`` of ``solution``, else for a
task named as math the logged ``target``; ``level``), the raw responses from ``resps`` (every
repeat), and the run's own verdict from the thinkbench record's ``correct`` or, with one response
per document, the task's ``exact_match``. Any other task (this plugin's logic, ProcessBench and
DeltaBench suites, a document without a problem or a final answer, GSM8K's worked
``#### answer`` solutions) is returned as :class:`Skipped`, never scored as math: a
ProcessBench ``target`` is a step label, not an answer.

lm-eval writes one folder per model under ``--output_path`` and new timestamped files on every
run; for each folder and task the newest file is read. The model is named from the run's
``results_<timestamp>.json`` (its ``pretrained``/``model`` argument, else the model type). The
tokenizers the run names (``Sample.tokenizers``) are the one its thinkbench records say counted,
then its model arguments' ``tokenizer``, ``pretrained`` and ``model``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from itertools import chain
from pathlib import Path
from typing import Any

from lm_eval_thinkbench.analyze.samples import (
    InputFormatError,
    Sample,
    Skipped,
    level_field,
    subset_name,
    text_field,
)
from lm_eval_thinkbench.datafiles import file_problem, parse_json, read_data, read_json_lines
from lm_eval_thinkbench.math.extract import last_boxed
from lm_eval_thinkbench.response import from_wire
from lm_eval_thinkbench.tokens import DEFAULT_TOKENIZER, QwenTiktokenCounter

log = logging.getLogger(__name__)

SAMPLES_GLOB = "samples_*.jsonl"
_NAME = re.compile(r"samples_(?P<task>.+)_(?P<stamp>\d{4}-\d{2}-\d{2}T[\d\-.:]+)\.jsonl")
_PROBLEM_KEYS = ("problem", "Problem", "question", "Question")
_GOLD_KEYS = ("answer", "Answer")
_SOLUTION_KEYS = ("solution", "Solution")
_ID_KEYS = ("unique_id", "id", "ID", "idx")
#: This plugin's suites that are not math problems, whatever their documents hold.
_OTHER_SUITES = re.compile(r"thinkbench_(?P<suite>logic|processbench|deltabench)(?:_|$)")
#: Document fields that show a critic or logic benchmark (ProcessBench's step labels,
#: DeltaBench's sections, a logic item's rule family).
_OTHER_SCHEMAS = {
    "ProcessBench-style step labels": ("steps", "label"),
    "DeltaBench-style sections": ("sections_text",),
    "a logic puzzle": ("logic_family",),
}
#: Task names whose logged ``target`` is the final answer when the document has none.
_MATH_NAME = re.compile(r"math|aime|amc|olympiad", re.IGNORECASE)
#: ``model_args`` that name the run's tokenizer, best first (as the harness reads them).
_TOKENIZER_ARGS = ("tokenizer", "pretrained", "model")


def is_samples_record(record: object) -> bool:
    return isinstance(record, dict) and "doc" in record and "resps" in record


def find_files(folder: Path) -> list[Path]:
    """The newest samples file per (folder, task) below ``folder``."""
    newest: dict[tuple[Path, str], tuple[str, Path]] = {}
    for path in sorted(folder.rglob(SAMPLES_GLOB)):
        problem = file_problem(path)
        if problem is not None:  # a folder, a FIFO, a broken link: no run's samples
            log.warning("skipping %s: %s", path, problem)
            continue
        m = _NAME.fullmatch(path.name)
        task, stamp = (m.group("task"), m.group("stamp")) if m else (path.stem, "")
        key = (path.parent, task)
        if key in newest:
            log.warning("%s: several runs of %s; reading the newest", path.parent, task)
        if key not in newest or stamp > newest[key][0]:
            newest[key] = (stamp, path)
    return [path for _, path in sorted(newest.values(), key=lambda v: str(v[1]))]


def read_file(path: Path, model: str | None = None) -> list[Sample] | Skipped:
    """Every response in one samples file, as :class:`Sample` objects; a file of a task that
    is not math (see the module docstring) as one :class:`Skipped`."""
    m = _NAME.fullmatch(path.name)
    task = m.group("task") if m else path.stem.removeprefix("samples_")
    config = run_config(path)
    label = model or name_from_config(config) or path.parent.name
    run_tokenizers = _tokenizers_from_config(config)
    records = _records(path)
    first = next(records, None)
    if first is None:
        return []
    reason = not_math(task, first[1])
    if reason is not None:
        n = sum(_responses(record) for _, record in chain([first], records))
        return Skipped(label, task, n, reason, str(path))
    samples: list[Sample] = []
    for lineno, record in chain([first], records):
        samples.extend(_samples(record, task, label, f"{path}:{lineno}", run_tokenizers))
    return samples


def not_math(task: str, record: dict[str, Any]) -> str | None:
    """None when a task's record is a math problem to score, else why it is not."""
    suite = _OTHER_SUITES.match(task)
    if suite:
        return f"a thinkbench {suite.group('suite')} task"
    doc = record["doc"]
    if not isinstance(doc, dict):
        return "its logged doc is not an object"
    for what, keys in _OTHER_SCHEMAS.items():
        if all(k in doc for k in keys):
            return f"its documents are {what}"
    if _first(doc, _PROBLEM_KEYS) is None:
        return f"its documents have no problem ({', '.join(_PROBLEM_KEYS)})"
    answer = _first(doc, _GOLD_KEYS)
    if answer is not None and "####" in answer:
        return "its answers are worked solutions ('#### answer'), not final answers"
    if _gold(doc, record, task) is None:
        return "its documents have no final answer (answer, a \\boxed{} solution)"
    return None


def run_config(samples_path: Path) -> dict[str, Any]:
    """The ``config`` of the run's results file (the one of the same timestamp, else the
    newest); empty when there is none."""
    m = _NAME.fullmatch(samples_path.name)
    stamp = m.group("stamp") if m else None
    candidates = sorted(samples_path.parent.glob("results_*.json"))
    exact = [c for c in candidates if stamp and stamp in c.name]
    for results in exact or candidates[-1:]:
        try:
            config = parse_json(read_data(results).decode("utf-8")).get("config", {})
        except (ValueError, AttributeError):  # DatasetError and bad UTF-8 are ValueErrors
            continue
        if isinstance(config, dict):
            return config
    return {}


def _model_args(config: dict[str, Any]) -> dict[str, Any]:
    args = config.get("model_args")
    if isinstance(args, str):
        args = dict(part.split("=", 1) for part in args.split(",") if "=" in part)
    return args if isinstance(args, dict) else {}


def name_from_config(config: dict[str, Any]) -> str | None:
    args = _model_args(config)
    for key in ("pretrained", "model", "path"):
        if isinstance(args.get(key), str) and args[key]:
            return args[key]
    model = config.get("model")
    return model if isinstance(model, str) and model else None


def _tokenizers_from_config(config: dict[str, Any]) -> tuple[str, ...]:
    args = _model_args(config)
    names = (args.get(key) for key in _TOKENIZER_ARGS)
    return tuple(dict.fromkeys(n for n in names if isinstance(n, str) and n))


def _responses(record: dict[str, Any]) -> int:
    resps = record["resps"]
    first = resps[0] if isinstance(resps, list) and resps else None
    return len(first) if isinstance(first, list) else 1


def _records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    for lineno, record in read_json_lines(path, InputFormatError):
        if not is_samples_record(record):
            raise InputFormatError(
                f"{path}:{lineno}: not an lm-eval sample record (needs 'doc' and 'resps')"
            )
        yield lineno, record


def _samples(
    record: dict[str, Any], task: str, model: str, where: str, run_tokenizers: tuple[str, ...]
) -> list[Sample]:
    doc = record["doc"]
    if not isinstance(doc, dict):
        raise InputFormatError(f"{where}: 'doc' is not an object")
    problem = _first(doc, _PROBLEM_KEYS)
    gold = _gold(doc, record, task)
    if problem is None or gold is None:
        missing = "problem" if problem is None else "gold answer"
        raise InputFormatError(
            f"{where}: no {missing} in the logged doc (looked for "
            f"{', '.join(_PROBLEM_KEYS if problem is None else _GOLD_KEYS)}"
            f"{'' if problem is None else ', solution and target'})"
        )
    resps = record["resps"]
    repeats = resps[0] if isinstance(resps, list) and resps else None
    if not isinstance(repeats, list):
        raise InputFormatError(f"{where}: 'resps' is not a list of response lists")
    responses = [
        from_wire(text_field(raw, where, f"resps[0][{k}]", null=True))
        for k, raw in enumerate(repeats)
    ]
    payloads = _payloads(record, len(repeats))
    verdicts = _logged_verdicts(record, payloads)
    sample_id = _first(doc, _ID_KEYS) or text_field(
        record.get("doc_id"), where, "doc_id", numbers=True
    )
    subset = subset_name(level_field(doc.get("level"), where, "doc.level"), task)
    max_gen_toks = _max_gen_toks(record)
    return [
        Sample(
            model=model,
            task=task,
            subset=subset,
            sample_id=sample_id,
            repeat=k,
            problem=problem,
            gold=gold,
            response=response,
            where=where,
            logged_correct=verdicts[k],
            tokenizers=_counted_with(payloads[k]) + run_tokenizers,
            max_gen_toks=max_gen_toks,
        )
        for k, response in enumerate(responses)
    ]


def _max_gen_toks(record: dict[str, Any]) -> int | None:
    """The token limit the request was sent with: lm-eval logs a generation request's
    arguments as ``{"gen_args_0": {"arg_0": prompt, "arg_1": gen_kwargs}}``."""
    arguments = record.get("arguments")
    first = arguments.get("gen_args_0") if isinstance(arguments, dict) else None
    kwargs = first.get("arg_1") if isinstance(first, dict) else None
    limit = kwargs.get("max_gen_toks") if isinstance(kwargs, dict) else None
    return limit if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0 else None


def _gold(doc: dict[str, Any], record: dict[str, Any], task: str) -> str | None:
    """The final answer: the document's, else its solution's last box, else (for a task named
    as math only: another task's target is anything, a ProcessBench step label) the target."""
    gold = _first(doc, _GOLD_KEYS)
    if gold is not None:
        return gold
    solution = _first(doc, _SOLUTION_KEYS)
    boxed = last_boxed(solution) if solution is not None else None
    if boxed:
        return boxed
    return _target(record.get("target")) if _MATH_NAME.search(task) else None


def _payloads(record: dict[str, Any], n: int) -> list[dict[str, Any]]:
    """Per repeat, the thinkbench record logged in ``filtered_resps`` (empty when there is
    none: another task's filtered response is just a string)."""
    filtered = record.get("filtered_resps")
    per_repeat = filtered[0] if isinstance(filtered, list) and filtered else None
    if not isinstance(per_repeat, list) or len(per_repeat) != n:
        return [{}] * n
    return [_payload(item) for item in per_repeat]


def _payload(item: object) -> dict[str, Any]:
    if not isinstance(item, str) or not item.startswith("{"):
        return {}
    try:
        payload = parse_json(item)
    except ValueError:
        return {}
    return payload if isinstance(payload, dict) else {}


def _logged_verdicts(record: dict[str, Any], payloads: list[dict[str, Any]]) -> list[bool | None]:
    """Per repeat: the thinkbench record's ``correct``, else the task's ``exact_match`` when
    there is one response (a mean over repeats says nothing about each)."""
    verdicts = [p.get("correct") for p in payloads]
    if all(isinstance(v, bool) for v in verdicts):
        return verdicts
    score = record.get("exact_match")
    if len(payloads) == 1 and isinstance(score, (int, float)) and not isinstance(score, bool):
        return [score >= 0.5]
    return [None] * len(payloads)


def _counted_with(payload: dict[str, Any]) -> tuple[str, ...]:
    """The tokenizer a thinkbench record says counted it (its offline default by its spec)."""
    name = payload.get("tokenizer")
    if not isinstance(name, str) or not name:
        return ()
    return (DEFAULT_TOKENIZER if name == QwenTiktokenCounter.name else name,)


def _first(doc: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = doc.get(key)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            text = str(value)
            if text.strip():
                return text
    return None


def _target(target: object) -> str | None:
    if isinstance(target, list) and len(target) == 1:
        target = target[0]
    if isinstance(target, (str, int)) and not isinstance(target, bool) and str(target).strip():
        return str(target)
    return None
