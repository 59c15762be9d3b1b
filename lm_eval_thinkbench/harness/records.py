"""Per-sample records through lm-eval, shared by every suite of the plugin.

Each suite scores a response into one *record* (a JSON-ready dict) inside an lm-eval filter:
the filter is where a response meets its document, and its output is what ``--log_samples``
writes as ``filtered_resps``, next to the untouched response in ``resps``. Records travel as
JSON text because lm-eval logs every filtered response with ``str()``. ``process_results``
turns a document's records (one per repeat) into metric items, and :func:`pooled_mean`
aggregates metrics defined on a subset of the samples.
"""

from __future__ import annotations

import inspect
import json
import logging
import math
from collections.abc import Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from statistics import fmean
from typing import Any

from lm_eval.api.filter import Filter
from lm_eval.api.instance import Instance
from tqdm import tqdm

from lm_eval_thinkbench.harness import settings
from lm_eval_thinkbench.lifetime import collecting_rarely
from lm_eval_thinkbench.response import ModelResponse, from_wire, utf8_safe
from lm_eval_thinkbench.tokens import counter_for_run
from lm_eval_thinkbench.trace import detect_markers, mark_length_stop, resolve_markers
from lm_eval_thinkbench.turns import Turns, in_order

# Under lm-eval's logger, so the line shows in an lm_eval run (lm-eval configures only its own).
log = logging.getLogger("lm_eval.thinkbench")


class RecordFilter(Filter):
    """``resps`` -> one JSON record per response, every repeat kept (``repeats: n``).

    Before scoring, the filter settles two things per task from all of its responses at once:
    the reasoning marker set (``auto`` detects the family the run's responses show, see
    ``trace.detect_markers``), and which responses stopped at the length limit when the
    backend did not say (their token count reaches the request's ``max_gen_toks``).
    Subclasses implement :meth:`score` on a :class:`ModelResponse` and read ``self.markers``;
    :meth:`prepare` runs once per ``apply`` for work that should not be repeated per response
    (loading a tokenizer, starting the grading pool).

    A subclass whose scoring waits on another process (the math grader's workers) sets
    :attr:`threads` above 1: documents are then scored on that many threads, so that one
    document's text work runs while another waits for its checks (on 2 cores the two overlap),
    and the records come back in document order. The threads take turns: one scores at a
    time and hands its turn over only while it waits (:meth:`handing_over`), since two threads
    running Python at once only contend for the GIL (measured: a quarter more CPU, no time
    saved). Documents with a common :meth:`conflict_keys` entry are never scored at once, and
    each waits for the earlier ones: whatever they share (the grader's verdict cache, keyed by
    gold) is then seen as when scored one by one.
    """

    #: The progress bar's label.
    desc = "thinkbench scoring"
    #: Documents scored at once (1: one after another, in the calling thread).
    threads = 1
    #: The scoring threads' turn, while ``apply`` runs on threads.
    _turns: Turns | None = None

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)

    def prepare(self) -> None:
        """Per-run set-up before scoring; nothing by default."""

    def score(self, raw: ModelResponse, doc: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def score_doc(self, responses: list[ModelResponse], doc: dict[str, Any]) -> list[dict]:
        """The records of one document's responses (its repeats), in order; a subclass adds
        what needs all of them at once (the majority vote)."""
        return [self.score(response, doc) for response in responses]

    @contextmanager
    def handing_over(self) -> Iterator[None]:
        """A block in which this document waits on another process: another document's
        scoring runs meanwhile (when :attr:`threads` > 1; nothing happens otherwise)."""
        if self._turns is None:
            yield
            return
        with self._turns.handing_over():
            yield

    def conflict_keys(self, doc: dict[str, Any]) -> Iterable[Hashable]:
        """Keys of what scoring ``doc`` shares with other documents in a way that could make
        its record depend on their order (only read when :attr:`threads` > 1)."""
        return ()

    def apply(self, resps: list[list[Any]], docs: list[dict]) -> list[list[str]]:
        run = settings.current()
        self.counter = counter_for_run(run.tokenizer, list(run.model_names))
        instances = _caller_instances()
        _make_writable(instances)
        limits = _max_gen_toks(instances, len(resps))
        responses = [
            [mark_length_stop(from_wire(raw), limit, self.counter.count) for raw in doc_resps]
            for doc_resps, limit in zip(resps, limits, strict=True)
        ]
        named = resolve_markers(run.scoring.markers)
        self.markers = named or detect_markers(r for doc_resps in responses for r in doc_resps)
        log.info(
            "thinkbench: reasoning markers %s (%s), counting tokens with %s",
            self.markers.name,
            "as set" if named else "detected",
            self.counter.name,
        )
        self.prepare()
        pairs = list(zip(responses, docs, strict=True))

        def encoded(pair: tuple[list[ModelResponse], dict]) -> list[str]:
            with self._turns.turn() if self._turns else nullcontext():
                return [json.dumps(r, ensure_ascii=False) for r in self.score_doc(*pair)]

        if self.threads > 1:
            self._turns = Turns()
            keys = [frozenset(self.conflict_keys(doc)) for doc in docs]
            scored: Iterator[list[str]] = in_order(encoded, pairs, keys, self.threads)
        else:
            scored = map(encoded, pairs)
        try:
            with collecting_rarely():
                return list(tqdm(scored, total=len(pairs), desc=self.desc, unit="doc", leave=False))
        finally:
            self._turns = None


def _caller_instances() -> list[Instance] | None:
    """The instances lm-eval is filtering, or None outside lm-eval.

    ``FilterEnsemble.apply(instances)`` hands a filter only responses and docs, but each
    instance's arguments hold the generation kwargs its request was sent with (the task's,
    after ``--gen_kwargs``), the one place the real ``max_gen_toks`` is known. They are read
    from the calling frame, and only if they are what lm-eval 0.4.13 passes there.
    """
    frame = inspect.currentframe()
    try:
        caller = frame.f_back.f_back if frame and frame.f_back else None
        found = caller.f_locals.get("instances") if caller else None
    finally:
        del frame
    if isinstance(found, list) and found and all(isinstance(i, Instance) for i in found):
        return found
    return None


def _make_writable(instances: list[Instance] | None) -> None:
    """Replace lone surrogates in the raw responses lm-eval will log (``resps``) by U+FFFD.

    lm-eval writes its sample log as UTF-8 after every task has been scored; a response that
    cannot be encoded there fails the write and loses every sample after it. The raw text is
    otherwise kept as the model sent it.
    """
    for instance in instances or ():
        for i, raw in enumerate(instance.resps):
            if isinstance(raw, str) and (safe := utf8_safe(raw)) is not raw:
                log.warning(
                    "thinkbench: doc %s: lone surrogates replaced by U+FFFD", instance.doc_id
                )
                instance.resps[i] = safe


def _max_gen_toks(instances: list[Instance] | None, n: int) -> list[int | None]:
    """Each instance's ``max_gen_toks``, or None where it is unknown."""
    if instances is None or len(instances) != n:
        return [None] * n
    limits: list[int | None] = []
    for instance in instances:
        kwargs = instance.args[1] if len(instance.args) > 1 else None
        limit = kwargs.get("max_gen_toks") if isinstance(kwargs, dict) else None
        limits.append(limit if isinstance(limit, int) and limit > 0 else None)
    return limits


def records(results: Sequence[Any]) -> list[dict[str, Any]]:
    """The records of one document, as ``process_results`` receives them (lm-eval wraps the
    per-document list once more)."""
    per_doc = results[0] if isinstance(results[0], list) else results
    return [json.loads(r) if isinstance(r, str) else r for r in per_doc]


def pooled_mean(items: Iterable[Sequence[float]]) -> float:
    """Mean of per-document value lists, pooled over samples; NaN when no sample qualified.

    For metrics defined on a subset of the samples (correct answers, error-free outputs): each
    document contributes the values of its qualifying repeats, possibly none.
    """
    values = [v for per_doc in items for v in per_doc]
    return fmean(values) if values else math.nan
