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
from lm_eval_thinkbench.analyze.readers import FORMATS, read_runs
from lm_eval_thinkbench.analyze.report import write_reports
from lm_eval_thinkbench.analyze.samples import InputFormatError, Sample, Skipped
from lm_eval_thinkbench.analyze.score import Scored, ScoreOptions, score_samples
from lm_eval_thinkbench.analyze.select import select
from lm_eval_thinkbench.judge.cache import CACHE_ENV, JudgeCache, default_cache_dir
from lm_eval_thinkbench.judge.prompts import PROMPT_VERSION
from lm_eval_thinkbench.options import recorded, setting
from lm_eval_thinkbench.settings import Settings

if TYPE_CHECKING:
    from lm_eval_thinkbench.judge.client import JudgeRunner, JudgeStats
    from lm_eval_thinkbench.judge.settings import JudgeSettings

log = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class AnalyzeOptions(Settings):
    """Everything ``thinkbench analyze`` takes: the :class:`Settings` that shape the figures,
    and the run's inputs, outputs, judge and workers. Each field's help says what it does; the
    CLI's options are generated from these fields (``options.py``). This object is what
    scoring reads (``ScoreOptions.config``).
    """

    runs: Sequence[str] = setting(
        flags=("runs",),
        nargs="+",
        metavar="RUN",
        help="a log folder or file, optionally labelled NAME=PATH (NAME names the model)",
    )
    output: Path = setting(
        Path("thinkbench-analysis"),
        flags=("-o", "--output"),
        parse=Path,
        help="folder for summary.md/.csv/.json, per_sample.jsonl and the PNG figures "
        "(default: %(default)s)",
    )
    input_format: str = setting(
        "auto",
        flags=("--format",),
        choices=FORMATS,
        help="input format; auto recognises each run (default: %(default)s)",
    )
    judge: JudgeSettings | None = setting(
        None,
        group="judge",
        help="the judge, required when the locator or the split needs one (the CLI builds it "
        "from JudgeSettings' --judge-* flags and the environment)",
    )
    judge_cache: Path | None = setting(
        None,
        flags=("--judge-cache",),
        group="judge",
        parse=Path,
        help=f"cache folder (default: ${CACHE_ENV} or ~/.cache/thinkbench/judge)",
    )
    use_judge_cache: bool = setting(
        True,
        flags=("--no-judge-cache",),
        group="judge",
        negate=True,
        help="neither read nor write the cache (every call is made)",
    )
    plots: bool = setting(
        True, flags=("--no-plots",), group="output", negate=True, help="skip the PNG figures"
    )
    progress: bool = setting(
        True, flags=("--no-progress",), group="output", negate=True, help="no progress bar"
    )
    workers: int = setting(
        factory=lambda: min(4, os.cpu_count() or 1),
        flags=("--workers",),
        group="output",
        parse=int,
        help="processes that grade and count (default: the CPU count, at most 4; 1: none)",
    )

    def settings(self) -> dict[str, Any]:
        """The options that shape the figures, for ``summary.json`` (never the API key)."""
        out = {
            "runs": list(self.runs),
            **recorded(self, Settings),
            "metrics_version": METRICS_VERSION,
        }
        if self.judge is not None and self.needs_judge:
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
    score_options = ScoreOptions(
        config=options,
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
