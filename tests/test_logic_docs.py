"""The generated logic pages are current, and the evidence says what it should: the reference
solver scores 1, naive baselines do not solve the hard levels, and levels do not get shorter."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from lm_eval_thinkbench.logic import registry
from lm_eval_thinkbench.logic.gallery import COMMAND, gallery
from lm_eval_thinkbench.logic.logicgame import CATEGORIES

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def evidence():
    spec = importlib.util.spec_from_file_location(
        "logic_evidence", REPO / "benchmarks" / "logic_evidence.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_gallery_is_current():
    page = gallery()
    assert (REPO / "docs" / "logic_gallery.md").read_text(encoding="utf-8") == page, (
        f"run: {COMMAND}"
    )
    for sub in registry.subclasses():
        assert f"### `{sub.key}` ({sub.kind})" in page
        assert f"| `{sub.key}` | {sub.kind} | {sub.version} |" in page
    for category in CATEGORIES:
        assert f"| {category.zh} | {category.en} |" in page


@pytest.mark.slow
def test_the_committed_evidence_is_current_and_says_what_it_should(evidence):
    page = evidence.table(10)
    committed = (REPO / "docs" / "logic_evidence.md").read_text(encoding="utf-8")
    assert committed == page, f"run: {evidence.COMMAND}"
    rows: dict[str, list[list[str]]] = {}
    for line in page.splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows.setdefault(cells[0].strip("`"), []).append(cells)
    assert sorted(rows) == sorted(s.key for s in registry.subclasses())
    for key, levels in rows.items():
        assert [c[1] for c in levels] == ["0", "1", "2", "3"], key
        assert {c[4] for c in levels} == {"1.00"}, key  # the reference solver
        steps = [float(c[3]) for c in levels]
        assert steps == sorted(steps) and steps[3] > steps[0], key
        assert float(levels[3][5].split(" / ")[2]) <= 0.1, key  # echoing an example fails


def test_rule_count_reads_each_state_shape(evidence):
    assert evidence.rule_count({"ops": [["a", 1], ["b"], ["a", 2]]}) == 2
    assert evidence.rule_count({"rules": 3}) == 3
    assert evidence.rule_count({"rules": ["x", "y"]}) == 2
    assert evidence.rule_count({"rules": {"a": 1, "b": 2}, "cap": 50, "floor": True}) == 4
    assert evidence.rule_count({"conds": [1, 2, 3]}) == 3
    assert evidence.rule_count({"board": [[0]], "moves": ["U"]}) is None
