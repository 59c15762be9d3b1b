"""The rule locator against hand annotations of real traces (FIRST_CORRECT_PROTOCOL.md).

Floors are what the locator measures minus a little (``benchmarks/locator_truth.py`` prints the
figures): the dev set (20 Sky-T1 traces, two annotation passes), the design set (102, one pass,
read while the rules were designed), held-out 1 and 2 (36 and 38 traces annotated blind) and
held-out 3 to 8 (44, 40, 40, 38, 36 and 36 Qwen2.5-Math-7B responses); each held-out set was
measured once unseen and then used to revise the rules for its misses (held-out 8 not yet).
Held-out 9 (64 ProcessBench solutions by 12 instruction-tuned models, annotated blind) measured
56/64 exact, 62/64 within one step and a mean efficiency error of 0.012 when first run unseen.
The scripted judge that answers the annotated step must agree on every trace, which checks
that the judge path maps an index to its step and tokens.
"""

import json
from pathlib import Path

import pytest
from support.data import SHARED_DATA

from lm_eval_thinkbench.analyze.truth import measure, read_annotations, scoring_step, summary
from lm_eval_thinkbench.math.grader import Grader
from lm_eval_thinkbench.tokens import get_counter

TRACES = SHARED_DATA / "traces" / "skythought_sky-t1-27b_math500.jsonl"
MATH500 = SHARED_DATA / "math500" / "test.jsonl"
DEV = SHARED_DATA / "traces" / "first_correct_dev.jsonl"
BENCH_DATA = Path(__file__).resolve().parents[1] / "benchmarks" / "data"
SETS = {
    "dev": DEV,
    "design": BENCH_DATA / "first_correct_design.jsonl",
    "heldout": BENCH_DATA / "first_correct_heldout.jsonl",
    "heldout2": BENCH_DATA / "first_correct_heldout2.jsonl",
    "heldout3": BENCH_DATA / "first_correct_heldout3.jsonl",
    "heldout4": BENCH_DATA / "first_correct_heldout4.jsonl",
    "heldout5": BENCH_DATA / "first_correct_heldout5.jsonl",
    "heldout6": BENCH_DATA / "first_correct_heldout6.jsonl",
    "heldout7": BENCH_DATA / "first_correct_heldout7.jsonl",
    "heldout8": BENCH_DATA / "first_correct_heldout8.jsonl",
    "heldout9": BENCH_DATA / "first_correct_heldout9.jsonl",
    "heldout10": BENCH_DATA / "first_correct_heldout10.jsonl",
    "heldout11": BENCH_DATA / "first_correct_heldout11.jsonl",
    "heldout12": BENCH_DATA / "first_correct_heldout12.jsonl",
    "heldout13": BENCH_DATA / "first_correct_heldout13.jsonl",
    "heldout14": BENCH_DATA / "first_correct_heldout14.jsonl",
}


@pytest.fixture(scope="module")
def grader():
    with Grader(deadline=5.0) as g:
        yield g


@pytest.fixture(scope="module")
def counter():
    return get_counter(None)


def _data(path):
    if not (path.exists() and TRACES.exists() and MATH500.exists()):
        pytest.skip(f"shared data not found ({path})")
    return read_annotations(path, TRACES, MATH500)


def _same_steps(row, item):
    """The scoring path's steps are the annotation's, or the annotated index was mapped onto
    them (``truth.scoring_step``: a blank line holding a carriage return, ``\\n\\r\\n`` in a
    Python block, is a break for the protocol's ``\\n\\s*\\n`` only)."""
    text = item.response if isinstance(item.response, str) else ""
    return row.steps == item.n_steps or "\n\r\n" in text


def test_annotated_steps_map_onto_the_scoring_steps():
    """The protocol cuts at a blank line holding a carriage return, the scoring splitter does
    not: protocol paragraph 2 (``c``) is scoring step 1 here, and -1 stays -1."""
    thought = "a\n\nb\n\r\nc\n\nd"
    assert [scoring_step(thought, i) for i in range(-1, 4)] == [-1, 0, 1, 1, 2]


@pytest.mark.parametrize(
    ("name", "exact", "near", "error"),
    [
        ("dev", 19 / 20, 19 / 20, 0.02),
        ("design", 0.93, 0.93, 0.03),
        ("heldout", 0.86, 0.89, 0.03),
        ("heldout2", 0.86, 0.86, 0.03),
        ("heldout3", 0.90, 0.97, 0.015),
        ("heldout4", 0.92, 0.95, 0.02),
        ("heldout5", 0.88, 0.92, 0.035),
        ("heldout6", 0.73, 0.86, 0.055),
        ("heldout7", 0.75, 0.88, 0.05),
        ("heldout8", 0.88, 0.91, 0.025),
        ("heldout9", 0.88, 0.96, 0.02),
        ("heldout10", 0.80, 0.85, 0.035),
        ("heldout11", 0.82, 0.95, 0.02),
        ("heldout12", 0.89, 0.92, 0.02),
        ("heldout13", 0.84, 0.84, 0.045),
        ("heldout14", 0.89, 0.92, 0.025),
    ],
)
@pytest.mark.slow
def test_rule_locator_agrees_with_annotations(grader, counter, name, exact, near, error):
    items = _data(SETS[name])
    rows = [measure(item, grader, counter) for item in items]
    assert all(_same_steps(r, item) for r, item in zip(rows, items, strict=True))
    s = summary(rows)
    misses = [(r.idx, r.annotated, r.chosen, r.rule) for r in rows if not r.exact]
    assert s["exact"] >= exact * s["n"], misses
    assert s["within_one"] >= near * s["n"], misses
    assert s["mean_efficiency_error"] < error
    assert all(r.quote for r in rows if r.chosen >= 0)  # the record says what matched


def test_scripted_judge_maps_indices_to_steps(grader, counter):
    rows = [measure(item, grader, counter, "judge") for item in _data(DEV)]
    s = summary(rows)
    assert s["exact"] == s["n"] and s["mean_efficiency_error"] == 0.0


def test_r1_traces_are_read_from_their_source_file(grader, counter, tmp_path):
    """A record's ``source`` names a DeepSeek-R1 file beside the Sky-T1 one: its thinking and
    answer come as separate fields, and its problem and gold from the file itself."""
    _data(DEV)
    path = tmp_path / "r1.jsonl"
    record = {"source": "r1_openrouter_math_train.json", "idx": 0, "first_correct_step": 8}
    path.write_text(json.dumps(record) + "\n")
    (item,) = read_annotations(path, TRACES, MATH500)
    assert item.gold == "0" and "a+b" in item.problem.replace(" ", "")
    row = measure(item, grader, counter)
    assert (row.annotated, row.chosen, row.rule) == (8, 8, "asked")
    assert row.quote == "a + b = (-3) + 3 = 0"


def test_processbench_solutions_are_read_from_their_subset_file(grader, counter, tmp_path):
    """A record's ``source`` names a ProcessBench subset: the solution is its steps joined by
    blank lines (step i is ProcessBench's step i), the gold is the record's own, and a record
    without a gold or naming another solution's ``id`` is refused."""
    _data(DEV)
    path = tmp_path / "pb.jsonl"
    record = {"source": "gsm8k.json", "idx": 202, "id": "gsm8k-202", "gold": "34"}
    path.write_text(json.dumps({**record, "first_correct_step": 1}) + "\n")
    (item,) = read_annotations(path, TRACES, MATH500)
    assert item.gold == "34" and item.problem.startswith("Two friends are playing pick-up")
    assert isinstance(item.response, str) and item.response.count("\n\n") == 1
    for locator in ("rule", "judge"):
        row = measure(item, grader, counter, locator)
        assert (row.steps, row.annotated, row.chosen) == (2, 1, 1)
    for bad, message in (
        ({**record, "gold": ""}, "needs its gold"),
        ({**record, "id": "gsm8k-3"}, "is not the solution's 'gsm8k-202'"),
    ):
        path.write_text(json.dumps({**bad, "first_correct_step": 1}) + "\n")
        with pytest.raises(ValueError, match=message):
            read_annotations(path, TRACES, MATH500)


def test_bad_annotation_files_name_the_record(tmp_path):
    _data(DEV)  # skips without the shared data
    path = tmp_path / "ann.jsonl"
    path.write_text(json.dumps({"idx": 2, "first_correct_step": 3}) + "\n" + '{"idx": "x"}\n')
    with pytest.raises(ValueError, match="record 2: needs an integer idx"):
        read_annotations(path, TRACES, MATH500)
    path.write_text(json.dumps({"idx": 100000, "first_correct_step": 3}) + "\n")
    with pytest.raises(ValueError, match="idx 100000 is not in"):
        read_annotations(path, TRACES, MATH500)
    path.write_text(json.dumps({"source": "../x.json", "idx": 0, "first_correct_step": 3}))
    with pytest.raises(ValueError, match="is not a file name"):
        read_annotations(path, TRACES, MATH500)
    with pytest.raises(ValueError, match="locator must be one of"):
        measure(read_annotations(DEV, TRACES, MATH500)[0], None, None, "oracle")


def test_traces_outside_shared_are_read_from_a_further_folder(grader, counter, tmp_path):
    """Held-out 15 annotates SkyThought outputs on AMC 2023 that shared/ does not hold: a record
    whose ``benchmark`` is not MATH-500 is found in a folder passed as ``folders``, takes its
    problem from its row's ``question`` and its gold from the record (none: refused)."""
    _data(DEV)
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    thought = "Twice 13 is 26.\n\nSo the answer is 26."
    row = {
        "idx": 0,
        "question": "What is twice $13$?",
        "code": [f"<|begin_of_thought|>\n\n{thought}\n\n<|end_of_thought|>\n\n\\boxed{{26}}"],
    }
    (outputs / "amc.jsonl").write_text(json.dumps(row) + "\n")
    path = tmp_path / "ann.jsonl"
    record = {"source": "amc.jsonl", "benchmark": "amc23", "idx": 0, "gold": "26"}
    path.write_text(json.dumps({**record, "first_correct_step": 0}) + "\n")
    with pytest.raises(ValueError, match=r"source 'amc\.jsonl' is not in"):
        read_annotations(path, TRACES, MATH500)
    (item,) = read_annotations(path, TRACES, MATH500, [outputs])
    assert (item.problem, item.gold) == (row["question"], "26")
    assert (measure(item, grader, counter).chosen, item.step) == (0, 0)
    path.write_text(json.dumps({**record, "gold": "", "first_correct_step": 0}) + "\n")
    with pytest.raises(ValueError, match="outside MATH-500 needs its gold"):
        read_annotations(path, TRACES, MATH500, [outputs])
