"""The logic generators: determinism, the frozen set, levels, languages, examples, references.

References are checked three ways: hand-worked cases for every simulator rule, replay of every
reference in its simulator (frozen set and 10,000 fresh items per subclass), and uniqueness of
every planning answer by a brute-force count written here, not imported from the generators.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from lm_eval_thinkbench.logic import registry
from lm_eval_thinkbench.logic.base import (
    LOGIC_SET_VERSION,
    OPS_PER_LEVEL,
    PLAN_LENGTHS,
    SET_VERSIONS,
    V1_SUBCLASSES,
    V2_SUBCLASSES,
    TaskType,
)
from lm_eval_thinkbench.logic.execution.board import swipe
from lm_eval_thinkbench.logic.items import make_item
from lm_eval_thinkbench.logic.seeds import derive_rng
from lm_eval_thinkbench.logic.sets import (
    FROZEN_SEED,
    generate_docs,
    parse_set_version,
    set_sha256,
)

REPO = Path(__file__).resolve().parent.parent

#: SHA-256 of the frozen set v1 (the original 15 subclasses, as published). It must never
#: change: a change here means every published number moves.
FROZEN_SHA256 = "7215c2d78253a4f9bd403d3dc8ce5d9c3bdfb4acc9f6001fcdbdb0d895f5ffd7"
#: SHA-256 of the frozen set v2 (the 38 subclasses with ``version <= 2``: the original 15 and
#: the 23 added after LogicGame's categories), pinned once they had all landed (2026-12-01).
#: It must never change either: a later subclass joins set version 3.
FROZEN_V2_SHA256 = "87514c458d8d980c33927c567ef1454022e2f0c2b99846f6650186576c83f13b"


@pytest.fixture(scope="module")
def frozen() -> list[dict]:
    """The newest frozen set: every registered subclass."""
    return list(generate_docs())


def _hash_in_fresh_process(seed: int, hashseed: str, set_version: int = 1) -> str:
    code = (
        "from lm_eval_thinkbench.logic.sets import generate_docs, set_sha256;"
        f"print(set_sha256(generate_docs({seed}, set_version={set_version})))"
    )
    env = {**os.environ, "PYTHONHASHSEED": hashseed, "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


@pytest.mark.slow
def test_two_fresh_processes_generate_the_same_sets():
    assert _hash_in_fresh_process(FROZEN_SEED, "0") == FROZEN_SHA256
    assert _hash_in_fresh_process(FROZEN_SEED, "4711") == FROZEN_SHA256
    assert _hash_in_fresh_process(FROZEN_SEED, "0", 2) == FROZEN_V2_SHA256
    newest = LOGIC_SET_VERSION
    assert _hash_in_fresh_process(99, "1", newest) == _hash_in_fresh_process(99, "2", newest)


@pytest.mark.slow
def test_frozen_set_v1_is_pinned():
    """v1 is exactly the original 15 subclasses' items, whatever was registered since."""
    v1 = list(generate_docs(set_version=1))
    assert set_sha256(v1) == FROZEN_SHA256
    assert {f"{d['logic_family']}/{d['subclass']}" for d in v1} == V1_SUBCLASSES
    assert {d["set_version"] for d in v1} == {"1"}


@pytest.mark.slow
def test_frozen_set_v2_is_pinned():
    """v2 is frozen too: a subclass added now declares ``version = 3`` (and 3 joins
    ``base.SET_VERSIONS``), so this set, and every number measured on it, stays as published."""
    v2 = list(generate_docs(set_version=2))
    assert len(registry.subclasses(set_version=2)) == 38 and len(v2) == 38 * 4 * 10 * 2
    assert set_sha256(v2) == FROZEN_V2_SHA256, "set v2 changed: a new subclass needs version 3"


@pytest.mark.slow
def test_a_newer_set_holds_the_older_sets_items_unchanged(frozen):
    """Only the recorded version differs, so a v1 number can be recomputed from a v2 run."""
    v1 = list(generate_docs(set_version=1))
    newest = [d for d in frozen if f"{d['logic_family']}/{d['subclass']}" in V1_SUBCLASSES]
    assert [{**d, "set_version": "1"} for d in newest] == v1
    assert {d["set_version"] for d in frozen} == {str(LOGIC_SET_VERSION)}


def test_every_subclass_declares_a_known_set_version():
    assert SET_VERSIONS == (1, 2)
    assert max(SET_VERSIONS) == LOGIC_SET_VERSION
    for sub in registry.subclasses():
        assert (sub.version == 1) == (sub.key in V1_SUBCLASSES), sub.key
    assert {s.key for s in registry.subclasses(set_version=2)} == V2_SUBCLASSES
    assert [s.key for s in registry.subclasses(set_version=1)] == sorted(
        V1_SUBCLASSES, key=lambda k: [s.key for s in registry.subclasses()].index(k)
    )


def test_set_versions_by_name_or_number():
    assert parse_set_version("v1") == parse_set_version(1) == parse_set_version(" 1 ") == 1
    assert parse_set_version(None) == LOGIC_SET_VERSION
    for bad in ("v0", "3", "latest", "", 1.5):
        with pytest.raises(ValueError, match="known: v1, v2"):
            parse_set_version(bad)


def test_a_new_subclass_must_declare_its_set_version():
    class Unversioned(TaskType):
        family, name, kind = "probe", "unversioned", "execution"

        def generate(self, rng, level): ...
        def describe(self, state, lang): ...
        def replay(self, state, answer, process): ...

    with pytest.raises(ValueError, match=r"set version 1 is frozen.*version = 3"):
        registry.register(Unversioned)
    Unversioned.version = 2
    with pytest.raises(ValueError, match=r"set version 2 is frozen.*version = 3"):
        registry.register(Unversioned)
    Unversioned.version = 7
    with pytest.raises(ValueError, match="set version 7 is not one of"):
        registry.register(Unversioned)
    assert "probe/unversioned" not in {s.key for s in registry.subclasses()}


def test_a_later_subclass_is_in_its_set_version_only(monkeypatch):
    from lm_eval_thinkbench.logic.execution.cipher import Shift

    class Probe(Shift):
        family, name, version = "probe", "later", 3

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "SET_VERSIONS", (1, 2, 3))
    registry.register(Probe)
    assert "probe/later" not in {s.key for s in registry.subclasses(set_version=2)}
    assert "probe/later" in {s.key for s in registry.subclasses(set_version=3)}
    assert set_sha256(generate_docs(set_version=1)) == FROZEN_SHA256
    only = list(
        generate_docs(langs=["en"], levels=[1], per_cell=2, set_version=3, keys=["probe/later"])
    )
    assert [d["id"] for d in only] == ["probe/later/L1/0", "probe/later/L1/1"]
    with pytest.raises(ValueError, match="probe/later joined in set v3, not in v1"):
        next(generate_docs(set_version=1, keys=["probe/later"]))


@pytest.mark.slow
def test_different_seeds_give_different_items(frozen):
    fresh = list(generate_docs(seed=2))
    assert set_sha256(fresh) != set_sha256(frozen)
    same = sum(a["state"] == b["state"] for a, b in zip(frozen, fresh, strict=True))
    assert same / len(frozen) < 0.05
    assert [a["id"] for a in frozen] == [b["id"] for b in fresh]  # same composition


def test_suite_size_and_composition(frozen):
    execution = registry.subclasses("execution")
    planning = registry.subclasses("planning")
    assert len(execution) >= 8 and len(planning) >= 6
    counts = Counter((d["lang"], d["logic_family"], d["subclass"], d["level"]) for d in frozen)
    assert set(counts.values()) == {10}
    assert len(counts) == 2 * (len(execution) + len(planning)) * 4
    assert len({d["logic_family"] for d in frozen}) >= 10


def test_both_languages_share_one_reference(frozen):
    by_key: dict[tuple, list[dict]] = {}
    for doc in frozen:
        by_key.setdefault((doc["id"], doc["seed"]), []).append(doc)
    for (item_id, _), pair in by_key.items():
        en, zh = sorted(pair, key=lambda d: d["lang"])
        assert (en["lang"], zh["lang"]) == ("en", "zh"), item_id
        for field in ("answer", "process", "state", "optimal_length", "target"):
            assert en[field] == zh[field], (item_id, field)
        assert en["prompt"] != zh["prompt"]
        assert any("\u4e00" <= ch <= "\u9fff" for ch in zh["prompt"])
        assert not any("\u4e00" <= ch <= "\u9fff" for ch in en["prompt"])
        # Answers and steps are language-neutral.
        assert all(s.isascii() for s in en["answer"] + en["process"]), item_id


def test_levels_set_the_number_of_steps(frozen):
    """The version-1 conventions (a fixed step count per level, the answer read off the last
    step); a later subclass sets its own step counts and answer, checked in its own tests."""
    for doc in frozen:
        level = doc["level"]
        if f"{doc['logic_family']}/{doc['subclass']}" not in V1_SUBCLASSES:
            sub = registry.get(doc["logic_family"], doc["subclass"])
            assert doc["process"] and doc["answer"], doc["id"]
            assert sub.answer_correct(json.loads(doc["state"]), doc["answer"], doc["answer"])
        elif doc["kind"] == "execution":
            assert len(doc["process"]) == OPS_PER_LEVEL[level], doc["id"]
            last = doc["process"][-1]
            assert doc["answer"] == [last.rsplit("=", 1)[1] if "=" in last else last]
        else:
            lo, hi = PLAN_LENGTHS[level]
            assert lo <= doc["optimal_length"] == len(doc["answer"]) <= hi, doc["id"]
            assert len(doc["process"]) == len(doc["answer"])
        assert doc["answer_only"] == registry.get(doc["logic_family"], doc["subclass"]).answer_only(
            level
        )


def test_prompts_ask_for_the_required_block(frozen):
    for doc in frozen:
        prompt = doc["prompt"]
        assert "```json" in prompt
        if doc["answer_only"]:
            assert '{"answer": [...]}' in prompt and '"process": [...]' not in prompt
        else:
            assert '{"answer": [...], "process": [...]}' in prompt
        # The item's own statement comes after the examples, just before the instruction.
        sub = registry.get(doc["logic_family"], doc["subclass"])
        problem = sub.describe(json.loads(doc["state"]), doc["lang"])
        assert prompt.rindex(problem) > prompt.rindex(doc["examples"][-1]["problem"])
        assert prompt.rindex("```json") > prompt.rindex(problem)


@pytest.mark.slow
def test_every_item_has_two_worked_examples_of_its_subclass_and_level(frozen):
    for doc in frozen:
        examples = doc["examples"]
        assert len(examples) >= 2
        states = {doc["state"], *(e["state"] for e in examples)}
        assert len(states) == len(examples) + 1, doc["id"]  # distinct from item and each other
        sub = registry.get(doc["logic_family"], doc["subclass"])
        for ex in examples:
            assert ex["problem"] in doc["prompt"]
            block = {"answer": ex["answer"]}
            if not doc["answer_only"]:
                block["process"] = ex["process"]
            assert json.dumps(block, ensure_ascii=False) in doc["prompt"]
            assert sub.replay(json.loads(ex["state"]), ex["answer"], ex["process"]).valid
            if f"{doc['logic_family']}/{doc['subclass']}" not in V1_SUBCLASSES:
                continue  # (their step counts: their own tests)
            if doc["kind"] == "execution":
                assert len(ex["process"]) == OPS_PER_LEVEL[doc["level"]]
            else:
                lo, hi = PLAN_LENGTHS[doc["level"]]
                assert lo <= len(ex["answer"]) <= hi


@pytest.mark.slow
def test_frozen_references_replay_as_valid(frozen):
    for doc in frozen:
        sub = registry.get(doc["logic_family"], doc["subclass"])
        state = json.loads(doc["state"])
        assert sub.replay(state, doc["answer"], doc["process"]).valid, doc["id"]
        steps = doc["answer"]
        assert sub.replay(state, steps, None).valid, doc["id"]  # the answer-only replay


def _replay_fresh_items(key: str, count: int) -> None:
    sub = registry.get(*key.split("/"))
    for i in range(count):
        level = i % 4
        puzzle = sub.generate(derive_rng(sub.family, sub.name, level, i, 424242), level)
        assert sub.replay(puzzle.state, puzzle.answer, puzzle.process).valid, (key, i)


@pytest.mark.slow
@pytest.mark.parametrize("key", [s.key for s in registry.subclasses()])
def test_fresh_items_per_subclass_replay_as_valid(key):
    """The full-scale check below, at a size CI affords (the first 300 of the same items)."""
    _replay_fresh_items(key, 300)


@pytest.mark.scale
@pytest.mark.parametrize("key", [s.key for s in registry.subclasses()])
def test_ten_thousand_fresh_items_per_subclass_replay_as_valid(key):
    _replay_fresh_items(key, 10_000)


# ----- uniqueness, counted by brute force ---------------------------------------------------


def _count_shortest_plans(sub, state, limit: int = 12) -> tuple[int, int]:
    """(length, number) of the shortest plans, by plain layered BFS over the rules."""
    frontier, seen = {sub.start(state): 1}, {sub.start(state)}
    for depth in range(1, limit + 1):
        layer: dict = {}
        for node, paths in frontier.items():
            for _, child in sub.successors(state, node):
                if child not in seen:
                    layer[child] = layer.get(child, 0) + paths
        goals = [n for n in layer if sub.is_goal(state, n)]
        if goals:
            return depth, sum(layer[g] for g in goals)
        seen.update(layer)
        frontier = layer
    raise AssertionError("no plan within the limit")


def _sudoku_solutions(grid: str) -> list[str]:
    cells = grid.replace("/", "")
    blank = cells.find(".")
    if blank < 0:
        return [cells]
    r, c = divmod(blank, 4)
    used = {
        cells[i]
        for i in range(16)
        if i // 4 == r or i % 4 == c or (i // 8, i % 4 // 2) == (r // 2, c // 2)
    }
    out = []
    for d in "1234":
        if d not in used:
            out += _sudoku_solutions(cells[:blank] + d + cells[blank + 1 :])
    return out


def _planning_items(docs):
    seen = set()
    for doc in docs:
        if doc["kind"] == "planning" and (doc["id"], doc["seed"]) not in seen:
            seen.add((doc["id"], doc["seed"]))
            yield doc


@pytest.mark.slow
def test_planning_answers_are_unique(frozen):
    fresh = generate_docs(seed=31337, langs=["en"], kinds=["planning"], per_cell=25)
    for doc in _planning_items([*frozen, *fresh]):
        sub = registry.get(doc["logic_family"], doc["subclass"])
        state = json.loads(doc["state"])
        if doc["subclass"] == "sudoku":
            solutions = _sudoku_solutions(state["grid"])
            assert len(solutions) == 1, doc["id"]
            fills = [
                f"r{i // 4 + 1}c{i % 4 + 1}={solutions[0][i]}"
                for i, x in enumerate(state["grid"].replace("/", ""))
                if x == "."
            ]
            assert doc["answer"] == fills
        else:
            assert _count_shortest_plans(sub, state) == (len(doc["answer"]), 1), doc["id"]


# ----- hand-worked simulator rules ----------------------------------------------------------


def _run(key: str, state: dict) -> list[str]:
    return registry.get(*key.split("/")).run(state)


@pytest.mark.parametrize(
    ("key", "state", "steps"),
    [
        (
            "strings/edit",
            {
                "word": "ABCD",
                "ops": [["insert", 2, "X"], ["delete", 4], ["duplicate", 1], ["replace", 3, "Z"]],
            },
            ["AXBCD", "AXBD", "AAXBD", "AAZBD"],
        ),
        (
            "strings/rearrange",
            {
                "word": "ABCDE",
                "ops": [
                    ["reverse"],
                    ["rotate_left", 2],
                    ["rotate_right", 1],
                    ["swap", 1, 5],
                    ["reverse_range", 2, 4],
                ],
            },
            ["EDCBA", "CBAED", "DCBAE", "ECBAD", "EABCD"],
        ),
        (
            "cipher/shift",
            {"word": "ABZ", "ops": [["forward", 1], ["back", 2], ["mirror"], ["keyed", "BC"]]},
            ["BCA", "ZAY", "AZB", "BBC"],
        ),
        (
            "operators/custom",
            {"defs": {"#": ["lin", 2, 1], "@": ["mod", 7]}, "expr": ["@", ["#", 3, 4], 5]},
            ["3#4=10", "10@5=1"],
        ),
        (
            "matrix/transform",
            {
                "matrix": [[1, 2], [3, 4]],
                "ops": [
                    ["rotate_cw"],
                    ["rotate_ccw"],
                    ["transpose"],
                    ["flip_lr"],
                    ["flip_ud"],
                    ["add", 7],
                ],
            },
            [
                "[[3,1],[4,2]]",
                "[[1,2],[3,4]]",
                "[[1,3],[2,4]]",
                "[[3,1],[4,2]]",
                "[[4,2],[3,1]]",
                "[[1,9],[0,8]]",
            ],
        ),
        (
            "grid/walk",
            {
                "grid": ["S.#.", "~...", "...O", "O..."],
                "start": [0, 0],
                "cmds": list("RRDLUDRRR"),
                "rules": 4,
            },
            ["(1,2)", "(1,2)", "(2,2)", "(2,1)", "(1,1)", "(3,1)", "(3,2)", "(3,3)", "(4,1)"],
        ),
        (
            "machines/counter",
            {
                "start": 5,
                "rules": {"a": ["add", 9], "b": ["mul", 3], "c": ["sub", 6], "d": ["set", 2]},
                "cap": 20,
                "floor": True,
                "input": list("abccdc"),
            },
            ["14", "22", "16", "10", "2", "0"],
        ),
        (
            "machines/automaton",
            {"table": [[1, 0], [2, 2], [0, 1]], "input": list("aaba")},
            ["S1", "S2", "S1", "S2"],
        ),
        (
            "board/merge",
            {"board": [[2, 2, 2], [4, 0, 4], [0, 2, 2]], "moves": ["L", "R"]},
            ["[[4,2,0],[8,0,0],[4,0,0]]", "[[0,4,2],[0,0,8],[0,0,4]]"],
        ),
    ],
)
def test_execution_rules_by_hand(key, state, steps):
    assert _run(key, state) == steps


def test_merge_rules_by_hand():
    assert swipe([[2, 2, 2, 2]], "L") == [[4, 4, 0, 0]]
    assert swipe([[4, 4, 8, 0]], "L") == [[8, 8, 0, 0]]  # a merged tile does not merge again
    assert swipe([[2, 2, 2, 0]], "R") == [[0, 0, 2, 4]]  # the pair nearest the wall first
    assert swipe([[2], [2], [4]], "U") == [[4], [4], [0]]
    assert swipe([[2], [2], [4]], "D") == [[0], [4], [4]]


def test_operator_statement_shows_the_definitions():
    text = registry.get("operators", "custom").describe(
        {"defs": {"#": ["lin", 2, 1], "@": ["mod", 7]}, "expr": ["@", ["#", 3, 4], 5]}, "en"
    )
    assert "a # b = 2*a + b" in text and "a @ b = (a + b) mod 7" in text
    assert "Compute (3 # 4) @ 5." in text


def _moves(key: str, state: dict, node) -> set[str]:
    return {m for m, _ in registry.get(*key.split("/")).successors(state, node)}


def test_planning_rules_by_hand():
    # Tower of Hanoi: never a larger disk on a smaller one.
    assert _moves("towers/hanoi", {}, ((3, 1), (2,), ())) == {"A->B", "A->C", "B->C"}
    # Jugs (3 and 5 litres) holding 3 and 2: no move that changes nothing.
    jugs = dict(registry.get("containers", "jugs").successors({"caps": [3, 5]}, (3, 2)))
    assert jugs == {"fill(B)": (3, 5), "empty(A)": (0, 2), "empty(B)": (3, 0), "pour(A,B)": (0, 5)}
    # Blocks: C is on A, B alone; a lone block is not moved to the table.
    assert _moves("blocks/stacking", {}, (("A", "C"), ("B",))) == {"C->B", "C->_", "B->C"}
    # Sliding tiles: the empty cell is bottom right, so 3 (above) and 5 (left) can slide.
    assert _moves("tiles/slide", {"rows": 2, "cols": 3}, (1, 2, 3, 4, 5, 0)) == {"3", "5"}
    # Maze: walls and edges block.
    assert _moves("routes/maze", {"grid": ["S.#", "..G", "#.."]}, (0, 0)) == {"R", "D"}


def test_an_item_depends_on_its_key_only():
    a = make_item("towers", "hanoi", 2, 3, 5)
    make_item.cache_clear()
    for other in range(5):  # generating other items in between changes nothing
        make_item("towers", "hanoi", 2, other, 5)
    assert make_item("towers", "hanoi", 2, 3, 5) == a
    assert make_item("towers", "hanoi", 2, 3, 6) != a
