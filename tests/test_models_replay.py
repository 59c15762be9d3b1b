"""thinkbench-replay: serve logged responses back, matched the way lm-eval logged them.

The sample files are written by lm-eval's own ``EvaluationTracker`` from records built exactly as
``lm_eval.evaluator.evaluate`` builds them, so the format is the real one, not a copy of it.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from lm_eval.api.instance import Instance
from lm_eval.api.registry import get_model
from lm_eval.loggers import EvaluationTracker
from lm_eval.tasks import TaskManager
from lm_eval.utils import handle_non_serializable, hash_string
from support import lm_eval_runs

from lm_eval_thinkbench.models.chat import ThinkbenchChat, render_chat
from lm_eval_thinkbench.models.replay import (
    ReplayLM,
    ReplayMissingError,
    SampleLogError,
)
from lm_eval_thinkbench.response import ModelResponse
from lm_eval_thinkbench.simulate.server import FakeOpenAIServer

TASK = "toy_math"
GEN = {"until": [], "max_gen_toks": 16, "do_sample": False}
DOC0 = {"problem": "1+1", "answer": "2"}
DOC1 = {"problem": "2+2", "answer": "4"}
CHAT0 = render_chat([{"role": "user", "content": "Solve: 1+1"}])
ENVELOPE = ModelResponse(content="\\boxed{2}", reasoning="one plus one", usage={"x": 1}).to_wire()


def logged(doc_id: int, doc: dict, context: object, resps: list[str], filt: str) -> dict:
    """One sample record as ``evaluator.evaluate`` builds it for a one-request doc."""
    req = Instance("generate_until", doc, (context, dict(GEN)), 0, (TASK, doc_id, len(resps)))
    req.resps = list(resps)
    return {
        "doc_id": doc_id,
        "doc": doc,
        "target": doc["answer"],
        "arguments": [req.args],
        "resps": [req.resps],
        "filtered_resps": [resps[0]],
        "filter": filt,
        "metrics": ["exact_match"],
        "doc_hash": hash_string(
            json.dumps(doc, indent=2, default=handle_non_serializable, ensure_ascii=False)
        ),
        "prompt_hash": hash_string(req.arguments[0]),
        "target_hash": hash_string(doc["answer"]),
        "exact_match": 1.0,
    }


def write_samples(out: Path, records: list[dict], date: str = "2025-01-01T00-00-00") -> Path:
    """Write records with lm-eval's tracker; returns the samples file."""
    tracker = EvaluationTracker(output_path=str(out))
    tracker.general_config_tracker.model_name_sanitized = "fake__model"
    tracker.date_id = date
    tracker.save_results_samples(TASK, records)
    path = out / "fake__model" / f"samples_{TASK}_{date}.jsonl"
    assert path.is_file()  # the tracker swallows write errors
    return path


def request(doc_id: int, doc: dict, context: object, repeats: int = 1) -> Instance:
    return Instance("generate_until", doc, (context, dict(GEN)), 0, (TASK, doc_id, repeats))


@pytest.fixture
def run(tmp_path: Path) -> Path:
    """A logged run: a chat doc with two repeats and an envelope, a plain-text doc; each doc
    logged once per filter pipeline, as lm-eval does."""
    records = []
    for filt in ("strict-match", "flexible-extract"):
        records.append(logged(0, DOC0, CHAT0, ["first of 1+1", ENVELOPE], filt))
        records.append(logged(1, DOC1, "Solve: 2+2", ["four"], filt))
    write_samples(tmp_path / "out", records)
    return tmp_path / "out"


def test_registered() -> None:
    assert get_model("thinkbench-replay") is ReplayLM


def test_replays_by_prompt_with_repeats_in_order(
    run: Path, caplog: pytest.LogCaptureFixture
) -> None:
    doc0 = request(0, DOC0, CHAT0, repeats=2)
    reqs = [request(1, DOC1, "Solve: 2+2"), doc0, doc0]  # lm-eval lists repeats as one object
    model = ReplayLM(samples=str(run), strict=True)
    assert model.generate_until(reqs) == ["four", "first of 1+1", ENVELOPE]
    assert "different logged responses" not in caplog.text  # filter copies were deduplicated


def test_matching_ignores_task_name_and_doc_id(run: Path) -> None:
    """A renamed task version with re-indexed docs still finds the logged prompt."""
    renamed = Instance("generate_until", DOC1, ("Solve: 2+2", dict(GEN)), 0, ("v2", 7, 1))
    assert ReplayLM(samples=str(run)).generate_until([renamed]) == ["four"]


def test_same_prompt_for_two_docs_uses_the_matching_doc(tmp_path: Path) -> None:
    twin = {"problem": "1+1 again", "answer": "2"}
    write_samples(
        tmp_path,
        [
            logged(0, DOC0, "Same prompt", ["for doc 0"], "x"),
            logged(5, twin, "Same prompt", ["for doc 5"], "x"),
        ],
    )
    model = ReplayLM(samples=str(tmp_path))
    reqs = [request(5, twin, "Same prompt"), request(0, DOC0, "Same prompt")]
    assert model.generate_until(reqs) == ["for doc 5", "for doc 0"]


def test_missing_response_is_empty_and_counted(run: Path, caplog: pytest.LogCaptureFixture) -> None:
    doc1 = request(1, DOC1, "Solve: 2+2", repeats=2)  # only one repeat was logged
    unknown = request(9, {"problem": "new"}, "Solve: new")
    caplog.set_level(logging.WARNING)
    out = ReplayLM(samples=str(run)).generate_until([doc1, doc1, unknown])
    assert out == ["four", "", ""]
    assert "2 of 3 requests had no logged response" in caplog.text
    assert "doc_id 1 repeat 1" in caplog.text


def test_missing_response_strict_names_the_doc(run: Path) -> None:
    unknown = request(9, {"problem": "new"}, "Solve: new")
    with pytest.raises(ReplayMissingError, match=rf"task '{TASK}' doc_id 9 repeat 0"):
        ReplayLM(samples=str(run), strict="true").generate_until([unknown])


def test_malformed_line_names_file_and_line(tmp_path: Path) -> None:
    path = write_samples(tmp_path, [logged(0, DOC0, "p", ["r"], "x")])
    good = path.read_text()
    path.write_text(good + "\n" + '{"doc_id": 1, "resps": [["trunc' + "\n")
    with pytest.raises(SampleLogError, match=rf"{path}:3: not valid JSON"):
        ReplayLM(samples=str(path))
    path.write_text(good + json.dumps({"doc_id": 1}) + "\n")
    with pytest.raises(SampleLogError, match=rf"{path}:2: needs an 'arguments' object"):
        ReplayLM(samples=str(path))


def test_sample_paths_files_globs_and_lists(run: Path, tmp_path: Path) -> None:
    first = next(run.rglob("samples_*.jsonl"))
    other = write_samples(
        tmp_path / "other",
        [logged(2, {"problem": "3+3", "answer": "6"}, "Solve: 3+3", ["six"], "x")],
    )
    reqs = [
        request(1, DOC1, "Solve: 2+2"),
        request(2, {"problem": "3+3", "answer": "6"}, "Solve: 3+3"),
    ]
    for spec in (f"{first}:{other}", f"{run}:{tmp_path / 'other'}", f"{tmp_path}/*/fake__model"):
        assert ReplayLM(samples=spec, strict=True).generate_until(reqs) == ["four", "six"]
    with pytest.raises(FileNotFoundError, match="nowhere"):
        ReplayLM(samples=f"{first}:{tmp_path / 'nowhere'}")


def test_round_trip_through_lm_eval(tmp_path: Path) -> None:
    """thinkbench-chat run with --log_samples, then a replay scores the same responses."""
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(d) + "\n" for d in (DOC0, DOC1)))
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "toy.yaml").write_text(
        f"""
task: {TASK}
dataset_path: json
dataset_kwargs:
  data_files: {{test: {data}}}
  cache_dir: {tmp_path / "hf_cache"}
test_split: test
output_type: generate_until
doc_to_text: "Solve: {{{{problem}}}}"
doc_to_target: "{{{{answer}}}}"
repeats: 2
generation_kwargs: {{until: [], max_gen_toks: 16, do_sample: true, temperature: 0.5}}
filter_list:
  - {{name: first, filter: [{{function: take_first}}]}}
  - {{name: also_first, filter: [{{function: take_first}}]}}
metric_list:
  - {{metric: exact_match, aggregation: mean, higher_is_better: true}}
"""
    )
    tasks = TaskManager(include_path=str(tmp_path / "tasks"), include_defaults=False)
    rules = [{"match": "Solve:", "content": "{last_user} #{seed}"}]

    def evaluate(model: Any) -> tuple[dict[str, Any], list[list[list[str]]]]:
        out = lm_eval_runs.evaluate(model, [TASK], tasks, apply_chat_template=True)
        return out, [s["resps"] for s in out["samples"][TASK]]

    with FakeOpenAIServer(tmp_path / "server", rules) as server:
        chat = ThinkbenchChat(model="fake-model", base_url=server.base_url, seed=10)
        original, resps = evaluate(chat)
    assert len(resps) == 4  # two docs, two filter pipelines
    assert "#11" in resps[0][0][1]  # second repeat, second seed
    write_samples(tmp_path / "out", original["samples"][TASK])

    _, replayed_resps = evaluate(ReplayLM(samples=str(tmp_path / "out"), strict=True))
    assert replayed_resps == resps
