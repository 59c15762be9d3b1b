"""Score every sample: the records of ``efficiency``, with the rule or the judge locator.

This is the only place that knows about both the judge and the per-sample metrics, and it adds
no metric of its own: every number comes from ``math500.score.score_graded``.

The work is arranged so that neither the judge's latency nor the local work waits for the
other. A first, cheap pass splits each response and submits its judge calls (the ``llm`` split,
then the first-correct question on its steps). Each sample is then graded, located and counted
as soon as its judge reply is in, by a pool of worker processes (forked before the judge thread
starts; their graders share one grading worker, see :func:`_start_pool`), since grading and
token counting hold the GIL. Each
sample's judge calls are one coroutine on the judge's event loop, which hands the finished job
to the pool itself (``_in_pool``): no thread waits on a reply, and nothing else is a future but
what asyncio and the executor make. A judge
failure never drops a sample: the record carries ``locator_error`` and only the figures that
need the first-correct position are missing.
"""

from __future__ import annotations

import asyncio
import gc
import multiprocessing
import os
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from tqdm import tqdm

from lm_eval_thinkbench.analyze.samples import Sample
from lm_eval_thinkbench.lifetime import collect_rarely, collecting_rarely, die_with_parent
from lm_eval_thinkbench.locate.rule import (
    FirstCorrect,
    LocatorFailure,
    find_statements,
    locate_first_correct,
)
from lm_eval_thinkbench.math.grader import Grader, GraderService, SharedGrader, default_grader
from lm_eval_thinkbench.math500.score import (
    SampleRecord,
    grade_response,
    score_graded,
    verdict_keys,
)
from lm_eval_thinkbench.settings import Settings
from lm_eval_thinkbench.steps import Span
from lm_eval_thinkbench.tokens import TokenCounter, get_counter
from lm_eval_thinkbench.trace import (
    MarkerSet,
    detect_markers,
    mark_length_stop,
    resolve_markers,
    split_trace,
)
from lm_eval_thinkbench.turns import Turns, in_order

if TYPE_CHECKING:  # the judge (and the openai SDK) is imported only when a judge is used
    from lm_eval_thinkbench.judge.client import JudgeClient, JudgeRunner

#: Below this many samples, forking workers costs more than it saves.
MIN_SAMPLES_PER_WORKER = 32
#: Jobs a scoring process has in hand at once, on threads that take turns (``turns.py``).
THREADS = 4
#: Batches per scoring process: each worker is handed its jobs in batches (so that its
#: threads have several at once), several of them so that one slow batch does not leave the
#: other workers idle at the end.
BATCHES_PER_WORKER = 8

#: A scoring process's grader (set as it starts): its checks run in the analysing process's
#: grading worker, which every scoring process shares (see :func:`_start_pool`).
_shared_grader: Grader | None = None

Steps = list[Span] | LocatorFailure
Located = FirstCorrect | LocatorFailure


@dataclass(frozen=True)
class ScoreOptions:
    """How samples are scored: ``config`` is the run's settings as given (``locator``, ``split``,
    ``correctness``, ``max_tokens``, ``tokenizer`` and how responses are read, see
    ``settings.Settings``); ``tokenizers`` (model -> counter spec, see ``counting.py``) names
    the counter of each model it lists, ``config.tokenizer`` the others'. ``workers``: scoring
    processes (1: in this process).
    """

    config: Settings
    workers: int = 1
    tokenizers: Mapping[str, str | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, got {self.workers}")

    def counter(self, model: str) -> TokenCounter:
        """The counter of one model's samples."""
        return get_counter(self.tokenizers.get(model, self.config.tokenizer))

    def specs(self) -> list[str | None]:
        """Every counter spec in use, to load them before the workers fork."""
        return list(dict.fromkeys([self.config.tokenizer, *self.tokenizers.values()]))


@dataclass(frozen=True)
class Scored:
    """One sample and everything measured on it.

    ``checker_correct`` is our checker's verdict whatever ``correctness`` chose;
    ``step_text`` is the whole first-correct step, for a reader to check by eye; ``rule`` is
    the rule locator's record in ``both`` mode.
    """

    sample: Sample
    record: SampleRecord
    checker_correct: bool
    step_text: str | None
    rule: SampleRecord | None = None


@dataclass(frozen=True)
class ScoreResult:
    scored: list[Scored]
    dropped: Counter[tuple[str, str]]


@dataclass(frozen=True)
class _Job:
    """One sample's local work, once its judge answers (if any) are in.

    ``markers`` is the marker set of the sample's run (see :func:`run_markers`); ``steps`` is
    None when the worker splits the reasoning itself (nothing here needed them).
    """

    sample: Sample
    markers: MarkerSet
    steps: Steps | None
    judged: Located | None


def score_samples(
    samples: Sequence[Sample],
    options: ScoreOptions,
    judge: Callable[[], JudgeRunner] | None = None,
    progress: bool = True,
) -> ScoreResult:
    """Score ``samples``, returned in input order; see the module docstring.

    ``judge`` makes the judge runner; it is called once the worker processes exist, so that
    no thread is running when they are forked. The caller closes the runner.
    """
    if options.config.needs_judge and judge is None:
        raise ValueError(
            f"locator={options.config.locator!r}, split={options.config.split!r} need a judge"
        )
    workers = min(options.workers, max(1, len(samples) // MIN_SAMPLES_PER_WORKER))
    markers = run_markers(samples, options.config.markers)
    pool, service = _start_pool(options, workers) if workers > 1 else (None, None)
    dropped: Counter[tuple[str, str]] = Counter()
    try:
        if judge is None or not options.config.needs_judge:
            jobs = _local_jobs(samples, markers, options, dropped)
            scored = _score_local(jobs, options, pool, workers, progress)
        else:
            runner = judge()
            kept = _kept(samples, markers, options, dropped)
            asks = [_ask_judge(s, m, thought, options, runner.client) for s, m, thought in kept]
            scored = _score_judged(asks, options, pool, runner, progress)
    finally:
        if pool is not None:  # every result is in: the workers stop while the report is made
            pool.shutdown(wait=False, cancel_futures=True)
        if service is not None:
            service.close()
    return ScoreResult(scored, dropped)


def run_markers(
    samples: Sequence[Sample], setting: str | MarkerSet
) -> dict[tuple[str, str], MarkerSet]:
    """The marker set of each run (model and task): the one ``setting`` names, or under
    ``auto`` the family the run's responses show (``trace.detect_markers``), as the harness
    detects it per task; a cut-off thought that never wrote a marker is then still a thought."""
    runs: defaultdict[tuple[str, str], list[Sample]] = defaultdict(list)
    for s in samples:
        runs[s.model, s.task].append(s)
    named = resolve_markers(setting)
    return {
        run: named or detect_markers(s.response for s in members) for run, members in runs.items()
    }


def _local_jobs(
    samples: Sequence[Sample],
    markers: Mapping[tuple[str, str], MarkerSet],
    options: ScoreOptions,
    dropped: Counter[tuple[str, str]],
) -> list[_Job]:
    """The jobs when no judge is asked. With no length filter nothing is split here: the
    workers do it; with one, the kept samples' steps come along."""
    if options.config.max_tokens is None:
        return [_Job(s, markers[s.model, s.task], None, None) for s in samples]
    kept = _kept(samples, markers, options, dropped)
    return [_Job(s, m, options.config.split_steps(thought), None) for s, m, thought in kept]


def _kept(
    samples: Sequence[Sample],
    markers: Mapping[tuple[str, str], MarkerSet],
    options: ScoreOptions,
    dropped: Counter[tuple[str, str]],
) -> Iterator[tuple[Sample, MarkerSet, str]]:
    """Each sample the length filter keeps, with its run's markers and its thought (the text
    the steps are split from); the others are counted in ``dropped``."""
    limit = options.config.max_tokens
    for sample in samples:
        marker_set = markers[sample.model, sample.task]
        trace = split_trace(sample.response, marker_set)
        if limit is not None:
            counter = options.counter(sample.model)
            if counter.count(trace.reasoning) + counter.count(trace.answer) > limit:
                dropped[sample.model, sample.subset] += 1
                continue
        yield sample, marker_set, trace.thought


def _score_local(
    jobs: list[_Job],
    options: ScoreOptions,
    pool: ProcessPoolExecutor | None,
    workers: int,
    progress: bool,
) -> list[Scored]:
    """Score the jobs in the workers, a batch at a time, or here."""
    with _bar(len(jobs), progress) as bar:
        if pool is None:
            return _here(jobs, options, bar)
        size = max(1, -(-len(jobs) // (BATCHES_PER_WORKER * workers)))
        batches = [jobs[i : i + size] for i in range(0, len(jobs), size)]
        futures = [pool.submit(score_batch, batch, options) for batch in batches]
        for done in as_completed(futures):
            bar.update(len(done.result()))
        return [scored for future in futures for scored in future.result()]


def _score_judged(
    asks: list[Coroutine[None, None, _Job]],
    options: ScoreOptions,
    pool: ProcessPoolExecutor | None,
    runner: JudgeRunner,
    progress: bool,
) -> list[Scored]:
    """Start every sample's judge calls at once; score each job as soon as its answers are in:
    in a worker (handed over from the judge's loop), or here in order."""
    with _bar(len(asks), progress) as bar:
        if pool is None:
            asked = [runner.run(ask) for ask in asks]
            return _here((future.result() for future in asked), options, bar)
        return _collect([runner.run(_in_pool(ask, pool, options)) for ask in asks], bar)


async def _in_pool(
    job: Awaitable[_Job], pool: ProcessPoolExecutor, options: ScoreOptions
) -> Scored:
    """Score ``job`` in a worker once its judge answers are in."""
    return await asyncio.wrap_future(pool.submit(score_job, await job, options))


def _bar(total: int, progress: bool) -> tqdm:
    return tqdm(total=total, desc="thinkbench analyze", unit="sample", disable=not progress)


def _here(jobs: Iterable[_Job], options: ScoreOptions, bar: tqdm) -> list[Scored]:
    """Score in this process, collecting garbage as the workers do meanwhile (the caller's
    heap, a notebook's, can be large)."""
    results = []
    with collecting_rarely():
        for scored in _in_turns(list(jobs), options):
            results.append(scored)
            bar.update(1)
    return results


def score_batch(jobs: list[_Job], options: ScoreOptions) -> list[Scored]:
    """A worker's batch, scored on threads that take turns (:func:`_in_turns`)."""
    return list(_in_turns(jobs, options))


def _in_turns(jobs: Sequence[_Job], options: ScoreOptions) -> Iterator[Scored]:
    """:func:`score_job` of each job, in order, on :data:`THREADS` threads that take turns
    (``turns.py``): one job's text work runs while others wait for their checks in the
    grading worker. Jobs whose golds share a verdict-cache key are scored one after another,
    so every record is what it is when the jobs are scored one by one."""
    grader = _shared_grader or default_grader()
    turns = Turns()

    def scored(job: _Job) -> Scored:
        with turns.turn(), grader.waiting_in(turns.handing_over):
            return score_job(job, options)

    keys = [verdict_keys(job.sample.gold) for job in jobs]
    return in_order(scored, jobs, keys, THREADS)


def _collect(futures: list[Future[Scored]], bar: tqdm) -> list[Scored]:
    """The results in input order, the bar moving as each one is in."""
    for done in as_completed(futures):
        done.result()
        bar.update(1)
    return [f.result() for f in futures]


def score_job(job: _Job, options: ScoreOptions) -> Scored:
    """Grade, locate (rule) and count one sample; the judge's answer is already in ``job``."""
    config = replace(options.config, markers=job.markers)
    sample = job.sample
    counter = options.counter(sample.model)
    grader = _shared_grader or default_grader()
    response = mark_length_stop(sample.response, sample.max_gen_toks, counter.count)
    graded = grade_response(response, sample.gold, config, grader)
    reasoning = graded.trace.thought  # the text the judge saw, split the same way
    steps = job.steps if job.steps is not None else config.split_steps(reasoning)
    checker_correct = graded.correct
    if options.config.correctness == "logged" and sample.logged_correct is not None:
        graded = replace(graded, correct=sample.logged_correct)
    statements = find_statements(reasoning)
    spans = steps if isinstance(steps, list) else []

    def record(located: Located, locator: str) -> SampleRecord:
        return score_graded(
            graded,
            spans,
            located,
            config,
            counter,
            statements=statements,
            locator=locator,
            step_split=options.config.split,
        )

    rule = None
    if options.config.locator in ("rule", "both"):
        rule_located: Located = (
            steps
            if isinstance(steps, LocatorFailure)
            else locate_first_correct(
                reasoning,
                spans,
                sample.gold,
                grader,
                problem=sample.problem or None,
                answer=graded.trace.answer,
            )
        )
        rule = record(rule_located, "rule")
    if job.judged is None:
        assert rule is not None
        primary, rule = rule, None
    else:
        primary = record(job.judged, "judge")
    step = primary.first_correct_step
    step_text = spans[step].of(reasoning) if step is not None and step < len(spans) else None
    return Scored(sample, primary, checker_correct, step_text, rule)


# ----- worker processes -----------------------------------------------------------------------


def _start_pool(options: ScoreOptions, workers: int) -> tuple[ProcessPoolExecutor, GraderService]:
    """Start the grading worker, fork the scoring workers and wait until they run.

    One grading worker serves every scoring process (a :class:`GraderService` here, a
    :class:`SharedGrader` in each): math-verify is imported and its parser's prediction cache
    warmed once, which one worker per scoring process did twice, for more CPU than the
    waiting for a shared worker costs. It is started first, so that it imports math-verify
    while this process loads the tokenizer (the scoring workers' first checks would otherwise
    wait for it with a core idle); its pool's threads are the only ones running when the
    scoring workers fork, and no scoring worker touches what they hold.

    The tokenizer is loaded before the fork, so every worker inherits it instead of loading
    its own, and then frozen out of the cyclic garbage collector with everything else loaded
    so far: a worker's collections would otherwise walk (and so copy, page by page) the whole
    inherited heap, which costs more CPU than the scoring itself saves (the Python docs' recipe
    for fork without exec). This process unfreezes once the workers exist, so a long-lived
    caller (a notebook) keeps collecting its own garbage.
    """
    service = GraderService()
    service.serve()
    specs = options.specs()
    for spec in specs:
        get_counter(spec)
    gc.freeze()
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_init_worker,
        initargs=(specs, os.getpid(), service.client()),
    )
    try:
        for ready in [pool.submit(os.getpid) for _ in range(workers)]:
            ready.result()
    except BaseException:
        service.close()
        raise
    finally:
        gc.unfreeze()
    return pool, service


def _init_worker(specs: list[str | None], parent: int, service: tuple[str, bytes, float]) -> None:
    """Die with ``parent`` (a killed analyze leaves no worker behind; the pool forks every
    worker from the thread that made it, which outlives the pool), load the counters and
    make the worker's grader, which checks in the parent's shared grading worker; collect
    garbage rarely (:func:`lm_eval_thinkbench.lifetime.collect_rarely`)."""
    global _shared_grader
    die_with_parent(parent)
    for spec in specs:
        get_counter(spec)
    _shared_grader = SharedGrader(service)
    collect_rarely()


# ----- judge calls ------------------------------------------------------------------------------


async def _ask_judge(
    sample: Sample, markers: MarkerSet, reasoning: str, options: ScoreOptions, judge: JudgeClient
) -> _Job:
    """The job of one sample once the judge has answered: its ``llm`` split, then its
    first-correct question (each a judge failure recorded as a ``LocatorFailure``)."""
    steps = await _steps(sample, reasoning, options, judge)
    judged = await _judge_located(sample, reasoning, steps, options, judge)
    return _Job(sample, markers, steps, judged)


async def _steps(
    sample: Sample, reasoning: str, options: ScoreOptions, judge: JudgeClient
) -> Steps:
    """The steps: the local splitter's, or the judge's rewrite under ``split="llm"``."""
    if options.config.split != "llm":
        return options.config.split_steps(reasoning)
    if not reasoning:
        return []
    from lm_eval_thinkbench.locate.split import read_split, split_prompt

    reply = await judge.complete(split_prompt(sample.problem, reasoning))
    if reply.content is None:
        return LocatorFailure(f"judge split failed: {reply.error}")
    return read_split(reply.content, reasoning)


async def _judge_located(
    sample: Sample, reasoning: str, steps: Steps, options: ScoreOptions, judge: JudgeClient
) -> Located | None:
    """The judge's first-correct answer; None when no judge is asked."""
    if options.config.locator == "rule":
        return None
    if isinstance(steps, LocatorFailure):
        return steps
    if not steps:  # nothing to read: the reasoning never reaches any answer
        return FirstCorrect(None, None, None, None, 0, 0)
    from lm_eval_thinkbench.locate.judge import first_correct_prompt, read_first_correct

    reply = await judge.complete(
        first_correct_prompt(sample.problem, sample.gold, reasoning, steps)
    )
    if reply.content is None:
        return LocatorFailure(f"judge call failed: {reply.error}")
    return read_first_correct(reply.content, reasoning, steps)
