"""``thinkbench analyze`` with the judge locator and the llm splitter, against a real server.

The judge is ``simulate/server.py --scripted`` as a process on 127.0.0.1: it plays a judge (the
first paragraph stating the correct answer) and a splitter, and injects faults into chosen
samples (HTTP 500 and 429, replies slower than the timeout, malformed bodies, dropped
connections). Every sample must come out, the failures counted as judge errors and left out
of the figures that need the first-correct position only. A run killed with SIGKILL and started
again must finish with the same outputs, and never repeat a call that had completed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lm_eval_thinkbench.analyze.api import AnalyzeOptions, analyze
from lm_eval_thinkbench.judge.settings import JudgeSettings
from lm_eval_thinkbench.math500.data import read_math500
from lm_eval_thinkbench.simulate import simulate
from lm_eval_thinkbench.simulate.server import FakeOpenAIServer

REPO = Path(__file__).resolve().parent.parent
RESPONDERS = [
    {"match": "[Correct Answer]", "respond": "first_correct"},
    {"match": "[Reasoning]", "respond": "split_steps"},
]
FAULTS = {
    "ALWAYS_500": {"status": 500, "retry_after_ms": 10},
    "ONCE_429": {"status": 429, "times": 1, "retry_after_ms": 10},
    "ALWAYS_SLOW": {"delay": 3.0},
    "ONCE_SLOW": {"delay": 3.0, "times": 1},
    "ALWAYS_MALFORMED": {"action": "malformed"},
    "ALWAYS_DROP": {"action": "drop"},
    "ONCE_DROP": {"action": "drop", "times": 1},
}
PERSISTENT = {"ALWAYS_500", "ALWAYS_SLOW", "ALWAYS_MALFORMED", "ALWAYS_DROP"}


def write_plain(path: Path, docs: list[dict], tags: dict[int, str], seed: int = 3) -> Path:
    """Plain JSONL (reasoning + answer split), problem texts tagged to trigger faults."""
    lines = []
    for i, doc in enumerate(docs):
        trace = simulate(doc, seed=seed)
        tag = tags.get(i)
        lines.append(
            json.dumps(
                {
                    "id": doc["unique_id"],
                    "problem": (f"{tag} " if tag else "") + doc["problem"],
                    "gold": doc["answer"],
                    "reasoning": trace.reasoning,
                    "answer": trace.content,
                    "level": doc["level"],
                    "finish_reason": "length" if trace.truth.truncated else "stop",
                }
            )
        )
    path.write_text("\n".join(lines) + "\n")
    return path


def rules() -> list[dict]:
    return [{"match": k, **v} for k, v in FAULTS.items()] + RESPONDERS


def judge(server: FakeOpenAIServer, **kw) -> JudgeSettings:
    base = {"model": "judge", "base_url": server.base_url, "timeout": 0.8, "max_retries": 2,
            "retry_base": 0.01, "concurrency": 8}  # fmt: skip
    return JudgeSettings(**{**base, **kw})


@pytest.fixture(scope="module")
def docs(math500_path: Path) -> list[dict]:
    return read_math500(math500_path)[::10][:40]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with FakeOpenAIServer(tmp_path_factory.mktemp("judge"), rules()) as srv:
        yield srv


def run(inputs: Path, out: Path, server, cache: Path, **kw):
    options = AnalyzeOptions(
        runs=[str(inputs)], output=out, judge=judge(server), judge_cache=cache, progress=False,
        plots=False, workers=1, **kw,
    )  # fmt: skip
    return analyze(options)


@pytest.mark.slow
def test_faults_give_judge_errors_and_lose_no_sample(docs, server, tmp_path):
    tags = dict(enumerate(FAULTS))
    inputs = write_plain(tmp_path / "in.jsonl", docs, tags)
    result = run(inputs, tmp_path / "out", server, tmp_path / "cache", locator="judge")
    rows = [json.loads(x) for x in (tmp_path / "out" / "per_sample.jsonl").open()]
    assert len(rows) == len(docs)
    failed = {r["problem"].split()[0] for r in rows if r["locator_error"]}
    assert failed == PERSISTENT
    for r in rows:
        if r["locator_error"]:
            assert r["first_correct_tokens"] is None and r["outcome_efficiency"] is None
            assert r["reasoning_tokens"] > 0 and isinstance(r["correct"], bool)
        else:
            assert r["locator"] == "judge"
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    overall = next(g for g in summary["groups"] if g["subset"] == "overall")
    assert overall["samples"] == len(docs) and overall["judge_errors"] == len(PERSISTENT)
    assert sum(g["judge_errors"] for g in summary["groups"] if g["subset"] != "overall") == 4
    assert overall["metrics"]["accuracy"]["n"] == len(docs)  # accuracy needs no judge
    assert overall["metrics"]["outcome_efficiency"]["n"] == len(docs) - len(PERSISTENT)
    assert "judge errors" in (tmp_path / "out" / "summary.md").read_text()
    assert result.judge_stats.failures == len(PERSISTENT)
    # failures were not cached: a second run retries exactly those, the rest come from cache
    before = len(server.requests())
    again = run(inputs, tmp_path / "out2", server, tmp_path / "cache", locator="judge")
    assert again.judge_stats.cache_hits == len(docs) - len(PERSISTENT)
    retried = server.requests()[before:]
    assert {r["body"]["messages"][0]["content"].split("[Math Problem]")[1].split()[0]
            for r in retried} == PERSISTENT  # fmt: skip


@pytest.mark.slow
def test_both_reports_agreement_and_distance(docs, server, tmp_path):
    """The scripted judge is fooled by the simulator's decoys ("one value I keep coming back to
    is $X$"), so it sometimes names an earlier step than the rule: both are reported."""
    inputs = write_plain(tmp_path / "in.jsonl", docs, {})
    result = run(inputs, tmp_path / "out", server, tmp_path / "cache", locator="both")
    agreement = next(g for g in result.groups if g.subset == "overall").agreement
    assert agreement is not None and agreement.compared == len(docs)
    differ = [s for s in result.scored if s.record.first_correct_step != s.rule.first_correct_step]
    assert 0 < len(differ) < len(docs) / 4
    assert agreement.agree == len(docs) - len(differ)
    both = [s for s in differ if None not in (s.record.first_correct_tokens,
                                              s.rule.first_correct_tokens)]  # fmt: skip
    distances = [abs(s.record.first_correct_tokens - s.rule.first_correct_tokens) for s in both]
    assert agreement.distance_n == len(both) and agreement.one_sided == len(differ) - len(both)
    assert agreement.distance_mean == pytest.approx(sum(distances) / len(distances))
    rows = [json.loads(x) for x in (tmp_path / "out" / "per_sample.jsonl").open()]
    assert all(r["locator"] == "judge" and "rule" in r for r in rows)
    assert "locators agree" in (tmp_path / "out" / "summary.md").read_text()


@pytest.mark.slow
def test_llm_split_maps_back_and_rejects_edits(docs, server, tmp_path):
    tamper_rules = [{"match": "TAMPER", "respond": "split_steps", "tamper": True}, *rules()]
    inputs = write_plain(tmp_path / "in.jsonl", docs[:12], {0: "TAMPER", 1: "ALWAYS_500"})
    with FakeOpenAIServer(tmp_path / "srv", tamper_rules) as srv:
        run(inputs, tmp_path / "llm", srv, tmp_path / "cache", split="llm", locator="rule")
    rule = AnalyzeOptions(runs=[str(inputs)], output=tmp_path / "rule", progress=False,
                          plots=False, workers=1)  # fmt: skip
    analyze(rule)
    llm_rows = [json.loads(x) for x in (tmp_path / "llm" / "per_sample.jsonl").open()]
    rule_rows = [json.loads(x) for x in (tmp_path / "rule" / "per_sample.jsonl").open()]
    assert "rewrite changed" in llm_rows[0]["locator_error"]
    assert "judge split failed" in llm_rows[1]["locator_error"]
    for got, want in zip(llm_rows[2:], rule_rows[2:], strict=True):
        # the splitter cut at the paragraphs: same steps, same counts on the original text
        assert got["step_split"] == "llm" and got["locator_error"] is None
        for key in ("steps", "first_correct_step", "first_correct_tokens", "reasoning_tokens"):
            assert got[key] == want[key], key


def _cli(inputs: Path, out: Path, server: FakeOpenAIServer, cache: Path) -> list[str]:
    return [
        sys.executable, "-m", "lm_eval_thinkbench.thinkbench", "analyze", str(inputs),
        "-o", str(out), "--locator", "judge", "--judge-model", "judge",
        "--judge-base-url", server.base_url, "--judge-cache", str(cache),
        "--judge-concurrency", "2", "--no-progress", "--workers", "1",
    ]  # fmt: skip


@pytest.mark.slow
def test_sigkill_halfway_then_resume(docs, tmp_path):
    inputs = write_plain(tmp_path / "in.jsonl", docs[:30], {})
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    slow = [{**r, "delay": 0.15} for r in RESPONDERS]
    with FakeOpenAIServer(tmp_path / "srv", slow) as srv:
        proc = subprocess.Popen(
            _cli(inputs, tmp_path / "out", srv, tmp_path / "cache"),
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while len(srv.completed()) < 10 and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.1)  # let the client take in the replies it has (see below)
        killed_at = time.time()
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        before_kill = srv.completed()
        assert 10 <= len(before_kill) < 30
        assert not (tmp_path / "out" / "summary.json").exists()

        resumed = subprocess.run(
            _cli(inputs, tmp_path / "out", srv, tmp_path / "cache"), env=env, capture_output=True
        )
        assert resumed.returncode == 0, resumed.stderr[-2000:]
        keys = [c["key"] for c in srv.completed()]
        # No call that completed before the kill was made again. (A reply the server finished
        # sending in the last instant before the kill, still unread by the dead client, would
        # be asked again: no client can store an answer it never received.)
        settled = {c["key"] for c in before_kill if c["time"] < killed_at - 0.05}
        assert len(settled) >= 10
        assert all(keys.count(k) == 1 for k in settled)
        assert len(set(keys)) == 30

        fresh = subprocess.run(
            _cli(inputs, tmp_path / "ref", srv, tmp_path / "cache2"), env=env, capture_output=True
        )
        assert fresh.returncode == 0
    for name in ("summary.md", "summary.csv", "summary.json", "per_sample.jsonl"):
        assert (tmp_path / "out" / name).read_bytes() == (tmp_path / "ref" / name).read_bytes()


def test_judge_needs_settings(tmp_path, docs):
    inputs = write_plain(tmp_path / "in.jsonl", docs[:2], {})
    with pytest.raises(ValueError, match="need a judge"):
        analyze(AnalyzeOptions(runs=[str(inputs)], output=tmp_path, locator="judge"))


@pytest.mark.slow
def test_worker_processes_give_the_records_of_one_process(docs, server, tmp_path, monkeypatch):
    """With worker processes, each judged job goes to the pool from the judge's loop: the
    records are those scored in this process (the second run reads the judge cache)."""
    from lm_eval_thinkbench.analyze import score

    monkeypatch.setattr(score, "MIN_SAMPLES_PER_WORKER", 4)  # two workers for 12 samples
    inputs = write_plain(tmp_path / "in.jsonl", docs[:12], {3: "ALWAYS_500"})
    rows = {}
    for workers in (2, 1):
        out = tmp_path / f"w{workers}"
        options = AnalyzeOptions(runs=[str(inputs)], output=out, judge=judge(server),
                                 judge_cache=tmp_path / "cache", progress=False, plots=False,
                                 workers=workers, locator="both", split="llm")  # fmt: skip
        analyze(options)
        rows[workers] = (out / "per_sample.jsonl").read_text()
    assert rows[2] == rows[1]
    assert rows[2].count('"locator_error": "judge split failed') == 1


def test_a_judge_that_fails_every_call_fails_the_command(docs, tmp_path, capsys):
    """Nothing listening at the judge's URL: the reports are written, and the command says
    that every judge call failed and exits 1 instead of 0 with every figure missing."""
    import socket

    from lm_eval_thinkbench.thinkbench import main

    with socket.socket() as sock:  # a port nothing listens on once the socket is closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    inputs = write_plain(tmp_path / "in.jsonl", docs[:3], {})
    argv = ["analyze", str(inputs), "-o", str(tmp_path / "out"), "--locator", "judge",
            "--judge-model", "judge", "--judge-base-url", f"http://127.0.0.1:{port}/v1",
            "--judge-retries", "0", "--no-judge-cache", "--no-plots", "--no-progress",
            "--workers", "1"]  # fmt: skip
    assert main(argv) == 1
    assert "every judge call failed" in capsys.readouterr().err
    rows = (tmp_path / "out" / "per_sample.jsonl").read_text().splitlines()
    assert len(rows) == 3 and all(json.loads(r)["locator_error"] for r in rows)
