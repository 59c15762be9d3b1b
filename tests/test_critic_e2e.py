"""End to end: the real lm-eval CLI (``thinkbench-eval``) on the critic tasks.

The simulated critic (``thinkbench-sim``) answers every ProcessBench and DeltaBench document with
a verdict fixed by ``processbench_truth`` / ``deltabench_truth``; the figures expected below are
computed from those verdicts and the data's labels with the benchmarks' formulas written out
here, not with the plugin's parser, scorer or group re-weighting. A critic that writes no
reasoning (GPT-4o-like, ``thinkbench-sim-server --critic-style plain``) is run through plain
``lm_eval`` with no marker setting, and its figures are also checked against ProcessBench's and
DeltaBench's own scripts replayed on the replies it served.
"""

from __future__ import annotations

import json
import math
import os
from collections import defaultdict
from pathlib import Path
from statistics import fmean

import pandas as pd
import pytest
from e2e_support import sim_server
from support import lm_eval_runs
from support.lm_eval_runs import read_results
from test_critic_deltabench_reference import calculate_accuracies_v2, parse_output
from test_critic_official import official_f1, official_prediction

from lm_eval_thinkbench.critic import data
from lm_eval_thinkbench.simulate.critic import (
    PLAIN,
    REASONING,
    deltabench_truth,
    processbench_truth,
    respond_deltabench,
    respond_processbench,
)

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures"
PB_SEED = 7
DB_SEED = 20  # on the fixture: no error, partial, out of range, free form, placeholder, ...


def _processbench_folder() -> Path:
    path = Path(
        os.environ.get(data.PROCESSBENCH_ENV) or REPO.parent / "shared" / "data" / "processbench"
    )
    if not (path / "gsm8k.json").is_file():
        pytest.fail(f"ProcessBench data not found at {path}; set {data.PROCESSBENCH_ENV}")
    return path


def _run(out: Path, tasks: str, seed: int, env: dict[str, str], *extra: str) -> tuple[dict, list]:
    """The results JSON (all of it) and the logged samples of a ``thinkbench-eval`` run."""
    lm_eval_runs.run(
        *("--model", "thinkbench-sim", "--model_args", f"seed={seed}", "--tasks", tasks),
        *("--log_samples", "--output_path", str(out), *extra),
        env=env,
        plugin=True,
        timeout=300,
    )
    return read_results(out)


def _assert_close(got: dict, want: dict[str, float], where: str) -> None:
    for metric, value in want.items():
        got_value = got[f"{metric},critic"]
        if math.isnan(value):
            assert math.isnan(got_value), f"{where} {metric}"
        else:
            assert got_value == pytest.approx(value, rel=1e-12, abs=1e-12), f"{where} {metric}"


# ----- ProcessBench --------------------------------------------------------------------------


def _processbench_expected(
    docs: list[dict], reading: str = "official", style: str = REASONING, seed: int = PB_SEED
) -> dict[str, float]:
    truths = [processbench_truth(d, seed, style) for d in docs]
    predictions = [t.prediction if reading == "official" else t.tolerant for t in truths]
    pairs = list(zip(docs, predictions, strict=True))
    on_error = [p == d["label"] for d, p in pairs if d["label"] != -1]
    on_correct = [p == -1 for d, p in pairs if d["label"] == -1]
    a, b = fmean(on_error), fmean(on_correct)
    return {
        "error_acc": a,
        "correct_acc": b,
        "f1": 2 * a * b / (a + b),
        "unparsed": fmean(p is None for p in predictions),
        "excluded": 0.0,
    }


def _assert_processbench(results: dict, folder: Path, **expected: object) -> dict[str, float]:
    """Every subset's figures and the group's, as :func:`_processbench_expected` says."""
    per_subset = {}
    for subset in data.PROCESSBENCH_SUBSETS:
        docs = data.processbench_docs(subset, folder)
        per_subset[subset] = (len(docs), _processbench_expected(docs, **expected))
        _assert_close(results[f"thinkbench_processbench_{subset}"], per_subset[subset][1], subset)
    # The group: the plain average over the four subsets (the paper's "Avg. F1"), except the
    # unparsed share, pooled over all 3,400 samples.
    group = {
        m: fmean(want[m] for _, want in per_subset.values())
        for m in ("error_acc", "correct_acc", "f1")
    }
    total = sum(n for n, _ in per_subset.values())
    group["unparsed"] = sum(n * want["unparsed"] for n, want in per_subset.values()) / total
    _assert_close(results["thinkbench_processbench"], group, "group")
    return {subset: want["f1"] for subset, (_, want) in per_subset.items()}


def _records(sample: dict) -> list[dict]:
    """A logged sample's records: one JSON text per repeat, for each of its requests."""
    return [json.loads(r) for per_request in sample["filtered_resps"] for r in per_request]


def _readings(run: dict, samples: list[dict]) -> tuple[set[str], set[str]]:
    """The reading the ProcessBench task configs state, and the one their records carry."""
    stated = {
        c["metadata"]["processbench_reading"]
        for name, c in run["configs"].items()
        if name.startswith("thinkbench_processbench_")
    }
    used = {record["reading"] for s in samples if "error_acc" in s for record in _records(s)}
    return stated, used


def test_processbench_full_data_through_lm_eval(tmp_path):
    folder = _processbench_folder()
    run, samples = _run(
        tmp_path,
        "thinkbench_processbench",
        PB_SEED,
        {data.PROCESSBENCH_ENV: str(folder)},
    )
    _assert_processbench(run["results"], folder)
    assert len(samples) == 3400
    statuses = {item["status"] for s in samples for item in s["unparsed"]}
    assert statuses == {"ok", "unparsed", "truncated"}
    # By default the box is read as ProcessBench's own script reads it, and the results say so.
    assert _readings(run, samples) == ({"official"}, {"official"})


def test_processbench_tolerant_reading_through_lm_eval(tmp_path):
    folder = _processbench_folder()
    run, samples = _run(
        tmp_path,
        "thinkbench_processbench_gsm8k",
        PB_SEED,
        {data.PROCESSBENCH_ENV: str(folder)},
        "--metadata",
        json.dumps({"processbench_reading": "tolerant"}),
    )
    docs = data.processbench_docs("gsm8k", folder)
    want = _processbench_expected(docs, reading="tolerant")
    _assert_close(run["results"]["thinkbench_processbench_gsm8k"], want, "gsm8k")
    assert want["f1"] != _processbench_expected(docs)["f1"]
    assert _readings(run, samples) == ({"tolerant"}, {"tolerant"})


def test_processbench_through_plain_lm_eval_over_http(tmp_path, math500_path):
    """The same verdicts served over the OpenAI chat API to lm-eval's own
    ``local-chat-completions`` model, by the plain ``lm_eval`` command."""
    folder = _processbench_folder()
    with sim_server(math500_path, "--processbench", str(folder)) as url:
        lm_eval_runs.run(
            *lm_eval_runs.local_chat(url, num_concurrent=8, seed=PB_SEED),
            *("--tasks", "thinkbench_processbench_gsm8k,thinkbench_processbench_math"),
            *("--output_path", str(tmp_path)),
            env={data.PROCESSBENCH_ENV: str(folder)},
        )
    results = read_results(tmp_path)[0]["results"]
    for subset in ("gsm8k", "math"):
        want = _processbench_expected(data.processbench_docs(subset, folder))
        _assert_close(results[f"thinkbench_processbench_{subset}"], want, subset)


def test_non_reasoning_critic_through_plain_lm_eval_over_http(tmp_path, math500_path):
    """A critic that writes no ``<think>`` (GPT-4o-like), with no marker setting: every
    ProcessBench sample and the DeltaBench fixture, through lm-eval's own chat model."""
    folder, fixture, seed = _processbench_folder(), FIXTURES / "deltabench_sample.jsonl", 23
    served = ("--processbench", str(folder), "--deltabench", str(fixture))
    with sim_server(math500_path, *served, "--critic-style", "plain") as url:
        lm_eval_runs.run(
            *lm_eval_runs.local_chat(url, num_concurrent=8, seed=seed),
            *("--tasks", "thinkbench_processbench,thinkbench_deltabench"),
            *("--metadata", json.dumps({"deltabench_path": str(fixture)})),
            *("--log_samples", "--output_path", str(tmp_path)),
            env={data.PROCESSBENCH_ENV: str(folder)},
        )
    run, samples = read_results(tmp_path)
    results = run["results"]
    f1s = _assert_processbench(results, folder, style=PLAIN, seed=seed)
    # ProcessBench's run_eval.py, replayed on the replies the server sent, gives the same F1s.
    for subset, f1 in f1s.items():
        res_data = []
        for doc in data.processbench_docs(subset, folder):
            pred = official_prediction(respond_processbench(doc, seed, PLAIN).content)
            res_data.append({"label": doc["label"], "match": pred == doc["label"]})
        assert 0 < f1 < 1
        assert results[f"thinkbench_processbench_{subset}"]["f1,critic"] * 100 == pytest.approx(
            official_f1(res_data), rel=1e-12
        )
        assert f1 * 100 == pytest.approx(official_f1(res_data), rel=1e-12)
    docs = data.deltabench_docs(fixture)
    _assert_deltabench(results, docs, seed=seed, style=PLAIN)
    # DeltaBench's evaluation.py, replayed on the replies the server sent, gives the same figures
    # for the whole benchmark and for each domain (it leaves out samples without true sections).
    scored = [d for d in docs if d["truth_sections"] and not d["data_error"]]
    assert {"free_form", "inline_list", "placeholder"} <= {
        deltabench_truth(d, seed, PLAIN).scenario for d in scored
    }
    rows = [
        {"task_l1": d["domain"]}
        | parse_output(respond_deltabench(d, seed, PLAIN).content, d["truth_sections"])
        for d in scored
    ]
    frame = pd.json_normalize(rows)
    script = {"": calculate_accuracies_v2(frame)} | {
        f"_{domain}": calculate_accuracies_v2(group) for domain, group in frame.groupby("task_l1")
    }
    for suffix, figures in script.items():
        got = results[f"thinkbench_deltabench{suffix}"]
        for key, value in figures.items():
            ours = got[f"{key.replace('f1_score_macro', 'f1_macro')},critic"]
            assert ours == pytest.approx(value, rel=1e-12, abs=1e-15), (suffix, key)
    # Nothing was taken for a cut-off thought.
    statuses = {record["status"] for s in samples for record in _records(s)}
    assert "truncated" not in statuses and {"ok", "unparsed", "error"} <= statuses


# ----- DeltaBench ----------------------------------------------------------------------------


def _deltabench_expected(
    docs: list[dict],
    reading: str = "official",
    reference_filter: bool | None = None,
    seed: int = DB_SEED,
    style: str = REASONING,
) -> dict[str, float]:
    """The figures the simulated verdicts imply under ``reading``; the reference filter (drop
    flags beyond the last true section) follows the reading unless ``reference_filter`` says."""
    if reference_filter is None:
        reference_filter = reading == "official"
    rows, unparsed, excluded = [], [], []
    for doc in docs:
        truth_of = deltabench_truth(doc, seed, style)
        flagged = truth_of.official if reading == "official" else truth_of.sections
        unparsed.append(flagged is None)
        truth = set(doc["truth_sections"])
        excluded.append(bool(doc["data_error"]) or not truth)
        if excluded[-1]:
            continue
        predicted = set(flagged or ())
        if reference_filter:
            predicted = {n for n in predicted if n <= max(truth)}
        tp, fp, fn = len(predicted & truth), len(predicted - truth), len(truth - predicted)
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        rows.append((tp, fp, fn, p, r, 2 * p * r / (p + r) if p + r else 0.0))
    tp, fp, fn = (sum(row[i] for row in rows) for i in range(3))
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {
        "precision_macro": fmean(row[3] for row in rows),
        "recall_macro": fmean(row[4] for row in rows),
        "f1_macro": fmean(row[5] for row in rows),
        "precision_micro": p,
        "recall_micro": r,
        "f1_micro": 2 * tp / (2 * tp + fp + fn),
        "flagged_sections": fmean(row[0] + row[1] for row in rows),
        "true_sections": fmean(row[0] + row[2] for row in rows),
        "unparsed": fmean(unparsed),
        "excluded": fmean(excluded),
    }


def _assert_deltabench(results: dict, docs: list[dict], **how) -> None:
    """Every domain's figures and the group's; only the domains ``docs`` has are run."""
    by_domain = defaultdict(list)
    for doc in docs:
        by_domain[doc["domain"]].append(doc)
    for domain, domain_docs in by_domain.items():
        want = _deltabench_expected(domain_docs, **how)
        _assert_close(results[f"thinkbench_deltabench_{domain}"], want, domain)
    ran = {name for name in results if name.startswith("thinkbench_deltabench_")}
    assert ran == {f"thinkbench_deltabench_{d}" for d in by_domain}
    # The group is the whole benchmark, pooled exactly over the domains.
    want = _deltabench_expected(docs, **how)
    _assert_close(results["thinkbench_deltabench"], want, "group")


@pytest.mark.parametrize(
    ("fixture", "reading"),
    [("deltabench_sample.jsonl", "official"), ("deltabench_sample.csv", "tolerant")],
)
def test_deltabench_fixture_through_lm_eval(tmp_path, fixture, reading):
    """The default (DeltaBench's own reading and filter), and ``deltabench_reading=tolerant``."""
    path = FIXTURES / fixture
    metadata = {"deltabench_path": str(path)} | (
        {} if reading == "official" else {"deltabench_reading": reading}
    )
    run, samples = _run(
        tmp_path,
        "thinkbench_deltabench",
        DB_SEED,
        {},
        "--metadata",
        json.dumps(metadata),
    )
    docs = data.deltabench_docs(path)
    _assert_deltabench(run["results"], docs, reading=reading)
    # The readings differ on this run, and the task configs and every record say which was used.
    assert _deltabench_expected(docs, "official") != _deltabench_expected(docs, "tolerant")
    stated = {c["metadata"]["deltabench_reading"] for c in run["configs"].values()}
    assert stated == {reading}
    assert {record["reading"] for s in samples for record in _records(s)} == {reading}
    assert len(samples) == len(docs) == 11
    scenarios = {
        deltabench_truth(d, DB_SEED).scenario
        for d in docs
        if d["truth_sections"] and not d["data_error"]
    }
    assert {"no_error", "partial", "out_of_range", "free_form", "placeholder"} <= scenarios
    broken = next(s for s in samples if s["doc"]["id"] == "fx-math-4")
    assert "is not a list of section numbers" in broken["f1_macro"][0]["excluded"]


def test_deltabench_group_with_an_empty_domain_reports_the_other_domains(tmp_path):
    """A local file without PCB rows: the group runs the three other domains and pools them."""
    lines = (FIXTURES / "deltabench_sample.jsonl").read_text().splitlines()
    path = tmp_path / "no_pcb.jsonl"
    path.write_text("\n".join(x for x in lines if json.loads(x)["task_l1"] != "PCB") + "\n")
    run, samples = _run(
        tmp_path / "out",
        "thinkbench_deltabench",
        DB_SEED,
        {},
        "--metadata",
        json.dumps({"deltabench_path": str(path)}),
    )
    docs = data.deltabench_docs(path)
    assert {d["domain"] for d in docs} == {"math", "code", "general"}
    _assert_deltabench(run["results"], docs)
    assert run["group_subtasks"]["thinkbench_deltabench"] == [
        "thinkbench_deltabench_math",
        "thinkbench_deltabench_code",
        "thinkbench_deltabench_general",
    ]
    assert len(samples) == len(docs) == 9
