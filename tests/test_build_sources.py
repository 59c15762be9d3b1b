"""``scripts/build_sources.py``: a mirror's file that is not what the rewriting expects is
reported as not built, naming the file, and the other files are still built."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "build_sources.py"


@pytest.fixture(scope="module")
def build_sources():
    spec = importlib.util.spec_from_file_location("build_sources", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["build_sources"] = module  # (dataclasses look their module up)
    spec.loader.exec_module(module)
    yield module
    del sys.modules["build_sources"]


GOOD_RESULT = {
    "question": "q",
    "gold_answer": "7",
    "generated_responses": ["... so 7"],
    "generated_answers": "['7']",
    "answers_correctness": [True],
}


@pytest.mark.parametrize(
    ("kind", "raw"),
    [
        ("thinking", b""),  # empty
        ("thinking", b'{"tasks": [{"question": "q"'),  # truncated
        ("thinking", b"[1, 2, 3]"),  # no results object
        ("thinking", b'{"tasks": [{"question": "q", "model_answers": "{\'x\': 1}"}]}'),
        ("thinking", b"[" * 100_000 + b"]" * 100_000),  # nested too deep
        ("thinking", b"\xff\xfe not UTF-8"),
        ("deepscaler", json.dumps(GOOD_RESULT).encode() + b"\n{not json\n"),
        ("deepscaler", json.dumps({**GOOD_RESULT, "generated_responses": "[1, (2"}).encode()),
        ("deepscaler", json.dumps({"question": "q"}).encode()),  # fields missing
    ],
)
def test_malformed_content_is_reported_not_built(
    build_sources, tmp_path, capsys, monkeypatch, kind, raw
):
    broken = build_sources.Source("broken.jsonl", "o/r", "c" * 40, "p.json", kind)
    fine = build_sources.Source("fine.jsonl", "o/r", "c" * 40, "q.jsonl", "deepscaler")
    contents = {"p.json": raw, "q.jsonl": json.dumps(GOOD_RESULT).encode() + b"\n\n"}

    def show(gitdir: Path, commit: str, path: str) -> bytes:
        return contents[path]

    mirrors = tmp_path / "mirrors"
    (mirrors / "o+r" / "objects").mkdir(parents=True)
    (mirrors / "o+r" / "HEAD").write_text("ref: refs/heads/main\n")
    monkeypatch.setattr(build_sources, "git_show", show)
    failed = build_sources.build(
        [broken, fine], mirrors, tmp_path / "out", tmp_path / "none.jsonl", grade=False
    )
    printed = capsys.readouterr().out
    assert failed == 1
    assert "not built  broken.jsonl: " in printed
    assert not (tmp_path / "out" / "broken.jsonl").exists()
    rows = [json.loads(line) for line in (tmp_path / "out" / "fine.jsonl").read_text().splitlines()]
    assert rows == [
        {
            "idx": 0,
            "question": "q",
            "gt": "7",
            "code": ["... so 7"],
            "pred": ["7"],
            "score": [True],
        }
    ]


def test_a_missing_mirror_is_reported(build_sources, tmp_path, capsys):
    source = build_sources.Source("x.jsonl", "nobody/nothing", "c" * 40, "p.json")
    lost = build_sources.Lost("y.jsonl", "copied page by page")
    assert build_sources.build([source, lost], tmp_path, tmp_path / "out", tmp_path, False) == 2
    printed = capsys.readouterr().out
    assert "not built  x.jsonl: no mirror of nobody/nothing" in printed
    assert "not built  y.jsonl: copied page by page" in printed
