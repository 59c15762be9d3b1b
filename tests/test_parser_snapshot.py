"""The grading workers' parser snapshot (``math/parser_snapshot.py``): it loads, it is refused
when it does not fit, and the parser it fills reads every answer as a cold one does."""

from __future__ import annotations

import gzip
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("math_verify")

from lm_eval_thinkbench.math import grader, parser_snapshot, verify

#: Answers of many shapes, some that fail to parse: each one a different path through the DFAs.
ANSWERS = [
    "\\frac{14}{3}",
    "3\\sqrt{13}",
    "\\left( 3, \\frac{\\pi}{2} \\right)",
    "(2,\\infty)",
    "(-\\infty, 2) \\cup (3, \\infty)",
    "\\begin{pmatrix} -1/3 \\\\ 2/3 \\\\ 5/3 \\end{pmatrix}",
    "y = 2x + 3",
    "x \\in [-2,7]",
    "\\tan A = 2",
    "3 \\pm 2 \\sqrt{2}",
    "10\\%",
    "90^\\circ",
    "f(x)",
    "(base * height) / 2",
    "\\lambda \\vec{v}",
    "2516_8",
    "\\text{(E)}",
    "1+274i",
    "5} + 1",
]


def _readings() -> list[str]:
    """Every reading of :data:`ANSWERS`, parsed now (math-verify's own cache emptied)."""
    from math_verify.parser import parse_latex_cached

    parse_latex_cached.cache_clear()
    verify._gold_readings.cache_clear()
    return [repr((verify._gold_readings(a), verify.candidate_readings("1", a))) for a in ANSWERS]


@contextmanager
def _cold_parser() -> Iterator[Any]:
    """The parser's DFAs emptied, as in a fresh process, and given back afterwards."""
    parser = parser_snapshot._parser()
    saved = [(dfa._states, dfa.s0) for dfa in parser.decisionsToDFA]
    try:
        for dfa in parser.decisionsToDFA:
            dfa._states = {}
            dfa.s0 = type(dfa)(dfa.atnStartState, dfa.decision).s0
        yield parser
    finally:
        for dfa, (states, s0) in zip(parser.decisionsToDFA, saved, strict=True):
            dfa._states, dfa.s0 = states, s0


@pytest.fixture(scope="module", autouse=True)
def _worker_setup() -> None:
    logging.getLogger("math_verify").setLevel(logging.ERROR)
    verify.install_numeric_witness()
    verify.install_two_stage_parsing()


def test_the_shipped_snapshot_fits_the_installed_parser() -> None:
    """A snapshot written for another latex2sympy or ANTLR would be refused silently, and
    every worker would start cold again: rebuild it (``benchmarks/parser_snapshot.py build``)."""
    with gzip.open(parser_snapshot.SNAPSHOT, "rt", encoding="utf-8") as source:
        assert json.load(source)["fingerprint"] == parser_snapshot.fingerprint()


def test_a_dumped_snapshot_loads_into_a_cold_parser_and_reads_every_answer_alike(
    tmp_path: Path,
) -> None:
    expected = _readings()
    path = tmp_path / "dfa.json.gz"
    states = parser_snapshot.dump(path)
    assert states > 0
    with _cold_parser() as parser:
        assert parser_snapshot.load(path)
        assert sum(len(dfa._states) for dfa in parser.decisionsToDFA) == states
        assert _readings() == expected
    with _cold_parser():  # and the shipped one, built from other answers
        assert parser_snapshot.load()
        assert _readings() == expected


def test_a_snapshot_that_does_not_fit_is_refused(tmp_path: Path) -> None:
    verify.equivalent("\\frac{1}{2}", "0.5")  # this process has parsed: its DFAs are not empty
    assert not parser_snapshot.load()
    foreign = tmp_path / "foreign.json.gz"
    with gzip.open(foreign, "wt", encoding="utf-8") as out:
        json.dump({"fingerprint": "another parser", "dfas": []}, out)
    with _cold_parser() as parser:
        assert not parser_snapshot.load(foreign)
        assert not parser_snapshot.load(tmp_path / "missing.json.gz")
        (tmp_path / "broken.json.gz").write_bytes(b"not gzip")
        assert not parser_snapshot.load(tmp_path / "broken.json.gz")
        with gzip.open(parser_snapshot.SNAPSHOT, "rt", encoding="utf-8") as source:
            damaged = json.load(source)
        damaged["states"][0][1] = [["not", "a", "config"]]
        with gzip.open(tmp_path / "damaged.json.gz", "wt", encoding="utf-8") as out:
            json.dump(damaged, out)
        assert not parser_snapshot.load(tmp_path / "damaged.json.gz")
        assert not any(dfa._states for dfa in parser.decisionsToDFA)


def _dfa_states() -> int:
    return sum(len(dfa._states) for dfa in parser_snapshot._parser().decisionsToDFA)


def test_a_grading_worker_starts_with_the_snapshot_loaded() -> None:
    """Its warm-up parses one answer; a cold worker would hold only the few states of that.
    (Forked from a parser with empty DFAs, so that it inherits none.)"""
    with gzip.open(parser_snapshot.SNAPSHOT, "rt", encoding="utf-8") as source:
        shipped = sum(len(numbers) for numbers, _ in json.load(source)["dfas"])
    with _cold_parser(), grader.Grader(preload=False) as checker:
        pool, _ = checker._pool()
        assert pool.schedule(_dfa_states).result(timeout=60) >= shipped


def test_a_preloading_grader_loads_the_snapshot_before_forking_its_workers() -> None:
    """So that a replacement worker (one per hostile input) inherits it instead of loading it."""
    with _cold_parser(), grader.Grader(preload=True) as checker:
        checker._pool()
        assert _dfa_states() > 0
