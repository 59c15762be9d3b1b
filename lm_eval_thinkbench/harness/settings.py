"""Run settings that lm-eval hands a task only through ``--metadata`` (merged with
``--model_args``).

lm-eval passes metadata to a task's ``custom_dataset`` loader but not to its filters or
``process_results``, so the loader records the settings here and the filter reads them. One
lm-eval run uses one metadata dict for all its tasks, so one process-wide value is enough.

Keys (all optional):

* ``markers``: reasoning marker set (``think``, ``kimi``, ``gpt-oss``, ``none``);
* ``switch_phrases``: thought-switch phrases, a list or a ``|``-separated string;
* ``step_separator``: regex between reasoning steps (default: blank lines);
* ``truncated``: ``lenient`` or ``zero`` (how responses without an end marker are graded);
* ``thinkbench_tokenizer``: the tokenizer that counts (hub name or local path); by default the
  model's own (its ``tokenizer``, ``pretrained`` or ``model`` arg), else the offline Qwen default.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lm_eval_thinkbench.efficiency import ScoringConfig
from lm_eval_thinkbench.steps import DEFAULT_SEPARATOR, DEFAULT_SWITCH_PHRASES, PhraseMatcher


@dataclass(frozen=True)
class RunSettings:
    scoring: ScoringConfig = field(default_factory=ScoringConfig)
    tokenizer: str | None = None
    model_names: tuple[str, ...] = ()


_current = RunSettings()


def configure(metadata: Mapping[str, Any]) -> RunSettings:
    """Read the settings out of a task's metadata and make them current."""
    global _current
    phrases = metadata.get("switch_phrases", DEFAULT_SWITCH_PHRASES)
    if isinstance(phrases, str):
        phrases = phrases.split("|")
    scoring = ScoringConfig(
        markers=str(metadata.get("markers", "think")),
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
    _current = RunSettings(scoring, str(explicit) if explicit else None, model_names)
    return _current


def current() -> RunSettings:
    return _current
