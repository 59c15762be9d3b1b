"""Sampling protocols: avg@k, pass@k and maj@k from the k samples of each problem.

Reasoning-model leaderboards sample k responses per problem (DeepSeek-R1's protocol:
temperature 0.6, top-p 0.95, 32k tokens) and report figures over problems, so a lucky or
unlucky single sample moves nothing. With ``repeats: k`` lm-eval hands ``process_results`` all
k records of a document at once; from them each problem gets one value per metric:

* ``exact_match`` (avg@k): the share of the k samples that are correct (an unbiased pass@1);
* ``pass_at_k`` (pass@k): whether some sample is correct, by the unbiased estimator
  ``1 - C(n-c, k) / C(n, k)`` of Chen et al. (2021) from n samples with c correct; with
  ``k == n`` (the default) it is "any sample correct";
* ``maj_at_k`` (maj@k, also called cons@k): whether the majority answer is correct. The
  answers are grouped by the math grader's equivalence (``1/2`` and ``0.5`` vote together;
  see :func:`vote_classes`), samples without an answer do not vote, the largest class wins and
  a tie goes to the class whose first member came first (lowest repeat index, as
  ``collections.Counter.most_common`` breaks ties); the winner's grade against the gold is the
  problem's value; 0 when no sample has an answer.

Each is aggregated with lm-eval's ``mean`` over problems, so lm-eval's own ``mean_stderr`` (the
sample standard deviation of the per-problem values over the square root of the number of
problems) is the standard error over problems, the unit that is sampled; the k samples of a
problem are not independent draws of the benchmark. Group figures are weighted by problems and
their standard error is recomputed exactly (``harness.groups``, ``stderr_over_problems``).

Their names, labels and directions are rows of the suite's metric table (``math500.table``,
``PER_PROBLEM``), which the leaderboard reads too.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lm_eval_thinkbench.math500.table import ACCURACY, PER_PROBLEM


def samples_per_problem(task_config: Mapping[str, Any]) -> int:
    """k for a task, from its config as ``results_*.json`` logs it under ``configs``."""
    repeats = task_config.get("repeats")
    return repeats if isinstance(repeats, int) and repeats > 0 else 1


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimate from ``n`` samples of which ``c`` are correct.

    ``1 - C(n-c, k) / C(n, k)``: the chance that k samples drawn without replacement from the
    n include a correct one (``math.comb`` is exact, and 0 when ``n - c < k``).
    """
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def vote_classes(
    answers: Sequence[str | None], first_match: Callable[[str, list[str]], int | None]
) -> list[int | None]:
    """For each answer, the index of the first answer of its equivalence class (None: none).

    Each answer, in order, joins the class of the first earlier class-opening answer it equals
    as a string, else the one ``first_match(answer, openers)`` names (an index into
    ``openers``, the answer playing the gold: one grader call per sample, so the time a
    document's vote can take is bounded by its number of samples), else opens a class.
    """
    firsts: list[int] = []
    out: list[int | None] = []
    for i, answer in enumerate(answers):
        if answer is None:
            out.append(None)
            continue
        openers = [answers[j] or "" for j in firsts]
        same = next((j for j, a in zip(firsts, openers, strict=True) if a == answer), None)
        if same is None and openers:
            found = first_match(answer, openers)
            same = firsts[found] if found is not None else None
        if same is None:
            firsts.append(i)
            same = i
        out.append(same)
    return out


def majority(classes: Sequence[int | None]) -> int | None:
    """The sample that stands for the largest class (its first member); ties go to the class
    whose first member came first. None when no sample has an answer."""
    counts = Counter(c for c in classes if c is not None)
    if not counts:
        return None
    return min(counts, key=lambda c: (-counts[c], c))


def problem_values(records: Sequence[Mapping[str, Any]], k: int | None = None) -> dict[str, float]:
    """avg@k, pass@k and maj@k of one problem from its records (``correct`` and ``vote``).

    ``k`` for pass@k defaults to the number of records; maj@k always votes over all of them.
    """
    n = len(records)
    if n == 0:
        raise ValueError("a problem needs at least one sample")
    correct = ACCURACY.record_field
    c = sum(bool(r[correct]) for r in records)
    winner = majority([r.get("vote") for r in records])
    avg, pass_k, maj = (m.key for m in PER_PROBLEM)  # in the table's order
    return {
        avg: c / n,
        pass_k: pass_at_k(n, c, n if k is None else k),
        maj: float(winner is not None and bool(records[winner][correct])),
    }
