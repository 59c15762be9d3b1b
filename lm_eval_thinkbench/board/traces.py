"""The per-sample trace view's data: each response's reasoning cut into its steps, with the
first-correct step, the switch phrases, the reflection part and the verdict.

Where the samples come from:

* an lm-eval output folder (``samples_*.jsonl``): read and scored exactly as ``thinkbench
  analyze`` scores them (``analyze.score``, rule locator), so the figures a reader checks by
  eye are the ones analyze reports;
* a ``thinkbench analyze`` output (``per_sample.jsonl``): its records as they are, the response
  re-read from the file and line each row names (``source``).

The reasoning is split with the project's splitter (``steps.py``) under the same settings the
record was made with (``ScoringConfig`` defaults: blank-line steps, the default switch
phrases); positions are character offsets into the reasoning, so the page only slices text.
Each sample's payload is written to its own small script file that the page loads when the
sample is opened (``write_chunks``): a run of 500 32k-token traces costs the page nothing until
a trace is opened.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lm_eval_thinkbench.analyze.counting import tokenizers_for
from lm_eval_thinkbench.analyze.readers import lm_eval, parse_run, read_path
from lm_eval_thinkbench.analyze.samples import InputFormatError, Sample
from lm_eval_thinkbench.analyze.score import ScoreOptions, run_markers, score_samples
from lm_eval_thinkbench.reading import ScoringConfig
from lm_eval_thinkbench.steps import PhraseMatcher
from lm_eval_thinkbench.trace import AUTO, MarkerSet, split_trace

log = logging.getLogger(__name__)
#: The callback every chunk file calls (defined by the page).
CALLBACK = "thinkbenchTrace"
#: Record fields the index (the list the page shows before anything is opened) carries.
INDEX_FIELDS = ("correct", "reasoning_tokens", "first_correct_tokens", "token_efficiency")
#: Record fields the opened trace shows.
FIGURES = (
    "reasoning_tokens", "first_correct_tokens", "reflection_tokens", "token_efficiency",
    "thought_num", "steps",
)  # fmt: skip


@dataclass(frozen=True)
class TraceSample:
    """One sample to show: the sample and its record (``SampleRecord.to_dict()`` or an analyze
    ``per_sample.jsonl`` row) and the marker set its reasoning was cut with."""

    sample: Sample
    record: dict[str, Any]
    markers: MarkerSet | str


def run_traces(
    specs: Sequence[str], renames: dict[str, str] | None = None, workers: int = 1
) -> list[TraceSample]:
    """The samples of every run that holds samples (lm-eval folders, analyze outputs)."""
    out: list[TraceSample] = []
    for spec in specs:
        label, path = parse_run(spec)
        if path.is_dir() and (path / "per_sample.jsonl").is_file():
            out.extend(analyze_traces(path / "per_sample.jsonl", label))
        elif path.is_dir() and lm_eval.find_files(path):
            out.extend(score_traces(read_path(path, "lm-eval", label).samples, workers))
    renames = renames or {}
    return [
        replace(t, sample=replace(t.sample, model=renames.get(t.sample.model, t.sample.model)))
        for t in out
    ]


def score_traces(samples: Sequence[Sample], workers: int = 1) -> list[TraceSample]:
    if not samples:
        return []
    config = ScoringConfig()
    options = ScoreOptions(config=config, workers=workers, tokenizers=tokenizers_for(samples, None))
    markers = run_markers(samples, AUTO)
    scored = score_samples(samples, options, progress=False).scored
    return [
        TraceSample(s.sample, s.record.to_dict(), markers[s.sample.model, s.sample.task])
        for s in scored
    ]


def analyze_traces(per_sample: Path, label: str | None) -> list[TraceSample]:
    """Rows of an analyze ``per_sample.jsonl`` with their responses, re-read from the files
    the rows name; a row whose file is gone is left out with a warning."""
    files: dict[str, dict[tuple[str, int], Sample] | None] = {}  # None: unreadable
    out = []
    missing = 0
    for line in per_sample.read_text(encoding="utf-8").splitlines():
        row = json.loads(line) if line.strip() else None
        if not isinstance(row, dict) or not isinstance(row.get("source"), str):
            continue
        path, _, _ = row["source"].rpartition(":")
        if path not in files:
            try:
                files[path] = {(s.where, s.repeat): s for s in read_path(Path(path)).samples}
            except InputFormatError as exc:
                log.warning("%s: trace view leaves out its samples: %s", per_sample, exc)
                files[path] = None
        found = files[path]
        if found is None:
            continue
        sample = found.get((row["source"], row.get("repeat", 0)))
        if sample is None:
            missing += 1
            continue
        sample = replace(sample, model=label or row.get("model") or sample.model)
        out.append(TraceSample(sample, row, row.get("markers") or AUTO))
    if missing:
        log.warning("%s: %d rows name a response no longer in their file", per_sample, missing)
    return out


def payload(t: TraceSample) -> dict[str, Any]:
    """What the trace view draws for one sample (offsets into ``reasoning``)."""
    config = ScoringConfig()
    trace = split_trace(t.sample.response, t.markers)
    reasoning = trace.thought
    steps = config.split_steps(reasoning)
    record = t.record
    step = record.get("first_correct_step")
    step = step if isinstance(step, int) and 0 <= step < len(steps) else None
    in_reasoning = step is not None and record.get("first_correct_source") == "reasoning"
    s = t.sample
    return {
        **s.identity(),
        "problem": s.problem,
        "gold": s.gold,
        "extracted": record.get("extracted"),
        "correct": bool(record.get("correct")),
        "truncated": bool(record.get("truncated")),
        "markers": trace.markers,
        "reasoning": reasoning,
        "answer": "" if trace.source == "none" else trace.answer,
        "steps": [[sp.start, sp.end] for sp in steps],
        "first_correct_step": step,
        "first_correct_quote": record.get("first_correct_quote"),
        "reflection_start": steps[step].end if in_reasoning and step is not None else None,
        "switches": [[sp.start, sp.end] for sp in PhraseMatcher().find(reasoning)],
        "figures": {k: record.get(k) for k in FIGURES},
    }


def index_row(n: int, t: TraceSample) -> dict[str, Any]:
    s = t.sample
    row = {"n": n, "model": s.model, "task": s.task, "subset": s.subset, "id": s.sample_id}
    return row | {"repeat": s.repeat} | {k: t.record.get(k) for k in INDEX_FIELDS}


def write_chunks(folder: Path, traces: Iterable[TraceSample]) -> list[dict[str, Any]]:
    """One ``<n>.js`` per sample under ``folder``; returns the index rows."""
    folder.mkdir(parents=True, exist_ok=True)
    index = []
    for n, t in enumerate(traces):
        data = json.dumps(payload(t), ensure_ascii=False)
        (folder / f"{n}.js").write_text(f"{CALLBACK}({n}, {data});\n", encoding="utf-8")
        index.append(index_row(n, t))
    return index
