"""The settings that shape every per-sample record and report, typed once.

:class:`Settings` is the one object that ``thinkbench analyze`` (its CLI options are generated
from these fields), lm-eval's ``--metadata`` (read by ``harness.settings.configure``) and the
Python API (``analyze.api.AnalyzeOptions`` is a ``Settings`` with the run's inputs) build, and
that scoring (``math500.score.score_response``, where it is named ``reading.ScoringConfig``) reads
unchanged. Each field's help text is its documentation; ``options.py`` says how a field
declares its CLI flag and metadata keys. The harness scores with ``split`` "separator" and the
rule locator; the fields that only analyze reads (``locator``, ``gold``, ``limit``, ...) keep
their defaults there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from lm_eval_thinkbench.flags import as_bool
from lm_eval_thinkbench.options import check_choices, setting
from lm_eval_thinkbench.steps import (
    DEFAULT_SEPARATOR,
    DEFAULT_SWITCH_PHRASES,
    PhraseMatcher,
    Span,
    split_keywords,
    split_separator,
)
from lm_eval_thinkbench.trace import AUTO, MARKER_SETS, MarkerSet, custom_markers, resolve_markers

LOCATORS = ("rule", "judge", "both")
#: Step splitters that need no model.
LOCAL_SPLITS = ("separator", "keywords")
#: "llm" (a judge rewrites the reasoning, ``locate.split``) needs a client; where it is not at
#: hand (the worker that counts) the steps are cut as by "separator".
SPLITS = (*LOCAL_SPLITS, "llm")
TRUNCATED_POLICIES = ("lenient", "zero")
CORRECTNESS = ("checker", "logged")


def _phrases(value: object) -> tuple[str, ...]:
    """Switch phrases from a ``|``-separated string or a list (JSON metadata)."""
    if isinstance(value, str):
        return tuple(value.split("|"))
    if isinstance(value, list | tuple):
        return tuple(str(p) for p in value)
    raise ValueError(f"switch_phrases must be a |-separated string or a list, not {value!r}")


def _markers(metadata: Mapping[str, Any]) -> str | MarkerSet:
    """The marker setting, checked now so that a typo fails before any generation."""
    if metadata.get("think_end"):
        start = metadata.get("think_start")
        return custom_markers(str(start) if start else None, str(metadata["think_end"]))
    if metadata.get("think_start"):
        raise ValueError("think_start needs think_end: the end marker is what splits a response")
    return str(metadata.get("markers", AUTO))


@lru_cache(maxsize=16)
def _matcher(phrases: tuple[str, ...]) -> PhraseMatcher:
    """One compiled matcher per phrase list: scoring copies its settings per sample."""
    return PhraseMatcher(phrases)


@dataclass(frozen=True)
class Settings:
    """How responses are read, scored, selected and summarised; see each field's ``help``."""

    locator: str = setting(
        "rule",
        flags=("--locator",),
        group="measured",
        choices=LOCATORS,
        help="first-correct locator: rule (deterministic, offline), judge (an LLM reads the "
        "numbered steps), both (judge figures, plus how often the two agree and their token "
        "distance) (default: %(default)s)",
    )
    split: str = setting(
        "separator",
        flags=("--split",),
        group="measured",
        choices=SPLITS,
        help="step splitting: separator (--separator), keywords (at each switch phrase), llm "
        "(the judge rewrites the reasoning into steps; rewrites that change the text are "
        "rejected) (default: %(default)s)",
    )
    separator: str = setting(
        DEFAULT_SEPARATOR,
        flags=("--separator",),
        group="measured",
        keys=("step_separator",),
        help="regex between steps for --split separator, and between paragraphs for "
        "solution rounds and sections (default: blank lines)",
    )
    switch_phrases: Sequence[str] = setting(
        DEFAULT_SWITCH_PHRASES,
        flags=("--switch-phrases",),
        group="measured",
        parse=_phrases,
        text="|".join,
        record="|".join,
        keys=("switch_phrases",),
        convert=_phrases,
        help="thought-switch phrases, |-separated, matched case-insensitively on word "
        "boundaries (default: %(default)s)",
    )
    markers: str | MarkerSet = setting(
        AUTO,
        flags=("--markers",),
        group="measured",
        choices=[AUTO, *sorted(MARKER_SETS)],
        keys=("markers", "think_start", "think_end"),
        read=_markers,
        help="how the reasoning is delimited in the text when no separate reasoning field "
        "was logged; auto finds the family each run's responses show, none is a model that "
        "does not reason (default: %(default)s)",
    )
    truncated: str = setting(
        "lenient",
        flags=("--truncated",),
        group="measured",
        choices=TRUNCATED_POLICIES,
        keys=("truncated",),
        help="a response with no end of reasoning: lenient grades its last \\boxed{}, zero "
        "scores it wrong (default: %(default)s)",
    )
    tokenizer: str | None = setting(
        None,
        flags=("--tokenizer",),
        group="measured",
        keys=("thinkbench_tokenizer",),
        convert=lambda value: str(value) if value else None,
        record=lambda value: value or "auto",
        help="tokenizer that counts every model: a Hugging Face name or local folder "
        "(default: each run's own, as its records or model arguments name it, if it loads "
        "offline; else the offline Qwen2.5 vocabulary)",
    )
    gold: Path | None = setting(
        None,
        flags=("--gold",),
        group="measured",
        parse=Path,
        metavar="FILE",
        record=lambda value: None if value is None else str(value),
        help="the dataset (JSONL/JSON/CSV with problem and answer, e.g. MATH-500's "
        "test.jsonl): its answers replace the logged golds, matched by problem text",
    )
    correctness: str = setting(
        "checker",
        flags=("--correctness",),
        group="measured",
        choices=CORRECTNESS,
        help="accuracy from our answer checker (math-verify) on the final answer, or from "
        "the verdict the run logged where it logged one (default: %(default)s)",
    )
    limit: int | None = setting(
        None,
        flags=("--limit",),
        group="samples",
        parse=int,
        help="the first N responses per model and subset (file order)",
    )
    sample: int | None = setting(
        None,
        flags=("--sample",),
        group="samples",
        parse=int,
        help="N problems per subset drawn at random with --seed (the same problems for "
        "every model; all their repeats kept)",
    )
    seed: int = setting(
        0,
        flags=("--seed",),
        group="samples",
        parse=int,
        help="seed of --sample and the bootstrap (default: 0)",
    )
    max_tokens: int | None = setting(
        None,
        flags=("--max-tokens",),
        group="samples",
        parse=int,
        help="leave out responses longer than N tokens (reasoning + answer); the report "
        "counts them per subset. Off by default: nothing is dropped silently",
    )
    bootstrap: int = setting(
        1000,
        flags=("--bootstrap",),
        group="intervals",
        parse=int,
        help="bootstrap resamples per interval (default: %(default)s; 0: no intervals)",
    )
    confidence: float = setting(
        0.95,
        flags=("--confidence",),
        group="intervals",
        parse=float,
        help="interval level (default: %(default)s)",
    )
    processbench_reading: str = setting(
        "official",
        keys=("processbench_reading",),
        help="how a ProcessBench box becomes an index: official (as ProcessBench's own "
        "script reads it) or tolerant; checked by its loader",
    )
    deltabench_reading: str = setting(
        "official",
        keys=("deltabench_reading",),
        help="how a DeltaBench verdict is read and scored: official (as DeltaBench's own "
        "evaluation.py reads it, and with its filter) or tolerant (every predicted section "
        "counts); checked by its loader",
    )
    deltabench_reference_filter: bool | None = setting(
        None,
        keys=("deltabench_reference_filter",),
        convert=lambda value: as_bool(value, "deltabench_reference_filter"),
        help="drop predicted section numbers beyond the largest true one, as DeltaBench's "
        "evaluation.py does (None: under the official reading only; see reference_filter)",
    )

    def __post_init__(self) -> None:
        resolve_markers(self.markers)  # an unknown marker set names the known ones
        check_choices(self)
        self.matcher  # noqa: B018  - an empty phrase list fails here, before any scoring

    @property
    def needs_judge(self) -> bool:
        return self.locator != "rule" or self.split == "llm"

    @property
    def matcher(self) -> PhraseMatcher:
        """The switch phrases' matcher (``thought_num``, the keywords splitter)."""
        return _matcher(tuple(self.switch_phrases))

    @property
    def reference_filter(self) -> bool:
        """Whether DeltaBench's reference filter applies: as set, else the reading's."""
        if self.deltabench_reference_filter is None:
            return self.deltabench_reading == "official"
        return self.deltabench_reference_filter

    def split_steps(self, reasoning: str) -> list[Span]:
        """The steps of ``reasoning`` under the local splitter ("llm": by ``separator``)."""
        if self.split == "keywords":
            return split_keywords(reasoning, self.matcher)
        return split_separator(reasoning, self.separator)
