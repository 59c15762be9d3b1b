"""Hostile input files never cost a run: each is one clear error naming the file (and line),
or a recorded skip, never a traceback or a hang.

Deep JSON (Python's parser raises RecursionError, which ``except ValueError`` misses), lone
surrogates, bytes that are not UTF-8, fields of the wrong JSON type, and paths that are not
regular files (a FIFO would block the reader forever) in every reader of local files: analyze's
four formats and ``--gold``, the dataset loaders, ``thinkbench-replay``, ``thinkbench-prm``.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from lm_eval_thinkbench import thinkbench
from lm_eval_thinkbench.analyze.gold import read_gold
from lm_eval_thinkbench.analyze.readers import read_path
from lm_eval_thinkbench.analyze.samples import InputFormatError
from lm_eval_thinkbench.critic import data, prm
from lm_eval_thinkbench.datafiles import MAX_DEPTH, DatasetError, read_records
from lm_eval_thinkbench.models.replay import SampleLogError, find_sample_files, load_samples

THINK = "<think>So it is 4.</think>\\boxed{4}"
#: Too deep for Python's parser (RecursionError), and deep enough to parse but break later.
TOO_DEEP = ["[" * 100_000, "[" * 900 + "]" * 900]
DEEP_VALUE = json.loads("[" * 900 + "]" * 900)

LM_EVAL = {
    "doc_id": 0,
    "doc": {"problem": "2+2?", "answer": "4", "level": 2, "unique_id": "u"},
    "target": "4",
    "arguments": {"gen_args_0": {"arg_0": "2+2?", "arg_1": {"max_gen_toks": 64}}},
    "resps": [[THINK]],
    "filtered_resps": [['{"correct": true}']],
    "exact_match": 1.0,
}
EVALSCOPE = {
    "index": 0,
    "target": ["4"],
    "messages": [
        {"role": "user", "content": "What is 2+2?"},
        {"role": "assistant", "content": [{"type": "reasoning", "reasoning": "So 4."},
                                          {"type": "text", "text": "\\boxed{4}"}]},
    ],
    "sample_score": {
        "score": {"value": {"acc": 1.0}, "main_score_name": "acc"},
        "sample_id": 0,
        "generation_index": 0,
        "sample_metadata": {"question_id": "q0", "solution": "\\boxed{4}"},
    },
}  # fmt: skip
LEGACY = {
    "id": "l1",
    "raw_input": {"problem": "p", "answer": "4", "level": "Level 3"},
    "choices": [{"message": {"role": "assistant", "content": THINK}, "finish_reason": "stop",
                 "review": {"gold": "4", "result": True}}],
}  # fmt: skip
PREDICTION = {
    "index": 0,
    "model_output": {"choices": [{"message": {"role": "assistant", "content": "x"},
                                  "stop_reason": "max_tokens"}]},
    "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "x"}],
    "metadata": {"question_id": "q0", "solution": "$\\boxed{4}$"},
}  # fmt: skip
QWEN = {"idx": 0, "question": "2+2?", "gt": "4", "level": "2", "code": [THINK], "score": [True]}
PLAIN = {"id": 1, "problem": "p", "gold": "4", "response": THINK, "level": 2, "model": "m",
         "task": "t", "repeat": 0, "correct": True, "finish_reason": "stop"}  # fmt: skip
PLAIN_SPLIT = {"id": 1, "problem": "p", "gold": "4", "reasoning": "r", "answer": "a"}
#: (record, where it goes below a run folder)
FORMATS = {
    "lm-eval": (LM_EVAL, "samples_thinkbench_math500_2026-01-01T00-00-00.jsonl"),
    "evalscope": (EVALSCOPE, "reviews/m/math_500_Level 1.jsonl"),
    "evalscope-legacy": (LEGACY, "reviews/m/math_500_Level 3.jsonl"),
    "evalscope-prediction": (PREDICTION, "predictions/m/math_500_Level 2.jsonl"),
    "qwen-math": (QWEN, "q.jsonl"),
    "plain": (PLAIN, "p.jsonl"),
    "plain-split": (PLAIN_SPLIT, "p.jsonl"),
}
#: Every JSON type, the extremes of the numbers, a deep value.
VALUES = [None, True, -3, 10**400, float("nan"), "", "x", [1, "a"], {"a": 1}, DEEP_VALUE]


def write(path: Path, *lines: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join((x if isinstance(x, bytes) else x.encode()) + b"\n" for x in lines))
    return path


class Hung(BaseException):
    """Raised in a reader that blocks: not an OSError (TimeoutError is one), which the reader
    would take for a read error."""


@contextmanager
def within(seconds: float) -> Iterator[None]:
    """Fail instead of hanging (a reader that opens a FIFO blocks in open() until a writer
    comes)."""

    def hung(*_: object) -> None:
        raise Hung(f"still blocked after {seconds} s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def special_files(folder: Path, prefix: str = "") -> dict[str, Path]:
    """A path of each kind that is not a regular file."""
    folder.mkdir(parents=True, exist_ok=True)
    kinds = ("fifo", "dir", "loop", "dangling")
    paths = {kind: folder / f"{prefix}{kind}.jsonl" for kind in kinds}
    os.mkfifo(paths["fifo"])
    paths["dir"].mkdir()
    paths["loop"].symlink_to(paths["loop"].name)
    paths["dangling"].symlink_to("nowhere.jsonl")
    return paths


def paths_in(value: object, prefix: tuple = ()) -> Iterator[tuple]:
    """The path of every field below ``value`` (keys and list positions)."""
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return
    for key, child in items:
        yield (*prefix, key)
        yield from paths_in(child, (*prefix, key))


# ----- the shared JSON reader ----------------------------------------------------------------


@pytest.mark.parametrize("line", TOO_DEEP, ids=["unparsable", "parsable"])
def test_deep_json_is_one_error_naming_file_and_line(tmp_path, line):
    path = write(tmp_path / "d.jsonl", '{"a": 1}', line)
    with pytest.raises(DatasetError, match=rf"{path}:2: not valid JSON \(nested deeper than"):
        read_records(path, "records")
    array = tmp_path / "d.json"
    array.write_text("[" + line)
    with pytest.raises(DatasetError, match=f"{array}: not valid JSON"):
        read_records(array, "records")


def test_the_depth_limit_is_exact(tmp_path):
    def nested(depth: int) -> str:  # an object holding depth - 1 nested arrays
        return '{"a": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"

    assert read_records(write(tmp_path / "ok.jsonl", nested(MAX_DEPTH)), "x")
    with pytest.raises(DatasetError, match=f"nested deeper than {MAX_DEPTH} levels"):
        read_records(write(tmp_path / "bad.jsonl", nested(MAX_DEPTH + 1)), "x")


def test_text_is_utf8_line_by_line(tmp_path):
    path = write(tmp_path / "u.jsonl", '{"a": "ok"}', b'{"a": "\xff"}')
    with pytest.raises(DatasetError, match=f"cannot read {path}: line 2 is not UTF-8"):
        read_records(path, "records")
    # A lone surrogate escape is U+FFFD; a raw U+2028 inside a string does not split a line.
    path = write(tmp_path / "s.jsonl", '{"a": "x\\ud800y", "b": "1\u20282"}')
    assert read_records(path, "records") == [{"a": "x\ufffdy", "b": "1\u20282"}]


@pytest.mark.parametrize("kind", ["fifo", "dir", "loop", "dangling"])
def test_a_path_that_is_not_a_regular_file_is_refused_unopened(tmp_path, kind):
    path = special_files(tmp_path)[kind]
    with within(10), pytest.raises(DatasetError, match=f"cannot read {path}: ") as err:
        read_records(path, "records")
    assert "\n" not in str(err.value)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_is_one_error(tmp_path):
    path = write(tmp_path / "x.jsonl", '{"a": 1}')
    path.chmod(0)
    with pytest.raises(DatasetError, match="Permission denied"):
        read_records(path, "records")


# ----- analyze's readers ---------------------------------------------------------------------


def run_folder(tmp_path: Path, fmt: str, record: object) -> Path:
    path = tmp_path / "run" / FORMATS[fmt][1]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record) + "\n")
    return tmp_path / "run"


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_field_of_every_format_takes_any_json_type(tmp_path, fmt):
    """Each field set to each JSON type: the run reads, or fails with an InputFormatError
    naming the file and line; whatever is read holds only text that can be written out."""
    base, _ = FORMATS[fmt]
    n = 0
    for field in paths_in(base):
        for value in VALUES:
            record = copy.deepcopy(base)
            target = record
            for key in field[:-1]:
                target = target[key]
            target[field[-1]] = value
            n += 1
            try:
                samples = read_path(run_folder(tmp_path / str(n), fmt, record)).samples
            except InputFormatError as exc:
                assert f"{tmp_path / str(n)}" in str(exc), (field, value, exc)
                continue
            for s in samples:
                text = (s.model, s.task, s.subset, s.sample_id, s.problem, s.gold, s.where)
                "".join((*text, s.response.content, s.response.reasoning or "")).encode()
    assert n >= len(base) * len(VALUES)


@pytest.mark.parametrize(
    ("fmt", "field", "value", "message"),
    [
        ("evalscope", ("sample_score",), [1], r"'sample_score' is an array, expected an object"),
        ("evalscope", ("sample_score", "generation_index"), "x", "'generation_index' is a string"),
        ("evalscope", ("sample_score", "score", "main_score_name"), ["acc"], "'main_score_name'"),
        ("evalscope", ("messages", 1, "content"), 7, "'content' is a number"),
        ("evalscope-prediction", ("model_output", "choices", 0, "stop_reason"), {}, "stop_reason"),
        ("evalscope-legacy", ("choices", 0, "review", "gold"), [4], r"choices\[0\].review.gold"),
        ("plain", ("repeat",), "2", "'repeat' is a string, expected a non-negative integer"),
        ("plain", ("response",), {"text": "x"}, "'response' is an object"),
        ("plain", ("correct",), "yes", "'correct' is a string, expected true, false or null"),
        ("plain", ("level",), [2], "'level' is an array"),
        ("qwen-math", ("code",), [[THINK]], r"'code\[0\]' is an array"),
        ("qwen-math", ("idx",), {"i": 0}, "'idx' is an object"),
        ("lm-eval", ("resps",), [[{"content": "x"}]], r"'resps\[0\]\[0\]' is an object"),
        ("lm-eval", ("doc", "unique_id"), None, None),  # falls back to doc_id 0
        ("lm-eval", ("doc_id",), [0], None),  # not used: the doc has an id
    ],
)
def test_wrong_field_types_name_file_line_and_field(tmp_path, fmt, field, value, message):
    record = copy.deepcopy(FORMATS[fmt][0])
    target = record
    for key in field[:-1]:
        target = target[key]
    target[field[-1]] = value
    folder = run_folder(tmp_path, fmt, record)
    if message is None:
        assert read_path(folder).samples
        return
    with pytest.raises(InputFormatError, match=message) as err:
        read_path(folder)
    assert f"{folder / FORMATS[fmt][1]}:1: " in str(err.value)


def test_lm_eval_doc_id_is_type_checked_when_it_is_the_id(tmp_path):
    record = copy.deepcopy(LM_EVAL)
    del record["doc"]["unique_id"]
    record["doc_id"] = {"n": 0}
    with pytest.raises(InputFormatError, match=":1: 'doc_id' is an object"):
        read_path(run_folder(tmp_path, "lm-eval", record))


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("line", TOO_DEEP, ids=["unparsable", "parsable"])
def test_deep_json_in_any_format_names_file_and_line(tmp_path, fmt, line):
    folder = run_folder(tmp_path, fmt, FORMATS[fmt][0])
    path = folder / FORMATS[fmt][1]
    with path.open("a") as f:
        f.write(line + "\n")
    with pytest.raises(InputFormatError, match=f"{path}:2: not valid JSON"):
        read_path(folder)


def test_qwen_math_lists_written_as_deep_strings_are_refused(tmp_path):
    record = {**QWEN, "code": "[" * 100_000}  # neither JSON nor a literal: one response
    (sample,) = read_path(run_folder(tmp_path, "qwen-math", record)).samples
    assert sample.response.content == "[" * 100_000
    nested = {**QWEN, "code": json.dumps([[THINK]])}
    with pytest.raises(InputFormatError, match=r"'code\[0\]' is an array"):
        read_path(run_folder(tmp_path / "n", "qwen-math", nested))


def test_surrogates_and_bad_bytes_in_a_run(tmp_path):
    folder = run_folder(tmp_path, "plain", {**PLAIN, "problem": "a\ud800b"})
    (sample,) = read_path(folder).samples
    assert sample.problem == "a\ufffdb"
    path = write(tmp_path / "bad" / "p.jsonl", json.dumps(PLAIN), b"\xc3(")
    with pytest.raises(InputFormatError, match=f"cannot read {path}: line 2 is not UTF-8"):
        read_path(path.parent)


@pytest.mark.parametrize("fmt", ["lm-eval", "evalscope", "plain"])
def test_special_files_in_a_run_folder_are_skipped_with_a_warning(tmp_path, fmt, caplog):
    folder = run_folder(tmp_path, fmt, FORMATS[fmt][0])
    real = folder / FORMATS[fmt][1]
    odd = {kind: real.with_name(real.name.replace(".jsonl", f"_{kind}.jsonl")) for kind in "abcd"}
    os.mkfifo(odd["a"])
    odd["b"].mkdir()
    odd["c"].symlink_to(odd["c"].name)
    odd["d"].symlink_to("nowhere.jsonl")
    with within(10), caplog.at_level(logging.WARNING):
        samples = read_path(folder).samples
    assert len(samples) == 1
    for path in odd.values():
        assert f"skipping {path}: " in caplog.text


@pytest.mark.parametrize("kind", ["fifo", "dir", "loop", "dangling"])
def test_a_named_run_that_is_not_a_file_is_one_line_of_the_command(tmp_path, kind, capsys):
    path = special_files(tmp_path)[kind]
    with within(10):
        status = thinkbench.main(["analyze", str(path), "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert status == 2 and str(path) in err and err.count("\n") == 1
    if kind != "dir":  # a folder is read as a folder of logs: it holds none
        assert f"cannot read {path}: " in err


def test_gold_file_answers_of_the_wrong_type(tmp_path):
    path = write(tmp_path / "gold.jsonl", json.dumps({"problem": "p", "answer": [1]}))
    with pytest.raises(InputFormatError, match=f"--gold {path}: record 1 lacks"):
        read_gold(path)
    fifo = special_files(tmp_path / "s")["fifo"]
    with within(10), pytest.raises(InputFormatError, match=f"--gold: cannot read {fifo}"):
        read_gold(fifo)


@pytest.mark.slow
def test_analyze_reports_every_sample_of_a_hostile_run(tmp_path, capsys):
    """Hostile responses (and a hostile folder) through the whole command: every sample is in
    the report."""
    responses = [
        "<think>" + "[" * 5000 + "</think>\\boxed{1}",
        '{"thinkbench_response": 1, "content": ' + "[" * 100_000,
        "<think>x\ud800</think>\\boxed{\ud800}",
        None,
        "<think>" + "9" * 5000 + "</think>\\boxed{" + "9" * 5000 + "}",
    ]
    folder = tmp_path / "run"
    lines = [json.dumps({**PLAIN, "id": i, "response": r}) for i, r in enumerate(responses)]
    write(folder / "p.jsonl", *lines)
    os.mkfifo(folder / "stuck.jsonl")
    out = tmp_path / "out"
    with within(120):
        status = thinkbench.main(
            [
                "analyze",
                str(folder),
                "-o",
                str(out),
                "--no-plots",
                "--no-progress",
                "--workers",
                "1",
            ]
        )
    assert status == 0, capsys.readouterr().err
    rows = [json.loads(line) for line in (out / "per_sample.jsonl").read_text().splitlines()]
    assert len(rows) == len(responses)


# ----- thinkbench-replay, the dataset loaders, thinkbench-prm ---------------------------------


def test_replay_sample_logs(tmp_path, caplog):
    record = {"doc_id": 0, "doc_hash": "h", "arguments": {"gen_args_0": {"arg_0": "p"}},
              "resps": [["r"]]}  # fmt: skip
    good = write(tmp_path / "run" / "samples_t_x.jsonl", json.dumps(record))
    special_files(tmp_path / "run" / "odd", "samples_")
    with within(10), caplog.at_level(logging.WARNING):
        assert find_sample_files(str(tmp_path / "run")) == [good]
    assert caplog.text.count("thinkbench-replay: skipping") == 4
    with pytest.raises(FileNotFoundError, match="names no samples"):
        find_sample_files(str(tmp_path / "run" / "odd" / "samples_fifo.jsonl"))
    for line in TOO_DEEP:
        deep = write(tmp_path / f"samples_d{len(line)}.jsonl", json.dumps(record), line)
        with pytest.raises(SampleLogError, match=f"{deep}:2: not valid JSON"):
            load_samples([deep])
    bad_id = write(tmp_path / "samples_i.jsonl", json.dumps({**record, "doc_id": [0]}))
    with pytest.raises(SampleLogError, match=f"{bad_id}:1: doc_id is list"):
        load_samples([bad_id])


def test_processbench_rows_with_hostile_values_are_kept_with_a_data_error(tmp_path):
    rows = [
        {"id": "a", "problem": "p", "steps": ["s"], "label": "9" * 5000},
        {"id": "b", "problem": "p", "steps": ["s"], "label": -1, "final_answer_correct": "maybe"},
        {"id": "c", "problem": "p", "steps": ["s"], "label": 0},
    ]
    (tmp_path / "gsm8k.json").write_text(json.dumps(rows))
    docs = data.processbench_docs("gsm8k", tmp_path)
    assert [bool(d["data_error"]) for d in docs] == [True, True, False]
    assert "final_answer_correct must be true or false" in docs[1]["data_error"]
    (tmp_path / "math.json").write_text("[" * 100_000)
    with pytest.raises(DatasetError, match=r"math\.json: not valid JSON"):
        data.processbench_docs("math", tmp_path)
    os.mkfifo(tmp_path / "omnimath.json")
    with within(10), pytest.raises(DatasetError, match=r"omnimath\.json: not a regular file"):
        data.processbench_docs("omnimath", tmp_path)


def test_deltabench_rows_with_hostile_values(tmp_path):
    row = {"id": "x", "task_l1": "math", "question": "q",
           "sections_content": "section1: a\nsection" + "9" * 5000 + ": b",
           "reason_error_section_numbers": "[" * 5000 + "]" * 5000,
           "reason_unuseful_section_numbers": "[1]"}  # fmt: skip
    path = write(tmp_path / "delta.jsonl", json.dumps(row))
    (doc,) = data.deltabench_docs(path)
    assert doc["n_sections"] == 1 and "reason_error_section_numbers" in doc["data_error"]


def test_prm_score_lines_that_break_a_parser_are_skipped_and_named(tmp_path):
    path = write(
        tmp_path / "scores.jsonl",
        json.dumps({"id": "a", "scores": [0.9, 0.1]}),
        "[" * 100_000,
        b'{"id": "\xff"}',
        json.dumps({"id": ["b"], "scores": [1]}),
        json.dumps({"id": "c", "scores": [10**400, 0.5, 0.2]}),
    )
    score_file = prm.read_scores(path)
    assert score_file.scores == {"a": [0.9, 0.1], "c": [None, 0.5, 0.2]}
    assert [p.split(": ", 1)[1] for p in score_file.problems] == [
        "not valid JSON (nested deeper than 100 levels)",
        "not UTF-8 text",
        "id is not a string or an integer",
    ]
    assert prm.present([10**400, 1]) == [(1, 1.0)]
    fifo = special_files(tmp_path / "s")["fifo"]
    with within(10), pytest.raises(DatasetError, match=f"cannot read {fifo}: not a regular"):
        prm.read_scores(fifo)
