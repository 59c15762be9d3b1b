"""The logic tasks as the harness meets them: YAMLs, dataset loader, metadata, export command."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import pytest
from lm_eval.tasks import TaskManager
from support.tasks import task_manager
from test_logic_generation import FROZEN_SHA256

from lm_eval_thinkbench import TASKS_DIR
from lm_eval_thinkbench.logic import cli, registry, task_yamls
from lm_eval_thinkbench.logic.data import load_logic
from lm_eval_thinkbench.logic.sets import generate_docs, set_sha256

LOGIC_DIR = Path(TASKS_DIR) / "logic"


@pytest.fixture(scope="module")
def logic_tasks() -> TaskManager:
    """lm-eval's task index over the thinkbench tasks (see support.tasks)."""
    return task_manager()


def test_committed_yamls_are_the_generated_ones():
    """A newly registered subclass fails here until its tasks are generated."""
    expected = task_yamls.files()
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in LOGIC_DIR.iterdir()}
    assert on_disk == expected, "run: python -m lm_eval_thinkbench.logic.task_yamls"
    leaves = [n for n in expected if n.startswith("thinkbench_logic_")]
    assert len(leaves) == 16 + 2 * len(registry.subclasses())


def test_main_writes_the_tree_and_drops_stale_generated_files(tmp_path, capsys):
    (tmp_path / "thinkbench_logic_en_gone_away.yaml").write_text(task_yamls.HEADER + "task: x\n")
    (tmp_path / "mine.yaml").write_text("task: mine\n")
    task_yamls.main([str(tmp_path)])
    written = {p.name: p.read_text(encoding="utf-8") for p in tmp_path.iterdir()}
    assert written == {**task_yamls.files(), "mine.yaml": "task: mine\n"}
    assert f"wrote {len(task_yamls.files())} files" in capsys.readouterr().out


def test_every_subclass_has_a_task_in_both_languages(logic_tasks):
    """What `lm_eval ls tasks` lists: a leaf per registered subclass and language."""
    listed = set(logic_tasks.all_subtasks)
    for sub in registry.subclasses():
        for lang in ("en", "zh"):
            assert f"thinkbench_logic_{lang}_{sub.family}_{sub.name}" in listed, sub.key


@pytest.mark.slow
def test_the_by_subclass_tree_partitions_the_same_items(logic_tasks):
    """Both trees hold every item of the set exactly once, so their totals agree; neither
    tree holds the other's leaves (which would count items twice)."""
    by_level = logic_tasks.load(["thinkbench_logic"])
    by_subclass = logic_tasks.load(["thinkbench_logic_by_subclass"])
    tree = by_subclass["group_map"]
    assert tree["thinkbench_logic_by_subclass"] == [
        "thinkbench_logic_en_by_subclass",
        "thinkbench_logic_zh_by_subclass",
    ]
    assert tree["thinkbench_logic_zh_planning_by_subclass"] == [
        f"thinkbench_logic_zh_{s.family}_{s.name}" for s in registry.subclasses("planning")
    ]
    assert not set(by_level["tasks"]) & set(by_subclass["tasks"])

    def items(loaded: dict) -> Counter:
        return Counter(
            (d["lang"], d["id"], d["state"]) for t in loaded["tasks"].values() for d in t.eval_docs
        )

    assert items(by_level) == items(by_subclass)
    assert sum(items(by_subclass).values()) == 2 * 4 * 10 * len(registry.subclasses())
    hanoi = by_subclass["tasks"]["thinkbench_logic_en_towers_hanoi"].eval_docs
    assert {(d["subclass"], d["lang"]) for d in hanoi} == {("hanoi", "en")}
    assert Counter(d["level"] for d in hanoi) == {0: 10, 1: 10, 2: 10, 3: 10}


@pytest.mark.slow
def test_lm_eval_builds_the_tree(logic_tasks):
    loaded = logic_tasks.load(["thinkbench_logic"])
    tree = loaded["group_map"]
    assert tree["thinkbench_logic"] == ["thinkbench_logic_en", "thinkbench_logic_zh"]
    assert tree["thinkbench_logic_zh"] == [
        "thinkbench_logic_zh_execution",
        "thinkbench_logic_zh_planning",
    ]
    assert tree["thinkbench_logic_en_planning"] == [
        f"thinkbench_logic_en_planning_level{n}" for n in range(4)
    ]
    assert len(loaded["tasks"]) == 16
    per_cell = 2 * 4 * 10  # languages x levels x items
    assert sum(len(t.eval_docs) for t in loaded["tasks"].values()) == per_cell * len(
        registry.subclasses()
    )
    for level in range(4):
        assert f"thinkbench_logic_level{level}" in logic_tasks.all_tags
    # Kind totals across languages: their own groups, in their own run.
    by_kind = logic_tasks.load(["thinkbench_logic_execution", "thinkbench_logic_planning"])
    assert by_kind["group_map"]["thinkbench_logic_planning"] == [
        "thinkbench_logic_en_planning",
        "thinkbench_logic_zh_planning",
    ]
    with pytest.raises(ValueError, match="Duplicate task"):
        logic_tasks.load(["thinkbench_logic", "thinkbench_logic_execution"])


def test_a_leaf_loads_its_cell_of_the_frozen_set():
    test = load_logic(lang="zh", kind="planning", level=3)["test"]
    assert len(test) == len(registry.subclasses("planning")) * 10
    assert {(d["lang"], d["kind"], d["level"], d["seed"]) for d in test} == {
        ("zh", "planning", 3, 1)
    }
    assert list(test) == list(generate_docs(1, ["zh"], ["planning"], [3]))


def test_metadata_names_the_set_version():
    """set_version: 1 (or v1) reproduces the published set; default: the newest."""
    v1 = load_logic(lang="en", kind="execution", level=2, set_version="v1")["test"]
    assert list(v1) == list(generate_docs(1, ["en"], ["execution"], [2], set_version=1))
    assert len(v1) == len(registry.subclasses("execution", set_version=1)) * 10 == 90
    assert {d["set_version"] for d in v1} == {"1"}
    newest = load_logic(lang="en", kind="execution", level=2)["test"]
    assert {d["set_version"] for d in newest} == {"2"}
    with pytest.raises(ValueError, match="unknown logic set version 'v9'"):
        load_logic(lang="en", kind="execution", level=2, set_version="v9")
    with pytest.raises(KeyError, match="unknown logic subclass no/such"):
        load_logic(lang="en", subclass="no/such")


def test_metadata_picks_a_fresh_set_but_a_model_seed_does_not():
    frozen = load_logic(lang="en", kind="execution", level=1)["test"]
    # lm-eval merges --model_args into the metadata: a model's own seed must not switch sets.
    assert list(load_logic(lang="en", kind="execution", level=1, seed=5)["test"]) == list(frozen)
    fresh = load_logic(lang="en", kind="execution", level=1, logic_seed="5", logic_items=3)["test"]
    n_execution = len(registry.subclasses("execution"))
    assert len(fresh) == n_execution * 3 and {d["seed"] for d in fresh} == {5}
    shared = {d["state"] for d in fresh} & {d["state"] for d in frozen}
    assert len(shared) <= 3  # a few level-1 puzzles have small spaces


@pytest.mark.slow
def test_export_writes_the_set_and_its_composition(tmp_path, capsys):
    out = tmp_path / "frozen.jsonl"
    cli.main(["export", "--out", str(out), "--set-version", "v1"])
    assert hashlib.sha256(out.read_bytes()).hexdigest() == FROZEN_SHA256
    report = capsys.readouterr().out
    assert f"sha256 {FROZEN_SHA256}" in report and "frozen set v1" in report
    assert "towers/hanoi" in report and "per language: en 600, zh 600" in report

    newest = tmp_path / "newest.jsonl"
    cli.main(["export", "--out", str(newest), "--lang", "en", "--items", "1"])
    assert "frozen set v2" in capsys.readouterr().out
    assert len(newest.read_text(encoding="utf-8").splitlines()) == len(registry.subclasses()) * 4
    with pytest.raises(SystemExit):
        cli.main(["export", "--out", str(newest), "--set-version", "v0"])
    assert "unknown logic set version 'v0'" in capsys.readouterr().err

    fresh = tmp_path / "fresh.jsonl"
    cli.main(["export", "--out", str(fresh), "--seed", "8", "--lang", "zh", "--items", "2"])
    lines = fresh.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(registry.subclasses()) * 4 * 2
    docs = list(generate_docs(8, ["zh"], per_cell=2))
    assert f"sha256 {set_sha256(docs)}" in capsys.readouterr().out
    assert hashlib.sha256(fresh.read_bytes()).hexdigest() == set_sha256(docs)
