"""Scoring on threads that take turns, so one item's text work fills another's wait.

Scoring a response is Python work (reading the text, counting tokens) broken by waits for
another process (the math grader's worker). On one thread a process sits idle through every
wait; on several threads running at once they only contend for the GIL (measured in the
harness filter: a quarter more CPU, no time saved). So the threads here take *turns*: one
scores at a time and hands its turn over only while it waits (:meth:`Turns.handing_over`),
and :func:`in_order` gives the results back in input order. The harness filter
(``harness.records``) and ``thinkbench analyze``'s scoring (``analyze.score``) both score so.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


class Turns:
    """The turn of threads that score one at a time: :meth:`turn` around an item's scoring,
    :meth:`handing_over` around each of its waits."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    @contextmanager
    def turn(self) -> Iterator[None]:
        """A block that runs only while it holds the turn."""
        with self._lock:
            yield

    @contextmanager
    def handing_over(self) -> Iterator[None]:
        """Inside :meth:`turn`: a block in which this thread waits on another process, so
        another thread takes the turn meanwhile."""
        self._lock.release()
        try:
            yield
        finally:
            self._lock.acquire()


def in_order(
    fn: Callable[[T], R],
    items: Sequence[T],
    keys: Sequence[frozenset[Hashable]],
    threads: int,
) -> Iterator[R]:
    """``map(fn, items)`` on ``threads`` threads, yielded in order.

    At most ``2 * threads`` items are in flight, so a slow item holds back only the few after
    it. An item waits until every earlier item that shares one of its ``keys`` is done: items
    with a common key run one after another, in order. The first exception is raised where its
    item's result would have been yielded; the items not started by then never start.
    """
    window = 2 * threads
    last: dict[Hashable, Future[R]] = {}
    pending: list[Future[R]] = []

    def after(earlier: list[Future[R]], item: T) -> R:
        for future in earlier:  # taken before this one (the queue is FIFO): no deadlock
            future.exception()
        return fn(item)

    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="thinkbench-score") as pool:
        try:
            for index, item in enumerate(items):
                earlier = list({id(last[k]): last[k] for k in keys[index] if k in last}.values())
                future = pool.submit(after, earlier, item)
                last.update(dict.fromkeys(keys[index], future))
                pending.append(future)
                if len(pending) >= window:
                    yield pending.pop(0).result()
            while pending:
                yield pending.pop(0).result()
        finally:
            for future in pending:
                future.cancel()
