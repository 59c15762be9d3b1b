"""lm-eval ``--log_samples`` output: ``samples_<task>_<timestamp>.jsonl`` files.

Works for this plugin's ``thinkbench_math500`` tasks and for the harness's own math tasks
(``hendrycks_math500``, ``minerva_math500``, ``aime24``, ``aime25``, ...): problem, gold answer
and level are read from the logged document (``problem``/``Problem``/``question``,
``answer``/``Answer`` or the logged ``target``, ``level``), the raw responses from ``resps``
(every repeat), and the run's own verdict from the thinkbench record's ``correct`` or, with one
response per document, the task's ``exact_match``.

lm-eval writes one folder per model under ``--output_path`` and new timestamped files on every
run; for each folder and task the newest file is read. The model is named from the run's
``results_<timestamp>.json`` (its ``pretrained``/``model`` argument, else the model type).
"""

from __future__ import annotations

import json
import logging
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
from lm_eval_thinkbench.response import from_wire

log = logging.getLogger(__name__)

SAMPLES_GLOB = "samples_*.jsonl"
_NAME = re.compile(r"samples_(?P<task>.+)_(?P<stamp>\d{4}-\d{2}-\d{2}T[\d\-.:]+)\.jsonl")
_PROBLEM_KEYS = ("problem", "Problem", "question", "Question")
_GOLD_KEYS = ("answer", "Answer")
_ID_KEYS = ("unique_id", "id", "ID", "idx")


def is_samples_record(record: object) -> bool:
    return isinstance(record, dict) and "doc" in record and "resps" in record


def find_files(folder: Path) -> list[Path]:
    """The newest samples file per (folder, task) below ``folder``."""
    newest: dict[tuple[Path, str], tuple[str, Path]] = {}
    for path in sorted(folder.rglob(SAMPLES_GLOB)):
        m = _NAME.fullmatch(path.name)
        task, stamp = (m.group("task"), m.group("stamp")) if m else (path.stem, "")
        key = (path.parent, task)
        if key in newest:
            log.warning("%s: several runs of %s; reading the newest", path.parent, task)
        if key not in newest or stamp > newest[key][0]:
            newest[key] = (stamp, path)
    return [path for _, path in sorted(newest.values(), key=lambda v: str(v[1]))]


def read_file(path: Path, model: str | None = None) -> list[Sample]:
    """Every response in one samples file, as :class:`Sample` objects."""
    m = _NAME.fullmatch(path.name)
    task = m.group("task") if m else path.stem.removeprefix("samples_")
    label = model or model_label(path)
    samples: list[Sample] = []
    for lineno, record in _records(path):
        samples.extend(_samples(record, task, label, f"{path}:{lineno}"))
    return samples


def model_label(samples_path: Path) -> str:
    """The model's name from the run's results file, else the folder's name."""
    m = _NAME.fullmatch(samples_path.name)
    stamp = m.group("stamp") if m else None
    candidates = sorted(samples_path.parent.glob("results_*.json"))
    exact = [c for c in candidates if stamp and stamp in c.name]
    for results in exact or candidates[-1:]:
        try:
            config = json.loads(results.read_text(encoding="utf-8")).get("config", {})
        except (OSError, ValueError, AttributeError):
            continue
        name = _name_from_config(config if isinstance(config, dict) else {})
        if name:
            return name
    return samples_path.parent.name


def _name_from_config(config: dict[str, Any]) -> str | None:
    args = config.get("model_args")
    if isinstance(args, str):
        args = dict(part.split("=", 1) for part in args.split(",") if "=" in part)
    if isinstance(args, dict):
        for key in ("pretrained", "model", "path"):
            if isinstance(args.get(key), str) and args[key]:
                return args[key]
    model = config.get("model")
    return model if isinstance(model, str) and model else None


def _records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open(encoding="utf-8") as f:
        for lineno, record in json_lines(f, path, InputFormatError):
            if not is_samples_record(record):
                raise InputFormatError(
                    f"{path}:{lineno}: not an lm-eval sample record (needs 'doc' and 'resps')"
                )
            yield lineno, record


def _samples(record: dict[str, Any], task: str, model: str, where: str) -> list[Sample]:
    doc = record["doc"]
    if not isinstance(doc, dict):
        raise InputFormatError(f"{where}: 'doc' is not an object")
    problem = _first(doc, _PROBLEM_KEYS)
    gold = _first(doc, _GOLD_KEYS) or _target(record.get("target"))
    if problem is None or gold is None:
        missing = "problem" if problem is None else "gold answer"
        raise InputFormatError(
            f"{where}: no {missing} in the logged doc (looked for "
            f"{', '.join(_PROBLEM_KEYS if problem is None else _GOLD_KEYS)}"
            f"{'' if problem is None else ' and target'})"
        )
    resps = record["resps"]
    repeats = resps[0] if isinstance(resps, list) and resps else None
    if not isinstance(repeats, list):
        raise InputFormatError(f"{where}: 'resps' is not a list of response lists")
    verdicts = _logged_verdicts(record, len(repeats))
    sample_id = _first(doc, _ID_KEYS) or str(record.get("doc_id"))
    subset = subset_name(parse_level(doc.get("level")), task)
    return [
        Sample(
            model=model,
            task=task,
            subset=subset,
            sample_id=sample_id,
            repeat=k,
            problem=problem,
            gold=gold,
            response=from_wire(raw),
            where=where,
            logged_correct=verdicts[k],
        )
        for k, raw in enumerate(repeats)
    ]


def _logged_verdicts(record: dict[str, Any], n: int) -> list[bool | None]:
    """Per repeat: the thinkbench record's ``correct``, else the task's ``exact_match`` when
    there is one response (a mean over repeats says nothing about each)."""
    filtered = record.get("filtered_resps")
    per_repeat = filtered[0] if isinstance(filtered, list) and filtered else None
    if isinstance(per_repeat, list) and len(per_repeat) == n:
        verdicts = [_thinkbench_correct(item) for item in per_repeat]
        if all(v is not None for v in verdicts):
            return verdicts
    score = record.get("exact_match")
    if n == 1 and isinstance(score, (int, float)) and not isinstance(score, bool):
        return [score >= 0.5]
    return [None] * n


def _thinkbench_correct(item: object) -> bool | None:
    if not isinstance(item, str) or not item.startswith("{"):
        return None
    try:
        payload = json.loads(item)
    except ValueError:
        return None
    correct = payload.get("correct") if isinstance(payload, dict) else None
    return correct if isinstance(correct, bool) else None


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
