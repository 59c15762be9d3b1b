"""Sampling protocols: pass@k, majority vote, per-problem values, the exact group standard
error, the ``repeats`` setting and the competition answers, on hand-computed cases."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from statistics import fmean, stdev
from types import SimpleNamespace

import pytest
import yaml
from lm_eval.api.filter import FilterEnsemble
from lm_eval.api.instance import Instance
from lm_eval.api.metrics import mean_stderr, pooled_sample_stderr
from support.data import SHARED_DATA
from support.tasks import task_manager

from lm_eval_thinkbench.cli import eval_main, with_repeats
from lm_eval_thinkbench.datafiles import DatasetError
from lm_eval_thinkbench.harness import settings
from lm_eval_thinkbench.harness.groups import stderr_over_problems
from lm_eval_thinkbench.math500.data import competition_row, integer_answer, load_competition
from lm_eval_thinkbench.math500.filters import ThinkEfficiencyFilter
from lm_eval_thinkbench.math500.metrics import R1_SAMPLING, apply_repeats, process_results
from lm_eval_thinkbench.math500.sampling import (
    majority,
    pass_at_k,
    problem_values,
    samples_per_problem,
    vote_classes,
)
from lm_eval_thinkbench.math500.table import PER_PROBLEM

METRIC_NAMES = tuple(m.key for m in PER_PROBLEM)


def test_pass_at_k_is_the_unbiased_estimator():
    assert pass_at_k(4, 0, 4) == 0.0
    assert pass_at_k(4, 1, 4) == 1.0  # k == n: any sample correct
    assert pass_at_k(4, 1, 1) == 0.25  # pass@1 is the accuracy
    # 1 - C(3, 2) / C(5, 2) = 1 - 3/10
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)
    assert pass_at_k(5, 4, 2) == 1.0  # fewer wrong samples than k
    with pytest.raises(ValueError):
        pass_at_k(4, 1, 5)


def test_votes_join_equivalent_answers_and_skip_missing_ones():
    half = {"1/2", "0.5", "\\frac12"}
    calls = []

    def first_match(answer: str, openers: list[str]) -> int | None:
        calls.append((answer, openers))
        return next((i for i, o in enumerate(openers) if {answer, o} <= half), None)

    answers = ["3", None, "1/2", "0.5", "3", "\\frac12", "7"]
    assert vote_classes(answers, first_match) == [0, None, 2, 2, 0, 2, 6]
    assert majority(vote_classes(answers, first_match)) == 2
    # one grader call per sample at most, none for a string seen before or the first answer
    assert len(calls) == 2 * 4 and ("3", ["3", "1/2"]) not in calls
    assert majority([None, None]) is None


def test_a_tie_goes_to_the_class_seen_first():
    assert majority([0, 1, 1, 0]) == 0
    assert majority([None, 1, 2, 2, 1]) == 1


def test_problem_values_from_records():
    recs = [
        {"correct": False, "vote": 0},
        {"correct": True, "vote": 1},
        {"correct": False, "vote": 0},
        {"correct": False, "vote": None},
    ]
    assert problem_values(recs) == {"exact_match": 0.25, "pass_at_k": 1.0, "maj_at_k": 0.0}
    assert problem_values(recs, k=2)["pass_at_k"] == pytest.approx(1 - 3 / 6)
    # the majority is right although most samples are wrong (two say nothing)
    recs = [{"correct": True, "vote": 0}, {"correct": False, "vote": None}] * 2
    assert problem_values(recs)["maj_at_k"] == 1.0
    assert problem_values([{"correct": False, "vote": None}])["maj_at_k"] == 0.0


def test_samples_per_problem_reads_the_logged_config():
    assert samples_per_problem({"repeats": 16}) == 16
    assert samples_per_problem({}) == 1


def test_group_stderr_equals_one_task_over_all_problems():
    levels = [[1.0, 0.75, 1.0, 1.0], [0.0, 0.25, 0.5], [0.0, 0.0, 1.0, 0.25, 0.0]]
    leaves = [{"m,f": fmean(v), "m_stderr,f": mean_stderr(v), "sample_len": len(v)} for v in levels]
    everything = [x for v in levels for x in v]
    want = stdev(everything) / math.sqrt(len(everything))
    assert stderr_over_problems(leaves, "m", "f") == pytest.approx(want, rel=1e-12)
    # lm-eval's pooled formula leaves out the spread between the levels' means
    pooled = pooled_sample_stderr([r["m_stderr,f"] for r in leaves], [len(v) for v in levels])
    assert pooled < want * 0.9
    single = [*leaves, {"m,f": 1.0, "m_stderr,f": "N/A", "sample_len": 1}]
    everything.append(1.0)
    want = stdev(everything) / math.sqrt(len(everything))
    assert stderr_over_problems(single, "m", "f") == pytest.approx(want, rel=1e-12)
    assert stderr_over_problems([{**leaves[0], "m_stderr,f": "N/A"}], "m", "f") == "N/A"


def _config(repeats: int = 1, **gen: object) -> SimpleNamespace:
    return SimpleNamespace(repeats=repeats, generation_kwargs={"until": [], **gen})


def test_repeats_setting_samples_a_greedy_task():
    config = _config(do_sample=False, temperature=0.0)
    apply_repeats("t", 8, config)
    assert config.repeats == 8
    assert config.generation_kwargs == {"until": [], **R1_SAMPLING}
    config = _config(16, do_sample=True, temperature=1.0)
    apply_repeats("t", 64, config)
    assert (config.repeats, config.generation_kwargs["temperature"]) == (64, 1.0)
    for bad in (0, "8", True):
        with pytest.raises(ValueError, match="positive integer"):
            apply_repeats("t", bad, _config())  # type: ignore[arg-type]


def test_thinkbench_eval_turns_repeats_into_metadata():
    assert with_repeats(["--tasks", "x", "--repeats", "4"]) == [
        "--tasks", "x", "--metadata", "repeats=4"
    ]  # fmt: skip
    assert with_repeats(["--repeats=16"]) == ["--metadata", "repeats=16"]
    for bad in (["--repeats"], ["--repeats", "0"], ["--repeats=four"]):
        with pytest.raises(SystemExit, match="positive integer"):
            with_repeats(bad)


def test_thinkbench_eval_hands_lm_eval_the_repeats_as_metadata(monkeypatch):
    import lm_eval.__main__

    seen = []
    monkeypatch.setattr(lm_eval.__main__, "cli_evaluate", lambda: seen.append(sys.argv[1:]))
    monkeypatch.setattr(sys, "argv", ["thinkbench-eval"])
    eval_main(["--tasks", "thinkbench_aime24", "--repeats=64"])
    assert seen[0][:4] == ["--tasks", "thinkbench_aime24", "--metadata", "repeats=64"]


def test_competition_answers_are_integers():
    assert integer_answer(27.0) == "27"
    assert integer_answer(-1.0) == "-1"
    assert integer_answer("025") == "25"
    assert integer_answer(204) == "204"
    for bad in (2.5, "1/2", None, True):
        with pytest.raises(DatasetError, match="not an integer"):
            integer_answer(bad)
    # Maxwell-Jia/AIME_2024's capitalised fields, AMC's question-only copies
    row = {"ID": "2024-I-1", "Problem": "P", "Answer": 204}
    assert competition_row(row, 0, "w", "e") == {"problem": "P", "answer": "204", "id": "2024-I-1"}
    assert competition_row({"question": "Q", "answer": 3.0}, 5, "w", "e")["id"] == "5"
    with pytest.raises(DatasetError, match="lacks a problem or an answer"):
        competition_row({"problem": "P"}, 0, "here", "e")


def test_filter_votes_by_grader_equivalence_and_process_results_reads_the_votes():
    """Real grader: ``0.5`` and ``\\frac{1}{2}`` vote together and outvote two ``3``s."""
    settings.configure({})
    doc = {"problem": "What is 1/2?", "answer": "\\frac{1}{2}"}
    resps = ["\\boxed{3}", "\\boxed{0.5}", "no answer", "\\boxed{\\frac{1}{2}}", "\\boxed{3}",
             "\\boxed{1/2}"]  # fmt: skip
    instance = Instance(
        request_type="generate_until",
        doc=doc,
        arguments=("prompt", {"until": [], "max_gen_toks": 32768}),
        idx=0,
        metadata=("thinkbench_math500", 0, len(resps)),
        resps=resps,
    )
    FilterEnsemble("thinkbench", [ThinkEfficiencyFilter]).apply([instance])
    logged = instance.filtered_resps["thinkbench"]
    assert [json.loads(r)["vote"] for r in logged] == [0, 1, None, 1, 0, 1]
    out = process_results(doc, [logged])
    assert {m: out[m] for m in METRIC_NAMES} == {
        "exact_match": 0.5,
        "pass_at_k": 1.0,
        "maj_at_k": 1.0,
    }


CONFIGS = Path(__file__).resolve().parent.parent / "configs"
R1 = {"do_sample": True, "temperature": 0.6, "top_p": 0.95, "max_gen_toks": 32768}


@pytest.mark.parametrize(
    ("config", "repeats"),
    [("vllm_r1_distill_qwen_7b.yaml", 4), ("vllm_r1_distill_qwen_7b_competitions.yaml", 64)],
)
def test_r1_protocol_configs_run_what_they_claim(config, repeats, math500_path):
    """The configs that claim DeepSeek-R1's protocol load tasks with its sampling and k."""
    cfg = yaml.safe_load((CONFIGS / config).read_text())
    paths = {
        "math500_path": str(math500_path),
        "aime24_path": str(SHARED_DATA / "aime24" / "test.jsonl"),
        "amc23_path": str(SHARED_DATA / "amc23" / "test.jsonl"),
        "aime25_path": str(Path(__file__).parent / "fixtures" / "aime25_sample.jsonl"),
    }
    loaded = task_manager(**paths, **cfg.get("metadata", {})).load(cfg["tasks"].split(","))
    assert loaded["tasks"]
    for name, task in loaded["tasks"].items():
        assert task.config.repeats == repeats, name
        assert R1.items() <= task.config.generation_kwargs.items(), name


def test_every_config_says_which_protocol_it_follows():
    for config in sorted((CONFIGS).glob("*.yaml")):
        assert "# Protocol:" in config.read_text(), config.name


def test_new_tasks_are_discovered():
    names = set(task_manager().all_tasks)
    assert {"thinkbench_aime24", "thinkbench_aime25", "thinkbench_amc23"} <= names
    assert {"thinkbench_math500_avg4", "thinkbench_math500_avg16_level3"} <= names


def test_a_bad_local_copy_fails_at_load_naming_the_record(tmp_path):
    copy = tmp_path / "amc.jsonl"
    copy.write_text('{"problem": "P", "answer": 3.0}\n{"problem": "Q", "answer": "x+1"}\n')
    with pytest.raises(DatasetError, match=r"amc\.jsonl: record 2: answer 'x\+1' is not an"):
        load_competition("amc23", amc23_path=str(copy))
    loaded = load_competition("amc23", amc23_path=str(SHARED_DATA / "amc23" / "test.jsonl"))
    assert len(loaded["test"]) == 40 and loaded["test"][0]["answer"] == "27"
    with pytest.raises(ValueError, match="unknown competition"):
        load_competition("aime99")
