"""The set-version-2 subclasses after LogicGame's deduction, game and placement categories.

Each gets: hand-worked cases of its rules; its references replayed as valid on ~200 fresh items
(the 10,000-item replay is the slow test in ``test_logic_generation.py``); uniqueness of every
answer by a brute-force count written here, not imported from the generators; and scripted
replies with known truth (right, a wrong answer with right steps, a wrong step, a format error).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence

import pytest

from lm_eval_thinkbench.logic import registry
from lm_eval_thinkbench.logic.execution.deduction import (
    arrange_holds,
    certain_mines,
    feedback,
    masks,
)
from lm_eval_thinkbench.logic.execution.games import flips, opening, place, press
from lm_eval_thinkbench.logic.items import make_item, to_doc
from lm_eval_thinkbench.logic.parse import FORMAT_ERROR, OK
from lm_eval_thinkbench.logic.score import Reference, score_output
from lm_eval_thinkbench.logic.seeds import derive_rng

NEW_B = [
    "deduction/arrange",
    "deduction/password",
    "deduction/mines",
    "games/lights",
    "games/reversi",
]


def _sub(key: str):
    return registry.get(*key.split("/"))


def _fresh(key: str, n: int, seed: int = 777):
    sub = _sub(key)
    for i in range(n):
        level = i % 4
        yield level, sub.generate(derive_rng(sub.family, sub.name, level, i, seed), level)


# ----- hand-worked rules --------------------------------------------------------------------


def test_password_feedback_by_hand():
    assert feedback("47", "67") == [1, 0, 1, 0]  # 7 in place; 4 absent and below 6
    assert feedback("12", "21") == [0, 2, 0, 0]
    assert feedback("98", "12") == [0, 0, 0, 2]
    assert feedback("305", "350") == [1, 2, 0, 0]


def test_arrangement_rules_by_hand():
    conds = [["not_at", "A", 1], ["at", "B", 2]]
    space = ["".join(p) for p in itertools.permutations("ABC")]
    assert masks(space, [lambda o, c=c: arrange_holds(c, o) for c in conds]) == ["***", "CBA"]
    assert arrange_holds(["left_of", "A", "C"], "ABC") and not arrange_holds(
        ["left_of", "C", "A"], "ABC"
    )
    assert arrange_holds(["adjacent", "C", "B"], "ABC")
    assert arrange_holds(["apart", "A", "C"], "ABC")
    assert arrange_holds(["right_after", "B", "A"], "ABC")
    assert not arrange_holds(["right_after", "A", "B"], "ABC")
    assert arrange_holds(["not_end", "B"], "ABC") and not arrange_holds(["not_end", "C"], "ABC")


def test_minesweeper_certainty_by_hand():
    assert certain_mines(["*2", "2*"]) == [0, 3]  # LogicGame's own level-0 example
    assert certain_mines(["*1", "**"]) == []  # one of three cells: none certain
    assert certain_mines(["1*", "**"]) == []
    assert certain_mines(["11", "1*"]) == [3]
    assert certain_mines(["0*", "**"]) == []  # all safe, nothing certain to be a mine
    assert certain_mines(["2*", "**"]) == []  # two of three
    assert certain_mines(["3*", "**"]) == [1, 2, 3]
    assert certain_mines(["4*", "**"]) == []  # impossible: no placement fits
    assert certain_mines(["*1*", "***", "*1*"]) == []


def test_lights_and_reversi_by_hand():
    assert press(["01", "11"], [[1, 0], [1, 1]]) == ["01", "00"]
    assert press(["01", "11"], []) == ["01", "11"]
    board = opening(4)
    assert board == ["****", "*10*", "*01*", "****"]
    # Black on (3,4): the white piece at (3,3) lies between it and black's (3,2).
    assert flips(board, (2, 3), "0") == [(2, 2)]
    assert place(board, (2, 3), "0") == ["****", "*10*", "*000", "****"]
    assert flips(board, (0, 0), "0") == []
    assert sorted(flips(["0**", "1**", "*10"], (2, 0), "0")) == [(1, 0), (2, 1)]
    assert flips(["***", "*1*", "**0"], (0, 0), "0") == [(1, 1)]  # a diagonal
    assert flips(["1**", "1**", "***"], (2, 0), "0") == []  # no black piece closes the line
    assert flips(["0**", "***", "1**"], (1, 0), "0") == []  # a gap breaks it


@pytest.mark.parametrize(
    ("key", "state", "steps"),
    [
        ("deduction/arrange", {"books": "ABC", "conds": [["left_of", "C", "A"], ["at", "B", 3]]},
         ["***", "CAB"]),
        ("deduction/password", {"digits": 2, "lo": 0, "hi": 9,
                                "guesses": [["67", [1, 0, 0, 1]], ["71", [0, 0, 1, 1]]]},
         ["**", "6*"]),  # 6x or x7 with x < 6; then 62 to 65
        ("deduction/mines", {"rounds": [["*2", "**"], ["*2", "2*"]]}, ["none", "(1,1),(2,2)"]),
        ("games/lights", {"grid": ["01", "11"], "buttons": [[[1, 0], [1, 1]], [[0, 0]]],
                          "rounds": [["A"], ["A", "B"]]}, ["01/00", "11/11"]),
        ("games/reversi", {"board": ["****", "*10*", "*01*", "****"], "moves": [[2, 3], [3, 3]]},
         ["****/*10*/*000/****", "****/*10*/*010/***1"]),
    ],
)  # fmt: skip
def test_execution_rules_by_hand(key, state, steps):
    assert _sub(key).run(state) == steps


# ----- references replay, levels grow, uniqueness by brute force ---------------------------


@pytest.mark.parametrize("key", NEW_B)
def test_two_hundred_fresh_items_replay_as_valid(key):
    sub = _sub(key)
    for level, puzzle in _fresh(key, 200):
        assert sub.replay(puzzle.state, puzzle.answer, puzzle.process).valid, (key, level)
        assert sub.replay(puzzle.state, puzzle.answer, None).valid, (key, level)
        assert puzzle.answer == (puzzle.process[-1],)


def _feedback_by_counting(guess: str, code: str) -> tuple[int, int, int, int]:
    right = sum(g == c for g, c in zip(guess, code, strict=True))
    present = sum(g in code for g in guess) - right
    small = sum(g not in code and g < c for g, c in zip(guess, code, strict=True))
    return right, present, small, len(code) - right - present - small


def _mines_by_brute_force(rows: Sequence[str]) -> list[int]:
    """Every placement of mines on the hidden cells, kept when every number fits."""
    n, flat = len(rows), "".join(rows)
    hidden = [i for i, x in enumerate(flat) if x == "*"]
    always = None
    for bits in itertools.product((False, True), repeat=len(hidden)):
        mines = {h for h, b in zip(hidden, bits, strict=True) if b}
        fits = all(
            int(x)
            == sum(
                (r * n + c) in mines
                for r in range(i // n - 1, i // n + 2)
                for c in range(i % n - 1, i % n + 2)
                if 0 <= r < n and 0 <= c < n and (r, c) != divmod(i, n)
            )
            for i, x in enumerate(flat)
            if x != "*"
        )
        if fits:
            always = mines if always is None else always & mines
    return sorted(always or ())


def test_deductions_end_in_a_unique_answer_by_brute_force():
    for _, p in _fresh("deduction/arrange", 120):
        books, conds = p.state["books"], p.state["conds"]
        fits = ["".join(o) for o in itertools.permutations(books)
                if all(arrange_holds(c, "".join(o)) for c in conds)]  # fmt: skip
        assert fits == list(p.answer)
    for _, p in _fresh("deduction/password", 60):
        s = p.state
        digits = "".join(str(d) for d in range(s["lo"], s["hi"] + 1))
        fits = [
            "".join(code)
            for code in itertools.permutations(digits, s["digits"])
            if all(_feedback_by_counting(g, "".join(code)) == tuple(f) for g, f in s["guesses"])
        ]
        assert fits == list(p.answer)
    checked = 0
    for _, p in _fresh("deduction/mines", 120):
        n = len(p.state["rounds"][0])
        for rows, step in zip(p.state["rounds"], p.process, strict=True):
            if "".join(rows).count("*") <= 12:
                want = _mines_by_brute_force(rows)
                got = ",".join(f"({i // n + 1},{i % n + 1})" for i in want) or "none"
                assert step == got, rows
                checked += 1
    assert checked > 100


# ----- scripted replies with known truth ---------------------------------------------------


def _block(answer, process=None) -> str:
    out = {"answer": answer} if process is None else {"answer": answer, "process": process}
    return "Reasoning.\n```json\n" + json.dumps(out, ensure_ascii=False) + "\n```"


def _other(text: str) -> str:
    """A different string of the same shape (a digit or a star changed)."""
    for i, ch in enumerate(text):
        if ch.isdigit() or ch == "*":
            return text[:i] + ("1" if ch != "1" else "2") + text[i + 1 :]
        if ch.isalpha() and ch.isupper():
            return text[:i] + ("A" if ch != "A" else "B") + text[i + 1 :]
    return text + "0"


@pytest.mark.parametrize("key", NEW_B)
def test_scripted_replies_score_as_known(key):
    family, name = key.split("/")
    doc = to_doc(make_item(family, name, 3, 0, 1), "en")
    ref = Reference.from_doc(doc)
    answer, process = list(doc["answer"]), list(doc["process"])

    right = score_output(ref, _block(answer, process))
    assert (right["status"], right["answer_correct"], right["answer_step_correct"]) == (
        OK,
        True,
        True,
    )
    assert right["valid_process"] and right["first_invalid_step"] is None

    wrong_answer = score_output(ref, _block([_other(answer[0])], process))
    assert not wrong_answer["answer_correct"] and not wrong_answer["answer_step_correct"]
    assert wrong_answer["step_similarity"] == 1.0 and wrong_answer["valid_process"]

    bad = list(process)
    bad[2] = _other(bad[2])
    wrong_step = score_output(ref, _block(answer, bad))
    assert wrong_step["answer_correct"] and not wrong_step["answer_step_correct"]
    assert 0 < wrong_step["step_similarity"] < 1
    assert (wrong_step["valid_process"], wrong_step["first_invalid_step"]) == (False, 2)

    broken = score_output(
        ref, '```json\n{"answer": ' + json.dumps(answer) + ', "process": "x"}\n```'
    )
    assert broken["status"] == FORMAT_ERROR and not broken["answer_correct"]

    level0 = to_doc(make_item(family, name, 0, 0, 1), "zh")
    ref0 = Reference.from_doc(level0)
    assert score_output(ref0, _block(level0["answer"]))["answer_step_correct"]
    miss = score_output(ref0, _block([_other(level0["answer"][0])]))
    assert (miss["answer_correct"], miss["first_invalid_step"]) == (False, 0)
