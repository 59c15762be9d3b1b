"""End to end: the real lm-eval CLI (``thinkbench-eval``) on the critic tasks.

The simulated critic (``thinkbench-sim``) answers every ProcessBench and DeltaBench document with
a verdict fixed by ``processbench_truth`` / ``deltabench_truth``; the figures expected below are
computed from those verdicts and the data's labels with the benchmarks' formulas written out
here, not with the plugin's parser, scorer or group re-weighting.
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections import defaultdict
from pathlib import Path
from statistics import fmean

import pytest
from e2e_support import BIN, read_results, run_cli, sim_server

from lm_eval_thinkbench import TASKS_DIR
from lm_eval_thinkbench.cli import tasks_installed
from lm_eval_thinkbench.critic import data
from lm_eval_thinkbench.simulate.critic import deltabench_truth, processbench_truth

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures"
PB_SEED = 7
DB_SEED = 20  # on the fixture: no error, partial, out of range, free form, unreadable, ...


def _processbench_folder() -> Path:
    path = Path(
        os.environ.get(data.PROCESSBENCH_ENV) or REPO.parent / "shared" / "data" / "processbench"
    )
    if not (path / "gsm8k.json").is_file():
        pytest.fail(f"ProcessBench data not found at {path}; set {data.PROCESSBENCH_ENV}")
    return path


def _run(out: Path, tasks: str, seed: int, env: dict[str, str], *extra: str) -> tuple[dict, list]:
    if not tasks_installed():
        env = {**env, "PYTHONPATH": str(REPO)}
    cmd = [
        sys.executable,
        "-m",
        "lm_eval_thinkbench.cli",
        "--model",
        "thinkbench-sim",
        "--model_args",
        f"seed={seed}",
        "--tasks",
        tasks,
        "--log_samples",
        "--output_path",
        str(out),
        *extra,
    ]
    run_cli(cmd, env, timeout=300)
    results, samples = read_results(out)
    return results["results"], samples


def _base_env(**extra: str) -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", **extra}


def _assert_close(got: dict, want: dict[str, float], where: str) -> None:
    for metric, value in want.items():
        got_value = got[f"{metric},critic"]
        if math.isnan(value):
            assert math.isnan(got_value), f"{where} {metric}"
        else:
            assert got_value == pytest.approx(value, rel=1e-12, abs=1e-12), f"{where} {metric}"


# ----- ProcessBench --------------------------------------------------------------------------


def _processbench_expected(docs: list[dict]) -> dict[str, float]:
    predictions = [processbench_truth(d, PB_SEED).prediction for d in docs]
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


def test_processbench_full_data_through_lm_eval(tmp_path):
    folder = _processbench_folder()
    results, samples = _run(
        tmp_path,
        "thinkbench_processbench",
        PB_SEED,
        _base_env(**{data.PROCESSBENCH_ENV: str(folder)}),
    )
    per_subset = {}
    for subset in data.PROCESSBENCH_SUBSETS:
        docs = data.processbench_docs(subset, folder)
        per_subset[subset] = (len(docs), _processbench_expected(docs))
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
    assert len(samples) == total == 3400
    statuses = {item["status"] for s in samples for item in s["unparsed"]}
    assert statuses == {"ok", "unparsed", "truncated"}


def test_processbench_through_plain_lm_eval_over_http(tmp_path, math500_path):
    """The same verdicts served over the OpenAI chat API to lm-eval's own
    ``local-chat-completions`` model, by the plain ``lm_eval`` command."""
    folder = _processbench_folder()
    with sim_server(math500_path, "--processbench", str(folder)) as url:
        run_cli(
            [
                str(BIN / "lm_eval"),
                "--model",
                "local-chat-completions",
                "--model_args",
                f"model=sim,base_url={url}/chat/completions,num_concurrent=8,seed={PB_SEED}",
                "--tasks",
                "thinkbench_processbench_gsm8k,thinkbench_processbench_math",
                "--apply_chat_template",
                "--output_path",
                str(tmp_path),
                *([] if tasks_installed() else ["--include_path", TASKS_DIR]),
            ],
            _base_env(**{data.PROCESSBENCH_ENV: str(folder)}),
        )
    results = read_results(tmp_path)[0]["results"]
    for subset in ("gsm8k", "math"):
        want = _processbench_expected(data.processbench_docs(subset, folder))
        _assert_close(results[f"thinkbench_processbench_{subset}"], want, subset)


# ----- DeltaBench ----------------------------------------------------------------------------


def _deltabench_expected(docs: list[dict], reference_filter: bool) -> dict[str, float]:
    rows, unparsed, excluded = [], [], []
    for doc in docs:
        flagged = deltabench_truth(doc, DB_SEED).sections
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


@pytest.mark.parametrize(
    ("fixture", "reference_filter"),
    [("deltabench_sample.jsonl", False), ("deltabench_sample.csv", True)],
)
def test_deltabench_fixture_through_lm_eval(tmp_path, fixture, reference_filter):
    path = FIXTURES / fixture
    metadata = {"deltabench_path": str(path), "deltabench_reference_filter": reference_filter}
    results, samples = _run(
        tmp_path,
        "thinkbench_deltabench",
        DB_SEED,
        _base_env(),
        "--metadata",
        json.dumps(metadata),
    )
    docs = data.deltabench_docs(path)
    by_domain = defaultdict(list)
    for doc in docs:
        by_domain[doc["domain"]].append(doc)
    for domain, domain_docs in by_domain.items():
        want = _deltabench_expected(domain_docs, reference_filter)
        _assert_close(results[f"thinkbench_deltabench_{domain}"], want, domain)
    # The group is the whole benchmark, pooled exactly over the domains.
    _assert_close(
        results["thinkbench_deltabench"], _deltabench_expected(docs, reference_filter), "group"
    )
    assert len(samples) == len(docs) == 11
    scenarios = {
        deltabench_truth(d, DB_SEED).scenario
        for d in docs
        if d["truth_sections"] and not d["data_error"]
    }
    assert {"no_error", "partial", "out_of_range", "free_form", "unparseable"} <= scenarios
    broken = next(s for s in samples if s["doc"]["id"] == "fx-math-4")
    assert "is not a list of section numbers" in broken["f1_macro"][0]["excluded"]
