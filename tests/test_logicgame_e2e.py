"""End to end: LogicGame's own files through plain ``lm_eval`` against a scripted server.

One run (lm_eval's start-up dominates a small run) over a folder whose ``{lang}_all_304.jsonl``
holds each language's 304 whole-set items followed by its 10 dev items, as a LogicGame-format
file mixing items with and without references may. Each dev item is answered with its own
reference in the benchmark's fenced-JSON form after a thought, every other item with one
scripted reply. Checked: A-Acc = P-Acc = AP-Acc = 1 with no error at both leaves and the group
(only the 20 referenced items are scored), the unscored share, and the submission files that
``thinkbench-logic logicgame-submission`` writes from the run's sample logs.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support import lm_eval_runs
from support.data import SHARED_DATA
from support.lm_eval_runs import read_results

from lm_eval_thinkbench.logic import cli
from lm_eval_thinkbench.logic.logicgame_files import PATH_ENV, logicgame_docs
from lm_eval_thinkbench.simulate.server import FakeOpenAIServer

pytestmark = pytest.mark.e2e
TASKS = ("thinkbench_logicgame", "thinkbench_logicgame_en", "thinkbench_logicgame_zh")
FILTER = "thinkbench"


def _folder() -> Path:
    path = Path(os.environ.get(PATH_ENV) or SHARED_DATA / "logicgame").absolute()
    if not (path / "en_all_304.jsonl").is_file():
        pytest.fail(f"LogicGame data not found at {path}; set {PATH_ENV}")
    return path


def test_references_score_perfectly_and_whole_sets_make_the_submission(tmp_path, capsys):
    folder, docs = tmp_path / "data", []
    folder.mkdir()
    for lang in ("en", "zh"):
        whole = (_folder() / f"{lang}_all_304.jsonl").read_text(encoding="utf-8")
        dev = (_folder() / f"{lang}_dev_10.jsonl").read_text(encoding="utf-8")
        (folder / f"{lang}_all_304.jsonl").write_text(whole + dev, encoding="utf-8")
        docs += logicgame_docs(lang, "dev", _folder())
    rules = []
    for doc in docs:
        block = json.dumps(json.loads(doc["reference"]), ensure_ascii=False, indent=2)
        content = f"<think>Apply the rules one by one.</think>\nThe result:\n```json\n{block}\n```"
        rules.append({"match": doc["prompt"], "content": content, "reasoning_field": None})
    assert len({r["match"] for r in rules}) == len(rules) == 20
    reply = '<think>Thinking it over.</think>\n```json\n{"answer": ["1"]}\n```'
    rules.append({"match": "", "content": reply, "reasoning_field": None})
    env = {PATH_ENV: str(folder)}
    with FakeOpenAIServer(tmp_path / "server", rules, reasoning_field="none") as server:
        lm_eval_runs.run(
            *lm_eval_runs.local_chat(server.base_url, num_concurrent=8),
            *("--tasks", "thinkbench_logicgame"),
            *("--log_samples", "--output_path", str(tmp_path / "run")),
            env=env,
        )
    results, samples = read_results(tmp_path / "run")
    assert len(samples) == 2 * 314
    for task in TASKS:
        scores = results["results"][task]
        for metric in ("answer_acc", "step_acc", "answer_step_acc"):
            assert scores[f"{metric},{FILTER}"] == 1.0, (task, metric)
        for metric in ("if_error", "format_error"):
            assert scores[f"{metric},{FILTER}"] == 0.0, (task, metric)
        assert scores[f"unscored,{FILTER}"] == pytest.approx(304 / 314), task
    nested = [s for s in samples if s["doc"]["category"] == "密码破译" and s["doc"]["reference"]]
    assert len(nested) == 8 and all(s["answer_step_acc"] == [1.0] for s in nested)

    cli.main(["logicgame-submission", str(tmp_path / "run"), "--out", str(tmp_path / "sub")])
    report = capsys.readouterr().out
    for lang in ("en", "zh"):
        assert f"{lang}: 314 items" in report and "304 left unscored" in report
        rows = [json.loads(x) for x in (tmp_path / "sub" / f"{lang}_submission.jsonl").open()]
        release = [json.loads(x) for x in (folder / f"{lang}_all_304.jsonl").open()]
        assert [r["qid"] for r in rows] == [r["qid"] for r in release]
        assert rows[0]["response"] == '```json\n{"answer": ["1"]}\n```'  # the reasoning is cut
