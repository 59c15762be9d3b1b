"""Run settings that lm-eval hands a task only through ``--metadata`` (merged with
``--model_args``).

lm-eval passes metadata to a task's ``custom_dataset`` loader but not to its filters or
``process_results``, so the loader records the settings here and the filter reads them. One
lm-eval run uses one metadata dict for all its tasks, so one process-wide value is enough.

The keys are those of ``lm_eval_thinkbench.settings.Settings``: each field names its metadata
keys and says what it does (the user's table, docs/models.md, is checked against them). The
model's own tokenizer (its ``tokenizer``, ``pretrained`` or ``model`` arg) counts when
``thinkbench_tokenizer`` is not given.

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

from lm_eval_thinkbench.options import from_metadata
from lm_eval_thinkbench.settings import Settings


@dataclass(frozen=True)
class RunSettings:
    """The run's :class:`Settings` and the model names its tokenizer may be found under."""

    scoring: Settings = field(default_factory=Settings)
    model_names: tuple[str, ...] = ()

    @property
    def tokenizer(self) -> str | None:
        return self.scoring.tokenizer

    @property
    def reference_filter(self) -> bool:
        return self.scoring.reference_filter

    @property
    def processbench_reading(self) -> str:
        return self.scoring.processbench_reading

    @property
    def deltabench_reading(self) -> str:
        return self.scoring.deltabench_reading


_current = RunSettings()


def configure(metadata: Mapping[str, Any]) -> RunSettings:
    """Read the settings out of a task's metadata and make them current."""
    global _current
    model_names = tuple(
        str(metadata[k])
        for k in ("tokenizer", "pretrained", "model")
        if isinstance(metadata.get(k), str)
    )
    _current = RunSettings(Settings(**from_metadata(Settings, metadata)), model_names)
    return _current


def current() -> RunSettings:
    return _current
