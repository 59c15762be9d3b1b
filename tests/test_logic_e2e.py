"""End to end: ``thinkbench-eval`` (the ``lm_eval`` command with the plugin's models) on the logic
suite, against the simulated model.

The simulated model answers each item perfectly, with a wrong step, a wrong answer, another
valid plan, without JSON, truncated, with broken JSON, a missing key or wrong types, in both
languages. The expected figures of every leaf and group are computed here from the
simulator's truth and the metric definitions, never from the scorer under test.
"""

from __future__ import annotations

import difflib
import json
import math
import unicodedata
from collections.abc import Callable
from pathlib import Path
from statistics import fmean

import pytest
from support import lm_eval_runs
from support.lm_eval_runs import read_results

from lm_eval_thinkbench.logic.sets import generate_docs
from lm_eval_thinkbench.simulate.logic import logic_truth

pytestmark = pytest.mark.e2e
SIM_SEED = 3
METRICS = (
    "answer_acc",
    "step_acc",
    "answer_step_acc",
    "if_error",
    "format_error",
    "overall_acc",
    "valid_process",
)


def _run(out: Path, tasks: str, *extra: str) -> tuple[dict, list[dict]]:
    lm_eval_runs.run(
        *("--model", "thinkbench-sim", "--tasks", tasks),
        *("--log_samples", "--output_path", str(out), *extra),
        plugin=True,
    )
    return read_results(out)


def _canon(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def _similarity(model: list[str], reference: list[str]) -> float:
    ref = "\n".join(_canon(s) for s in reference)
    hyp = "\n".join(_canon(s) for s in model)[: 4 * len(ref) + 256]
    return difflib.SequenceMatcher(None, hyp, ref, autojunk=False).ratio()


def _expected_row(doc: dict, seed: int) -> dict:
    truth = logic_truth(doc, seed)
    ok = truth.status == "ok"
    if ok:
        only = doc["answer_only"]
        model = list(truth.answer if only else truth.process)
        step = _similarity(model, doc["answer"] if only else doc["process"])
    else:
        step = 0.0
    both = float(truth.answer_correct and step == 1.0)
    return {
        "answer_acc": float(truth.answer_correct),
        "step_acc": step,
        "answer_step_acc": both,
        "if_error": float(truth.status == "if_error"),
        "format_error": float(truth.status == "format_error"),
        "overall_acc": both if ok else None,
        "valid_process": float(truth.valid_process),
        "status": truth.status,
        "scenario": truth.scenario,
    }


def _figures(rows: list[dict]) -> dict[str, float]:
    out = {}
    for metric in METRICS:
        values = [r[metric] for r in rows if r[metric] is not None]
        out[metric] = fmean(values) if values else math.nan
    return out


def _groups(name_of: Callable[[dict], list[str]], docs: list[dict], seed: int) -> dict:
    rows: dict[str, list[dict]] = {}
    for doc in docs:
        row = _expected_row(doc, seed)
        for name in name_of(doc):
            rows.setdefault(name, []).append(row)
    return rows


def _assert_figures(results: dict, rows: dict[str, list[dict]]) -> None:
    scores = results["results"]
    for name, group_rows in rows.items():
        want = _figures(group_rows)
        for metric in METRICS:
            got = scores[name][f"{metric},thinkbench"]
            assert got == pytest.approx(want[metric], rel=1e-9, abs=1e-12), (name, metric)


def test_frozen_set_figures_match_the_truth_at_every_level(tmp_path):
    results, samples = _run(tmp_path, "thinkbench_logic", "--model_args", f"seed={SIM_SEED}")
    docs = list(generate_docs())

    def names(d: dict) -> list[str]:
        lang, kind, level = d["lang"], d["kind"], d["level"]
        return [
            "thinkbench_logic",
            f"thinkbench_logic_{lang}",
            f"thinkbench_logic_{lang}_{kind}",
            f"thinkbench_logic_{lang}_{kind}_level{level}",
        ]

    rows = _groups(names, docs, SIM_SEED)
    assert len(rows) == 1 + 2 + 4 + 16
    _assert_figures(results, rows)

    # Every scenario and every outcome occurs, in both languages.
    everything = rows["thinkbench_logic"]
    assert {r["scenario"] for r in everything} >= {
        "perfect", "wrong_step", "wrong_answer", "alt_plan", "no_json", "truncated",
        "not_object", "broken_json", "missing_key", "wrong_type",
    }  # fmt: skip
    for lang in ("en", "zh"):
        statuses = {r["status"] for r in rows[f"thinkbench_logic_{lang}"]}
        assert statuses == {"ok", "if_error", "format_error"}
    # The pooled overall accuracy is not the size-weighted mean of its leaves.
    leaves = [n for n in rows if n.endswith(tuple(f"level{k}" for k in range(4)))]
    weighted = fmean(
        results["results"][n]["overall_acc,thinkbench"] for n in leaves for _ in rows[n]
    )
    assert results["results"]["thinkbench_logic"]["overall_acc,thinkbench"] != pytest.approx(
        weighted, rel=1e-6
    )

    assert len(samples) == len(docs)
    by_id = {(d["id"], d["lang"]): d for d in docs}
    for sample in samples:  # per-sample values, as logged
        want = _expected_row(by_id[(sample["doc"]["id"], sample["doc"]["lang"])], SIM_SEED)
        for metric in ("answer_acc", "if_error", "format_error", "valid_process"):
            assert sample[metric] == want[metric], (sample["doc"]["id"], metric)
        assert sample["resps"][0][0].startswith("<think>")  # the raw response is kept


def test_kind_groups_and_the_subclass_tree_on_a_fresh_set_through_a_reasoning_field(tmp_path):
    """The kind groups and, in the same run (their leaves differ), every by-subclass leaf and
    group: with 5 items per cell, the limit keeps all four levels of each subclass leaf."""
    limit, fresh, per_cell = 20, 11, 5
    results, samples = _run(
        tmp_path,
        "thinkbench_logic_execution,thinkbench_logic_planning,thinkbench_logic_by_subclass",
        "--model_args", f"seed={SIM_SEED},reasoning_field=true",
        "--metadata", json.dumps({"logic_seed": fresh, "logic_items": per_cell}),
        "--limit", str(limit),
    )  # fmt: skip
    by_level = []
    for lang in ("en", "zh"):
        for kind in ("execution", "planning"):
            for level in range(4):
                by_level += list(generate_docs(fresh, [lang], [kind], [level], per_cell))[:limit]
    by_subclass = list(generate_docs(fresh, per_cell=per_cell))

    def level_names(d: dict) -> list[str]:
        return [
            f"thinkbench_logic_{d['kind']}",
            f"thinkbench_logic_{d['lang']}_{d['kind']}",
            f"thinkbench_logic_{d['lang']}_{d['kind']}_level{d['level']}",
        ]

    def subclass_names(d: dict) -> list[str]:
        lang, kind = d["lang"], d["kind"]
        return [
            "thinkbench_logic_by_subclass",
            f"thinkbench_logic_{lang}_by_subclass",
            f"thinkbench_logic_{lang}_{kind}_by_subclass",
            f"thinkbench_logic_{lang}_{d['logic_family']}_{d['subclass']}",
        ]

    rows = _groups(subclass_names, by_subclass, SIM_SEED)
    n_subclasses = len({(d["logic_family"], d["subclass"]) for d in by_subclass})
    assert len(rows) == 1 + 2 + 4 + 2 * n_subclasses
    _assert_figures(results, {**_groups(level_names, by_level, SIM_SEED), **rows})
    assert len(samples) == len(by_level) + len(by_subclass)
    assert {s["doc"]["seed"] for s in samples} == {fresh}
    assert all(json.loads(s["resps"][0][0])["reasoning"] for s in samples)
