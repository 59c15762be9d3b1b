"""Read the figures of any number of runs into one flat list of :class:`Figure`.

A run is a folder (or ``NAME=PATH``, NAME naming its model) holding any of:

* lm-eval output: ``results_*.json`` (one per invocation, one folder per model below
  ``--output_path``). Every task the run reports is read, this plugin's and the harness's own
  (``minerva_math500``, ``hendrycks_math500``, ``aime24``, ``gsm8k``, ...): a *set* is a task
  that is no other group's subtask; its subtasks named ``..._levelN`` are its levels. Each
  ``metric,filter`` value becomes a figure with the 95% normal interval of its logged standard
  error. The model is named as ``thinkbench analyze`` names it (``model_args``' ``pretrained``
  / ``model`` / ``path``, else the model type), and for a newer results file of the same task
  in the same folder, the newer figures win;
* ``thinkbench analyze`` output (``summary.json``): its groups, with their bootstrap
  intervals, as the set ``analyze``;
* ``thinkbench compare`` output (``compare.json``): each grader's accuracy on the same
  responses, as the set ``compare``.

Metric names and labels of the sampling protocols (avg@k, pass@k, maj@k) come from
``math500.table``; k from the task config's ``repeats``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lm_eval_thinkbench.analyze.aggregate import OVERALL
from lm_eval_thinkbench.analyze.readers import parse_run
from lm_eval_thinkbench.analyze.readers.lm_eval import name_from_config
from lm_eval_thinkbench.analyze.samples import InputFormatError, parse_level
from lm_eval_thinkbench.datafiles import parse_json, read_data
from lm_eval_thinkbench.math500.sampling import samples_per_problem
from lm_eval_thinkbench.math500.table import ACCURACY, BY_NAME, FILTER, METRICS, PER_PROBLEM

#: z of the two-sided 95% normal interval around a logged standard error.
Z95 = 1.959963984540054
_LEVEL_TASK = re.compile(r".*_level(?P<level>[1-9])$")
_SAMPLING = {m.key: m for m in PER_PROBLEM}
#: Metrics where lower is better, for sources that do not say (analyze, compare).
_LOWER_BETTER = {m.name for m in METRICS if not m.higher_is_better}
#: Metrics that are shares (0 to 1): their normal intervals are clipped to that range (the
#: MATH-500 table's, by either name, and the math-verify figure of lm-eval's minerva_math).
_SHARES = {n for m in METRICS if m.format == "share" for n in (m.name, m.key)} | {"math_verify"}
ANALYZE_SET = "analyze"
COMPARE_SET = "compare"


@dataclass(frozen=True)
class Figure:
    """One number of one model: ``set`` (a task or group, ``analyze``, ``compare``),
    ``subset`` (``overall`` or ``Level k``), ``metric`` (the results key, ``name,filter`` for
    lm-eval), its display ``label``, value and interval (None when unknown), and ``source``
    (the file it came from). ``ours`` marks this plugin's figures (thinkbench tasks, analyze),
    as against a standard harness task's."""

    model: str
    set: str
    subset: str
    metric: str
    label: str
    value: float
    low: float | None
    high: float | None
    higher_is_better: bool
    ours: bool
    source: str


def collect(specs: list[str], renames: dict[str, str] | None = None) -> list[Figure]:
    """Every figure of every run; ``renames`` maps a model name to the name shown."""
    figures: list[Figure] = []
    for spec in specs:
        label, path = parse_run(spec)
        found = read_run(path, label)
        if not found:
            raise InputFormatError(
                f"{path}: no results_*.json, summary.json or compare.json below it"
            )
        figures.extend(found)
    renames = renames or {}
    return [replace(f, model=renames.get(f.model, f.model)) for f in figures]


def read_run(path: Path, label: str | None = None) -> list[Figure]:
    if not path.exists():
        raise InputFormatError(f"{path}: no such file or folder")
    files = [path] if path.is_file() else sorted(path.rglob("*.json"))
    figures: list[Figure] = []
    newest: dict[tuple[str, str], str] = {}  # (folder, task) -> newest results file
    results = [f for f in files if f.name.startswith("results_")]
    for f in sorted(results, key=lambda p: p.name):  # timestamps sort as text
        for task in _json(f).get("results", {}):
            newest[str(f.parent), task] = str(f)
    for f in results:
        keep = {task for (folder, task), src in newest.items() if src == str(f)}
        figures.extend(results_figures(_json(f), str(f), label, keep))
    for f in files:
        if f.name == "summary.json":
            figures.extend(analyze_figures(_json(f), str(f), label))
        elif f.name == "compare.json":
            figures.extend(compare_figures(_json(f), str(f), label))
    return figures


def results_figures(
    data: dict[str, Any], source: str, label: str | None, keep: set[str] | None = None
) -> list[Figure]:
    """The figures of one lm-eval ``results_*.json``; ``keep`` limits the tasks read."""
    config = _dict(data.get("config"))
    model = label or name_from_config(config) or _text(data.get("model_name")) or "model"
    results = _dict(data.get("results"))
    subtasks = {t: _list(v) for t, v in _dict(data.get("group_subtasks")).items()}
    parent = {child: group for group, children in subtasks.items() for child in children}
    configs = _dict(data.get("configs"))
    directions = _dict(data.get("higher_is_better"))
    out = []
    for task, scores in results.items():
        if (keep is not None and task not in keep) or not isinstance(scores, dict):
            continue
        level = _LEVEL_TASK.fullmatch(task)
        if task in parent and level:
            set_name, subset = parent[task], f"Level {level.group('level')}"
        elif task in parent:
            continue  # a subtask that is no level: its group carries it
        else:
            set_name, subset = task, OVERALL
        members = subtasks.get(task) or [task]
        k = max(samples_per_problem(_dict(configs.get(t))) for t in members)
        ours = set_name.startswith("thinkbench")
        for key, value in scores.items():
            name, _, filt = key.partition(",")
            if not filt or name.endswith("_stderr") or not _number(value):
                continue
            se = scores.get(f"{name}_stderr,{filt}")
            low, high = _interval(name, value, se)
            better = _direction(directions, members, name)
            out.append(
                Figure(model, set_name, subset, key, metric_label(name, filt, k, ours), value,
                       low, high, better, ours, source)
            )  # fmt: skip
    return out


def metric_label(name: str, filt: str, k: int, ours: bool) -> str:
    """avg@k / pass@k / maj@k for the sampling metrics of our tasks (accuracy when k is 1),
    the metric name otherwise, with a filter other than ours or lm-eval's ``none``."""
    if ours and filt == FILTER and name in _SAMPLING:
        return ACCURACY.name if name == ACCURACY.key and k == 1 else _SAMPLING[name].label_for(k)
    return name if filt in (FILTER, "none") else f"{name} ({filt})"


def analyze_figures(data: dict[str, Any], source: str, label: str | None) -> list[Figure]:
    out = []
    for group in _list(data.get("groups")):
        if not isinstance(group, dict) or not isinstance(group.get("model"), str):
            continue
        model = label or group["model"]
        subset = _text(group.get("subset")) or OVERALL
        subset = f"Level {parse_level(subset)}" if parse_level(subset) else subset
        for name, stat in _dict(group.get("metrics")).items():
            if not isinstance(stat, dict) or not _number(stat.get("mean")):
                continue
            low, high = stat.get("ci_low"), stat.get("ci_high")
            metric = BY_NAME.get(name)
            out.append(
                Figure(model, ANALYZE_SET, subset, name, metric.label if metric else name,
                       stat["mean"], low if _number(low) else None,
                       high if _number(high) else None, name not in _LOWER_BETTER, True,
                       source)
            )  # fmt: skip
    return out


def compare_figures(data: dict[str, Any], source: str, label: str | None) -> list[Figure]:
    """Each grader's accuracy per model, over every task of the comparison (weighted by
    responses)."""
    totals: dict[tuple[str, str], list[float]] = {}
    for s in _list(data.get("summaries")):
        if not isinstance(s, dict) or not isinstance(s.get("model"), str):
            continue
        n = s.get("samples")
        if not isinstance(n, int) or isinstance(n, bool):
            continue
        for grader, acc in _dict(s.get("accuracy")).items():
            if _number(acc):
                t = totals.setdefault((label or s["model"], grader), [0.0, 0.0])
                t[0] += acc * n
                t[1] += n
    return [
        Figure(model, COMPARE_SET, OVERALL, grader, f"{grader} (re-graded)", hit / n, None,
               None, True, grader == "thinkbench", source)
        for (model, grader), (hit, n) in totals.items()
        if n
    ]  # fmt: skip


def _interval(name: str, value: float, se: object) -> tuple[float | None, float | None]:
    """The 95% normal interval, clipped to the metric's range (no figure here is negative;
    shares are at most 1)."""
    if not _number(se):
        return None, None
    low, high = value - Z95 * float(se), value + Z95 * float(se)  # type: ignore[arg-type]
    return max(0.0, low), min(1.0, high) if name in _SHARES else high


def _direction(directions: dict[str, Any], tasks: list[str], name: str) -> bool:
    for task in tasks:
        value = _dict(directions.get(task)).get(name)
        if isinstance(value, bool):
            return value
    return name not in _LOWER_BETTER


def _json(path: Path) -> dict[str, Any]:
    try:
        data = parse_json(read_data(path).decode("utf-8"))
    except ValueError as exc:
        raise InputFormatError(f"{path}: not readable JSON ({exc})") from None
    if not isinstance(data, dict):
        raise InputFormatError(f"{path}: not a JSON object")
    return data


def _number(value: object) -> bool:
    return (
        isinstance(value, int | float) and not isinstance(value, bool) and value == value
    )  # NaN != NaN


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
