"""analyze on real inputs: the SkyThought output files at the defaults, lm-eval folders holding
other suites' tasks, the tokenizer a run names, and golds taken from the dataset."""

from __future__ import annotations

import json
import logging
import random
import subprocess
import sys
from pathlib import Path

import pytest
from support.data import SHARED_DATA

from lm_eval_thinkbench.analyze import gold as gold_module
from lm_eval_thinkbench.analyze.api import AnalyzeOptions, analyze
from lm_eval_thinkbench.analyze.samples import InputFormatError
from lm_eval_thinkbench.math.grader import Grader
from lm_eval_thinkbench.math500.score import score_response
from lm_eval_thinkbench.reading import ScoringConfig
from lm_eval_thinkbench.tokens import QwenTiktokenCounter, get_counter

SKY_T1 = SHARED_DATA / "traces" / "skythought_sky-t1-27b_math500.jsonl"
QWEN_MATH_7B = SHARED_DATA / "outputs" / "skythought_qwen2.5-math-7b_math500.jsonl"
MATH500 = SHARED_DATA / "math500" / "test.jsonl"
REPO = Path(__file__).resolve().parent.parent
STAMP = "2026-01-01T00-00-00.000000"
THINK = "<think>\nTwo and two.\n\nSo the answer is $4$.\n</think>\n\nThe answer is $\\boxed{4}$."


def jsonl(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def options(runs: list[str], output: Path, **extra) -> AnalyzeOptions:
    return AnalyzeOptions(runs=runs, output=output, plots=False, progress=False, **extra)


# ----- the real SkyThought outputs, at the defaults ---------------------------------------------


@pytest.fixture(scope="module")
def skythought(tmp_path_factory) -> dict[str, list[dict]]:
    """Both real files analysed together at the defaults: per model, the per-sample rows."""
    out = tmp_path_factory.mktemp("skythought")
    analyze(options([f"sky={SKY_T1}", f"qwen7b={QWEN_MATH_7B}"], out))
    rows: dict[str, list[dict]] = {}
    for line in (out / "per_sample.jsonl").open():
        row = json.loads(line)
        rows.setdefault(row["model"], []).append(row)
    rows["summary"] = [json.loads((out / "summary.json").read_text())]
    return rows


@pytest.mark.slow
def test_sky_t1_exactly_its_unclosed_thoughts_are_truncated(skythought):
    rows = skythought["sky"]
    unclosed = {
        str(r["idx"])
        for r in map(json.loads, SKY_T1.open())
        if "<|end_of_thought|>" not in r["code"][0]
    }
    assert len(unclosed) == 304
    assert {r["id"] for r in rows if r["truncated"]} == unclosed
    assert {r["markers"] for r in rows} == {"thought"}


@pytest.mark.slow
def test_a_non_reasoning_model_is_never_truncated_and_grades_as_its_grader(skythought):
    rows = skythought["qwen7b"]
    assert len(rows) == 500 and not any(r["truncated"] for r in rows)
    assert {r["markers"] for r in rows} == {"none"} and {r["answer_tokens"] for r in rows} == {0}
    accuracy = sum(r["correct"] for r in rows) / 500
    assert abs(accuracy - 262 / 500) <= 0.02
    (summary,) = skythought["summary"]
    overall = next(g for g in summary["groups"] if g["model"] == "qwen7b" and
                   g["subset"] == "overall")  # fmt: skip
    assert overall["metrics"]["logged_accuracy"]["mean"] == 262 / 500
    assert overall["metrics"]["accuracy"]["mean"] == accuracy
    assert overall["tokenizer"] == QwenTiktokenCounter.name


def test_markers_are_detected_per_run_not_per_response(tmp_path):
    """A reasoning model whose template opened <think> in the prompt and that ran out of tokens
    wrote no marker at all: only its run-mates show that it was thinking."""
    closed = "Two and two.\n</think>\n\nThe answer is $\\boxed{4}$."
    cut_off = "Two and two make four, and then I keep checking, and checking"
    rows = [{"id": k, "problem": "p", "gold": "4", "response": r}
            for k, r in enumerate([closed, closed, cut_off])]  # fmt: skip
    reasoning = jsonl(tmp_path / "r1.jsonl", rows)
    plain = jsonl(tmp_path / "plain.jsonl", [{**rows[2], "id": 9}])
    result = analyze(options([str(reasoning), str(plain)], tmp_path / "o", workers=1))
    by_model = {(s.sample.model, s.sample.sample_id): s.record for s in result.scored}
    assert [by_model["r1", k].truncated for k in ("0", "1", "2")] == [False, False, True]
    assert {by_model["r1", k].markers for k in ("0", "1", "2")} == {"think"}
    assert not by_model["plain", "9"].truncated and by_model["plain", "9"].markers == "none"


# ----- lm-eval folders with other tasks ---------------------------------------------------------


def lm_eval_record(doc: dict, resps: list[str], filtered: list[str] | None = None) -> dict:
    return {"doc_id": 0, "doc": doc, "target": "1", "arguments": {}, "resps": [resps],
            "filtered_resps": [filtered or ["x"] * len(resps)]}  # fmt: skip


def mixed_folder(tmp_path: Path) -> Path:
    """An lm-eval output folder with one MATH-500 problem, 4 ProcessBench and 2 logic samples."""
    run = tmp_path / "out" / "m"
    math_doc = {"problem": "What is 2+2?", "answer": "4", "level": 1, "unique_id": "u"}
    jsonl(run / f"samples_thinkbench_math500_level1_{STAMP}.jsonl",
          [lm_eval_record(math_doc, [THINK])])  # fmt: skip
    step_labels = {"id": "math-0", "problem": "What is 2+2?", "steps": ["2+2=1"], "label": 0}
    jsonl(run / f"samples_thinkbench_processbench_math_{STAMP}.jsonl",
          [lm_eval_record(step_labels, ["<think>x</think>\\boxed{0}"])] * 4)  # fmt: skip
    logic = {"id": "board/merge/L0/0", "prompt": "Apply", "answer": ["x"], "logic_family": "b"}
    jsonl(run / f"samples_thinkbench_logic_en_execution_level0_{STAMP}.jsonl",
          [lm_eval_record(logic, ["{}"])] * 2)  # fmt: skip
    return tmp_path / "out"


def test_other_tasks_are_named_and_never_folded_into_overall(tmp_path, caplog):
    folder = mixed_folder(tmp_path)
    with caplog.at_level(logging.WARNING):
        result = analyze(options([str(folder)], tmp_path / "report", workers=1))
    assert [g.samples for g in result.groups] == [1, 1]  # Level 1 and overall: the one problem
    assert {s.task for s in result.skipped} == {
        "thinkbench_processbench_math", "thinkbench_logic_en_execution_level0"
    }  # fmt: skip
    warned = " ".join(r.getMessage() for r in caplog.records)
    assert "left out 4 samples of thinkbench_processbench_math" in warned
    assert "left out 2 samples of thinkbench_logic_en_execution_level0" in warned
    md = (tmp_path / "report" / "summary.md").read_text()
    assert "| m | thinkbench_processbench_math | 4 | a thinkbench processbench task |" in md
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    assert [(s["task"], s["samples"]) for s in summary["skipped"]] == [
        ("thinkbench_logic_en_execution_level0", 2), ("thinkbench_processbench_math", 4)
    ]  # fmt: skip


@pytest.mark.slow
def test_the_command_names_the_tasks_left_out_on_stderr(tmp_path):
    folder = mixed_folder(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "lm_eval_thinkbench.thinkbench", "analyze", str(folder),
         "-o", str(tmp_path / "o"), "--no-progress", "--no-plots", "--workers", "1"],
        capture_output=True, text=True, cwd=REPO,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "left out 4 samples of thinkbench_processbench_math" in proc.stderr
    assert "left out 2 samples of thinkbench_logic_en_execution_level0" in proc.stderr
    assert "analysed 1 samples" in proc.stdout and "6 samples of tasks that are not math" in (
        proc.stdout
    )


# ----- the tokenizer the run names --------------------------------------------------------------


@pytest.fixture(scope="module")
def word_tokenizer(tmp_path_factory) -> str:
    """A local Hugging Face tokenizer that counts whitespace-separated words."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    folder = tmp_path_factory.mktemp("word-tokenizer")
    PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]").save_pretrained(folder)
    return str(folder)


def test_counts_with_the_tokenizer_the_harness_records_name(tmp_path, word_tokenizer):
    """The harness's record and analyze's, by default, count the same tokens."""
    counter = get_counter(word_tokenizer)
    with Grader(deadline=5) as grader:
        logged = score_response(THINK, "4", ScoringConfig(), counter, grader).to_dict()
    assert logged["tokenizer"] == word_tokenizer
    doc = {"problem": "What is 2+2?", "answer": "4", "level": 1, "unique_id": "u"}
    jsonl(tmp_path / "m" / f"samples_thinkbench_math500_level1_{STAMP}.jsonl",
          [lm_eval_record(doc, [THINK], [json.dumps(logged)])])  # fmt: skip
    (tmp_path / "m" / f"results_{STAMP}.json").write_text(
        json.dumps({"config": {"model": "hf", "model_args": "pretrained=not/cached-model"}})
    )
    result = analyze(options([str(tmp_path / "m")], tmp_path / "report", workers=1))
    (scored,) = result.scored
    assert scored.record.tokenizer == word_tokenizer
    assert scored.record.reasoning_tokens == logged["reasoning_tokens"] == 8  # words, not BPE
    assert get_counter(None).count("Two and two.\n\nSo the answer is $4$.") != 8
    report = tmp_path / "report"
    assert f"Tokens counted with {word_tokenizer};" in (report / "summary.md").read_text()
    assert (report / "summary.csv").read_text().splitlines()[1].endswith(f",{word_tokenizer}")
    summary = json.loads((report / "summary.json").read_text())
    assert {g["tokenizer"] for g in summary["groups"]} == {word_tokenizer}
    assert summary["settings"]["tokenizer"] == "auto"


def test_a_tokenizer_not_available_offline_falls_back_with_one_warning(tmp_path, caplog):
    doc = {"problem": "What is 2+2?", "answer": "4", "level": 1}
    records = [lm_eval_record({**doc, "unique_id": f"u{k}"}, [THINK],
                              [json.dumps({"tokenizer": "no-such-org/no-such-tokenizer"})])
               for k in range(3)]  # fmt: skip
    jsonl(tmp_path / "m" / f"samples_thinkbench_math500_level1_{STAMP}.jsonl", records)
    with caplog.at_level(logging.WARNING):
        result = analyze(options([str(tmp_path / "m")], tmp_path / "report", workers=1))
    warnings = [r.getMessage() for r in caplog.records if "no-such-tokenizer" in r.getMessage()]
    assert len(warnings) == 1 and "not available offline" in warnings[0]
    assert {s.record.tokenizer for s in result.scored} == {QwenTiktokenCounter.name}


def test_an_explicit_tokenizer_counts_every_model(tmp_path, word_tokenizer):
    rows = [{"id": 1, "problem": "p", "gold": "4", "response": THINK}]
    a = jsonl(tmp_path / "a.jsonl", rows)
    b = jsonl(tmp_path / "b.jsonl", rows)
    result = analyze(options([str(a), str(b)], tmp_path / "r", tokenizer=word_tokenizer,
                             workers=1))  # fmt: skip
    assert {s.record.tokenizer for s in result.scored} == {word_tokenizer}
    with pytest.raises(ValueError, match="cannot load tokenizer"):
        analyze(options([str(a)], tmp_path / "r2", tokenizer=str(tmp_path / "nothing-here")))


# ----- golds from the dataset -------------------------------------------------------------------


@pytest.mark.slow
def test_gold_file_replaces_a_damaged_logged_gold(tmp_path, caplog):
    """Problem 419's gold as the Qwen2.5-Math scripts log it lost its row breaks; MATH-500's
    problem opens with an instruction the log's question lacks: matched all the same."""
    problems = [json.loads(line) for line in MATH500.open()]
    truth = problems[419]
    right = "So the vector is $\\boxed{\\begin{pmatrix} -7 \\\\ 16 \\\\ 5 \\end{pmatrix}}$."
    question = truth["problem"].removeprefix("Return your final response within \\boxed{}. ")
    assert question != truth["problem"]
    log_file = jsonl(tmp_path / "out.jsonl", [
        {"idx": 419, "question": question, "gt": "\\begin{pmatrix}-7165\\end{pmatrix}",
         "level": 4, "code": [right], "pred": ["x"], "score": [True]},
        {"idx": 9999, "question": "Not a MATH-500 problem at all?", "gt": "4", "level": 1,
         "code": ["\\boxed{4}"], "pred": ["4"], "score": [True]},
    ])  # fmt: skip
    damaged = analyze(options([str(log_file)], tmp_path / "a", workers=1))
    with caplog.at_level(logging.WARNING):
        fixed = analyze(options([str(log_file)], tmp_path / "b", gold=MATH500, workers=1))
    assert [s.checker_correct for s in damaged.scored] == [False, True]
    assert [s.checker_correct for s in fixed.scored] == [True, True]
    assert fixed.scored[0].sample.gold == truth["answer"]
    assert any("1 of 2 samples match no problem" in r.getMessage() for r in caplog.records)


def _plain_match(problem: str, golds: dict[str, str]) -> str | None:
    """What ``gold._Index.match`` answers, by comparing the problem with every record."""
    if problem in golds:
        return golds[problem]
    hits = [
        gold
        for text, gold in golds.items()
        if problem
        and (text.endswith(problem) or text.startswith(problem) or problem.endswith(text)
             or problem.startswith(text))
    ]  # fmt: skip
    return hits[0] if len(hits) == 1 else None


def test_the_gold_index_matches_as_a_scan_of_every_record():
    """The index only narrows the records compared: on texts that share beginnings and ends
    (short and long, prefixes and suffixes of each other, several matches) it answers as a
    comparison with every record does, and on the real MATH-500 problems with their
    instruction cut off."""
    rng = random.Random(7)
    words = ["a", "b", "ab", "Return", "x = 1.", "What is", "$2$?", " "]
    for _ in range(300):
        texts = ["".join(rng.choices(words, k=rng.randint(1, 12))) for _ in range(12)]
        golds = {t: str(i) for i, t in enumerate(texts)}
        index = gold_module._Index(golds)
        for t in texts:
            for problem in (t, t[rng.randint(0, len(t)) :], t[: rng.randint(0, len(t))], t + "!"):
                assert index.match(problem) == _plain_match(problem, golds), (problem, texts)
    real = gold_module.read_gold(MATH500)
    index = gold_module._Index(real)
    for text in list(real)[:100]:
        cut = text.removeprefix("Return your final response within \\boxed{}. ")
        assert index.match(cut) == _plain_match(cut, real) == real[text]


def test_a_sample_without_any_gold_asks_for_the_gold_file(tmp_path):
    problems = [json.loads(line) for line in MATH500.open()]
    east = next(i for i, p in enumerate(problems) if p["answer"] == "\\text{east}")
    question = problems[east]["problem"].removeprefix(
        "Return your final response within \\boxed{}. "
    )
    record = {"idx": east, "question": question, "gt": "", "level": 1, "pred": [""],
              "code": ["Facing $\\boxed{\\text{east}}$."], "score": [True]}  # fmt: skip
    log_file = jsonl(tmp_path / "out.jsonl", [record])
    with pytest.raises(InputFormatError, match=r"out.jsonl:1: no gold answer.*--gold FILE"):
        analyze(options([str(log_file)], tmp_path / "a", workers=1))
    result = analyze(options([str(log_file)], tmp_path / "b", gold=MATH500, workers=1))
    assert [s.checker_correct for s in result.scored] == [True]


def test_cli_takes_a_gold_file_and_auto_markers(tmp_path):
    from lm_eval_thinkbench.analyze.subcommand import options_from_args
    from lm_eval_thinkbench.thinkbench import build_parser

    args = build_parser().parse_args(["analyze", "x.jsonl", "--gold", str(MATH500)])
    parsed = options_from_args(args)
    assert parsed.gold == MATH500 and parsed.markers == "auto" and parsed.tokenizer is None


def test_an_lm_eval_response_at_its_logged_token_limit_is_truncated(tmp_path):
    """lm-eval's API models log no finish reason; the request's max_gen_toks is in the log."""
    run = tmp_path / "out" / "plain-model"
    doc = {"problem": "What is 2+2?", "answer": "4", "level": 1, "unique_id": "u"}
    complete, cut = "It is $\\boxed{4}$.", "Two and two " * 30
    records = [
        {**lm_eval_record({**doc, "unique_id": f"u{i}"}, [r]), "doc_id": i,
         "arguments": {"gen_args_0": {"arg_0": "prompt", "arg_1": {"max_gen_toks": 60}}}}
        for i, r in enumerate([complete, cut])
    ]  # fmt: skip
    jsonl(run / f"samples_thinkbench_math500_level1_{STAMP}.jsonl", records)
    result = analyze(options([str(tmp_path / "out")], tmp_path / "o", workers=1))
    truncated = sorted(
        (s.sample.response.content == cut, s.record.truncated) for s in result.scored
    )
    assert truncated == [(False, False), (True, True)]
