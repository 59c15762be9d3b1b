"""Loading ProcessBench and DeltaBench: local copies, the Hub fallback, broken files and rows."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest
from support.tasks import task_manager

from lm_eval_thinkbench.critic import data, metrics
from lm_eval_thinkbench.critic.prompts import (
    DELTABENCH_TEMPLATE,
    deltabench_prompt,
    deltabench_target,
    processbench_prompt,
)
from lm_eval_thinkbench.datafiles import DatasetError
from lm_eval_thinkbench.harness import settings

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures"
DELTA_JSONL = FIXTURES / "deltabench_sample.jsonl"
DELTA_CSV = FIXTURES / "deltabench_sample.csv"


@pytest.fixture(scope="session")
def processbench_path() -> Path:
    """The local ProcessBench folder: $THINKBENCH_PROCESSBENCH_PATH, else ../shared/data."""
    path = Path(
        os.environ.get(data.PROCESSBENCH_ENV) or REPO.parent / "shared" / "data" / "processbench"
    )
    if not (path / "gsm8k.json").is_file():
        pytest.fail(f"ProcessBench data not found at {path}; set {data.PROCESSBENCH_ENV}")
    return path


@pytest.fixture(autouse=True)
def _reset_settings():
    yield
    settings.configure({})


def test_processbench_subsets_have_the_published_sizes(processbench_path):
    sizes = {
        s: len(data.load_processbench(s, processbench_path=str(processbench_path))["test"])
        for s in data.PROCESSBENCH_SUBSETS
    }
    assert sizes == {"gsm8k": 400, "math": 1000, "olympiadbench": 1000, "omnimath": 1000}


def test_processbench_path_from_the_environment(processbench_path, monkeypatch):
    monkeypatch.setenv(data.PROCESSBENCH_ENV, str(processbench_path))
    docs = data.load_processbench("gsm8k")["test"]
    assert docs[0]["id"] == "gsm8k-0" and docs[0]["subset"] == "gsm8k"
    assert not any(docs["data_error"])


def test_processbench_prompt_is_the_official_template(processbench_path):
    doc = data.processbench_docs("gsm8k", processbench_path)[0]
    prompt = processbench_prompt(doc)
    assert prompt.startswith(
        "The following is a math problem and a solution (split into paragraphs, enclosed with "
        "tags and indexed from 0):\n\n[Math Problem]\n\n" + doc["problem"] + "\n\n[Solution]\n\n"
        "<paragraph_0>\n" + doc["steps"][0] + "\n</paragraph_0>\n\n<paragraph_1>\n"
    )
    last = len(doc["steps"]) - 1
    assert f"{doc['steps'][-1]}\n</paragraph_{last}>\n\nYour task is to review" in prompt
    assert prompt.endswith("Please put your final answer (i.e., the index) in \\boxed{}.")


def test_processbench_broken_rows_are_kept_and_excluded(tmp_path):
    rows = [
        {"id": "ok", "problem": "p", "steps": ["a", "b"], "label": 1},
        {"id": "text-label", "problem": "p", "steps": ["a"], "label": "first"},
        {"id": "too-far", "problem": "p", "steps": ["a", "b"], "label": 2},
        {"id": "no-steps", "problem": "p", "steps": "a", "label": -1},
        {"id": "no-label", "problem": "p", "steps": ["a"]},
        {"id": "float-label", "problem": "p", "steps": ["a", "b"], "label": 1.0},
    ]
    (tmp_path / "gsm8k.json").write_text(json.dumps(rows))
    docs = {d["id"]: d for d in data.processbench_docs("gsm8k", tmp_path)}
    assert docs["ok"]["label"] == 1 and docs["ok"]["data_error"] == ""
    assert docs["float-label"]["label"] == 1 and docs["float-label"]["data_error"] == ""
    assert "is not an integer" in docs["text-label"]["data_error"]
    assert "outside -1..1" in docs["too-far"]["data_error"]
    assert "steps is not a non-empty list" in docs["no-steps"]["data_error"]
    assert "missing label" in docs["no-label"]["data_error"]
    record = {"status": "ok", "prediction": 0, "boxed": "0"}
    items = [metrics.processbench_results(d, [[record]])["f1"] for d in docs.values()]
    assert metrics.excluded(items) == pytest.approx(4 / 6)
    assert metrics.error_acc(items) == 0.0  # only the two usable rows are scored


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("gsm8k.json", "[{not json", "not valid JSON"),
        ("gsm8k.json", '{"a": 1}\n[1]\n', "not a JSON object"),
        ("gsm8k.json", "[1, 2]", "not a JSON array of objects"),
        ("gsm8k.json", "[]", "holds no records"),
        ("gsm8k.json", '[{"question": "q"}]', "no record has the fields id, problem, steps, label"),
        ("math.json", "[]", "no gsm8k.json in"),
    ],
)
def test_processbench_unusable_files_fail_with_one_clear_line(tmp_path, name, content, message):
    (tmp_path / name).write_text(content)
    with pytest.raises(DatasetError, match=message) as err:
        data.load_processbench("gsm8k", processbench_path=str(tmp_path))
    assert "\n" not in str(err.value) and str(tmp_path) in str(err.value)


def test_processbench_falls_back_to_the_hub(monkeypatch):
    calls = []

    def fake_load(path, split=None):
        calls.append((path, split))
        return [
            {
                "id": "gsm8k-0",
                "generator": "g",
                "problem": "p",
                "steps": ["s"],
                "label": -1,
                "final_answer_correct": True,
            }
        ]

    monkeypatch.delenv(data.PROCESSBENCH_ENV, raising=False)
    monkeypatch.setattr(data.datasets, "load_dataset", fake_load)
    docs = data.load_processbench("gsm8k")["test"]
    assert calls == [("Qwen/ProcessBench", "gsm8k")]
    assert docs[0]["label"] == -1 and docs[0]["final_answer_correct"] is True


def test_deltabench_csv_and_jsonl_give_the_same_docs():
    assert data.deltabench_docs(DELTA_CSV) == data.deltabench_docs(DELTA_JSONL)


def test_deltabench_docs_follow_the_benchmark_ground_truth():
    docs = {d["id"]: d for d in data.deltabench_docs(DELTA_JSONL)}
    # error sections [2, 4] plus unuseful section [5]
    assert docs["fx-math-2"]["truth_sections"] == [2, 4, 5]
    assert docs["fx-math-2"]["n_sections"] == 5
    assert docs["fx-pcb-1"]["domain"] == "pcb" and docs["fx-pcb-1"]["task_l1"] == "PCB"
    assert docs["fx-math-3"]["truth_sections"] == [] and docs["fx-math-3"]["data_error"] == ""
    assert "outside sections 1..3" in docs["fx-general-2"]["data_error"]
    assert "is not a list of section numbers" in docs["fx-math-4"]["data_error"]
    assert docs["fx-math-1"]["sections_text"].startswith("section1: Okay, I need to solve")
    assert deltabench_target(docs["fx-math-2"]) == "2, 4, 5"
    assert deltabench_target(docs["fx-math-3"]) == "no error"


def test_deltabench_prompt_is_the_reference_template():
    doc = data.deltabench_docs(DELTA_JSONL)[0]
    prompt = deltabench_prompt(doc)
    head, _, _ = DELTABENCH_TEMPLATE.partition("{{question}}")
    assert prompt.startswith("I will provide you with a question and a robot’s answer")
    assert prompt.endswith(
        f"- Question: {doc['question']}\n- Robot's Answer: {doc['sections_text']}\n- judge result: "
    )
    assert prompt.startswith(head)
    assert "following format:  \n    Conclusion: no error" in prompt


def test_deltabench_rows_without_sections_content_are_rebuilt_from_sections():
    row = json.loads(DELTA_JSONL.read_text().splitlines()[0])
    expected = data.deltabench_doc(row)
    del row["sections_content"]
    assert data.deltabench_doc(row) == expected


@pytest.mark.parametrize(
    ("task_l1", "domain"),
    [
        ("math", "math"),
        ("Math", "math"),
        ("code", "code"),
        ("Programming", "code"),
        ("PCB", "pcb"),
        ("general", "general"),
        ("General Reasoning", "general"),
    ],
)
def test_domain_names(task_l1, domain):
    assert data.domain_of(task_l1) == domain


def test_deltabench_domain_tasks_split_the_file(monkeypatch):
    monkeypatch.setenv(data.DELTABENCH_ENV, str(DELTA_JSONL))
    sizes = {d: len(data.load_deltabench(d)["test"]) for d in data.DOMAINS}
    assert sizes == {"math": 4, "code": 3, "pcb": 2, "general": 2}


def test_deltabench_unknown_domains_are_reported(tmp_path, caplog):
    rows = [json.loads(line) for line in DELTA_JSONL.read_text().splitlines()]
    rows[0]["task_l1"] = "poetry"
    path = tmp_path / "d.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    with caplog.at_level(logging.WARNING):
        math_rows = data.load_deltabench("math", deltabench_path=str(path))["test"]
    assert len(math_rows) == 3
    assert "belong to no task" in caplog.text and "poetry" in caplog.text


def test_deltabench_a_domain_without_rows_fails_clearly(tmp_path):
    path = tmp_path / "math_only.jsonl"
    path.write_text(DELTA_JSONL.read_text().splitlines()[0] + "\n")
    with pytest.raises(data.NoRows, match="has no 'code' rows"):
        data.load_deltabench("code", deltabench_path=str(path))


def test_deltabench_group_leaves_out_the_domains_without_rows(tmp_path):
    """lm-eval's own task loading: the group is built from the domains that have rows, a
    domain alone still fails with its message, and a group with no rows at all fails too."""
    path = tmp_path / "math_only.jsonl"
    path.write_text(DELTA_JSONL.read_text().splitlines()[0] + "\n")
    loaded = task_manager(deltabench_path=str(path)).load(["thinkbench_deltabench"])
    assert loaded["group_map"] == {"thinkbench_deltabench": ["thinkbench_deltabench_math"]}
    with pytest.raises(data.NoRows, match="thinkbench_deltabench_pcb has nothing to run"):
        task_manager(deltabench_path=str(path)).load(["thinkbench_deltabench_pcb"])
    poetry = tmp_path / "poetry.jsonl"
    row = json.loads(DELTA_JSONL.read_text().splitlines()[0]) | {"task_l1": "poetry"}
    poetry.write_text(json.dumps(row) + "\n")
    with pytest.raises(data.NoRows, match="no 'math' rows"):
        task_manager(deltabench_path=str(poetry)).load(["thinkbench_deltabench"])


def test_processbench_reading_is_set_checked_and_logged(processbench_path, caplog):
    with caplog.at_level(logging.INFO, logger="lm_eval.thinkbench"):
        data.load_processbench("gsm8k", processbench_path=str(processbench_path))
    assert settings.current().processbench_reading == "official"
    assert "processbench_reading=official (as ProcessBench's own run_eval.py" in caplog.text
    data.load_processbench(
        "gsm8k", processbench_path=str(processbench_path), processbench_reading="tolerant"
    )
    assert settings.current().processbench_reading == "tolerant"
    with pytest.raises(ValueError, match="official, tolerant"):
        data.load_processbench(
            "gsm8k", processbench_path=str(processbench_path), processbench_reading="loose"
        )


def test_the_task_configs_state_the_default_readings(processbench_path):
    """What the results JSON shows under ``configs``; ``--metadata`` overrides it."""
    manager = task_manager(processbench_path=str(processbench_path))
    tasks = manager.load(["thinkbench_processbench_gsm8k"])["tasks"]
    assert tasks["thinkbench_processbench_gsm8k"].config.metadata["processbench_reading"] == (
        "official"
    )
    path = str(DELTA_JSONL)
    loaded = task_manager(deltabench_path=path).load(["thinkbench_deltabench"])
    math_config = loaded["tasks"]["thinkbench_deltabench_math"].config.metadata
    assert math_config["deltabench_reading"] == "official"
    assert loaded["groups"]["thinkbench_deltabench"].metadata["deltabench_reading"] == "official"
    assert settings.current().reference_filter is True  # the official reading's filter
    tasks = task_manager(deltabench_path=path, deltabench_reading="tolerant").load(
        ["thinkbench_deltabench_math"]
    )["tasks"]
    assert tasks["thinkbench_deltabench_math"].config.metadata["deltabench_reading"] == "tolerant"
    assert settings.current().reference_filter is False


@pytest.mark.parametrize(
    ("metadata", "reading", "reference_filter", "logged"),
    [
        ({}, "official", True, "deltabench_reading=official (as DeltaBench's own evaluation.py"),
        ({"deltabench_reading": "tolerant"}, "tolerant", False, "count as false positives"),
        # deltabench_reference_filter overrides the reading's filter, either way
        (
            {"deltabench_reading": "tolerant", "deltabench_reference_filter": "true"},
            "tolerant",
            True,
            "are dropped, as evaluation.py does (deltabench_reference_filter=true)",
        ),
        ({"deltabench_reference_filter": False}, "official", False, "filter=false"),
    ],
)
def test_deltabench_reading_is_set_checked_and_logged(
    caplog, metadata, reading, reference_filter, logged
):
    with caplog.at_level(logging.INFO, logger="lm_eval.thinkbench"):
        data.load_deltabench("pcb", deltabench_path=str(DELTA_JSONL), **metadata)
    run = settings.current()
    assert (run.deltabench_reading, run.reference_filter) == (reading, reference_filter)
    assert logged in caplog.text


def test_an_unknown_deltabench_reading_fails_at_load_time():
    with pytest.raises(ValueError, match="deltabench_reading 'loose' is not one of official"):
        data.load_deltabench("pcb", deltabench_path=str(DELTA_JSONL), deltabench_reading="loose")


@pytest.mark.parametrize(
    ("content", "suffix", "message"),
    [
        (None, ".jsonl", "cannot read"),
        ('{"id": 1}\n{oops\n', ".jsonl", ":2: not valid JSON"),
        ('{"id": "x", "answer": "1"}\n', ".jsonl", "no record has the fields"),
        ("", ".csv", "holds no records"),
    ],
)
def test_deltabench_unusable_files_fail_with_one_clear_line(tmp_path, content, suffix, message):
    path = tmp_path / f"delta{suffix}"
    if content is not None:
        path.write_text(content)
    with pytest.raises(DatasetError, match=message) as err:
        data.load_deltabench("math", deltabench_path=str(path))
    assert "\n" not in str(err.value)


def test_deltabench_falls_back_to_the_hub(monkeypatch):
    rows = [json.loads(line) for line in DELTA_JSONL.read_text().splitlines()]
    calls = []

    def fake_load(path):
        calls.append(path)
        return {"train": rows}

    monkeypatch.delenv(data.DELTABENCH_ENV, raising=False)
    monkeypatch.setattr(data.datasets, "load_dataset", fake_load)
    data._deltabench_from_hub.cache_clear()
    try:
        assert len(data.load_deltabench("pcb")["test"]) == 2
    finally:
        data._deltabench_from_hub.cache_clear()
    assert calls == ["OpenStellarTeam/DeltaBench"]


def test_loaders_record_the_run_settings():
    data.load_deltabench(
        "pcb", deltabench_path=str(DELTA_JSONL), markers="kimi", deltabench_reference_filter="true"
    )
    run = settings.current()
    assert (run.scoring.markers, run.reference_filter) == ("kimi", True)
    with pytest.raises(ValueError, match="unknown marker set"):
        data.load_deltabench("pcb", deltabench_path=str(DELTA_JSONL), markers="nope")
