"""Scoring a response to a logic item: the block parser, the metrics, the replay, the groups."""

from __future__ import annotations

import difflib
import json
import math
import time
from types import SimpleNamespace

import pytest
from lm_eval.api.group import Group
from lm_eval.config.group import AggMetricConfig

from lm_eval_thinkbench.harness import groups
from lm_eval_thinkbench.harness.records import pooled_mean
from lm_eval_thinkbench.logic.filters import score_logic_response
from lm_eval_thinkbench.logic.items import make_item, to_doc
from lm_eval_thinkbench.logic.metrics import process_results
from lm_eval_thinkbench.logic.parse import FORMAT_ERROR, IF_ERROR, OK, parse_output
from lm_eval_thinkbench.logic.score import Reference, score_output, step_similarity
from lm_eval_thinkbench.logic.sets import generate_docs
from lm_eval_thinkbench.simulate.logic import logic_truth, respond_logic

GOOD = '{"answer": ["AB"], "process": ["A", "AB"]}'


def _parse(text: str | None, answer_only: bool = False):
    return parse_output(text, answer_only)


# ----- the block parser ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        f"Done.\n```json\n{GOOD}\n```",
        f"```JSON\n{GOOD}\n```\nThat is all.",
        f"```\n{GOOD}\n```",
        f"~~~json\n{GOOD}\n~~~",
        f"   ```json\n   {GOOD}\n   ```",
        f"````json\n{GOOD}\n````",
        f"```json\n{GOOD}",  # unterminated at the end of the reply
        f"```json\n{GOOD}```",  # closing fence glued to the JSON
        f"````markdown\n```json\n{GOOD}\n```\n````",  # quoted inside an outer block
        f"```\njson\n{GOOD}\n```",  # the tag on the first line inside
        f"```json title\n{GOOD}\n```",
        '```json\n{"answer": ["X"]}\n```\nOops, corrected:\n```json\n' + GOOD + "\n```",
        f"```python\nprint(1)\n```\n```json\n{json.dumps(json.loads(GOOD), indent=2)}\n```",
    ],
)
def test_tolerated_wrappings(text):
    parsed = _parse(text)
    assert (parsed.status, parsed.answer, parsed.process) == (OK, ["AB"], ["A", "AB"])


@pytest.mark.parametrize(
    ("text", "answer_only", "status"),
    [
        (None, False, IF_ERROR),  # truncated: no answer part
        ("", False, IF_ERROR),
        ("The answer is AB.", False, IF_ERROR),
        (GOOD, False, IF_ERROR),  # bare JSON: the required block is absent
        ("```python\nprint('AB')\n```", False, IF_ERROR),
        ('```json\n["AB"]\n```', False, IF_ERROR),  # a list ignores the requested structure
        ('```json\n"AB"\n```', True, IF_ERROR),
        ('```json\n{"answer": ["AB"],}\n```', True, FORMAT_ERROR),
        ("```json\n{'answer': ['AB']}\n```", True, FORMAT_ERROR),
        ("```json\n\n```", True, FORMAT_ERROR),
        ('```json\n{"answer": ["AB"]}\n```', False, FORMAT_ERROR),  # lacks "process"
        ('```json\n{"result": ["AB"]}\n```', True, FORMAT_ERROR),
        ('```json\n{"answer": "AB"}\n```', True, FORMAT_ERROR),
        ('```json\n{"answer": [12]}\n```', True, FORMAT_ERROR),
        ('```json\n{"answer": [["AB"]]}\n```', True, FORMAT_ERROR),
        ('```json\n{"answer": [true]}\n```', True, FORMAT_ERROR),
        ('```json\n{"answer": ["A"], "process": [null]}\n```', False, FORMAT_ERROR),
        ('```json\n{"answer": ["A"], "process": "A"}\n```', False, FORMAT_ERROR),
    ],
)
def test_errors_are_classified(text, answer_only, status):
    parsed = _parse(text, answer_only)
    assert parsed.status == status
    assert parsed.error


def test_answer_only_items_ignore_the_process_key():
    parsed = _parse('```json\n{"answer": ["A"], "process": [1]}\n```', answer_only=True)
    assert (parsed.status, parsed.answer, parsed.process) == (OK, ["A"], None)


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("x" * 1_000_000, IF_ERROR),  # 1 MB of prose
        ("```json\n" + "[" * 200_000 + "\n```", FORMAT_ERROR),  # deep nesting
        ("```json\n" + "{" * 200_000, FORMAT_ERROR),  # deep and unterminated
        ('```json\n{"answer": [' + "9" * 100_000 + "]}\n```", FORMAT_ERROR),  # huge integer
        ('```json\n{"answer": [1e999999]}\n```', FORMAT_ERROR),  # infinity
        ("```json\n" * 50_000, FORMAT_ERROR),  # nested fences without end
        ("```\n" * 100_001, IF_ERROR),  # many empty untagged blocks
        ('```json\n{"answer": [' + ",".join(["1"] * 200_000) + "]}\n```", FORMAT_ERROR),
        ("```json\n" + json.dumps({"answer": ["A" * 1_000_000]}) + "\n```", OK),
    ],
)
def test_hostile_outputs_are_classified_quickly(text, status):
    start = time.perf_counter()
    assert _parse(text, answer_only=True).status == status
    assert time.perf_counter() - start < 2.0


# ----- metrics ------------------------------------------------------------------------------


def _doc(family: str, subclass: str, level: int, index: int = 0) -> dict:
    return to_doc(make_item(family, subclass, level, index, 1), "en")


def _block(answer, process=None) -> str:
    out = {"answer": answer} if process is None else {"answer": answer, "process": process}
    return "Reasoning done.\n```json\n" + json.dumps(out) + "\n```"


def _score(doc: dict, text: str | None) -> dict:
    return score_output(Reference.from_doc(doc), text)


def test_step_similarity_is_difflib_without_autojunk_on_canonical_steps():
    ref = ["(1,2)", "(1,3)", "(2,3)"]
    hyp = ["( 1, 2 )", "（1，4）", "(2,3)"]  # spacing and full-width forms are normalised
    want = difflib.SequenceMatcher(
        None, "(1,2)\n(1,4)\n(2,3)", "(1,2)\n(1,3)\n(2,3)", autojunk=False
    ).ratio()
    assert step_similarity(hyp, ref) == pytest.approx(want)
    assert step_similarity(["a->b"], ["A→B"]) == 1.0
    # With autojunk, the frequent characters of a reference over 200 characters are junk: one
    # wrong digit in these six 4x4 boards would score about 0.05.
    boards = list(make_item("board", "merge", 3, 0, 1).puzzle.process)
    k = next(i for i, b in enumerate(boards) if "2" in b)
    typo = [*boards[:k], boards[k].replace("2", "4", 1), *boards[k + 1 :]]
    joined = "\n".join(typo), "\n".join(boards)
    assert difflib.SequenceMatcher(None, *joined).ratio() < 0.2
    assert step_similarity(typo, boards) > 0.99
    # Beyond 4 x the reference + 256 characters the model's serialisation is cut.
    cut = step_similarity([*ref[:2], ref[2] + "x" * 10_000], ref)
    assert cut == pytest.approx(2 * 17 / (17 + 4 * 17 + 256))


def test_perfect_answer_scores_one_everywhere():
    doc = _doc("towers", "hanoi", 2)
    rec = _score(doc, _block(doc["answer"], doc["process"]))
    assert rec["status"] == OK and rec["answer_correct"] and rec["answer_step_correct"]
    assert rec["step_similarity"] == 1.0 and rec["valid_process"]
    assert rec["first_invalid_step"] is None
    assert rec["plan_length"] == rec["optimal_length"] == len(doc["answer"])


def test_a_wrong_step_keeps_the_answer_and_is_located():
    doc = _doc("strings", "edit", 3)
    process = list(doc["process"])
    process[2] = process[2] + "Q"
    rec = _score(doc, _block(doc["answer"], process))
    assert rec["answer_correct"] and not rec["answer_step_correct"]
    assert 0 < rec["step_similarity"] < 1
    assert (rec["valid_process"], rec["first_invalid_step"]) == (False, 2)


def test_missing_and_extra_execution_steps_are_located():
    doc = _doc("matrix", "transform", 2)
    assert _score(doc, _block(doc["answer"], doc["process"][:-1]))["first_invalid_step"] == 3
    extra = [*doc["process"], "[[1]]"]
    assert _score(doc, _block(doc["answer"], extra))["first_invalid_step"] == 4


def test_answer_only_items_score_steps_from_the_answer():
    doc = _doc("cipher", "shift", 0)
    right = _score(doc, _block(doc["answer"]))
    assert right["answer_step_correct"] and right["step_similarity"] == 1.0
    wrong = _score(doc, _block([doc["answer"][0] + "Z"]))
    assert not wrong["answer_correct"] and 0 < wrong["step_similarity"] < 1
    assert wrong["first_invalid_step"] == 0


def test_planning_replay_accepts_any_valid_plan_and_reports_its_length():
    doc = _doc("routes", "maze", 2)
    state = json.loads(doc["state"])
    sub = Reference.from_doc(doc).sub
    # Go one step away and back, then follow the reference: legal, longer, not the answer.
    node = sub.start(state)
    first = next(m for m, _ in sub.successors(state, node) if m != doc["answer"][0])
    back = {"U": "D", "D": "U", "L": "R", "R": "L"}[first]
    moves = [first, back, *doc["answer"]]
    states = []
    for move in moves:
        node = dict(sub.successors(state, node))[move]
        states.append(sub.show(state, node))
    rec = _score(doc, _block(moves, states))
    assert rec["valid_process"] and rec["first_invalid_step"] is None
    assert not rec["answer_correct"]
    assert (rec["plan_length"], rec["optimal_length"]) == (
        len(doc["answer"]) + 2,
        len(doc["answer"]),
    )


def test_planning_replay_finds_illegal_moves_misreported_states_and_short_plans():
    doc = _doc("towers", "hanoi", 3)
    moves, states = list(doc["answer"]), list(doc["process"])
    illegal = [*moves[:3], "A->A", *moves[4:]]
    assert _score(doc, _block(illegal, states))["first_invalid_step"] == 3
    misreported = [*states[:5], "A[] B[] C[]", *states[6:]]
    rec = _score(doc, _block(moves, misreported))
    assert (rec["answer_correct"], rec["first_invalid_step"]) == (True, 5)
    short = _score(doc, _block(moves[:-1], states[:-1]))
    assert (short["valid_process"], short["first_invalid_step"]) == (False, len(moves) - 1)


def test_a_megabyte_of_legal_moves_is_scored_in_bounded_time():
    doc = _doc("routes", "maze", 3)
    sub, state = Reference.from_doc(doc).sub, json.loads(doc["state"])
    first = next(m for m, _ in sub.successors(state, sub.start(state)))
    back = {"U": "D", "D": "U", "L": "R", "R": "L"}[first]
    moves = [first, back] * 50_000 + list(doc["answer"])
    node, states = sub.start(state), []
    for move in moves:  # the true states, so the replay has to walk the whole plan
        node = dict(sub.successors(state, node))[move]
        states.append(sub.show(state, node))
    text = "<think>\nlong\n</think>\n" + _block(moves, states)
    assert len(text) > 1_000_000
    start = time.perf_counter()
    rec = score_logic_response(doc, text, "think")
    assert time.perf_counter() - start < 5.0
    assert rec["status"] == OK and rec["valid_process"] and not rec["answer_correct"]
    assert rec["plan_length"] == 100_000 + rec["optimal_length"]
    rec = score_logic_response(doc, "<think>\nx\n</think>\n" + _block(moves, None), "think")
    assert rec["status"] == FORMAT_ERROR  # "process" is required on a multi-step item


def test_sudoku_replay_accepts_fills_in_any_order_but_not_wrong_digits():
    doc = _doc("constraints", "sudoku", 2)
    sub, state = Reference.from_doc(doc).sub, json.loads(doc["state"])
    moves = doc["answer"][::-1]
    assert sub.replay(state, moves, None).valid
    wrong = moves[0][:-1] + str(int(moves[0][-1]) % 4 + 1)
    assert sub.replay(state, [wrong, *moves[1:]], None).first_invalid_step == 0


def test_errors_score_zero():
    doc = _doc("machines", "counter", 1)
    for text in (None, "no block", '```json\n{"answer": [1]}\n```'):
        rec = _score(doc, text)
        assert rec["status"] != OK
        assert not rec["answer_correct"] and rec["step_similarity"] == 0.0
        assert not rec["valid_process"]


def test_truncated_responses_have_no_answer_part():
    doc = _doc("grid", "walk", 1)
    block = _block(doc["answer"], doc["process"])
    assert score_logic_response(doc, f"<think>\nworking {block}", "think")["status"] == IF_ERROR
    assert score_logic_response(doc, f"<think>\nok\n</think>\n{block}", "think")["status"] == OK


def test_process_results_and_the_overall_aggregation():
    ok = {"status": OK, "answer_correct": True, "step_similarity": 1.0}
    records = [
        {**ok, "answer_step_correct": True, "valid_process": True},
        {**ok, "answer_correct": False, "step_similarity": 0.5, "answer_step_correct": False,
         "valid_process": False},
        {"status": IF_ERROR, "answer_correct": False, "step_similarity": 0.0,
         "answer_step_correct": False, "valid_process": False},
        {"status": FORMAT_ERROR, "answer_correct": False, "step_similarity": 0.0,
         "answer_step_correct": False, "valid_process": False},
    ]  # fmt: skip
    out = process_results({}, [records])
    assert out == {
        "answer_acc": 0.25,
        "step_acc": 0.375,
        "answer_step_acc": 0.25,
        "if_error": 0.25,
        "format_error": 0.25,
        "overall_acc": [1.0, 0.0],
        "valid_process": 0.25,
    }
    assert pooled_mean([[1.0, 0.0], [], [1.0]]) == pytest.approx(2 / 3)
    assert math.isnan(pooled_mean([[], []]))


# ----- group aggregation --------------------------------------------------------------------


def _leaf(n: int, if_error: float, format_error: float, overall: float, answer_step: float):
    return {
        "sample_len": n,
        "if_error,thinkbench": if_error,
        "format_error,thinkbench": format_error,
        "overall_acc,thinkbench": overall,
        "answer_step_acc,thinkbench": answer_step,
    }


def test_group_overall_is_pooled_over_valid_samples_at_every_level():
    groups.install()
    # Leaf a: 10 samples, 7 valid, 3.5 correct; leaf b: 30 samples, 15 valid, all correct;
    # leaf c: 5 samples, none valid.
    metrics = {
        "a": _leaf(10, 0.2, 0.1, 0.5, 0.35),
        "b": _leaf(30, 0.5, 0.0, 1.0, 0.5),
        "c": _leaf(5, 0.6, 0.4, math.nan, 0.0),
    }
    agg = [
        AggMetricConfig(metric=m, weight_by_size=True) for m in ("overall_acc", "answer_step_acc")
    ]
    meta = {"pooled_over_subset": {"overall_acc": {"excluding": ["if_error", "format_error"]}}}
    group = Group("g", aggregate_metric_list=agg, metadata=meta)
    group.get_all_tasks = lambda recursive=True: [SimpleNamespace(task_name=t) for t in metrics]
    out = group.aggregate(metrics)
    assert out["overall_acc,thinkbench"] == pytest.approx((3.5 + 15) / (7 + 15))
    # ... which is answer_step_acc over the share of valid samples, as it must be.
    assert out["answer_step_acc,thinkbench"] == pytest.approx(18.5 / 45)
    plain = Group("p", aggregate_metric_list=agg, metadata={})
    plain.get_all_tasks = group.get_all_tasks
    assert plain.aggregate(metrics)["overall_acc,thinkbench"] != out["overall_acc,thinkbench"]


def test_math_pooling_is_unchanged():
    leaves = [
        {"sample_len": 10, "exact_match,f": 0.5, "token_efficiency,f": 0.2},
        {"sample_len": 30, "exact_match,f": 0.1, "token_efficiency,f": 0.8},
    ]
    correct = groups.Subset(within=("exact_match",))
    assert groups.group_subset_mean(leaves, "token_efficiency", "f", correct) == pytest.approx(
        (0.2 * 5 + 0.8 * 3) / 8
    )
    spec = {"pooled_over_subset": {"token_efficiency": {"within": ["exact_match"]}}}
    assert groups.declared_subsets(spec) == {"token_efficiency": correct}


@pytest.mark.parametrize("spec", [{}, {"within": ["a"], "excluding": ["b"]}, ["a"], {"over": []}])
def test_malformed_subset_declarations_fail_clearly(spec):
    with pytest.raises(ValueError, match="pooled_over_subset: m"):
        groups.declared_subsets({"pooled_over_subset": {"m": spec}})


# ----- the simulated model tells the truth ---------------------------------------------------


@pytest.mark.slow
def test_simulated_replies_score_as_their_truth_says():
    docs = list(generate_docs())
    scenarios = set()
    for seed in (0, 1):
        for doc in docs:
            truth = logic_truth(doc, seed)
            scenarios.add(truth.scenario)
            rec = score_logic_response(doc, respond_logic(doc, seed).inline(), "think")
            assert rec["status"] == truth.status, (doc["id"], truth.scenario)
            assert rec["answer_correct"] == truth.answer_correct, (doc["id"], truth.scenario)
            assert rec["valid_process"] == truth.valid_process, (doc["id"], truth.scenario)
    assert len(scenarios) == 10
