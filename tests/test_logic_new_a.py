"""The set-version-2 subclasses covering LogicGame categories (part A): rules by hand (against
LogicGame's own references where it publishes them), fresh items replaying as valid, steps
growing with the level, and scripted replies of known truth scored as expected.

The 10,000-item replay of every subclass is ``test_ten_thousand_fresh_items_per_subclass_...``
in ``test_logic_generation.py`` (marked slow for these subclasses).
"""

from __future__ import annotations

import json
import time
from fractions import Fraction
from statistics import fmean

import pytest

from lm_eval_thinkbench.logic import registry
from lm_eval_thinkbench.logic.execution.cards import (
    CHI,
    DRAW,
    HU,
    LOSE,
    PENG,
    WIN,
    call,
    inferred,
    is_hu,
    outcome,
)
from lm_eval_thinkbench.logic.execution.editor import edit
from lm_eval_thinkbench.logic.execution.equations import (
    constraint_text,
    parse_expression,
    solutions,
    tree_steps,
)
from lm_eval_thinkbench.logic.execution.grids import pooled, prune, uniform_blocks
from lm_eval_thinkbench.logic.execution.recipes import simulate
from lm_eval_thinkbench.logic.execution.scanning import insert_after, split_blocks
from lm_eval_thinkbench.logic.filters import score_logic_response
from lm_eval_thinkbench.logic.items import make_item, to_doc
from lm_eval_thinkbench.logic.metrics import process_results
from lm_eval_thinkbench.logic.parse import FORMAT_ERROR, OK
from lm_eval_thinkbench.logic.seeds import derive_rng

MINE = (
    "cards/elements",
    "cards/tiles",
    "equations/letters",
    "equations/target",
    "matrix/pool",
    "matrix/prune",
    "matrix/squares",
    "recipes/blocks",
    "recipes/exchange",
    "strings/editor",
    "strings/insert",
    "strings/runs",
    "strings/split",
)
FRESH_PER_LEVEL = 50
#: Subclasses whose steps are the operations of the model's own answer: a wrong answer cannot
#: come with steps that replay.
ANSWER_REPLAYED = {"equations/target"}


def _sub(key: str):
    return registry.get(*key.split("/"))


# ----- rules by hand --------------------------------------------------------------------------


def test_split_follows_logicgame_rules():
    # LogicGame 字符串分割, level 0 and level 3 statements.
    assert split_blocks("124G9S890", ["letter_digit"])[::-1] == ["124G", "9S", "890"]
    rules = ["letter_digit", "digit_letter", "one_digit"]
    assert split_blocks("013H8Q7819QS2HJAO27D31", rules)[::-1] == [
        "01", "3", "H", "8", "Q", "781", "9", "QS", "2", "HJAO", "27", "D", "31"
    ]  # fmt: skip
    assert split_blocks("AAB11", ["same"]) == ["1", "AB1", "A"]  # the order the cuts come off


def test_block_synthesis_reproduces_logicgame_references():
    """LogicGame's 字符串合成 dev items (levels 1-3): the same answers and the same recipes."""
    cases = [
        (  # level 1
            [("[A] [B] [C]", "{A}"), ("[A] [B]", "[C]"), ("[C] [C]", "{A}")],
            {"[A]": 5, "[B]": 6, "[C]": 3, "{A}": 0},
            ["0", "1", "0", "4"],
            [0, 1, 2, 0, 1, 0],
        ),
        (  # level 2
            [("[A] [B] [C]", "{A}"), ("[A] [B]", "{C}"), ("[B] [C]", "{B}"), ("[B] [B]", "{C}")],
            {"[A]": 6, "[B]": 7, "[C]": 4, "{A}": 0, "{B}": 0, "{C}": 0},
            ["2", "0", "1", "2", "1", "3"],
            [0, 1, 2, 3, 0, 1],
        ),
        (  # level 3: a method with two products
            [("[A] [B] [C]", "{A}"), ("[A] [B]", "{C}"), ("[B] [C]", "{B}"), ("[C] [C]", "{C}"),
             ("{A} {C}", "(A) (B)"), ("{B} {B}", "(C)")],
            {k: 0 for k in ("[A]", "[B]", "[C]", "{A}", "{B}", "{C}", "(A)", "(B)", "(C)")}
            | {"[A]": 4, "[B]": 7, "[C]": 6},
            ["0", "1", "0", "0", "0", "1", "2", "2", "1"],
            [0, 1, 2, 3, 4, 0, 1, 2, 4, 5],
        ),
    ]  # fmt: skip

    def recipe(text: str) -> list[list]:
        kinds = text.split()
        return [[k, kinds.count(k)] for k in dict.fromkeys(kinds)]

    for methods, start, answer, applied in cases:
        final, got = simulate([[recipe(a), recipe(b)] for a, b in methods], start)
        assert [str(final[k]) for k in start] == answer
        assert got == applied


def test_exchange_follows_logicgame_rules():
    # LogicGame 合成拆解 level 0: A + B -> X, 3 A -> 2 X, from 6 A and 3 B.
    methods = [[[["A", 1], ["B", 1]], [["X", 1]]], [[["A", 3]], [["X", 2]]]]
    final, applied = simulate(methods, {"A": 6, "B": 3, "X": 0})
    assert final == {"A": 0, "B": 0, "X": 5} and applied == [0, 1, 0, 0]
    # A synthesis and its decomposition loop for ever: the engine gives up.
    loop = [[[["A", 1]], [["X", 1]]], [[["X", 1]], [["A", 1]]]]
    assert simulate(loop, {"A": 1, "X": 0}) is None


def test_insertion_and_runs_by_hand():
    assert insert_after("ABCABC", "ABC", "A") == "ABCAABC"  # the first occurrence only
    assert insert_after("ABAB", "ABC", "A") == "ABAB"
    sub = _sub("strings/insert")
    state = {"text": "ABCBCA", "rules": [["ABC", "A"], ["BCA", "B"], ["CAB", "C"]]}
    assert sub.run(state) == ["ABCABCA", "ABCABBCA", "ABCABCBCA"]
    runs = _sub("strings/runs")
    state = {"text": "AABAABBCCCCBBAAAAC", "points": {"A": 1, "B": 2, "C": 3}}
    # LogicGame 统计计数 level 1: total 10.
    assert runs.run(state) == ["AA:1", "AA:2", "BB:4", "CCCC:7", "BB:9", "AAAA:10"]


def test_letter_equations_by_hand():
    # LogicGame 逻辑等式 level 0: A and B are 1 or 2, and 2B = A.
    constraint = ["lin", 2, "B", 1, "A", 0]
    assert constraint_text(constraint) == "2B = A"
    assert solutions(["A", "B"], [constraint]) == [{"A": 2, "B": 1}]
    assert constraint_text(["prod", "D", "G", 2, "F", 1]) == "DG = 2F + 1"
    assert constraint_text(["lin", 3, "A", 2, "C", -4]) == "3A = 2C - 4"
    sub = _sub("equations/letters")
    p = sub.generate(derive_rng("letters-by-hand"), 3)
    steps = list(p.process)
    assert sub.replay(p.state, p.answer, steps[::-1]).valid  # any order of the letters
    assert sub.replay(p.state, p.answer, [s.lower() for s in steps]).valid
    assert sub.replay(p.state, p.answer, [*steps[:2], steps[1], *steps[3:]]).first_invalid_step == 2
    assert sub.replay(p.state, p.answer, steps[:-1]).first_invalid_step == len(steps) - 1
    wrong = steps[0].split("=")[0] + "=9"
    assert sub.replay(p.state, p.answer, [wrong, *steps[1:]]).first_invalid_step == 0


def test_grid_rules_follow_logicgame():
    # 元素操作 levels 0 and 3: symmetric rows are deleted.
    assert prune(["BB", "CD"], ["sym_rows"]) == ["CD"]
    rows = ["ABCCBATU", "BDDDDBHH", "CDFEFCJC", "ADEFFEDA", "EFHGHGFE", "FGHYYHGF", "BDDDDBHH"]
    assert prune(rows, ["sym_rows"]) == [r for i, r in enumerate(rows) if i not in (3, 5)]
    assert prune(["ABC", "ADC"], ["same_cols"]) == ["B", "D"]
    assert prune(["ABC", "ADC"], ["cols_with", "D"]) == ["AC", "AC"]
    assert prune(["ABC", "ADC"], ["rows_with", "D"]) == ["ABC"]
    assert prune(["ABA"], ["replace", "A", "C"]) == ["CBC"]
    # 池化 level 0: a 2x2 window over 1..9 by columns.
    assert pooled([[1, 4, 7], [2, 5, 8], [3, 6, 9]], 2, 1) == [[5, 8], [6, 9]]
    assert pooled([[1, 2, 3, 4]] * 3 + [[9, 0, 0, 0]], 2, 2) == [[2, 4], [9, 4]]
    sub = _sub("matrix/pool")
    state = {"matrix": [[1, 4, 7], [2, 5, 8], [3, 6, 9]], "window": 2, "stride": 1}
    assert sub.run(state) == ["5", "8", "6", "9"]
    assert sub.answer_of(state, []) == ("[[5,8],[6,9]]",)
    # 模式识别 level 3: the one square ends at row 6, column 2.
    grid = ["ATBBBB", "AABYYB", "CCBADD", "CIAACD", "EEEEFP", "EEUEFF"]
    assert uniform_blocks(grid) == [(5, 1)]
    squares = _sub("matrix/squares")
    assert squares.run({"rows": grid}) == ["2:-", "3:-", "4:-", "5:-", "6:2"]
    assert squares.answer_of({"rows": grid}, []) == ("6", "2")


def test_five_element_duel_follows_logicgame_rules():
    # Wood A generates Fire B (A's holder loses), A overcomes Earth C (A's holder wins).
    assert [outcome("A", c) for c in "ABCDE"] == [DRAW, LOSE, WIN, LOSE, WIN]
    assert inferred("A", [DRAW]) == "A"  # 相生相克 level 0
    # Level 3: A, B, C lost, E drew: round 4 is E, so round 2 is C; rounds 1 and 3 stay open.
    assert inferred("ABCE", [LOSE, LOSE, LOSE, DRAW]) == "*C*E"
    sub = _sub("cards/elements")
    state = {"mine": list("ABCE"), "results": [LOSE, LOSE, LOSE, DRAW]}
    assert sub.run(state) == ["1:*", "2:**", "3:***", "4:*C*E"]
    assert sub.answer_of(state, sub.run(state)) == ("*C*E",)


def test_tiles_follow_logicgame_rules():
    hand = "ACDEFFHJOTXYZ"
    assert call(hand, "F", [PENG]) == PENG  # 麻将类 level 0
    assert call(hand, "B", [PENG, CHI]) == CHI  # A and C around B
    assert call("AABBCCDDEEFFG", "G", [PENG, CHI, HU]) == HU  # ABC ABC DEF DEF GG
    assert is_hu("AAABBBCCCDDDEE") and is_hu("AABBCCDDEEFFGG")
    assert not is_hu("ACEGIKMOQSUWYY") and not is_hu("AAABBBCCCDDDE")
    # Level 3: B (chi), H (pass), F (peng), then I completes ABC DEF HIJ XYZ + FF (hu).
    state = {"hand": hand, "add": list("BHFI"), "remove": list("TOH"), "calls": [PENG, CHI, HU]}
    assert _sub("cards/tiles").run(state) == ["2", "0", "1", "3"]


def test_editor_follows_logicgame_rules():
    # 字符串处理 level 3: "leogood" and {1 is, 2 3 5, 1 haha, 4 gu, 3 5 oo, 4 oooo, 5 4 4, 4 do}.
    ops = [["append", "is"], ["slice", 3, 5], ["append", "haha"], ["find", "gu"],
           ["insert", 5, "oo"], ["find", "oooo"], ["reverse", 4, 4], ["find", "do"]]  # fmt: skip
    state = {"doc": "leogood", "ops": ops}
    assert _sub("strings/editor").run(state) == [
        "leogoodis", "ogood", "ogoodhaha", "-1", "ogoooodhaha", "3", "ogodooohaha", "4"
    ]  # fmt: skip
    assert edit("abc", ["find", "c"]) == ("abc", "3")


def _count_trees(numbers: list[int], target: Fraction) -> int:
    """Expression trees over ``numbers`` (in order) worth ``target``, by plain recursion."""

    def values(nums: list[int]) -> list[Fraction]:
        if len(nums) == 1:
            return [Fraction(nums[0])]
        out = []
        for k in range(1, len(nums)):
            for a in values(nums[:k]):
                for b in values(nums[k:]):
                    out += [a + b, a - b, a * b] + ([a / b] if b else [])
        return out

    return values(numbers).count(target)


def test_target_arithmetic_answers_are_unique_and_checked_by_value():
    sub = _sub("equations/target")
    for i in range(20):
        p = sub.generate(derive_rng("target-unique", i), 2)
        assert _count_trees(p.state["numbers"], Fraction(p.state["target"])) == 1, p.state
    state = {"numbers": [5, 1, 4], "target": 24}
    steps, value = tree_steps(parse_expression(["(5+1)*4"]))
    assert (steps, value) == (["5+1=6", "6*4=24"], 24)
    for spelling in (["(5+1)*4"], ["((5+1))*(4)"], ["(", "5", "+", "1", ")", "*", "4"],
                     ["（５＋１）×４"]):  # fmt: skip
        assert sub.answer_correct(state, spelling, ["(5+1)*4"]), spelling
        assert sub.replay(state, spelling, ["5+1=6", "6*4=24"]).valid
    assert not sub.answer_correct(state, ["4*(5+1)"], ["(5+1)*4"])  # the numbers' order is fixed
    assert not sub.answer_correct(state, ["(5+1)*4+0"], ["(5+1)*4"])
    assert sub.replay(state, ["5+1*4"], ["1*4=4", "5+4=9"]).first_invalid_step == 2  # misses 24
    assert sub.replay(state, ["(5+1)*4"], ["5+1=6", "6*4=25"]).first_invalid_step == 1
    assert (
        sub.replay({"numbers": [5, 1, 1], "target": 5}, ["5/(1-1)"], ["1-1=0"]).first_invalid_step
        == 1
    )
    assert tree_steps(parse_expression(["7/2-1"])) == (["7/2=7/2", "7/2-1=5/2"], Fraction(5, 2))


@pytest.mark.parametrize(
    "text",
    ["__import__('os').system('x')", "5**2", "5//2", "-5+1", "1_0", "1e3", "5 if 1 else 2",
     "(" * 150 + "1" + ")" * 150, "1+" * 5000 + "1", "", "2(3)", "{5}", "5.0", "5,1"],
)  # fmt: skip
def test_target_parser_admits_only_arithmetic(text):
    assert parse_expression([text]) is None


# ----- fresh items ----------------------------------------------------------------------------


@pytest.mark.parametrize("key", MINE)
def test_fresh_items_replay_and_get_harder(key):
    sub = _sub(key)
    assert sub.version == 2
    steps_per_level = []
    for level in range(4):
        lengths = []
        for i in range(FRESH_PER_LEVEL):
            p = sub.generate(derive_rng(key, level, i, "fresh-a"), level)
            assert sub.replay(p.state, p.answer, p.process).valid, (key, level, i)
            assert sub.replay(p.state, p.answer, None).valid, (key, level, i)
            assert all(s.isascii() for s in p.answer + p.process)
            lengths.append(len(p.process))
        steps_per_level.append(fmean(lengths))
    assert steps_per_level == sorted(steps_per_level), steps_per_level
    assert steps_per_level[3] > steps_per_level[0]


@pytest.mark.parametrize("key", MINE)
def test_both_languages_state_the_same_item(key):
    item = make_item(*key.split("/"), 2, 0, 1)
    en, zh = to_doc(item, "en"), to_doc(item, "zh")
    assert en["answer"] == zh["answer"] and en["process"] == zh["process"]
    assert any("\u4e00" <= ch <= "\u9fff" for ch in zh["prompt"])
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in en["prompt"])
    assert len(en["examples"]) == 2


# ----- scripted replies -----------------------------------------------------------------------


def _reply(answer, process=None) -> str:
    out = {"answer": answer} if process is None else {"answer": answer, "process": process}
    return "<think>\nworking\n</think>\nDone.\n```json\n" + json.dumps(out) + "\n```"


def _wrong(text: str) -> str:
    """``text`` with its last letter or digit changed to another of its kind."""
    i = max(k for k, c in enumerate(text) if c.isalnum())
    pool = "0123456789" if text[i].isdigit() else "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return text[:i] + next(c for c in pool if c != text[i].upper()) + text[i + 1 :]


@pytest.mark.parametrize("key", MINE)
def test_scripted_replies_score_as_known(key):
    doc = to_doc(make_item(*key.split("/"), 2, 3, 1), "en")
    answer, process = doc["answer"], doc["process"]
    k = len(process) // 2
    replies = {
        "correct": _reply(answer, process),
        "wrong_answer_right_steps": _reply([*answer[:-1], _wrong(answer[-1])], process),
        "wrong_step": _reply(answer, [*process[:k], _wrong(process[k]), *process[k + 1 :]]),
        "format_error": _reply(answer).replace('"answer"', '"result"'),
    }
    recs = {name: score_logic_response(doc, text, "think") for name, text in replies.items()}
    right = recs["correct"]
    assert right["status"] == OK and right["answer_step_correct"] and right["valid_process"]
    wrong = recs["wrong_answer_right_steps"]
    assert not wrong["answer_correct"] and wrong["step_similarity"] == 1.0
    # The steps replay and only the answer is off, unless the steps are the answer's own.
    assert wrong["valid_process"] == (key not in ANSWER_REPLAYED)
    step = recs["wrong_step"]
    assert step["answer_correct"] and not step["answer_step_correct"]
    assert (step["valid_process"], step["first_invalid_step"]) == (False, k)
    assert recs["format_error"]["status"] == FORMAT_ERROR
    out = process_results(doc, [list(recs.values())])
    assert out["answer_acc"] == 0.5 and out["answer_step_acc"] == 0.25
    assert out["format_error"] == 0.25 and out["if_error"] == 0.0
    assert out["valid_process"] == (0.25 if key in ANSWER_REPLAYED else 0.5)
    assert out["overall_acc"] == [1.0, 0.0, 0.0]


@pytest.mark.parametrize("key", MINE)
def test_answer_only_items_score_the_answer(key):
    doc = to_doc(make_item(*key.split("/"), 0, 0, 1), "zh")
    assert doc["answer_only"]
    right = score_logic_response(doc, _reply(doc["answer"]), "think")
    assert right["answer_step_correct"] and right["valid_process"]
    bad = [*doc["answer"][:-1], _wrong(doc["answer"][-1])]
    wrong = score_logic_response(doc, _reply(bad), "think")
    assert not wrong["answer_correct"] and not wrong["valid_process"]


@pytest.mark.parametrize("key", ["equations/letters", "equations/target", "cards/elements"])
def test_hostile_replies_are_scored_quickly(key):
    """A huge process, a huge or odd answer: a clear record, in bounded time."""
    doc = to_doc(make_item(*key.split("/"), 3, 0, 1), "en")
    replies = [
        _reply(doc["answer"], ["A=1"] * 100_000),
        _reply(["9" * 5_000], ["=" * 10_000, "", ":::"]),
        _reply(doc["answer"], [[], ["x"] * 1000, "1+1=2"]),
    ]
    for text in replies:
        start = time.perf_counter()
        rec = score_logic_response(doc, text, "think")
        assert time.perf_counter() - start < 2.0
        assert rec["status"] == OK and not rec["valid_process"]
    # A megabyte of brackets as the answer: wrong, and only the target's steps depend on it.
    rec = score_logic_response(
        doc, _reply(["(" * 500_000 + "1" + ")" * 500_000], doc["process"]), "think"
    )
    assert not rec["answer_correct"]
    assert rec["valid_process"] == (key not in ANSWER_REPLAYED)
