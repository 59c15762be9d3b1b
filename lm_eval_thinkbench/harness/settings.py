"""Run settings that lm-eval hands a task only through ``--metadata`` (merged with
``--model_args``).

lm-eval passes metadata to a task's ``custom_dataset`` loader but not to its filters or
``process_results``, so the loader records the settings here and the filter reads them. One
lm-eval run uses one metadata dict for all its tasks, so one process-wide value is enough.

Keys (all optional):

* ``markers``: reasoning marker set: ``auto`` (default: the family the run's responses show),
  ``think``, ``kimi``, ``gpt-oss``, ``thought`` (Sky-T1 / OpenThoughts), ``none`` (no reasoning);
* ``think_start`` / ``think_end``: a model's own reasoning markers, matched literally
  (``think_end`` alone is enough; they replace ``markers``);
* ``switch_phrases``: thought-switch phrases, a list or a ``|``-separated string;
* ``step_separator``: regex between reasoning steps (default: blank lines);
* ``truncated``: ``lenient`` or ``zero`` (how responses without an end marker are graded);
* ``thinkbench_tokenizer``: the tokenizer that counts (hub name or local path); by default the
  model's own (its ``tokenizer``, ``pretrained`` or ``model`` arg), else the offline Qwen default;
* ``deltabench_reading``: how a DeltaBench verdict is read and scored: ``official`` (as
  DeltaBench's own evaluation.py reads it, and with its filter; the default) or ``tolerant``
  (every predicted section counts; checked by its loader);
* ``deltabench_reference_filter``: whether predicted section numbers beyond the largest true
  one are dropped, as DeltaBench's evaluation.py does; by default true under the ``official``
  reading and false under ``tolerant``.
* ``processbench_reading``: how a ProcessBench box becomes an index: ``official`` (as
  ProcessBench's own script reads it; the default) or ``tolerant`` (checked by its loader).

Two more keys are read elsewhere: ``repeats`` (samples per problem of every math task, applied
when the task is built: ``math500.metrics.apply_repeats``) and the local data paths
(``math500_path``, ``aime24_path``, ... : ``math500.data``).

Every suite's loader calls :func:`configure`, so a bad setting (an unknown marker set) fails at
load time, before any generation is spent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lm_eval_thinkbench.flags import as_bool
from lm_eval_thinkbench.reading import ScoringConfig
from lm_eval_thinkbench.steps import DEFAULT_SEPARATOR, DEFAULT_SWITCH_PHRASES, PhraseMatcher
from lm_eval_thinkbench.trace import AUTO, MarkerSet, custom_markers, resolve_markers


@dataclass(frozen=True)
class RunSettings:
    scoring: ScoringConfig = field(default_factory=ScoringConfig)
    tokenizer: str | None = None
    model_names: tuple[str, ...] = ()
    reference_filter: bool = True
    processbench_reading: str = "official"
    deltabench_reading: str = "official"


_current = RunSettings()


def configure(metadata: Mapping[str, Any]) -> RunSettings:
    """Read the settings out of a task's metadata and make them current."""
    global _current
    phrases = metadata.get("switch_phrases", DEFAULT_SWITCH_PHRASES)
    if isinstance(phrases, str):
        phrases = phrases.split("|")
    scoring = ScoringConfig(
        markers=_markers(metadata),
        separator=str(metadata.get("step_separator", DEFAULT_SEPARATOR)),
        matcher=PhraseMatcher(phrases),
        truncated=str(metadata.get("truncated", "lenient")),
    )
    model_names = tuple(
        str(metadata[k])
        for k in ("tokenizer", "pretrained", "model")
        if isinstance(metadata.get(k), str)
    )
    explicit = metadata.get("thinkbench_tokenizer")
    deltabench_reading = str(metadata.get("deltabench_reading", "official"))
    _current = RunSettings(
        scoring=scoring,
        tokenizer=str(explicit) if explicit else None,
        model_names=model_names,
        reference_filter=as_bool(
            metadata.get("deltabench_reference_filter", deltabench_reading == "official"),
            "deltabench_reference_filter",
        ),
        processbench_reading=str(metadata.get("processbench_reading", "official")),
        deltabench_reading=deltabench_reading,
    )
    return _current


def _markers(metadata: Mapping[str, Any]) -> str | MarkerSet:
    """The marker setting, checked now so that a typo fails before any generation."""
    if metadata.get("think_end"):
        start = metadata.get("think_start")
        return custom_markers(str(start) if start else None, str(metadata["think_end"]))
    if metadata.get("think_start"):
        raise ValueError("think_start needs think_end: the end marker is what splits a response")
    markers = str(metadata.get("markers", AUTO))
    resolve_markers(markers)
    return markers


def current() -> RunSettings:
    return _current
