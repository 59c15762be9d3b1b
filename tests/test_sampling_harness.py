"""avg@k, pass@k and maj@k through the real harness, against values computed by hand.

Scripted responses with known outcomes (the gold, one of two wrong answers, or no answer) are
logged as an lm-eval sample file and served back by ``thinkbench-replay``, which gives repeat
j of a prompt the j-th logged response. One in-process ``simple_evaluate`` runs MATH-500 with
4 and 16 samples per problem, and the three competition sets on their local copies; another
checks the ``repeats`` run setting. Truth is counted on the labels
(``C``, ``W1``, ``W2``, ``N``), never with the plugin's grader.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from pathlib import Path
from statistics import fmean, stdev
from typing import Any

import pytest
from support import lm_eval_runs
from support.data import SHARED_DATA
from support.tasks import task_manager

from lm_eval_thinkbench.math500.data import read_math500
from lm_eval_thinkbench.math500.table import FILTER, PER_PROBLEM
from lm_eval_thinkbench.models.replay import ReplayLM

pytestmark = pytest.mark.slow
METRIC_NAMES = tuple(m.key for m in PER_PROBLEM)
LOGGED = 16  # responses logged per prompt
PROMPT = "{}\nPlease reason step by step, and put your final answer within \\boxed{{}}."
#: Problems per set that get scripted responses (the rest are answered "" by the replay).
SCRIPTED = 3
COMPETITIONS = {
    "aime24": SHARED_DATA / "aime24" / "test.jsonl",
    "amc23": SHARED_DATA / "amc23" / "test.jsonl",
    "aime25": Path(__file__).parent / "fixtures" / "aime25_sample.jsonl",
}


def labels_for(index: int) -> list[str]:
    """The outcome of each logged response of scripted problem ``index``; the first problems
    are built to hit the cases (ties, a right minority, no answers), the rest are random."""
    designed = [
        ["W1", "C", "C", "W1", *["C"] * 12],  # k=4: a tie, the wrong class came first
        ["N", "C", "N", "W1", *["W2"] * 12],  # k=4: one vote each, C first
        ["N"] * 4 + ["W1"] * 6 + ["C"] * 6,  # k=4: no answer at all; k=16: W1 first
    ]
    if index < len(designed):
        return designed[index]
    rng = random.Random(index)
    return rng.choices(["C", "W1", "W2", "N"], weights=[4, 3, 2, 1], k=LOGGED)


def response(label: str, gold: str, index: int) -> str:
    answers = {"C": gold, "W1": f"{90001 + index}", "W2": f"{80001 + index}"}
    answer = f"The answer is \\boxed{{{answers[label]}}}." if label in answers else "No idea."
    return f"<think>\nLet me work it out.\n\nSo it is done.\n</think>\n{answer}"


def truth(labels: list[str]) -> dict[str, float]:
    """avg@k, pass@k, maj@k of one problem from its k labels, counted by hand."""
    votes = Counter(label for label in labels if label != "N")
    firsts = {label: labels.index(label) for label in votes}
    winner = min(votes, key=lambda v: (-votes[v], firsts[v])) if votes else None
    return {
        "exact_match": labels.count("C") / len(labels),
        "pass_at_k": float("C" in labels),
        "maj_at_k": float(winner == "C"),
    }


def write_log(path: Path, docs: list[dict[str, Any]], scripted: dict[int, list[str]]) -> None:
    """An lm-eval sample log holding ``LOGGED`` responses for each scripted doc."""
    with path.open("a") as f:
        for i, labels in scripted.items():
            doc = docs[i]
            resps = [response(label, doc["answer"], i) for label in labels]
            arguments = {"gen_args_0": {"arg_0": PROMPT.format(doc["problem"])}}
            f.write(json.dumps({"doc_id": i, "arguments": arguments, "resps": [resps]}) + "\n")


def expected(per_doc: list[list[str]], k: int) -> tuple[dict[str, float], list[dict]]:
    """Means over problems of the first ``k`` labels of each, and the per-problem values."""
    values = [truth(labels[:k]) for labels in per_doc]
    return {m: fmean(v[m] for v in values) for m in METRIC_NAMES}, values


def assert_figures(got: dict[str, Any], want: dict[str, float], where: str) -> None:
    for metric, value in want.items():
        assert got[f"{metric},{FILTER}"] == pytest.approx(value, abs=1e-12), f"{where} {metric}"


@pytest.fixture(scope="module")
def scripted(tmp_path_factory: pytest.TempPathFactory, math500_path: Path) -> dict[str, Any]:
    """A small MATH-500 copy (n problems of level n), the scripted labels of every
    problem of every set, and the sample log serving them."""
    root = tmp_path_factory.mktemp("sampling")
    rows = read_math500(math500_path)
    small = [r for level in range(1, 6) for r in [x for x in rows if x["level"] == level][:level]]
    (root / "math500.jsonl").write_text("".join(json.dumps(r) + "\n" for r in small))
    log = root / "samples_scripted.jsonl"
    labels: dict[str, list[list[str]]] = {}
    docs = read_math500(root / "math500.jsonl")
    math_labels = {i: labels_for(i) for i in range(len(docs))}
    write_log(log, docs, math_labels)
    labels["math500"] = [math_labels[i] for i in range(len(docs))]
    for name, path in COMPETITIONS.items():
        comp_docs = [json.loads(line) for line in path.read_text().splitlines()]
        for d in comp_docs:  # the gold as the task grades it
            d["answer"] = str(int(float(d["answer"])))
        picked = {i: labels_for(i + 7) for i in range(SCRIPTED)}
        write_log(log, comp_docs, picked)
        labels[name] = [picked.get(i, ["N"] * LOGGED) for i in range(len(comp_docs))]
    levels = [d["level"] for d in docs]
    return {"root": root, "log": log, "labels": labels, "levels": levels}


@pytest.fixture
def offline_paths(scripted: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("THINKBENCH_MATH500_PATH", str(scripted["root"] / "math500.jsonl"))
    for name, path in COMPETITIONS.items():
        monkeypatch.setenv(f"THINKBENCH_{name.upper()}_PATH", str(path))


def test_ready_tasks_report_hand_computed_figures(scripted, offline_paths):
    tasks = ["thinkbench_math500_avg4", "thinkbench_math500_avg16", *map(
        "thinkbench_{}".format, COMPETITIONS)]  # fmt: skip
    out = lm_eval_runs.evaluate(ReplayLM(samples=str(scripted["log"])), tasks, log_samples=True)
    results, labels, levels = out["results"], scripted["labels"], scripted["levels"]
    for k in (4, 16):
        group = f"thinkbench_math500_avg{k}"
        assert out["configs"][f"{group}_level1"]["repeats"] == k
        for level in range(1, 6):
            rows = [lab for lab, lev in zip(labels["math500"], levels, strict=True) if lev == level]
            assert_figures(
                results[f"{group}_level{level}"], expected(rows, k)[0], f"k={k} L{level}"
            )
        want, values = expected(labels["math500"], k)
        assert_figures(results[group], want, f"k={k} group")
        for metric in METRIC_NAMES:  # the group's standard error is over all its problems
            per_problem = [v[metric] for v in values]
            se = stdev(per_problem) / math.sqrt(len(per_problem))
            assert results[group][f"{metric}_stderr,{FILTER}"] == pytest.approx(se, rel=1e-9)
        samples = out["samples"][f"{group}_level5"]
        assert [len(s["resps"][0]) for s in samples] == [k] * 5  # every sample logged
        assert all(len(s["filtered_resps"][0]) == k for s in samples)
    # the designed cases, k=4: tie lost to the earlier wrong class; a lone right vote first
    assert [truth(lab[:4])["maj_at_k"] for lab in labels["math500"][:3]] == [0.0, 1.0, 0.0]
    mathkeys = {k for k in results["thinkbench_math500_avg4_level1"] if k.endswith(FILTER)}
    for name in COMPETITIONS:
        task = f"thinkbench_{name}"
        assert out["configs"][task]["repeats"] == 16
        assert_figures(results[task], expected(labels[name], 16)[0], task)
        assert {k for k in results[task] if k.endswith(FILTER)} == mathkeys
    amc = out["samples"]["thinkbench_amc23"]
    assert amc[0]["doc"]["answer"] == "27"  # stored as 27.0


def test_repeats_setting(scripted, offline_paths):
    """``--metadata repeats=3`` (what ``thinkbench-eval --repeats 3`` passes) gives a greedy task
    and a 16-sample task 3 samples each, sampled."""
    out = lm_eval_runs.evaluate(
        ReplayLM(samples=str(scripted["log"])),
        ["thinkbench_math500_level2", "thinkbench_aime25"],
        task_manager(repeats=3),
        log_samples=True,
    )
    level2 = out["configs"]["thinkbench_math500_level2"]
    assert level2["repeats"] == 3
    assert level2["generation_kwargs"]["temperature"] == 0.6
    rows = [lab for lab, lev in zip(scripted["labels"]["math500"], scripted["levels"], strict=True)
            if lev == 2]  # fmt: skip
    assert_figures(out["results"]["thinkbench_math500_level2"], expected(rows, 3)[0], "L2")
    assert out["configs"]["thinkbench_aime25"]["repeats"] == 3
    want = expected(scripted["labels"]["aime25"], 3)[0]
    assert_figures(out["results"]["thinkbench_aime25"], want, "aime25")
    assert {len(s["resps"][0]) for task in out["samples"].values() for s in task} == {3}
