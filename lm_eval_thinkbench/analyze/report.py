"""The report files: ``summary.md``, ``summary.csv``, ``summary.json``, ``per_sample.jsonl``.

Every file is a pure function of the scored samples and the settings (no timestamps, no run
statistics such as cache hits), so a run that was killed and started again writes byte-identical
files; each is written to a temporary file and renamed into place, so a crash leaves either the
old file or the new one.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lm_eval_thinkbench import METRICS_VERSION
from lm_eval_thinkbench.analyze.aggregate import OVERALL, PLOTTED, Group, Stat, finite
from lm_eval_thinkbench.analyze.samples import Skipped
from lm_eval_thinkbench.analyze.score import Scored
from lm_eval_thinkbench.math500.table import BY_NAME, REPORTED

#: Metrics shown in the markdown's second table (the first holds EvalScope's six).
EXTRA = tuple(m.name for m in REPORTED if m.name not in PLOTTED)
#: How each ``Metric.format`` prints.
_FORMATS = {"tokens": "{:,.0f}", "count": "{:.2f}", "share": "{:.3f}"}


def write_reports(
    output: Path,
    groups: Sequence[Group],
    scored: Sequence[Scored],
    settings: Mapping[str, Any],
    skipped: Sequence[Skipped] = (),
) -> list[Path]:
    """Write the four report files into ``output``; returns their paths. ``skipped`` are the
    input files left out as not math, named in the summaries."""
    output.mkdir(parents=True, exist_ok=True)
    files = {
        "summary.json": summary_json(groups, settings, skipped),
        "summary.csv": summary_csv(groups),
        "summary.md": summary_markdown(groups, settings, skipped),
        "per_sample.jsonl": per_sample_jsonl(scored),
    }
    paths = []
    for name, text in files.items():
        write_atomic(output / name, text.encode("utf-8"))
        paths.append(output / name)
    return paths


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path`` and rename it over ``path``."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def summary_json(
    groups: Sequence[Group], settings: Mapping[str, Any], skipped: Sequence[Skipped] = ()
) -> str:
    payload = {
        "metrics_version": METRICS_VERSION,
        "settings": dict(settings),
        "metrics": [{"name": m.name, "label": m.label, "covers": m.covers} for m in REPORTED],
        "groups": [_group_json(g) for g in groups],
        "skipped": [dataclasses.asdict(s) for s in skipped],
    }
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"


def _group_json(group: Group) -> dict[str, Any]:
    agreement = group.agreement
    return {
        "model": group.model,
        "subset": group.subset,
        "samples": group.samples,
        "tokenizer": group.tokenizer,
        "markers": group.markers,
        "judge_errors": group.judge_errors,
        "dropped_max_tokens": group.dropped,
        "logged_verdict_disagreements": group.logged_disagreements,
        "metrics": {name: _stat_json(stat) for name, stat in group.stats.items()},
        "locator_agreement": None
        if agreement is None
        else {
            "compared": agreement.compared,
            "agree": agreement.agree,
            "rate": agreement.rate,
            "token_distance_n": agreement.distance_n,
            "token_distance_mean": agreement.distance_mean,
            "token_distance_median": agreement.distance_median,
            "one_sided": agreement.one_sided,
        },
    }


def _stat_json(stat: Stat) -> dict[str, Any]:
    return {
        "mean": finite(stat.mean),
        "ci_low": finite(stat.low),
        "ci_high": finite(stat.high),
        "n": stat.n,
    }


def summary_csv(groups: Sequence[Group]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["model", "subset", "metric", "mean", "ci_low", "ci_high", "n", "samples",
         "judge_errors", "dropped_max_tokens", "tokenizer"]
    )  # fmt: skip
    for g in groups:
        for name, stat in g.stats.items():
            writer.writerow(
                [g.model, g.subset, name, _csv_number(stat.mean), _csv_number(stat.low),
                 _csv_number(stat.high), stat.n, g.samples, g.judge_errors, g.dropped,
                 g.tokenizer]
            )  # fmt: skip
    return out.getvalue()


def _csv_number(value: float | None) -> str:
    value = finite(value)
    return "" if value is None else repr(value)


def summary_markdown(
    groups: Sequence[Group], settings: Mapping[str, Any], skipped: Sequence[Skipped] = ()
) -> str:
    lines = ["# Think-efficiency report", ""]
    shown = ", ".join(f"{k}={v}" for k, v in settings.items() if v not in (None, ""))
    lines += [f"Settings: {shown}.", ""]
    lines += [
        "Each cell: mean [95% bootstrap interval, resampling problems] (n covered samples). "
        "Token figures and efficiencies over correctly answered samples; underthinking over "
        "wrong ones; logged accuracy (the producing run's own grader) over the samples it "
        'graded; the rest over all samples. Definitions: README.md, section "thinkbench '
        'analyze".',
        "",
    ]
    if skipped:
        lines += ["## Left out: not math tasks", ""]
        lines += ["| model | task | samples | why |", "|---|---|---:|---|"]
        lines += [f"| {s.model} | {s.task} | {s.samples} | {s.reason} |" for s in skipped]
        lines += [""]
    models = list(dict.fromkeys(g.model for g in groups))
    if len(models) > 1:
        overalls = [g for g in groups if g.subset == OVERALL]
        lines += ["## Models side by side (overall)", ""]
        lines += _table(overalls, "model", PLOTTED, lambda g: g.model)
        lines += _table(overalls, "model", EXTRA, lambda g: g.model)
    for model in models:
        own = [g for g in groups if g.model == model]
        overall = next(g for g in own if g.subset == OVERALL)
        lines += [f"## {model}", ""]
        lines += [
            f"Tokens counted with {overall.tokenizer or '–'}; reasoning markers: "
            f"{overall.markers or '–'}.",
            "",
        ]
        lines += _table(own, "subset", PLOTTED, lambda g: g.subset)
        lines += _table(own, "subset", EXTRA, lambda g: g.subset)
        lines += _counts(own)
    return "\n".join(lines).rstrip() + "\n"


def _table(groups: Sequence[Group], head: str, metrics: Sequence[str], key) -> list[str]:
    labels = [BY_NAME[m].label for m in metrics]
    rows = [f"| {head} | samples | " + " | ".join(labels) + " |"]
    rows.append("|---|---:|" + "---:|" * len(metrics))
    for g in groups:
        cells = [format_stat(name, g.stats[name]) for name in metrics]
        rows.append(f"| {key(g)} | {g.samples} | " + " | ".join(cells) + " |")
    return [*rows, ""]


def _counts(groups: Sequence[Group]) -> list[str]:
    rows = [
        "| subset | judge errors | dropped (--max-tokens) | logged verdict differs | "
        "locators agree | token distance (mean / median) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for g in groups:
        agree, distance = "", ""
        if g.agreement is not None and g.agreement.compared:
            a = g.agreement
            agree = f"{a.agree}/{a.compared} ({a.rate:.1%})"
            if a.distance_n:
                distance = f"{a.distance_mean:,.0f} / {a.distance_median:,.0f} (n={a.distance_n})"
            if a.one_sided:
                distance += f"; {a.one_sided} found by one only"
        rows.append(
            f"| {g.subset} | {g.judge_errors} | {g.dropped} | {g.logged_disagreements} | "
            f"{agree} | {distance} |"
        )
    return [*rows, ""]


def format_stat(name: str, stat: Stat) -> str:
    if stat.mean is None:
        return "–"
    fmt = _FORMATS[BY_NAME[name].format].format
    return f"{fmt(stat.mean)} [{fmt(stat.low)}, {fmt(stat.high)}] ({stat.n})"


def per_sample_jsonl(scored: Sequence[Scored]) -> str:
    return "".join(json.dumps(per_sample_row(s), ensure_ascii=False) + "\n" for s in scored)


def per_sample_row(s: Scored) -> dict[str, Any]:
    """One line of ``per_sample.jsonl``: where the sample came from, its record, and the
    whole first-correct step so a reader can check the position by eye."""
    sample = s.sample
    row: dict[str, Any] = {
        "model": sample.model,
        "task": sample.task,
        "subset": sample.subset,
        "id": sample.sample_id,
        "repeat": sample.repeat,
        "source": sample.where,
        "problem": sample.problem,
        "gold": sample.gold,
        **s.record.to_dict(),
        "checker_correct": s.checker_correct,
        "logged_correct": sample.logged_correct,
        "first_correct_step_text": s.step_text,
    }
    if s.rule is not None:
        row["rule"] = {
            "first_correct_step": s.rule.first_correct_step,
            "first_correct_tokens": s.rule.first_correct_tokens,
            "first_correct_quote": s.rule.first_correct_quote,
        }
    return row
