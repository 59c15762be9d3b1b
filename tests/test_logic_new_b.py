"""The set-version-2 subclasses after LogicGame's deduction, game and placement categories.

Each gets: hand-worked cases of its rules; its references replayed as valid on ~200 fresh items
(the 10,000-item replay is the slow test in ``test_logic_generation.py``); uniqueness of every
answer by a brute-force count written here, not imported from the generators; and scripted
replies with known truth (right, a wrong answer with right steps, a wrong step, a format error).
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
from collections.abc import Sequence
from pathlib import Path

import pytest
from support.data import SHARED_DATA

from lm_eval_thinkbench.logic import registry
from lm_eval_thinkbench.logic.base import PLAN_LENGTHS, step_text
from lm_eval_thinkbench.logic.execution.deduction import (
    arrange_holds,
    certain_mines,
    feedback,
    masks,
)
from lm_eval_thinkbench.logic.execution.games import flips, opening, place, press
from lm_eval_thinkbench.logic.items import make_item, to_doc
from lm_eval_thinkbench.logic.parse import FORMAT_ERROR, OK
from lm_eval_thinkbench.logic.planning.latin import cage_value
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


def test_password_level_0_is_logicgames_number_game_with_list_steps():
    state = {"lo": 1, "hi": 9, "guesses": [["even", 0, False], ["greater", 4, False]]}
    sub = _sub("deduction/password")
    assert sub.run(state) == ["[1,3,5,7,9]", "[1,3]"]
    text = sub.describe(state, "en")
    assert "1. Guess: L is even. Feedback: wrong." in text
    assert "2. Guess: L is greater than 4. Feedback: wrong." in text
    doc = to_doc(make_item("deduction", "password", 0, 0, 1), "en")
    assert not doc["answer_only"] and doc["process"][-1] == f"[{doc['answer'][0]}]"
    # LogicGame's own form, each step a list of strings, scores as the bracketed strings do.
    nested = [step.strip("[]").split(",") for step in doc["process"]]
    rec = score_output(Reference.from_doc(doc), _block(doc["answer"], nested))
    assert rec["status"] == OK and rec["answer_step_correct"] and rec["valid_process"]
    wrong = [nested[0][:-1], *nested[1:]]
    rec = score_output(Reference.from_doc(doc), _block(doc["answer"], wrong))
    assert rec["answer_correct"] and (rec["valid_process"], rec["first_invalid_step"]) == (False, 0)


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
        assert puzzle.answer == (sub.result(puzzle.process[-1]),)


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
        if "digits" not in s:  # level 0: a number narrowed by right/wrong claims
            holds = {
                "even": lambda x, _: x % 2 == 0,
                "greater": lambda x, k: x > k,
                "less": lambda x, k: x < k,
                "is": lambda x, k: x == k,
                "multiple": lambda x, k: x % k == 0,
            }
            fits = [
                str(x)
                for x in range(s["lo"], s["hi"] + 1)
                if all(holds[kind](x, arg) == right for kind, arg, right in s["guesses"])
            ]
            assert fits == list(p.answer)
            continue
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
    if not level0["answer_only"]:
        return  # (deduction/password asks for the steps at level 0 too: its own test)
    ref0 = Reference.from_doc(level0)
    assert score_output(ref0, _block(level0["answer"]))["answer_step_correct"]
    miss = score_output(ref0, _block([_other(level0["answer"][0])]))
    assert (miss["answer_correct"], miss["first_invalid_step"]) == (False, 0)


# ----- the planning subclasses (filled in a fixed order) -----------------------------------

NEW_B_PLANNING = [
    "latin/cages",
    "latin/letters",
    "placement/queens",
    "placement/picks",
    "selfref/choice",
]


@pytest.mark.parametrize("key", NEW_B_PLANNING)
def test_two_hundred_fresh_planning_items_replay_as_valid(key):
    sub = _sub(key)
    for level, puzzle in _fresh(key, 200):
        lo, hi = PLAN_LENGTHS[level]
        assert lo <= len(puzzle.answer) == puzzle.optimal <= hi, (key, level)
        assert sub.replay(puzzle.state, puzzle.answer, puzzle.process).valid, (key, level)
        assert sub.replay(puzzle.state, puzzle.answer, None).valid, (key, level)


def _latin_fits(cells: str, n: int, diagonal: bool) -> bool:
    lines = [cells[r * n : r * n + n] for r in range(n)]
    lines += ["".join(cells[r * n + c] for r in range(n)) for c in range(n)]
    if diagonal:
        lines.append("".join(cells[i * n + i] for i in range(n)))
    return all(len(set(line)) == n for line in lines)


def _latin_completions(grid: str, symbols: str) -> list[str]:
    """Each row's missing symbols in every order, kept when columns (and more) fit."""
    rows = grid.split("/")
    options = []
    for row in rows:
        missing = [s for s in symbols if s not in row]
        options.append(
            [
                "".join(next(it) if ch == "." else ch for ch in row)
                for perm in itertools.permutations(missing)
                for it in [iter(perm)]
            ]
        )
    return ["".join(choice) for choice in itertools.product(*options)]


def _cage_ok(op: str, target: int, values: list[int]) -> bool:
    a, b = max(values), min(values)
    return {
        "+": sum(values) == target,
        "*": math.prod(values) == target,
        "-": a - b == target,
        "/": a == b * target,
    }[op]


def test_latin_answers_are_unique_by_brute_force():
    checked = 0
    for _, p in [*_fresh("latin/cages", 120), *_fresh("latin/letters", 120)]:
        s = p.state
        if s["grid"].count(".") > 6:
            continue
        n = s["n"]
        symbols = "123456789"[:n] if "cages" in s else "abcde"[:n]
        fits = [
            cells
            for cells in _latin_completions(s["grid"], symbols)
            if _latin_fits(cells, n, s.get("diagonal", False))
            and all(
                _cage_ok(op, t, [int(cells[r * n + c]) for r, c in members])
                for op, t, members in s.get("cages", [])
            )
        ]
        assert len(fits) == 1, s
        blanks = [i for i, x in enumerate(s["grid"].replace("/", "")) if x == "."]
        assert [a.split("=")[1] for a in p.answer] == [fits[0][i] for i in blanks]
        checked += 1
    assert checked > 100


def test_queens_and_picks_are_unique_by_brute_force():
    checked = 0
    for _, p in _fresh("placement/queens", 120):
        rows = p.state["board"].split("/")
        n = len(rows)
        empty = [r for r, row in enumerate(rows) if "1" not in row]
        if len(empty) > 7:
            continue
        used = {row.index("1") for row in rows if "1" in row}
        free = [c for c in range(n) if c not in used]
        fits = []
        for perm in itertools.permutations(free):
            cols = [row.index("1") if "1" in row else -1 for row in rows]
            for r, c in zip(empty, perm, strict=True):
                cols[r] = c
            if all(abs(cols[a] - cols[b]) != b - a for a in range(n) for b in range(a + 1, n)):
                fits.append(cols)
        assert len(fits) == 1
        assert list(p.answer) == [f"r{r + 1}c{fits[0][r] + 1}" for r in empty]
        checked += 1
    for _, p in _fresh("placement/picks", 120):
        s = p.state
        grid, k, limit = s["grid"], s["k"], s["limit"]
        n = len(grid)
        where = [[(r, c) for r in range(n) for c in range(n) if grid[r][c] == v]
                 for v in range(1, k + 1)]  # fmt: skip
        if math.prod(len(w) for w in where) > 20_000:
            continue
        fits = []
        for choice in itertools.product(*where):
            if tuple(s["start"]) not in choice:
                continue
            sums = [0] * (2 * n)
            for v, (r, c) in enumerate(choice, 1):
                sums[r] += v
                sums[n + c] += v
            if max(sums) <= limit:
                fits.append(choice)
        assert len(fits) == 1
        assert p.process[-1] == ",".join(f"({r + 1},{c + 1})" for r, c in fits[0])
        checked += 1
    assert checked > 180


def _selfref_value(q: list, i: int, answers: tuple[int, ...]) -> int:
    kind = q[0]
    if kind == "count":
        return answers.count(q[1])
    if kind == "answer_of":
        return answers[q[1]]
    if kind == "distance":
        return abs(answers[i] - answers[q[1]])
    start = 0 if kind == "first" else q[1] + 1
    return next((j + 1 for j in range(start, len(answers)) if answers[j] == q[-1]), -1)


def test_self_referential_answers_are_unique_by_brute_force():
    checked = 0
    for _, p in _fresh("selfref/choice", 160):
        s = p.state
        if len(s["questions"]) > 6:
            continue
        fits = [
            answers
            for answers in itertools.product(range(s["m"]), repeat=len(s["questions"]))
            if all(
                _selfref_value(q, i, answers) == opts[answers[i]]
                for i, (q, opts) in enumerate(zip(s["questions"], s["options"], strict=True))
            )
        ]
        assert len(fits) == 1
        assert list(p.answer) == ["ABCDE"[a] for a in fits[0]]
        checked += 1
    assert checked > 100


def test_selfref_statement_by_hand():
    state = {"m": 2, "questions": [["count", 1]], "options": [[2, 1]]}
    sub = _sub("selfref/choice")
    assert sub.solve(state) == ["B"]  # "How many answers are B? A. 2 B. 1" (LogicGame's own)
    text = sub.describe(state, "en")
    assert "1. How many of the questions have the answer B?\nA. 2\nB. 1" in text
    queens = {"board": "0010/1000/0001/0000"}
    assert _sub("placement/queens").solve(queens) == [1]
    assert _sub("placement/queens").show(queens, (1,)) == "0010/1000/0001/0100"


@pytest.mark.parametrize("key", NEW_B_PLANNING)
def test_scripted_planning_replies_score_as_known(key):
    family, name = key.split("/")
    doc = to_doc(make_item(family, name, 3, 0, 1), "en")
    ref = Reference.from_doc(doc)
    answer, process = list(doc["answer"]), list(doc["process"])

    right = score_output(ref, _block(answer, process))
    assert right["answer_step_correct"] and right["valid_process"]
    assert right["plan_length"] == right["optimal_length"] == len(answer)

    k = 2
    wrong_move = [*answer[:k], _other(answer[k]), *answer[k + 1 :]]
    wrong_answer = score_output(ref, _block(wrong_move, process))
    assert not wrong_answer["answer_correct"] and wrong_answer["step_similarity"] == 1.0
    assert (wrong_answer["valid_process"], wrong_answer["first_invalid_step"]) == (False, k)

    bad = [*process[:k], _other(process[k]), *process[k + 1 :]]
    wrong_state = score_output(ref, _block(answer, bad))
    assert wrong_state["answer_correct"] and not wrong_state["answer_step_correct"]
    assert (wrong_state["valid_process"], wrong_state["first_invalid_step"]) == (False, k)

    short = score_output(ref, _block(answer[:-1], process[:-1]))
    assert (short["valid_process"], short["first_invalid_step"]) == (False, len(answer) - 1)

    broken = score_output(ref, '```json\n{"answer": ' + json.dumps(answer) + "}\n```")
    assert broken["status"] == FORMAT_ERROR and not broken["answer_correct"]


@pytest.mark.parametrize("key", NEW_B_PLANNING)
def test_a_legal_but_wrong_move_is_where_the_replay_fails(key):
    """Legal moves follow the rules only (so random legal play is a fair baseline); the replay
    fails at the first move off the unique solution, legal or not."""
    sub = _sub(key)
    found = 0
    for _, p in _fresh(key, 40, seed=5):
        node = sub.start(p.state)
        for k, (move, nxt) in enumerate(zip(p.answer, sub.plan(p.state), strict=True)):
            legal = [m for m, _ in sub.successors(p.state, node)]
            assert move in legal
            others = [m for m in legal if m != move]
            if others:
                wrong = [*p.answer[:k], others[0], *p.answer[k + 1 :]]
                assert sub.replay(p.state, wrong, None).first_invalid_step == k
                found += 1
                break
            node = nxt[1]
    assert found >= 5, key


# ----- LogicGame's own references ----------------------------------------------------------


def _dev_password_references() -> dict[int, dict]:
    rows = (SHARED_DATA / "logicgame" / "en_dev_10.jsonl").read_text(encoding="utf-8")
    out = {}
    for line in rows.splitlines():
        row = json.loads(line)
        if row["category"] == "密码破译":
            ref = row["reference"]
            out[row["level"]] = ref if isinstance(ref, dict) else json.loads(ref)
    return out


def test_the_deductions_reproduce_logicgames_password_references():
    """LogicGame's dev password items, their conditions transcribed from the statements: the
    known-so-far masks (levels 1-2) and the candidate lists (level 0) are exactly its
    reference processes."""
    refs = _dev_password_references()

    def counted(guess: str, right: int, elsewhere: int):
        def test(code: str) -> bool:
            hits = sum(g == c for g, c in zip(guess, code, strict=True))
            return (hits, sum(g in code for g in guess) - hits) == (right, elsewhere)

        return test

    # Level 2: 738 none; 870 one, misplaced; 206 two, misplaced; 682 one, placed; 614 one,
    # misplaced.
    space = ["".join(p) for p in itertools.permutations("0123456789", 3)]
    tests = [counted("738", 0, 0), counted("870", 0, 1), counted("206", 0, 2),
             counted("682", 1, 0), counted("614", 0, 1)]  # fmt: skip
    assert masks(space, tests) == refs[2]["process"]
    # Level 1: 67 one placed; 71 none; 64 one right, the other too large; 32 one misplaced.
    space = ["".join(p) for p in itertools.permutations("0123456789", 2)]

    def one_right_other_too_large(code: str) -> bool:
        absent = [j for j, g in enumerate("64") if g not in code]
        return len(absent) == 1 and "64"[absent[0]] > code[absent[0]]

    tests = [counted("67", 1, 0), counted("71", 0, 0), one_right_other_too_large,
             counted("32", 0, 1)]  # fmt: skip
    assert masks(space, tests) == refs[1]["process"] and refs[1]["answer"] == ["63"]
    # Level 0: L in [1, 9]; even: wrong; greater than 4: wrong; is 1: wrong.
    claims = [["even", 0, False], ["greater", 4, False], ["is", 1, False]]
    steps = _sub("deduction/password").run({"lo": 1, "hi": 9, "guesses": claims})
    assert steps == [step_text(s) for s in refs[0]["process"]]


def test_logicgames_queens_and_cage_sudoku_items_measured_with_these_solvers():
    """On the release's whole set: every n-queens item has one completion; of the eight
    arithmetic-Sudoku items, logic_string0801_67 has none under its own stated rules (its cages
    force (2,1) to 0), the others one. A one-cell cage is its digit whatever the operator."""
    assert [cage_value(op, [3]) for op in "+-*/"] == [3, 3, 3, 3]
    spec = importlib.util.spec_from_file_location(
        "logicgame_uniqueness", Path(__file__).resolve().parents[1] / "benchmarks"
        / "logicgame_uniqueness.py"
    )  # fmt: skip
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    text = (SHARED_DATA / "logicgame" / "en_all_304.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines()]
    queens = {
        r.split(" | ")[0].strip("| "): r.rsplit("|", 2)[1].strip() for r in bench.queens_rows(rows)
    }
    cages = {
        r.split(" | ")[0].strip("| "): r.rsplit("|", 2)[1].strip() for r in bench.cage_rows(rows)
    }
    assert len(queens) == 8 and set(queens.values()) == {"1"}
    assert len(cages) == 8
    assert {q for q, n in cages.items() if n != "1"} == {"logic_string0801_67"}
    assert cages["logic_string0801_67"] == "0"
