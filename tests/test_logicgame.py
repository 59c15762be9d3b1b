"""LogicGame's own items: reading the release, the generalised output contract (nested process
steps, per-item answer-only), scoring against the real dev references, the submission file, and
the category table."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest
from support.data import SHARED_DATA

from lm_eval_thinkbench.datafiles import DatasetError
from lm_eval_thinkbench.logic import cli, logicgame_files, registry
from lm_eval_thinkbench.logic.filters import LogicGameFilter
from lm_eval_thinkbench.logic.items import make_item, to_doc
from lm_eval_thinkbench.logic.logicgame import (
    CATEGORIES,
    logicgame_doc,
    reference_of,
)
from lm_eval_thinkbench.logic.metrics import logicgame_results
from lm_eval_thinkbench.logic.parse import FORMAT_ERROR, OK
from lm_eval_thinkbench.logic.score import Reference, score_output
from lm_eval_thinkbench.trace import MARKER_SETS


@pytest.fixture(scope="module")
def folder() -> Path:
    path = Path(os.environ.get(logicgame_files.PATH_ENV) or SHARED_DATA / "logicgame").absolute()
    if not (path / "en_dev_10.jsonl").is_file():
        pytest.fail(f"LogicGame data not found at {path}; set {logicgame_files.PATH_ENV}")
    return path


@pytest.fixture(scope="module")
def dev(folder) -> list[dict]:
    return [d for lang in ("en", "zh") for d in logicgame_files.logicgame_docs(lang, "dev", folder)]


def _reply(reference: dict, indent: int | None = 2) -> str:
    """A reply in the benchmark's form: reasoning, then the fenced JSON block."""
    block = json.dumps(reference, ensure_ascii=False, indent=indent)
    return f"Let me apply the rules step by step.\n\n```json\n{block}\n```"


def test_dev_items_are_read_as_released(folder, dev):
    rows = [json.loads(line) for line in (folder / "en_dev_10.jsonl").open()]
    en = [d for d in dev if d["lang"] == "en"]
    assert len(en) == len(dev) - len(en) == 10
    for doc, row in zip(en, rows, strict=True):
        assert doc["prompt"] == row["contexts"][0]  # the prompt is the contexts, unchanged
        assert doc["qid"] == row["qid"] and doc["level"] == row["level"]
        assert json.loads(doc["reference"]) == row["reference"]
        assert doc["examples"] == row["examples"]
    # Answer-only is the item's own: only the level-0 counting item; level-0 synthesis has steps.
    assert [(d["category"], d["level"]) for d in dev if d["answer_only"]] == [("统计计数", 0)] * 2
    nested = [d for d in dev if any(isinstance(s, list) for s in reference_of(d).process)]
    assert {(d["category"], d["level"]) for d in nested} == {("密码破译", 0)}


def test_the_dev_references_score_perfectly(dev):
    for doc in dev:
        ref = json.loads(doc["reference"])
        for reply in (_reply(ref), _reply(ref, None)):
            record = score_output(reference_of(doc), reply)
            assert record["status"] == OK, (doc["qid"], record["error"])
            assert record["answer_correct"] and record["step_similarity"] == 1.0, doc["qid"]
            assert record["answer_step_correct"] and record["valid_process"] is None


def test_nested_steps_compare_with_light_normalisation(dev):
    doc = next(d for d in dev if d["category"] == "密码破译" and d["level"] == 0)
    ref = reference_of(doc)
    assert ref.process == (["1", "3", "5", "7", "9"], ["1", "3"], ["3"])
    as_strings = {"answer": ["3"], "process": ["[1, 3, 5, 7, 9]", "[1,3]", "[ 3 ]"]}
    assert score_output(ref, _reply(as_strings))["step_similarity"] == 1.0
    missing = {"answer": ["3"], "process": [["1", "3", "5", "7"], ["1", "3"], ["3"]]}
    record = score_output(ref, _reply(missing))
    assert record["answer_correct"] and not record["answer_step_correct"]
    assert 0.8 < record["step_similarity"] < 1.0
    # One level of nesting only; the answer stays a list of strings.
    for bad in (
        {"answer": ["3"], "process": [[["1"]], ["3"]]},
        {"answer": [["3"]], "process": ["3"]},
        {"answer": ["3"], "process": [{"step": "3"}]},
    ):
        assert score_output(ref, _reply(bad))["status"] == FORMAT_ERROR, bad


def test_an_answer_only_item_needs_no_process_but_others_do(dev):
    counting = next(d for d in dev if d["answer_only"])
    assert score_output(reference_of(counting), _reply({"answer": ["1"]}))["answer_step_correct"]
    synthesis = next(d for d in dev if d["category"] == "字符串合成" and d["level"] == 0)
    record = score_output(reference_of(synthesis), _reply({"answer": ["0", "0", "7"]}))
    assert record["status"] == FORMAT_ERROR and "process" in record["error"]


def test_a_generated_item_replays_a_list_step_as_its_text():
    """The contract is the same for generated items: a list step parses, and the simulator
    replays it as one string (which no state of this subclass equals)."""
    doc = to_doc(make_item("cipher", "shift", 2, 0, 1), "en")
    steps = [list(doc["process"][0]), *doc["process"][1:]]  # the letters, as a list
    reply = _reply({"answer": doc["answer"], "process": steps})
    record = score_output(Reference.from_doc(doc), reply)
    assert record["status"] == OK and record["answer_correct"]
    assert record["valid_process"] is False and record["first_invalid_step"] == 0
    exact = score_output(
        Reference.from_doc(doc), _reply({"answer": doc["answer"], "process": doc["process"]})
    )
    assert exact["valid_process"] and exact["answer_step_correct"]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"qid": "q", "contexts": ["x"], "level": 0}, "lacks category"),
        ({"qid": "q", "contexts": [], "level": 0, "category": "c"}, "contexts is not"),
        ({"qid": "q", "contexts": ["x"], "level": 7, "category": "c"}, "level 7"),
        ({"qid": "q", "contexts": ["x"], "level": True, "category": "c"}, "level True"),
        (
            {"qid": "q", "contexts": ["x"], "level": 0, "category": "c", "reference": "{x"},
            "reference is not JSON",
        ),
        (
            {"qid": "q", "contexts": ["x"], "level": 0, "category": "c", "reference": {"a": 1}},
            "no 'answer'",
        ),
        (
            {
                "qid": "q",
                "contexts": ["x"],
                "level": 0,
                "category": "c",
                "reference": {"answer": ["1"], "process": "1"},
            },
            "'process' is not",
        ),
    ],
)
def test_a_malformed_row_is_one_clear_error(row, message):
    with pytest.raises(DatasetError, match=message):
        logicgame_doc(row, "en", "f.jsonl: record 3")


def test_sources_local_folder_clone_layout_env_and_offline(folder, tmp_path, monkeypatch):
    clone = tmp_path / "clone"
    (clone / "data" / "dev").mkdir(parents=True)
    (clone / "data" / "dev" / "zh_dev_10.jsonl").write_bytes(
        (folder / "zh_dev_10.jsonl").read_bytes()
    )
    via_clone = logicgame_files.logicgame_docs("zh", "dev", clone)
    assert via_clone == logicgame_files.logicgame_docs("zh", "dev", folder)
    monkeypatch.setenv(logicgame_files.PATH_ENV, str(folder))
    whole = logicgame_files.load_logicgame("en")["test"]
    assert len(whole) == 304 and not any(whole["reference"])
    dev = logicgame_files.load_logicgame("zh", logicgame_split="dev", logicgame_path=str(clone))
    assert len(dev["test"]) == 10
    with pytest.raises(DatasetError, match=r"no zh_all_304\.jsonl in"):
        logicgame_files.logicgame_docs("zh", "all", clone)
    with pytest.raises(ValueError, match="unknown LogicGame split 'test'"):
        logicgame_files.logicgame_docs("zh", "test", folder)
    # No local copy, offline: one line saying how to point at one.
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    with pytest.raises(DatasetError, match=f"cannot fetch .*4884edb.*{logicgame_files.PATH_ENV}"):
        logicgame_files.logicgame_docs("en", "dev", None)


def test_whole_set_items_are_unscored_but_kept_for_the_submission(folder):
    doc = logicgame_files.logicgame_docs("en", "all", folder)[0]
    scorer = LogicGameFilter()
    scorer.markers = MARKER_SETS["think"]
    record = scorer.score('<think>hm</think>```json\n{"answer": ["x"]}\n```', doc)
    assert record["status"] == "unscored" and record["answer_text"].startswith("```json")
    scored = score_output(reference_of(_dev_doc(folder)), _reply({"answer": ["0"]}))
    per_doc = logicgame_results(doc, [[json.dumps(record)]])
    assert per_doc["unscored"] == 1.0 and per_doc["answer_acc"] == []
    mixed = logicgame_results(doc, [[json.dumps(record), json.dumps(scored)]])
    assert mixed["unscored"] == 0.5 and mixed["format_error"] == [1.0]


def _dev_doc(folder: Path) -> dict:
    return logicgame_files.logicgame_docs("en", "dev", folder)[1]


def test_submission_file_from_a_sample_log(folder, tmp_path, capsys):
    docs = logicgame_files.logicgame_docs("zh", "all", folder)[:3]
    run = tmp_path / "run" / "model"
    run.mkdir(parents=True)
    lines = []
    for i, doc in reversed(list(enumerate(docs))):  # the log's order is not the release's
        record = {"status": "unscored", "answer_text": None if i == 1 else f"reply {i}"}
        lines.append({"doc_id": i, "doc": doc, "filtered_resps": [json.dumps(record)]})
    log = run / "samples_thinkbench_logicgame_zh_2026-12-01T12-00-00.jsonl"
    log.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
    cli.main(["logicgame-submission", str(tmp_path / "run"), "--out", str(tmp_path / "sub")])
    report = capsys.readouterr().out
    assert "zh: 3 items" in report and "3 left unscored" in report and "1 with no answer" in report
    rows = [json.loads(x) for x in (tmp_path / "sub" / "zh_submission.jsonl").open()]
    assert [r["qid"] for r in rows] == [d["qid"] for d in docs]
    assert [r["response"] for r in rows] == ["reply 0", "", "reply 2"]
    assert set(rows[0]) == {"qid", "level", "category", "response"}
    # Not a LogicGame log, or none at all: one line, exit status 2.
    log.write_text('{"doc_id": 0, "doc": {}}\n')
    with pytest.raises(SystemExit) as exc:
        cli.main(["logicgame-submission", str(tmp_path / "run"), "--out", str(tmp_path / "s")])
    assert exc.value.code == 2 and "not a sample log" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["logicgame-submission", str(tmp_path / "sub"), "--out", str(tmp_path / "s")])
    assert "no samples_thinkbench_logicgame" in capsys.readouterr().err


def test_every_category_is_in_the_table(folder):
    released = Counter(
        json.loads(line)["category"]
        for lang in ("en", "zh")
        for line in (folder / f"{lang}_all_304.jsonl").open()
    )
    assert set(released) == {c.zh for c in CATEGORIES} and len(CATEGORIES) == 31
    registered = {s.key for s in registry.subclasses()}
    for category in CATEGORIES:
        assert set(category.subclasses) <= registered, category.zh
