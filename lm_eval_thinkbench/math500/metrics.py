"""``process_results`` and aggregations for the math tasks (MATH-500, AIME, AMC).

Per document, the filter's records (one per repeat) become the task metrics of the suite's
table (``math500.table``):

* a metric covering all samples: the mean over the repeats, aggregated with lm-eval's ``mean``
  (so ``repeats: n`` makes ``exact_match`` avg@n);
* the per-problem figures ``pass_at_k`` and ``maj_at_k`` (``math500.sampling``), also means
  over problems;
* a metric covering the correct samples (``first_correct_tokens``, ...): the list of its
  values on the correctly answered repeats, aggregated by ``records.pooled_mean`` (the mean over
  all correctly answered samples).

The number of samples per problem can be set per run, without a task YAML, by the metadata key
``repeats`` (``--metadata repeats=8``; ``thinkbench-eval --repeats 8``): :func:`install` makes
every task built on :func:`process_results` take it, see :func:`apply_repeats`.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from statistics import fmean
from typing import Any

from lm_eval.api.task import ConfigurableTask

from lm_eval_thinkbench.harness import groups
from lm_eval_thinkbench.harness.records import records
from lm_eval_thinkbench.math500.sampling import problem_values
from lm_eval_thinkbench.math500.table import ACCURACY, PER_PROBLEM, TASK_METRICS

log = logging.getLogger("lm_eval.thinkbench")

#: The metadata key that sets the samples per problem of every thinkbench math task of a run.
REPEATS_KEY = "repeats"
#: DeepSeek-R1's recommended sampling, applied with ``repeats`` to a task that decodes greedily
#: (k greedy samples would be k copies of one).
R1_SAMPLING = {"do_sample": True, "temperature": 0.6, "top_p": 0.95}


def process_results(doc: dict, results: Sequence[Any]) -> dict[str, Any]:
    """Every task metric of the table, in its order: the per-problem figures, means over the
    repeats, and the values of the correct repeats (for ``records.pooled_mean``)."""
    recs = records(results)
    correct = [r for r in recs if r[ACCURACY.record_field]]
    per_problem = problem_values(recs)
    out: dict[str, Any] = {}
    for m in TASK_METRICS:
        if m in PER_PROBLEM:
            out[m.key] = per_problem[m.key]
        elif m.covers == "correct":
            out[m.key] = [r[m.record_field] for r in correct]
        else:
            out[m.key] = fmean(float(r[m.record_field]) for r in recs)
    return out


def apply_repeats(task: str, repeats: int, config: Any) -> None:
    """Give a task config (lm-eval's ``TaskConfig``) the run's ``repeats`` setting.

    ``repeats`` becomes the task's samples per problem; a task that decodes greedily by default
    (``do_sample`` false or temperature 0) gets :data:`R1_SAMPLING` as well, since greedy
    samples are copies. ``--gen_kwargs`` still wins: lm-eval applies it after the task is built.
    """
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"metadata {REPEATS_KEY}={repeats!r}: expected a positive integer")
    if config.repeats not in (1, repeats):
        log.warning("thinkbench: %s: %s=%d replaces the task's %d", task, REPEATS_KEY, repeats,
                    config.repeats)  # fmt: skip
    config.repeats = repeats
    kwargs = dict(config.generation_kwargs or {})
    greedy = not kwargs.get("do_sample") or not kwargs.get("temperature")
    if repeats > 1 and greedy:
        config.generation_kwargs = {**kwargs, **R1_SAMPLING}
        log.info("thinkbench: %s: %d samples per problem with %s", task, repeats, R1_SAMPLING)


def install() -> None:
    """Wrap ``ConfigurableTask.__init__`` once so that the math tasks read ``repeats`` from the
    run's metadata (lm-eval merges ``--metadata`` into every task's ``metadata`` but has no
    setting of its own for repeats)."""
    if getattr(ConfigurableTask.__init__, "_thinkbench", False):
        return
    original = ConfigurableTask.__init__

    @functools.wraps(original)
    def init(self: ConfigurableTask, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        metadata = self.config.metadata if isinstance(self.config.metadata, dict) else {}
        if self.config.process_results is process_results and REPEATS_KEY in metadata:
            apply_repeats(str(self.config.task), metadata[REPEATS_KEY], self.config)

    init._thinkbench = True  # type: ignore[attr-defined]
    ConfigurableTask.__init__ = init


groups.install()
install()
