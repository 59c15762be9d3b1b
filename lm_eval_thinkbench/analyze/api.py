"""``analyze()``: the whole post-hoc analysis as one Python call (the CLI is a thin shell).

from lm_eval_thinkbench.analyze.api import AnalyzeOptions, analyze
result = analyze(AnalyzeOptions(runs=["r1=out/r1", "qwq=out/qwq"], output=Path("report")))
result.groups      # figures per model and subset, with intervals
result.scored      # one record per sample
result.skipped     # input files left out as not math (logic, ProcessBench, ...)
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lm_eval_thinkbench import METRICS_VERSION
from lm_eval_thinkbench.analyze.aggregate import Group, aggregate
from lm_eval_thinkbench.analyze.counting import tokenizers_for
from lm_eval_thinkbench.analyze.gold import read_gold, with_gold
from lm_eval_thinkbench.analyze.plots import write_plots
from lm_eval_thinkbench.analyze.readers import read_runs
from lm_eval_thinkbench.analyze.report import write_reports
from lm_eval_thinkbench.analyze.samples import InputFormatError, Sample, Skipped
from lm_eval_thinkbench.analyze.score import Scored, ScoreOptions, score_samples
from lm_eval_thinkbench.analyze.select import select
from lm_eval_thinkbench.judge.cache import JudgeCache, default_cache_dir
from lm_eval_thinkbench.judge.prompts import PROMPT_VERSION
from lm_eval_thinkbench.reading import ScoringConfig
from lm_eval_thinkbench.steps import DEFAULT_SEPARATOR, DEFAULT_SWITCH_PHRASES, PhraseMatcher
from lm_eval_thinkbench.trace import AUTO

if TYPE_CHECKING:
    from lm_eval_thinkbench.judge.client import JudgeRunner, JudgeStats
    from lm_eval_thinkbench.judge.settings import JudgeSettings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AnalyzeOptions:
    """Everything ``thinkbench analyze`` takes; the CLI's ``--help`` explains each option.

    ``judge`` is required when ``locator`` is "judge"/"both" or ``split`` is "llm";
    ``judge_cache`` None means the default folder (``judge.cache.default_cache_dir``) and
    ``use_judge_cache=False`` turns the cache off. ``tokenizer`` None counts each model with
    its run's own tokenizer (``counting.py``); ``gold`` is a dataset file whose answers replace
    the logged golds (``gold.py``).
    """

    runs: Sequence[str]
    output: Path
    input_format: str = "auto"
    locator: str = "rule"
    split: str = "separator"
    separator: str = DEFAULT_SEPARATOR
    switch_phrases: Sequence[str] = DEFAULT_SWITCH_PHRASES
    markers: str = AUTO
    truncated: str = "lenient"
    tokenizer: str | None = None
    gold: Path | None = None
    correctness: str = "checker"
    limit: int | None = None
    sample: int | None = None
    seed: int = 0
    max_tokens: int | None = None
    bootstrap: int = 1000
    confidence: float = 0.95
    judge: JudgeSettings | None = None
    judge_cache: Path | None = None
    use_judge_cache: bool = True
    plots: bool = True
    progress: bool = True
    workers: int = field(default_factory=lambda: min(4, os.cpu_count() or 1))

    def settings(self) -> dict[str, Any]:
        """The options that shape the figures, for ``summary.json`` (never the API key)."""
        out = {
            "runs": list(self.runs),
            "locator": self.locator,
            "split": self.split,
            "separator": self.separator,
            "switch_phrases": "|".join(self.switch_phrases),
            "markers": self.markers,
            "truncated": self.truncated,
            "tokenizer": self.tokenizer or "auto",
            "gold": None if self.gold is None else str(self.gold),
            "correctness": self.correctness,
            "limit": self.limit,
            "sample": self.sample,
            "seed": self.seed,
            "max_tokens": self.max_tokens,
            "bootstrap": self.bootstrap,
            "confidence": self.confidence,
            "metrics_version": METRICS_VERSION,
        }
        if self.judge is not None and (self.locator != "rule" or self.split == "llm"):
            out |= {
                "judge_model": self.judge.model,
                "judge_seed": self.judge.seed,
                "judge_prompt_version": PROMPT_VERSION,
            }
        return out


@dataclass
class Analysis:
    """What :func:`analyze` produced."""

    groups: list[Group]
    scored: list[Scored]
    files: list[Path]
    judge_stats: JudgeStats | None = None
    dropped: dict[tuple[str, str], int] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)


def analyze(options: AnalyzeOptions) -> Analysis:
    """Read the runs, score every selected sample, aggregate, and write the reports."""
    inputs = read_runs(options.runs, options.input_format)
    for s in inputs.skipped:
        log.warning("%s: left out %d samples of %s: %s", s.path, s.samples, s.task, s.reason)
    return _analyze(inputs.samples, options, inputs.skipped)


def _analyze(
    samples: Sequence[Sample], options: AnalyzeOptions, skipped: Sequence[Skipped]
) -> Analysis:
    """Select, score, aggregate and write (the figures too, unless ``options.plots`` is off)."""
    if options.gold is not None:
        samples = with_gold(samples, read_gold(options.gold))
    _check_golds(samples)
    chosen = select(samples, options.limit, options.sample, options.seed)
    local_split = options.split if options.split != "llm" else "separator"
    config = ScoringConfig(
        markers=options.markers,
        separator=options.separator,
        matcher=PhraseMatcher(options.switch_phrases),
        truncated=options.truncated,
        split=local_split,
    )
    score_options = ScoreOptions(
        config=config,
        locator=options.locator,
        split=options.split,
        correctness=options.correctness,
        max_tokens=options.max_tokens,
        tokenizer=options.tokenizer,
        workers=options.workers,
        # a --tokenizer that does not load fails here, before any work
        tokenizers=tokenizers_for(chosen, options.tokenizer),
    )
    runners: list[JudgeRunner] = []

    def start_judge() -> JudgeRunner:
        runners.append(_judge_runner(options))
        return runners[0]

    try:
        result = score_samples(
            chosen,
            score_options,
            start_judge,
            options.progress,
        )
    finally:
        for runner in runners:
            runner.close()
    groups = aggregate(
        result.scored, result.dropped, options.bootstrap, options.confidence, options.seed
    )
    files = write_reports(options.output, groups, result.scored, options.settings(), skipped)
    if options.plots:
        files += write_plots(options.output, groups)
    return Analysis(
        groups=groups,
        scored=result.scored,
        files=files,
        judge_stats=runners[0].stats if runners else None,
        dropped=dict(result.dropped),
        skipped=list(skipped),
    )


def _check_golds(samples: Sequence[Sample]) -> None:
    """A sample whose log had no usable gold (and that ``--gold`` did not supply) stops the
    run, naming where: it cannot be scored, and scoring it wrong would be silent."""
    missing = [s for s in samples if not s.gold.strip()]
    if missing:
        raise InputFormatError(
            f"{missing[0].where}: no gold answer ({len(missing)} samples have none); give the "
            "dataset with --gold FILE"
        )


def _judge_runner(options: AnalyzeOptions) -> JudgeRunner:
    """The judge client on its thread (imported here: the openai SDK costs half a second)."""
    from lm_eval_thinkbench.judge.client import JudgeClient, JudgeRunner

    if options.judge is None:
        raise ValueError(
            f"locator={options.locator!r} / split={options.split!r} need a judge: give "
            "--judge-model and --judge-base-url (or $THINKBENCH_JUDGE_MODEL and "
            "$THINKBENCH_JUDGE_BASE_URL)"
        )
    cache = None
    if options.use_judge_cache:
        cache = JudgeCache(options.judge_cache or default_cache_dir())
    return JudgeRunner(JudgeClient(options.judge, cache, PROMPT_VERSION))
