"""On MATH-500 logs of the simulated model, every reported figure equals the known truth.

The logs are written in lm-eval's ``--log_samples`` format straight from ``simulate`` (fast),
and, marked e2e, produced by a real ``lm_eval`` run of ``thinkbench-sim``. The expected
figures come from the simulator's truth (``e2e_support.expected_figures`` and the per-trace
``TraceTruth``), never from the analyser's own splitter, checker or locator.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from e2e_support import expected_figures
from support import lm_eval_runs

from lm_eval_thinkbench.analyze.api import AnalyzeOptions, analyze
from lm_eval_thinkbench.math500.data import read_math500
from lm_eval_thinkbench.simulate import simulate
from lm_eval_thinkbench.tokens import get_counter

SEED = 11
#: expected_figures' names -> ours
RENAMED = {"exact_match": "accuracy"}
_BOXED = re.compile(r"\\boxed\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}")
#: The simulator's documented answer statements (only its commit paragraphs hold them).
_STATES = re.compile(
    r"answer is \$|Answer: \$|\\boxed\{|(?:^|[.!?]\s)(?:So|Thus|Therefore|Hence)\b[^\n]*?"
    r"(?:is \$|\$= )"
)


def write_lm_eval_log(folder: Path, docs: list[dict], seed: int) -> Path:
    """One samples file per level, as lm-eval writes them for thinkbench_math500."""
    folder.mkdir(parents=True, exist_ok=True)
    by_level: dict[int, list[str]] = {}
    for doc_id, doc in enumerate(docs):
        record = {
            "doc_id": doc_id,
            "doc": doc,
            "target": doc["answer"],
            "arguments": {"gen_args_0": {"arg_0": doc["problem"], "arg_1": {}}},
            "resps": [[simulate(doc, seed=seed).inline()]],
            "filtered_resps": [["{}"]],
            "filter": "thinkbench",
        }
        by_level.setdefault(doc["level"], []).append(json.dumps(record))
    for level, lines in by_level.items():
        name = f"samples_thinkbench_math500_level{level}_2026-01-01T00-00-00.000000.jsonl"
        (folder / name).write_text("\n".join(lines) + "\n")
    return folder


def truth_row(doc: dict, seed: int) -> dict[str, float | None]:
    """Every per-sample figure implied by the simulator's truth for ``doc``."""
    counter = get_counter(None)
    trace = simulate(doc, seed=seed)
    truth, reasoning = trace.truth, trace.reasoning
    r_tokens = counter.count(reasoning)
    a_tokens = counter.count(trace.content.strip())
    if truth.truncated:
        boxed = _BOXED.findall(reasoning)
        correct = bool(boxed) and boxed[-1].strip() == doc["answer"].strip()
    else:
        correct = truth.final_correct
    reached = truth.first_correct_char_end
    first = counter.count(reasoning[:reached]) if reached is not None else None
    if correct:
        first_tokens = first if first is not None else r_tokens
        outcome = (first if first is not None else r_tokens + a_tokens) / (r_tokens + a_tokens)
        under = None
    else:
        first_tokens = first
        outcome = 0.0
        under = 1 - first / (r_tokens + a_tokens) if first is not None else 0.0
    paragraphs = reasoning.split("\n\n")
    return {
        "correct": correct,
        "reasoning_tokens": r_tokens,
        "answer_tokens": a_tokens,
        "thought_num": truth.thought_num,
        "truncated": truth.truncated,
        "first_correct_step": truth.first_correct_step,
        "first_correct_tokens": first_tokens,
        "outcome_efficiency": outcome,
        "underthinking": under,
        "solution_rounds": sum(1 for p in paragraphs if _STATES.search(p)),
    }


def _check_groups(summary: dict, docs: list[dict], seed: int, model: str) -> None:
    expected = expected_figures(docs, seed)
    groups = {g["subset"]: g for g in summary["groups"] if g["model"] == model}
    for level in sorted({d["level"] for d in docs}):
        _close(groups[f"Level {level}"]["metrics"], expected[f"level{level}"], level)
    _close(groups["overall"]["metrics"], expected["all"], "overall")


def _close(got: dict, want: dict[str, float], where: object) -> None:
    for name, value in want.items():
        mean = got[RENAMED.get(name, name)]["mean"]
        if math.isnan(value):
            assert mean is None, f"{where} {name}"
        else:
            assert mean == pytest.approx(value, rel=1e-12, abs=1e-12), f"{where} {name}"


@pytest.fixture(scope="module")
def docs(math500_path: Path) -> list[dict]:
    return read_math500(math500_path)[::4]


@pytest.fixture(scope="module")
def analysed(docs, tmp_path_factory) -> tuple[dict, list[dict]]:
    tmp = tmp_path_factory.mktemp("truth")
    logs = write_lm_eval_log(tmp / "logs" / "sim", docs, SEED)
    analyze(AnalyzeOptions(runs=[f"sim={logs}"], output=tmp / "out", progress=False))
    summary = json.loads((tmp / "out" / "summary.json").read_text())
    rows = [json.loads(line) for line in (tmp / "out" / "per_sample.jsonl").open()]
    return summary, rows


@pytest.mark.slow
def test_every_sample_matches_its_truth(docs, analysed):
    _, rows = analysed
    assert len(rows) == len(docs)
    by_id = {r["id"]: r for r in rows}
    scenarios = set()
    for doc in docs:
        want = truth_row(doc, SEED)
        got = by_id[doc["unique_id"]]
        scenarios.add(simulate(doc, seed=SEED).truth.scenario)
        for key, value in want.items():
            if isinstance(value, float):
                assert got[key] == pytest.approx(value, rel=1e-12), (doc["unique_id"], key)
            else:
                assert got[key] == value, (doc["unique_id"], key)
    assert scenarios == {"direct", "overthink", "late", "abandon", "wrong", "truncated", "no_box"}


@pytest.mark.slow
def test_aggregates_match_the_truth(docs, analysed):
    summary, _ = analysed
    _check_groups(summary, docs, SEED, "sim")


@pytest.mark.slow
def test_new_aggregates_are_means_of_the_truth(docs, analysed):
    summary, _ = analysed
    overall = next(g for g in summary["groups"] if g["subset"] == "overall")["metrics"]
    rows = [truth_row(d, SEED) for d in docs]
    for name, covered in (
        ("outcome_efficiency", rows),
        ("solution_rounds", rows),
        ("underthinking", [r for r in rows if not r["correct"]]),
    ):
        values = [float(r[name]) for r in covered]
        assert overall[name]["mean"] == pytest.approx(sum(values) / len(values), rel=1e-12)
        assert overall[name]["n"] == len(values)
        assert overall[name]["ci_low"] <= overall[name]["mean"] <= overall[name]["ci_high"]


@pytest.mark.e2e
def test_real_lm_eval_run_of_the_sim_model(tmp_path, math500_path):
    """``thinkbench-eval --model thinkbench-sim --log_samples``, analysed."""
    lm_eval_runs.run(
        *("--model", "thinkbench-sim", "--model_args", f"seed={SEED}"),
        *("--tasks", "thinkbench_math500", "--limit", "8"),
        *("--log_samples", "--output_path", str(tmp_path / "logs")),
        env={"THINKBENCH_MATH500_PATH": str(math500_path)},
        plugin=True,
    )
    analyze(AnalyzeOptions(runs=[str(tmp_path / "logs")], output=tmp_path / "out", progress=False))
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    all_docs = read_math500(math500_path)
    docs = [d for level in range(1, 6) for d in [x for x in all_docs if x["level"] == level][:8]]
    _check_groups(summary, docs, SEED, "thinkbench-sim")
    rows = [json.loads(line) for line in (tmp_path / "out" / "per_sample.jsonl").open()]
    # the harness's own verdict, logged in filtered_resps, agrees with ours on every sample
    assert all(r["logged_correct"] == r["checker_correct"] for r in rows)
