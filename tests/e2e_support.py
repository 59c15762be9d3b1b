"""Helpers for the end-to-end tests: start the simulated server, compute truth (lm-eval itself
is run by :mod:`support.lm_eval_runs`).

The expected figures come from the simulator's *known truth* (which step first states the
gold, how many switch phrases it wrote, whether it truncated, what it boxed), counted with the
same tokenizer, never from the plugin's own splitter, checker or locator.
"""

from __future__ import annotations

import math
import re
import subprocess
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from statistics import fmean

from support.lm_eval_runs import BIN

from lm_eval_thinkbench.simulate.server import start_ready, stop_process
from lm_eval_thinkbench.simulate.traces import simulate
from lm_eval_thinkbench.tokens import get_counter

_BOXED = re.compile(r"\\boxed\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}")


@contextmanager
def sim_server(data: Path, *extra: str) -> Iterator[str]:
    """A running ``thinkbench-sim-server``; yields its base URL."""
    cmd = [str(BIN / "thinkbench-sim-server"), "--data", str(data), "--port", "0", *extra]
    proc, port = start_ready(cmd, subprocess.DEVNULL, timeout=60)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        stop_process(proc)


def expected_figures(docs: list[dict], seed: int, repeats: int = 1) -> dict[str, dict[str, float]]:
    """Per level (1-5) and for the whole set, the figures implied by the simulator's truth.

    With repeats, repeat k of a document is simulated with ``seed + k`` (as ``thinkbench-sim``
    does) and every (document, repeat) pair counts once.
    """
    counter = get_counter(None)
    per_level: dict[str, list[dict]] = defaultdict(list)
    for doc, k in ((d, k) for d in docs for k in range(repeats)):
        trace = simulate(doc, seed=seed + k)
        truth = trace.truth
        reasoning = trace.reasoning
        r_tokens = counter.count(reasoning)
        if truth.truncated:
            boxed = _BOXED.findall(reasoning)  # lenient policy: the last box of the reasoning
            correct = bool(boxed) and boxed[-1].strip() == doc["answer"].strip()
        else:
            correct = truth.final_correct
        if truth.first_correct_char_end is not None:
            first = counter.count(reasoning[: truth.first_correct_char_end])
        else:
            first = r_tokens
        row = {
            "exact_match": float(correct),
            "reasoning_tokens": r_tokens,
            "answer_tokens": counter.count(trace.content.strip()),
            "truncated": float(truth.truncated),
            "thought_num": truth.thought_num,
            "first_correct_tokens": first if correct else None,
            "reflection_tokens": r_tokens - first if correct else None,
            "token_efficiency": (first / r_tokens if r_tokens else 1.0) if correct else None,
        }
        per_level[f"level{doc['level']}"].append(row)
        per_level["all"].append(row)
    return {name: _means(rows) for name, rows in per_level.items()}


def _means(rows: list[dict]) -> dict[str, float]:
    out = {}
    for key in rows[0]:
        values = [r[key] for r in rows if r[key] is not None]
        out[key] = fmean(values) if values else math.nan
    return out
