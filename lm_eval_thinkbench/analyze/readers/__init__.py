"""Read runs in any supported format, recognised automatically.

A run is a folder or a file, optionally labelled ``NAME=PATH`` (the label then names the model
in every report). What a path is:

* a folder with ``reviews/`` or ``predictions/``: EvalScope outputs (one model per subfolder);
* a folder with ``samples_*.jsonl`` below it: lm-eval ``--log_samples`` output (files of tasks
  that are not math are :class:`Skipped`, see :mod:`.lm_eval`);
* a JSONL file: recognised by its first record (lm-eval sample, EvalScope review or
  prediction, a Qwen2.5-Math evaluation record, or the plain schema of :mod:`.plain`);
* any other folder: every ``*.jsonl`` below it, each recognised as a file is (the
  Qwen2.5-Math scripts' ``outputs/`` tree, a folder of plain logs).

Anything else is an :class:`InputFormatError` that names the path and the formats tried.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from lm_eval_thinkbench.analyze.readers import evalscope, lm_eval, plain, qwen_math
from lm_eval_thinkbench.analyze.samples import InputFormatError, Inputs, Sample, Skipped
from lm_eval_thinkbench.datafiles import file_problem, open_data, parse_json

log = logging.getLogger(__name__)
FORMATS = ("auto", "lm-eval", "evalscope", "qwen-math", "jsonl")
_FILE_READERS: dict[str, Callable[[Path, str | None], list[Sample] | Skipped]] = {
    "lm-eval": lm_eval.read_file,
    "evalscope": evalscope.read_file,
    "qwen-math": qwen_math.read_file,
    "jsonl": plain.read_file,
}
_EXPECTED = (
    "an lm-eval output folder or samples_*.jsonl, an EvalScope output folder or "
    "reviews/predictions JSONL, a Qwen2.5-Math evaluation JSONL (idx, question, gt, code), "
    "or a plain JSONL (id, problem, gold, response)"
)


def parse_run(spec: str) -> tuple[str | None, Path]:
    """``NAME=PATH`` -> (NAME, PATH); a bare path (even one containing '=') -> (None, PATH)."""
    name, sep, rest = spec.partition("=")
    if sep and name and rest and not Path(spec).exists():
        return name, Path(rest).expanduser()
    return None, Path(spec).expanduser()


def read_runs(specs: Sequence[str], fmt: str = "auto") -> Inputs:
    """Every sample of every run, with model labels made unique across runs, and the files
    left out as not math.

    Labels given as ``NAME=`` are kept as they are (two runs with the same label are one model);
    labels taken from the files get a ``(2)``, ``(3)`` suffix when another run already used
    them. The same response read twice (same model, task, id and repeat) is an error, and so
    are runs that hold nothing to score at all.
    """
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, not {fmt!r}")
    samples: list[Sample] = []
    skipped: list[Skipped] = []
    owner: dict[str, int] = {}
    for index, spec in enumerate(specs):
        label, path = parse_run(spec)
        run = read_path(path, fmt, label)
        samples.extend(
            run.samples if label is not None else _unique_labels(run.samples, owner, index)
        )
        skipped.extend(run.skipped)
    if not samples:
        left = "; ".join(f"{s.task} ({s.reason})" for s in skipped)
        raise InputFormatError(f"no math samples to analyse; left out: {left}")
    _check_duplicates(samples)
    return Inputs(samples, skipped)


def read_path(path: Path, fmt: str = "auto", label: str | None = None) -> Inputs:
    """The samples of one folder or file, and its files of tasks that are not math."""
    if not path.exists() and not path.is_symlink():  # a looping link is named as such below
        raise InputFormatError(f"{path}: no such file or folder; expected {_EXPECTED}")
    if path.is_dir():
        files = _folder_files(path, fmt)
    else:
        files = [(_file_format(path) if fmt == "auto" else fmt, path)]
    samples: list[Sample] = []
    skipped: list[Skipped] = []
    for kind, file in files:
        got = _FILE_READERS[kind](file, label)
        if isinstance(got, Skipped):
            skipped.append(got)
        else:
            samples.extend(got)
    if label is not None and len({s.model for s in samples}) > 1:
        raise InputFormatError(f"{path}: holds several models; label them one by one")
    if not samples and not skipped:
        raise InputFormatError(f"{path}: holds no samples; expected {_EXPECTED}")
    return Inputs(samples, skipped)


def _folder_files(folder: Path, fmt: str) -> list[tuple[str, Path]]:
    if fmt in ("auto", "evalscope") and evalscope.is_output_folder(folder):
        return [("evalscope", f) for _, f in evalscope.find_files(folder)]
    if fmt in ("auto", "lm-eval"):
        found = lm_eval.find_files(folder)
        if found:
            return [("lm-eval", f) for f in found]
    files = []
    for file in sorted(folder.rglob("*.jsonl")):
        problem = file_problem(file)
        if problem is None:
            files.append(file)
        else:  # a folder, a FIFO, a broken link: no run's log
            log.warning("skipping %s: %s", file, problem)
    if files and fmt == "auto":
        return [(_file_format(f), f) for f in files]
    if files and fmt in ("jsonl", "qwen-math"):
        return [(fmt, f) for f in files]
    raise InputFormatError(f"{folder}: unknown format; expected {_EXPECTED}")


def _file_format(path: Path) -> str:
    """Which reader a file needs, from its first record."""
    with open_data(path, InputFormatError, _EXPECTED) as f:
        try:
            first = next((line for line in f if line.strip()), b"")
            record = parse_json(first.decode("utf-8")) if first else None
        except (OSError, ValueError) as exc:  # bad UTF-8 is a ValueError too
            raise InputFormatError(
                f"{path}: unknown format ({exc}); expected {_EXPECTED}"
            ) from None
    if lm_eval.is_samples_record(record):
        return "lm-eval"
    if evalscope.is_evalscope_record(record):
        return "evalscope"
    if qwen_math.is_qwen_math_record(record):
        return "qwen-math"
    if plain.is_plain_record(record):
        return "jsonl"
    keys = ", ".join(sorted(record)[:12]) if isinstance(record, dict) else type(record).__name__
    raise InputFormatError(
        f"{path}: unknown format (first record has: {keys or 'nothing'}); expected {_EXPECTED}"
    )


def _unique_labels(run: list[Sample], owner: dict[str, int], index: int) -> list[Sample]:
    renamed: dict[str, str] = {}
    for model in dict.fromkeys(s.model for s in run):
        label, n = model, 1
        while owner.get(label, index) != index:
            n += 1
            label = f"{model} ({n})"
        owner[label] = index
        renamed[model] = label
    return [s if renamed[s.model] == s.model else replace(s, model=renamed[s.model]) for s in run]


def _check_duplicates(samples: list[Sample]) -> None:
    seen: dict[tuple[str, str, str, int], str] = {}
    for s in samples:
        if s.key in seen:
            raise InputFormatError(
                f"{s.where}: the same response as {seen[s.key]} (model {s.model!r}, task "
                f"{s.task!r}, id {s.sample_id!r}, repeat {s.repeat}); label the runs apart"
            )
        seen[s.key] = s.where
