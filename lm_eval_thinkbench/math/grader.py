"""Answer checking isolated in worker processes, with a hard deadline per check.

Grading is the hot path and the riskiest one: a model can write ``\\boxed{5^{5^{5^{5^5}}}}`` and
sympy will grind on it for minutes inside C big-integer code that no signal interrupts. So every
symbolic check runs in a :class:`pebble.ProcessPool` worker that dies when it overruns (pebble
replaces it), while the cheap parts stay in the parent:

1. input validation (non-strings, empty, longer than :data:`.verify.MAX_ANSWER_CHARS`,
   unbalanced braces): not equivalent, status ``"error"``, no IPC;
2. the normalised fast path (:func:`.verify.normalize`): equal forms are equivalent, status
   ``"fast"``, no IPC and no math-verify import;
3. the screen (:func:`.screen.surely_different`, :func:`.screen.surely_equal`): values that
   plainly differ (most of a long trace's wrong attempts) are not equivalent, the same plain
   number written two ways (``4/3``, ``\\frac43``) is, status ``"fast"``, no IPC;
4. an LRU cache of verdicts per (gold, candidate) as written (less surrounding space):
   ``"cached"``. Not per normalised form: normalising merges texts math-verify tells apart
   (``12.4\\text{ eV}`` is 12.4, ``12.4 eV`` a product with e), and a verdict must not depend on
   which of them a run happened to check first;
5. one worker call that checks the remaining candidates in order (``.verify.first_equivalent``).

Grading deadline. Deadlines count the worker's CPU time, not the wall clock, so that a verdict
does not depend on how busy the machine is: a check that needs 4 s of CPU passes with a 5 s
deadline on an idle machine and on one whose cores are all taken. Before each input the worker
arms ``ITIMER_PROF`` (process CPU time) with the input's allowance: ``deadline`` seconds, or
what is left of the call's budget if less. When it expires the kernel sends ``SIGPROF``, whose
default action ends the worker at once, even inside one long C call. The worker reports which
input it is on, and the CPU the call had used, through a small per-call progress file; the
parent reads it when the worker dies. Everything before that input was checked and is not
equivalent; the stuck input counts as not equivalent and is cached as such, because the same
input will run out of time again (the blow-ups are deterministic, e.g. a power tower of
exponents); the inputs after it go to a fresh call with what is left of the budget. So one
hostile candidate costs one deadline, and a correct answer after it is still found. A whole
call is bounded by a budget of worker CPU (default ``2 * deadline``).

The parent keeps a wall-clock backstop of :data:`WALL_BACKSTOP` times each limit (an input
that has not finished after ``WALL_BACKSTOP * deadline`` seconds is cancelled, and pebble kills
the worker): on an idle machine CPU and wall time agree and a hostile input ends after about
``deadline`` seconds; a machine so busy that the worker gets less than a quarter of a core can
still cut a check short. The worst wall time of any call is ``WALL_BACKSTOP`` times its budget
plus the time to notice a dead worker (about 0.1 s); a check that queues behind other callers
waits within the same bound.

The parent imports math-verify and loads the parser snapshot (:mod:`.parser_snapshot`) when it
first starts the pool (never for the fast path): with the default ``fork`` start method the
workers then inherit both, and a replacement worker is ready in ~0.1 s instead of ~0.7 s
(the import ~0.45 s, the snapshot ~0.25 s). A parent with no other use for them
(``thinkbench analyze``'s scoring processes) passes ``preload=False`` and lets its worker
import and load them while it goes on.
"""

from __future__ import annotations

import atexit
import importlib
import logging
import multiprocessing
import os
import shutil
import signal
import struct
import tempfile
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import TimeoutError as FutureTimeoutError
from concurrent.futures.process import BrokenProcessPool
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from multiprocessing.connection import Client, Connection, Listener
from multiprocessing.util import Finalize
from typing import Any

import pebble

from lm_eval_thinkbench.lifetime import collect_rarely, die_with_parent

from . import parser_snapshot, verify
from .screen import surely_different, surely_equal
from .verify import MAX_ANSWER_CHARS, braces_balanced, normalize

__all__ = [
    "DEADLINE_ENV",
    "WALL_BACKSTOP",
    "FirstMatch",
    "Grader",
    "GraderService",
    "SharedGrader",
    "Verdict",
    "default_grader",
]

#: Environment variable read by :func:`default_grader`: worker CPU seconds per symbolic check.
DEADLINE_ENV = "THINKBENCH_GRADE_DEADLINE"
_DEFAULT_DEADLINE = 5.0

#: The parent's wall-clock limits, as multiples of the CPU-time limits the worker enforces.
WALL_BACKSTOP = 4.0
#: Progress value of a call the worker has not started yet (queued, or the worker is booting).
_NOT_STARTED = -2
#: A call's progress record: the input the worker is on, and the CPU seconds the call had used
#: when it started on it.
_PROGRESS = struct.Struct("<qd")
#: How often the parent looks at a running call's progress.
_POLL_SECONDS = 0.05
#: The shortest CPU timer armed (0 would disarm it): an exhausted budget ends the call at once.
_MIN_TIMER = 1e-3


@dataclass(frozen=True)
class Verdict:
    """Whether a candidate answer is equivalent to the gold, and how that was decided.

    ``status``: ``"fast"`` (normalised strings equal), ``"cached"``, ``"checked"`` (math-verify
    in a worker), ``"timeout"`` (ran out of time: not equivalent) or ``"error"`` (bad input or
    a broken worker: not equivalent).
    """

    equivalent: bool
    status: str


@dataclass(frozen=True)
class FirstMatch:
    """Result of :meth:`Grader.first_equivalent`.

    ``index`` is the position of the first equivalent candidate (``None``: none found in time).
    ``checked`` counts candidates that math-verify decided in a worker during this call and
    ``timeouts`` those that ran out of time; fast-path and cached verdicts are in neither.
    """

    index: int | None
    timeouts: int
    checked: int


@dataclass(frozen=True)
class _Outcome:
    """How one worker call ended.

    ``kind``: ``"done"`` (``found`` is the batch index of the match or ``None``), ``"timeout"``
    (the input at ``at`` used up its own deadline), ``"budget"`` (the call's budget ran out
    first) or ``"error"`` (the worker or pool failed while at ``at``). ``at`` is a batch index,
    :data:`.verify.GOLD_PROGRESS` or ``_NOT_STARTED``. ``used``: the worker CPU seconds the
    call spent, as far as the parent knows (for a cut call, with the stuck input's allowance).
    """

    kind: str
    found: int | None = None
    at: int = _NOT_STARTED
    used: float = 0.0


@dataclass
class _Tally:
    match: int | None = None
    timeouts: int = 0
    checked: int = 0
    errors: int = 0


def _init_worker(owner: int | None = None) -> None:
    """Prepare a worker: die at once on SIGTERM, and when ``owner`` (the grader's process, if
    given: see :meth:`Grader._pool`) ends; import math-verify with the numeric witness, the
    solved gold, the set shortcut and two-stage parsing (:mod:`.verify`), load the parser's
    prediction cache (:mod:`.parser_snapshot`), warm it up and tune its garbage collector
    (:func:`lm_eval_thinkbench.lifetime.collect_rarely`).

    pebble installs a Python-level SIGTERM handler in its workers, and a Python handler cannot
    run while the interpreter is inside one long C call (big-integer power), so pebble would
    wait its 3 s grace period before SIGKILL. The default action kills immediately; a worker
    holds nothing that needs cleaning up.
    """
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if owner is not None:
        die_with_parent(owner)
    # The deadline is enforced from outside; math-verify's warning that its own timeouts are
    # disabled would only be noise in every worker's log.
    logging.getLogger("math_verify").setLevel(logging.ERROR)
    verify.install_numeric_witness()
    verify.install_solved_gold()
    verify.install_set_shortcut()
    verify.install_two_stage_parsing()
    parser_snapshot.load()
    verify.warm_up()
    # sympy and the parser are a large heap of long-lived objects that every full collection
    # would walk again (a third of a second per run on the real traces): keep them out of it.
    collect_rarely()


def _check_batch(
    progress_path: str, gold: str, candidates: list[str], deadline: float, budget: float
) -> int | None:
    """Worker side of one call: :func:`.verify.first_equivalent` under CPU-time limits.

    Before each input it records the input and the CPU the call has used so far in the
    progress file, and arms ``ITIMER_PROF`` with the input's allowance (``deadline``, or what
    is left of ``budget`` if less; see the module docstring). ``SIGPROF`` is set to its
    default action here, so that a handler inherited from the parent (a sampling profiler)
    cannot keep the timer from ending the worker. If the progress file is gone the parent has
    already given up on this call: the check still runs under its timers but reports nowhere.
    """
    signal.signal(signal.SIGPROF, signal.SIG_DFL)
    start = time.process_time()
    try:
        fd: int | None = os.open(progress_path, os.O_WRONLY)
    except OSError:
        fd = None

    def report(index: int) -> None:
        used = time.process_time() - start
        if fd is not None:
            os.pwrite(fd, _PROGRESS.pack(index, used), 0)
        signal.setitimer(signal.ITIMER_PROF, max(min(deadline, budget - used), _MIN_TIMER))

    try:
        return verify.first_equivalent(gold, candidates, on_progress=report)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        if fd is not None:
            os.close(fd)


def _read_progress(fd: int) -> tuple[int, float]:
    """The input a call's worker is on and the CPU the call had used when it started on it."""
    return _PROGRESS.unpack(os.pread(fd, _PROGRESS.size, 0))


def _answer_key(answer: object) -> str | None:
    """The cache/fast-path key of an answer, or ``None`` when it cannot be checked at all."""
    if not isinstance(answer, str) or len(answer) > MAX_ANSWER_CHARS:
        return None
    return normalize(answer) or None


def _cache_key(gold: str, candidate: str) -> tuple[str, str]:
    """The verdict cache's key: gold and candidate as written, less surrounding space, so
    that the cache returns only what checking that very text returned."""
    return gold.strip(), candidate.strip()


def _release(resources: dict[str, Any]) -> None:
    """Stop the pool and remove the progress directory (also run at interpreter exit).

    In a process forked from the owner, the pool's workers and the directory are the owner's:
    they are forgotten, not stopped or removed.
    """
    if resources.get("owner") != os.getpid():
        resources.clear()
        return
    pool = resources.pop("pool", None)
    if pool is not None:
        pool.stop()
        pool.join(timeout=5)
    directory = resources.pop("dir", None)
    if directory is not None:
        shutil.rmtree(directory, ignore_errors=True)


class Grader:
    """Checks answers against a gold answer with math-verify under a hard per-check deadline.

    Thread-safe. Workers start lazily on the first check the fast path cannot decide, stay
    alive across checks and are stopped by :meth:`close` (or at interpreter exit). No method
    raises for bad input: anything that cannot be checked is "not equivalent".
    """

    def __init__(
        self,
        deadline: float = 5.0,
        workers: int = 1,
        cache_size: int = 100_000,
        preload: bool = True,
    ):
        """``deadline``: seconds of worker CPU one candidate may take; ``workers``: worker
        processes; ``cache_size``: verdicts kept (0 disables the cache, e.g. to benchmark it);
        ``preload``: import math-verify here before forking the workers (see the module
        docstring)."""
        if not deadline > 0:
            raise ValueError(f"deadline must be positive, got {deadline!r}")
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers!r}")
        self.deadline = float(deadline)
        self.workers = int(workers)
        self.cache_size = max(0, int(cache_size))
        self.preload = preload
        self._cache: OrderedDict[tuple[str, str], bool] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._pool_lock = threading.Lock()
        self._closed = False
        # Held in a dict so the finalizer can release them without keeping ``self`` alive.
        self._resources: dict[str, Any] = {"owner": os.getpid()}
        self._finalizer = weakref.finalize(self, _release, self._resources)
        self._waits = threading.local()

    # ----------------------------------------------------------------------- public API

    def equivalent(self, gold: str, candidate: str) -> Verdict:
        """Whether ``candidate`` is equivalent to ``gold`` (reference answer first).

        Takes at most ``2 * deadline`` seconds of worker CPU, and of wall time on an idle
        machine (``WALL_BACKSTOP`` times that at worst, queueing behind other callers
        included).
        """
        gold_key = _answer_key(gold)
        if gold_key is None:
            return Verdict(False, "error")
        known = self._known(gold, gold_key, candidate)
        if known is not None:
            return known
        tally = self._check_in_workers(gold, [(0, candidate)], 2 * self.deadline)
        if tally.match == 0:
            return Verdict(True, "checked")
        if tally.checked:
            return Verdict(False, "checked")
        return Verdict(False, "error" if tally.errors else "timeout")

    def first_equivalent(
        self, gold: str, candidates: Sequence[str], budget: float | None = None
    ) -> FirstMatch:
        """The first of ``candidates`` (in order) equivalent to ``gold``.

        Uncached candidates go to one worker call. ``budget`` bounds the whole call in seconds
        of worker CPU (default ``2 * deadline``; wall time: see the module docstring);
        candidates not reached within it, like those that ran out of their own deadline, count
        as not equivalent, so ``index`` is the first candidate *shown* equivalent. A candidate
        that repeats an earlier one is not checked twice.
        """
        budget = 2 * self.deadline if budget is None else max(0.0, float(budget))
        if isinstance(candidates, str):
            candidates = [candidates]
        gold_key = _answer_key(gold)
        if gold_key is None or not isinstance(candidates, Sequence):
            return FirstMatch(None, 0, 0)

        unknown: dict[tuple[str, str], tuple[int, str]] = {}
        known_match = None
        for index, candidate in enumerate(candidates):
            known = self._known(gold, gold_key, candidate)
            if known is None:
                unknown.setdefault(_cache_key(gold, candidate), (index, candidate))
            elif known.equivalent:
                known_match = index
                break
        tally = self._check_in_workers(gold, list(unknown.values()), budget)
        first = tally.match if tally.match is not None else known_match
        return FirstMatch(first, tally.timeouts, tally.checked)

    @contextmanager
    def waiting_in(self, hook: Callable[[], AbstractContextManager[object]]) -> Iterator[None]:
        """Within this block, each wait of the calling thread for a worker runs inside
        ``hook()``: a caller that takes turns with other threads (the harness filter, scoring
        two documents) hands its turn over while its checks run. Other threads are unaffected.
        """
        previous = getattr(self._waits, "hook", None)
        self._waits.hook = hook
        try:
            yield
        finally:
            self._waits.hook = previous

    def start(self, wait: bool = True) -> None:
        """Start the workers now and (``wait``) wait until one is ready.

        Otherwise they start on the first check the fast path cannot decide, and that check
        pays the start-up (about half a second); call this to keep it out of a timed loop, or
        with ``wait=False`` to let the start-up run beside the caller's own work.
        """
        pool, _ = self._pool()
        started = pool.schedule(os.getpid)
        if wait:
            started.result(timeout=60)

    def close(self) -> None:
        """Stop the workers. Checks after this return ``"error"`` unless the fast path or the
        cache decides them."""
        with self._pool_lock:
            self._closed = True
        self._finalizer()

    def __enter__(self) -> Grader:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ------------------------------------------------------------------------ internals

    def _known(self, gold: str, gold_key: str, candidate: object) -> Verdict | None:
        """A verdict reachable without a worker, or ``None`` if one is needed."""
        candidate_key = _answer_key(candidate)
        if candidate_key is None or not isinstance(candidate, str):  # (a key means a string)
            return Verdict(False, "error")
        if candidate_key == gold_key:
            return Verdict(True, "fast")
        if not braces_balanced(candidate):
            return Verdict(False, "error")
        # Most statements in a long trace are wrong attempts and most answers plain numbers:
        # two plain numbers that plainly differ need no worker (never a false "equal").
        if surely_different(gold, candidate):
            return Verdict(False, "fast")
        if surely_equal(gold, candidate):  # a final 4/3 against the gold \frac43
            return Verdict(True, "fast")
        key = _cache_key(gold, candidate)
        with self._cache_lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
        return None if cached is None else Verdict(cached, "cached")

    def _remember(self, gold: str, candidate: str, equivalent: bool) -> None:
        if not self.cache_size:
            return
        key = _cache_key(gold, candidate)
        with self._cache_lock:
            self._cache[key] = equivalent
            self._cache.move_to_end(key)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)

    def _check_in_workers(
        self,
        gold: str,
        todo: list[tuple[int, str]],
        budget: float,
    ) -> _Tally:
        """Check ``(index, candidate)`` pairs in order in workers; stop at the first match.

        Each worker call covers all remaining candidates with what is left of ``budget``
        (worker CPU seconds); when one candidate is stuck, the call is abandoned at it and the
        rest go to the next call. Every iteration consumes at least one candidate or stops, so
        this terminates.
        """
        tally = _Tally()
        wall_end = time.monotonic() + WALL_BACKSTOP * budget
        hook = getattr(self._waits, "hook", None)
        while todo and budget > 0 and time.monotonic() < wall_end:
            with hook() if hook is not None else nullcontext():
                outcome = self._run_call(gold, [c for _, c in todo], budget, wall_end)
            if outcome.kind == "done":
                decided = len(todo) if outcome.found is None else outcome.found
            else:
                decided = max(outcome.at, 0)
            for _, candidate in todo[:decided]:
                self._remember(gold, candidate, False)
            tally.checked += decided

            if outcome.kind == "done":
                if outcome.found is not None:
                    index, candidate = todo[outcome.found]
                    self._remember(gold, candidate, True)
                    tally.match = index
                    tally.checked += 1
                return tally
            if outcome.at < 0:  # stuck or failed before any candidate: gold, queue or pool
                if outcome.kind == "error":
                    tally.errors += 1
                else:
                    tally.timeouts += 1
                return tally
            if outcome.kind == "timeout":
                self._remember(gold, todo[decided][1], False)
            if outcome.kind == "error":
                tally.errors += 1
            else:
                tally.timeouts += 1
            todo = todo[decided + 1 :]
            budget -= outcome.used
        return tally

    def _run_call(
        self, gold: str, candidates: list[str], budget: float, wall_end: float
    ) -> _Outcome:
        """One worker call with a per-call progress file, watched until it ends."""
        try:
            pool, directory = self._pool()
            fd, path = tempfile.mkstemp(dir=directory)
        except (OSError, RuntimeError):  # closed meanwhile, or no temporary storage
            return _Outcome("error")
        try:
            os.pwrite(fd, _PROGRESS.pack(_NOT_STARTED, 0.0), 0)
            scheduled = self._schedule(pool, (path, gold, candidates, self.deadline, budget))
            if scheduled is None:
                return _Outcome("error")
            return self._watch(scheduled[1], fd, budget, wall_end, scheduled[0])
        finally:
            os.close(fd)
            os.unlink(path)

    def _schedule(
        self, pool: pebble.ProcessPool, args: tuple[Any, ...]
    ) -> tuple[pebble.ProcessPool, pebble.ProcessFuture] | None:
        """Schedule one call; a pool that is already broken is replaced once.

        pebble declares the whole pool broken when a worker dies while idle (killed from
        outside, say); no check of this call has run yet, so it is retried on a fresh pool
        rather than reported as an error.
        """
        for _ in range(2):
            try:
                return pool, pool.schedule(_check_batch, args=args)
            except RuntimeError:
                self._discard(pool)
                try:
                    pool, _ = self._pool()
                except RuntimeError:  # closed meanwhile
                    return None
        return None

    def _cut(self, at: int, used: float, budget: float) -> _Outcome:
        """A call cut at input ``at`` (the call had used ``used`` CPU seconds when it started
        on it): a timeout when the input had its whole deadline, else the budget ran out."""
        allowance = max(0.0, min(self.deadline, budget - used))
        kind = "timeout" if at != _NOT_STARTED and budget - used >= self.deadline else "budget"
        return _Outcome(kind, at=at, used=used + allowance)

    def _watch(
        self,
        future: pebble.ProcessFuture,
        fd: int,
        budget: float,
        wall_end: float,
        pool: pebble.ProcessPool,
    ) -> _Outcome:
        """Wait for ``future``. The worker ends itself when an input's CPU allowance is spent
        (``SIGPROF``); the wall-clock backstop cancels it (pebble kills the worker) when the
        input it is on has had ``WALL_BACKSTOP`` times its deadline, or the call its budget."""
        at, since = _NOT_STARTED, time.monotonic()
        while True:
            current, used = _read_progress(fd)
            if current != at:
                at, since = current, time.monotonic()
            now = time.monotonic()
            own_limit = since + WALL_BACKSTOP * self.deadline
            limit = wall_end if at == _NOT_STARTED else min(wall_end, own_limit)
            if now >= limit and future.cancel():
                if at == _NOT_STARTED or own_limit > wall_end:
                    return _Outcome("budget", at=at, used=budget)
                return self._cut(at, used, budget)
            try:
                found = future.result(timeout=max(0.0, min(_POLL_SECONDS, limit - now)))
            except FutureTimeoutError:
                continue
            except BrokenProcessPool:
                self._discard(pool)
                return _Outcome("error", at=_read_progress(fd)[0])
            except pebble.ProcessExpired as expired:
                at, used = _read_progress(fd)
                if expired.exitcode == -signal.SIGPROF:  # its CPU allowance ran out
                    return self._cut(at, used, budget)
                return _Outcome("error", at=at, used=used)
            except Exception:  # the worker failed to unpickle, or another failure of the call
                return _Outcome("error", at=_read_progress(fd)[0])
            return _Outcome("done", found=found if isinstance(found, int) else None)

    def _pool(self) -> tuple[pebble.ProcessPool, str]:
        """The running pool and progress directory, created on first use."""
        with self._pool_lock:
            if self._closed or self._resources.get("owner") != os.getpid():
                raise RuntimeError(
                    "Grader is closed (or belongs to the process this one forked from)"
                )
            if "dir" not in self._resources:
                self._resources["dir"] = tempfile.mkdtemp(prefix="thinkbench-grade-")
            if "pool" not in self._resources:
                if self.preload:  # before the first fork, so workers inherit both
                    importlib.import_module("math_verify")
                    parser_snapshot.load()
                # Workers die with this process (a killed analyze worker's graders too). The
                # kernel's signal follows the forking thread: pebble forks the first workers in
                # the thread that first schedules (this one), the rest in its manager thread,
                # so only a pool made in the main thread gets it; a forkserver is no parent.
                owner = (
                    os.getpid()
                    if threading.current_thread() is threading.main_thread()
                    and multiprocessing.get_start_method() != "forkserver"
                    else None
                )
                self._resources["pool"] = pebble.ProcessPool(
                    max_workers=self.workers, initializer=_init_worker, initargs=(owner,)
                )
            return self._resources["pool"], self._resources["dir"]

    def _discard(self, broken: pebble.ProcessPool) -> None:
        """Drop a broken pool so that the next call starts a new one."""
        with self._pool_lock:
            if self._resources.get("pool") is broken:
                del self._resources["pool"]
            else:
                return
        broken.stop()


class GraderService:
    """One grader's workers, lent to processes forked from this one (``thinkbench analyze``'s
    scoring processes), so that math-verify is imported and its parser's prediction cache
    warmed once for the whole run instead of once per process.

    Each borrower holds a :class:`SharedGrader` (see :meth:`client`): its fast path, screen,
    verdict cache and call loop run in the borrower as in a :class:`Grader`, and only each
    worker call (``Grader._run_call``: the deadlines, the progress file, the wall-clock
    backstop) runs here, on a thread per borrower, so every limit means what it means for a
    grader of one's own. The listener is a Unix socket in a private temporary folder, with
    the process's authentication key.

    Make it and :meth:`serve` it in the main thread (its grader's first worker is forked there
    and dies with this process), before forking the borrowers, and :meth:`close` it when they
    are done.
    """

    def __init__(self) -> None:
        """The grader is made as :func:`default_grader` makes its own (deadline from
        ``THINKBENCH_GRADE_DEADLINE``), its workers importing math-verify themselves."""
        self.grader = Grader(deadline=_deadline_from_env(), preload=False)
        self._authkey = multiprocessing.current_process().authkey
        self._listener = Listener(family="AF_UNIX", authkey=self._authkey)
        self._closing = False

    def client(self) -> tuple[str, bytes, float]:
        """What a borrower passes to :class:`SharedGrader` (the address, the key, the
        deadline), plain data that survives a fork or a pickle."""
        return self._listener.address, self._authkey, self.grader.deadline

    def serve(self) -> None:
        """Start the workers (the first one forked from this, the calling, thread), which
        import math-verify meanwhile, and the thread that accepts borrowers."""
        self.grader.start(wait=False)
        threading.Thread(target=self._accept, name="grader-service", daemon=True).start()

    def close(self) -> None:
        """Stop accepting and stop the workers: a borrower's next call is an ``"error"``, and
        the thread serving it ends when it hangs up."""
        self._closing = True
        self._listener.close()
        self.grader.close()

    def _accept(self) -> None:
        while True:
            try:
                connection = self._listener.accept()
            except (OSError, EOFError, multiprocessing.AuthenticationError):
                if self._closing:
                    return
                continue
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: Connection) -> None:
        """Run one borrower's calls in turn until it hangs up."""
        try:
            while True:
                gold, candidates, budget, wall_end = connection.recv()
                connection.send(self.grader._run_call(gold, candidates, budget, wall_end))
        except (OSError, EOFError):  # the borrower hung up (or ended)
            connection.close()


class SharedGrader(Grader):
    """A :class:`Grader` whose worker calls run in a :class:`GraderService`'s workers (in the
    process that lent them); everything else runs here. A service that is gone makes each
    call an ``"error"``, as a broken pool does."""

    def __init__(self, service: tuple[str, bytes, float], cache_size: int = 100_000) -> None:
        address, self._authkey, deadline = service
        super().__init__(deadline=deadline, cache_size=cache_size, preload=False)
        self._address = address
        self._connection: Connection | None = None
        self._call_lock = threading.Lock()

    def start(self, wait: bool = True) -> None:
        """Connect to the service now (its workers are its own to start)."""
        with self._call_lock:
            self._connect()

    def close(self) -> None:
        with self._call_lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None
        super().close()

    def _connect(self) -> Connection:
        if self._closed:
            raise RuntimeError("Grader is closed")
        if self._connection is None:
            self._connection = Client(self._address, family="AF_UNIX", authkey=self._authkey)
        return self._connection

    def _run_call(
        self, gold: str, candidates: list[str], budget: float, wall_end: float
    ) -> _Outcome:
        with self._call_lock:
            try:
                connection = self._connect()
                connection.send((gold, candidates, budget, wall_end))
                outcome: _Outcome = connection.recv()
            except (OSError, EOFError, RuntimeError, multiprocessing.AuthenticationError):
                return _Outcome("error")
        return outcome


_default: Grader | None = None
_default_lock = threading.Lock()


def _deadline_from_env() -> float:
    raw = os.environ.get(DEADLINE_ENV, "").strip()
    if not raw:
        return _DEFAULT_DEADLINE
    try:
        deadline = float(raw)
    except ValueError:
        deadline = float("nan")
    if not deadline > 0:
        raise ValueError(f"{DEADLINE_ENV} must be a positive number of seconds, got {raw!r}")
    return deadline


def default_grader(preload: bool = True) -> Grader:
    """The process-wide grader, created on first use and closed at interpreter exit.

    Its deadline comes from ``THINKBENCH_GRADE_DEADLINE`` (CPU seconds, default 5). Sharing one
    grader shares its workers and its verdict cache across every task of a run. ``preload``
    applies when this call creates it (see :class:`Grader`). A process forked from one that
    had a default grader gets its own: the inherited one's workers belong to the parent.
    """
    global _default
    with _default_lock:
        if _default is not None and _default._resources.get("owner") != os.getpid():
            _default.close()  # forgets the parent's workers without touching them
            _default = None
        if _default is None or _default._closed:
            _default = Grader(deadline=_deadline_from_env(), preload=preload)
            atexit.register(_default.close)
            # A multiprocessing child ends without running ``atexit`` and waits for its own
            # children first: its grader's workers must be stopped by multiprocessing's hook.
            Finalize(_default, _default.close, exitpriority=10)
        return _default
