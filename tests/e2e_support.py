"""Helpers for the end-to-end tests: start the simulated server, run lm_eval, compute truth.

The expected figures come from the simulator's *known truth* (which step first states the
gold, how many switch phrases it wrote, whether it truncated, what it boxed), counted with the
same tokenizer, never from the plugin's own splitter, checker or locator.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from statistics import fmean

from lm_eval_thinkbench.simulate.server import start_ready, stop_process
from lm_eval_thinkbench.simulate.traces import simulate
from lm_eval_thinkbench.tokens import get_counter

BIN = Path(sys.executable).parent
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


def run_cli(cmd: list[str], env: dict[str, str], timeout: float = 600) -> None:
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{cmd[0]} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"


def run_local_chat(
    base_url: str, tasks: str, out: Path, env: dict[str, str], *extra: str, model_args: str = ""
) -> None:
    """Plain ``lm_eval --model local-chat-completions`` on ``tasks`` against the OpenAI-compatible
    server at ``base_url`` (``.../v1``), with the chat template, logging samples under ``out``;
    ``extra`` are more lm_eval options, ``model_args`` more model arguments."""
    from lm_eval_thinkbench import TASKS_DIR
    from lm_eval_thinkbench.cli import tasks_installed

    args = f"model=fake-model,base_url={base_url}/chat/completions,max_retries=1"
    run_cli(
        [
            str(BIN / "lm_eval"),
            "--model",
            "local-chat-completions",
            "--model_args",
            f"{args},{model_args}" if model_args else args,
            "--tasks",
            tasks,
            "--apply_chat_template",
            "--log_samples",
            "--output_path",
            str(out),
            *extra,
            *([] if tasks_installed() else ["--include_path", TASKS_DIR]),
        ],
        env,
    )


def read_results(out: Path) -> tuple[dict, list[dict]]:
    """The newest results JSON under ``out`` and every logged sample line."""
    results = sorted(out.rglob("results_*.json"))
    assert results, f"no results under {out}"
    samples = [json.loads(line) for f in sorted(out.rglob("samples_*.jsonl")) for line in f.open()]
    return json.loads(results[-1].read_text()), samples


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
