"""One grading worker lent to other processes: ``thinkbench analyze``'s scoring processes check
their candidates in the analysing process's worker (``GraderService``, ``SharedGrader``), with
the verdicts, deadlines and failures of a grader of their own."""

from __future__ import annotations

import gc
import multiprocessing
import os
import threading
import time
from types import SimpleNamespace

import pytest

from lm_eval_thinkbench.analyze import score
from lm_eval_thinkbench.math.grader import (
    DEADLINE_ENV,
    Grader,
    GraderService,
    SharedGrader,
    Verdict,
    _Outcome,
)
from lm_eval_thinkbench.settings import Settings

POWER_TOWER = "5^{5^{5^{5^{5}}}}"


@pytest.fixture(scope="module")
def service():
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(DEADLINE_ENV, "0.5")
        lent = GraderService()
    lent.serve()
    yield lent
    lent.close()


def test_checks_run_in_the_lent_worker_with_its_deadline(service: GraderService) -> None:
    borrower = SharedGrader(service.client())
    assert borrower.deadline == 0.5
    assert borrower.equivalent("\\frac{1}{2}", "2^{-1}") == Verdict(True, "checked")
    assert borrower.equivalent("\\frac{1}{2}", "2^{-1}") == Verdict(True, "cached")  # its own cache
    # the hostile candidate costs its CPU deadline in the lent worker, which is replaced, and
    # the equal value after it is still found
    start = time.monotonic()
    found = borrower.first_equivalent("2", [POWER_TOWER, "\\sqrt{4}"])
    assert (found.index, found.timeouts) == (1, 1)
    assert time.monotonic() - start < 10
    assert "pool" not in borrower._resources  # it never started a worker of its own
    borrower.close()


def _borrow(client: tuple[str, bytes, float], results: multiprocessing.Queue) -> None:
    borrower = SharedGrader(client)
    results.put((borrower.first_equivalent("6", ["7", "2 \\cdot 3"]).index, os.getpid()))
    results.put(len(multiprocessing.active_children()))


def test_forked_processes_borrow_the_one_worker(service: GraderService) -> None:
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    children = [context.Process(target=_borrow, args=(service.client(), results)) for _ in "ab"]
    for child in children:
        child.start()
    answers = [results.get(timeout=60) for _ in range(4)]
    for child in children:
        child.join(timeout=10)
    found = sorted(a for a in answers if isinstance(a, tuple))
    assert [index for index, _ in found] == [1, 1]
    assert [a for a in answers if not isinstance(a, tuple)] == [0, 0]  # no grading workers


def test_a_closed_service_answers_error_without_hanging() -> None:
    lent = GraderService()
    lent.serve()
    borrower = SharedGrader(lent.client())
    assert borrower.equivalent("3", "\\sqrt{9}").equivalent  # connected and checked
    lent.close()
    assert borrower.equivalent("3", "9^{1/2}") == Verdict(False, "error")
    assert borrower.equivalent("3", "3") == Verdict(True, "fast")  # the fast path still works


def _worker_state() -> tuple[str, int]:
    return type(score._shared_grader).__name__, gc.get_threshold()[0]


def test_scoring_workers_borrow_the_analysing_process_grader() -> None:
    """analyze's scoring workers check in the grading worker their parent started (one for
    all of them), and collect garbage rarely."""
    pool, lent = score._start_pool(score.ScoreOptions(config=Settings(), workers=2), 2)
    try:
        states = {pool.submit(_worker_state).result(timeout=60) for _ in range(4)}
        assert states == {("SharedGrader", 20_000)}
        assert score._shared_grader is None  # this process grades with its own
        assert "pool" in lent.grader._resources  # the shared worker was started here
    finally:
        pool.shutdown()
        lent.close()


def test_scoring_in_this_process_collects_rarely_meanwhile(monkeypatch) -> None:
    """With one worker (no scoring processes), analyze scores in the caller's process, whose
    collections are tuned while it does and restored after."""
    seen = []
    monkeypatch.setattr(score, "score_job", lambda job, options: seen.append(gc.get_threshold()))
    before = gc.get_threshold()
    jobs = [SimpleNamespace(sample=SimpleNamespace(gold=g)) for g in ("1", "2")]
    score._here(jobs, score.ScoreOptions(config=Settings()), score._bar(2, False))  # type: ignore[arg-type]
    assert [t[0] for t in seen] == [20_000, 20_000]
    assert gc.get_threshold() == before


class _SlowWorkerGrader(Grader):
    """A grader whose worker calls each take 50 ms and find nothing."""

    def _run_call(self, gold: str, candidates: list[str], budget: float, wall_end: float):
        time.sleep(0.05)
        return _Outcome("done")


def test_a_batch_scores_on_threads_that_take_turns_while_waiting(monkeypatch) -> None:
    """A scoring worker's batch: another job runs while one waits for its checks, never two
    at once outside a wait; jobs with the same gold one after the other; results in order."""
    grader = _SlowWorkerGrader()
    monkeypatch.setattr(score, "_shared_grader", grader)
    events: list[tuple[str, int]] = []
    running: set[int] = set()
    lock = threading.Lock()

    def fake_score_job(job, options):
        with lock:
            assert not running, "two jobs ran Python at once"
            events.append(("start", job.i))
            running.add(job.i)
        running.discard(job.i)  # the turn is handed over for the check...
        grader.first_equivalent(job.sample.gold, ["2^{-1} \\sin x"])  # needs the worker
        running.add(job.i)  # ...and taken back after it
        with lock:
            events.append(("end", job.i))
            running.discard(job.i)
        return job.i

    monkeypatch.setattr(score, "score_job", fake_score_job)
    golds = ["\\frac{1}{2}", "\\frac{1}{3}", "\\frac{1}{2}", "\\frac{1}{5}"]
    jobs = [SimpleNamespace(i=i, sample=SimpleNamespace(gold=g)) for i, g in enumerate(golds)]
    assert score.score_batch(jobs, score.ScoreOptions(config=Settings())) == [0, 1, 2, 3]  # type: ignore[arg-type]
    assert events.index(("start", 1)) < events.index(("end", 0))  # 1 ran during 0's wait
    assert events.index(("end", 0)) < events.index(("start", 2))  # same gold: after 0
