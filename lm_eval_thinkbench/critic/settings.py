"""Run settings for the critic tasks, read from ``--metadata`` by the dataset loaders.

lm-eval hands ``--metadata`` (merged with ``--model_args``) to a task's ``custom_dataset``
loader only, not to its filters or ``process_results``; the loader records the settings here
and the scoring adapters read them. One lm-eval run has one metadata dict, so one
process-wide value is enough (the MATH-500 tasks do the same in ``harness.settings``).

Keys (all optional):

* ``markers``: how the critic's own reasoning is delimited (``think``, ``kimi``, ``gpt-oss``,
  ``none``); its verdict is read from the text after the reasoning.
* ``deltabench_reference_filter``: drop predicted section numbers larger than the largest true
  error section before scoring, as DeltaBench's reference script does (default: keep them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lm_eval_thinkbench.trace import get_marker_set


@dataclass(frozen=True)
class CriticSettings:
    markers: str = "think"
    reference_filter: bool = False


_current = CriticSettings()


def configure(metadata: Mapping[str, Any]) -> CriticSettings:
    """Read the settings out of a task's metadata and make them current.

    An unknown marker set fails here, at load time, before any generation is spent.
    """
    global _current
    markers = str(metadata.get("markers", "think"))
    get_marker_set(markers)
    _current = CriticSettings(
        markers=markers,
        reference_filter=as_bool(metadata.get("deltabench_reference_filter", False)),
    )
    return _current


def current() -> CriticSettings:
    return _current


def as_bool(value: object) -> bool:
    """``--metadata`` values arrive as JSON booleans or as ``key=value`` strings."""
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)
