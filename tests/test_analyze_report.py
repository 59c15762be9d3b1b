"""Reports, figures, selection, intervals and the command line; real DeepSeek-R1 traces."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from support.data import R1_TRACE_NAMES, r1_traces

from lm_eval_thinkbench.analyze.aggregate import mean_with_interval
from lm_eval_thinkbench.analyze.api import AnalyzeOptions, analyze
from lm_eval_thinkbench.analyze.samples import Sample
from lm_eval_thinkbench.analyze.select import select
from lm_eval_thinkbench.math.grader import Grader
from lm_eval_thinkbench.math500.score import score_response
from lm_eval_thinkbench.reading import ScoringConfig
from lm_eval_thinkbench.response import ModelResponse
from lm_eval_thinkbench.thinkbench import build_parser, main
from lm_eval_thinkbench.tokens import get_counter

REPO = Path(__file__).resolve().parent.parent


def plain(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture(scope="module")
def r1_report(tmp_path_factory) -> Path:
    """The real R1 traces as plain JSONL (already split into thinking and answer)."""
    tmp = tmp_path_factory.mktemp("r1")
    runs = []
    for name in R1_TRACE_NAMES:
        traces = r1_traces(name)
        rows = [
            {"id": i, "problem": t["problem"], "gold": t["gtruth_answer"],
             "reasoning": t["message_thinking"], "answer": t["message_content"]}
            for i, t in enumerate(traces)
        ]  # fmt: skip
        runs.append(str(plain(tmp / f"{name}.jsonl", rows)))
    analyze(AnalyzeOptions(runs=runs, output=tmp / "out", progress=False, workers=1))
    return tmp / "out"


@pytest.mark.slow
def test_r1_first_correct_steps_are_quoted(r1_report):
    rows = [json.loads(x) for x in (r1_report / "per_sample.jsonl").open()]
    assert len(rows) == 10
    located = [r for r in rows if r["first_correct_step"] is not None]
    assert len(located) >= 8
    for r in located:
        # the whole step is in the record, and it holds the quoted answer statement
        assert r["first_correct_quote"] in r["first_correct_step_text"]
        assert r["first_correct_tokens"] <= r["reasoning_tokens"]
    for r in rows:
        assert r["correct"] == r["checker_correct"] and r["correct"]  # all ten are right


@pytest.mark.slow
def test_reports_and_figures_for_several_models(r1_report):
    names = sorted(p.name for p in r1_report.iterdir())
    assert names == sorted(
        ["summary.md", "summary.csv", "summary.json", "per_sample.jsonl", "models.png",
         "r1_openrouter_math_train.png", "r1_8b_ollama_math_train.png"]
    )  # fmt: skip
    assert all((r1_report / n).read_bytes()[:4] == b"\x89PNG" for n in names if n.endswith("png"))
    md = (r1_report / "summary.md").read_text()
    assert "## Models side by side (overall)" in md and "| r1_8b_ollama_math_train | 5 |" in md
    csv_lines = (r1_report / "summary.csv").read_text().splitlines()
    assert csv_lines[0].startswith("model,subset,metric,mean,ci_low,ci_high,n")
    summary = json.loads((r1_report / "summary.json").read_text())
    assert {g["model"] for g in summary["groups"]} == {
        "r1_openrouter_math_train", "r1_8b_ollama_math_train"
    }  # fmt: skip
    assert len(csv_lines) == 1 + len(summary["groups"]) * len(summary["metrics"])


@pytest.mark.slow
def test_outputs_are_deterministic(tmp_path, r1_report):
    runs = json.loads((r1_report / "summary.json").read_text())["settings"]["runs"]
    analyze(AnalyzeOptions(runs=runs, output=tmp_path, progress=False, workers=1))
    for path in r1_report.iterdir():
        assert (tmp_path / path.name).read_bytes() == path.read_bytes(), path.name


def test_new_per_sample_metrics():
    counter = get_counter(None)
    reasoning = "Try 2+2.\n\nSo the answer is 4.\n\nWait, let me verify: the answer is 4."
    raw = ModelResponse(content="\\boxed{4}", reasoning=reasoning)
    with Grader(deadline=3) as grader:
        right = score_response(raw, "4", ScoringConfig(), counter, grader)
        wrong = score_response(
            ModelResponse(content="\\boxed{5}", reasoning=reasoning), "4", ScoringConfig(),
            counter, grader,
        )  # fmt: skip
        none = score_response(
            ModelResponse(content="\\boxed{5}", reasoning="Try 2+3."), "4", ScoringConfig(),
            counter, grader,
        )  # fmt: skip
    first = counter.count("Try 2+2.\n\nSo the answer is 4.")
    total = counter.count(reasoning) + counter.count("\\boxed{4}")
    assert right.outcome_efficiency == pytest.approx(first / total)
    assert right.underthinking is None and right.solution_rounds == 2
    assert right.redundant_sections == 1 and right.sections == 2
    total_wrong = counter.count(reasoning) + counter.count("\\boxed{5}")
    assert wrong.outcome_efficiency == 0.0
    assert wrong.underthinking == pytest.approx(1 - first / total_wrong)
    assert none.underthinking == 0.0 and none.solution_rounds == 0
    assert none.redundant_sections is None


def _sample(model: str, subset: str, sid: str) -> Sample:
    return Sample(model, "t", subset, sid, 0, "p", "1", ModelResponse(""), "x")


def test_seeded_sample_draws_the_same_problems_for_every_model():
    samples = [_sample(m, f"Level {k % 2}", str(k)) for m in ("a", "b") for k in range(40)]
    chosen = select(samples, sample=5, seed=3)
    for model in ("a", "b"):
        ids = [s.sample_id for s in chosen if s.model == model]
        assert len(ids) == 10
    assert [s.sample_id for s in chosen if s.model == "a"] == [
        s.sample_id for s in chosen if s.model == "b"
    ]
    first_n = [s.sample_id for s in select(samples, limit=5) if s.model == "a"]
    assert first_n == ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]
    assert chosen != select(samples, sample=5, seed=4)
    with pytest.raises(ValueError, match="not both"):
        select(samples, limit=1, sample=1)


def test_bootstrap_interval():
    values = [float(v) for v in range(100)]
    stat = mean_with_interval(values, 1000, 0.95, "s")
    assert stat.mean == 49.5 and stat.low < 49.5 < stat.high and stat.n == 100
    assert 43 < stat.low < 46 and 53 < stat.high < 56  # ~ mean ± 1.96 * 29 / 10
    assert mean_with_interval(values, 1000, 0.95, "s") == stat
    assert mean_with_interval([], 1000, 0.95, "s").mean is None
    assert mean_with_interval([3.0], 1000, 0.95, "s").low == 3.0


def test_bootstrap_resamples_problems_with_their_repeats():
    """Repeats of a problem move together (a hard problem is hard every time), so 20 problems
    x 4 repeats carry about the information of 20 samples, not 80: the interval resamples
    problems. It equals a cluster bootstrap computed by hand from the same draws."""
    clusters = [p for p in range(20) for _ in range(4)]
    values = [float(p % 3 == 0 or (p == 1 and k < 2)) for p in range(20) for k in range(4)]
    naive = mean_with_interval(values, 2000, 0.95, "repeats")
    clustered = mean_with_interval(values, 2000, 0.95, "repeats", clusters=clusters)
    assert clustered.mean == naive.mean and clustered.n == naive.n == 80
    assert clustered.high - clustered.low > 1.6 * (naive.high - naive.low)

    rng = np.random.default_rng(int(hashlib.sha256(b"repeats").hexdigest()[:16], 16))
    per_problem = [[v for v, c in zip(values, clusters, strict=True) if c == p] for p in range(20)]
    means = []
    for drawn in rng.integers(0, 20, size=(2000, 20)):
        pooled = [v for p in drawn for v in per_problem[p]]
        means.append(sum(pooled) / len(pooled))
    low, high = np.percentile(means, [2.5, 97.5])
    assert (clustered.low, clustered.high) == pytest.approx((low, high), abs=1e-12)
    # one sample per problem: the ordinary bootstrap, to the last bit
    assert mean_with_interval(values, 500, 0.95, "s", clusters=list(range(80))) == (
        mean_with_interval(values, 500, 0.95, "s")
    )


def test_reported_intervals_resample_problems(tmp_path):
    """In a report, a metric's interval is the cluster bootstrap over the problem ids."""
    rows = [
        {"id": p, "repeat": k, "problem": f"p{p}", "gold": "4",
         "response": f"<think>So it is {4 if p % 2 else 5}.</think>\\boxed{{{4 if p % 2 else 5}}}"}
        for p in range(12) for k in range(3)
    ]  # fmt: skip
    result = analyze(AnalyzeOptions(runs=[str(plain(tmp_path / "rep.jsonl", rows))],
                                    output=tmp_path / "o", plots=False, progress=False,
                                    workers=1))  # fmt: skip
    overall = result.groups[-1]
    values = [float(s.record.correct) for s in result.scored]
    ids = [("rep", s.sample.sample_id) for s in result.scored]
    seed = "0|rep|overall|accuracy"
    assert overall.stats["accuracy"] == mean_with_interval(values, 1000, 0.95, seed, clusters=ids)
    assert overall.stats["accuracy"] != mean_with_interval(values, 1000, 0.95, seed)


def test_max_tokens_drops_are_counted(tmp_path):
    long = "So the answer is 4. " * 200
    rows = [
        {"id": 1, "problem": "p", "gold": "4", "reasoning": long, "answer": "\\boxed{4}"},
        {"id": 2, "problem": "p", "gold": "4", "reasoning": "So it is 4.", "answer": "\\boxed{4}"},
    ]
    inputs = plain(tmp_path / "in.jsonl", rows)
    result = analyze(AnalyzeOptions(runs=[str(inputs)], output=tmp_path / "o", max_tokens=100,
                                    progress=False, plots=False, workers=1))  # fmt: skip
    assert [s.sample.sample_id for s in result.scored] == ["2"]
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert [g["dropped_max_tokens"] for g in summary["groups"]] == [1, 1]


def test_correctness_logged_uses_the_run_verdict(tmp_path):
    rows = [{"id": 1, "problem": "p", "gold": "4", "response": "<think>x</think>\\boxed{4}",
             "correct": False}]  # fmt: skip
    inputs = plain(tmp_path / "in.jsonl", rows)
    for mode, expected in (("checker", 1.0), ("logged", 0.0)):
        result = analyze(AnalyzeOptions(runs=[str(inputs)], output=tmp_path / mode, plots=False,
                                        progress=False, correctness=mode, workers=1))  # fmt: skip
        overall = result.groups[-1]
        assert overall.stats["accuracy"].mean == expected and overall.logged_disagreements == 1


@pytest.mark.slow
def test_worker_processes_give_the_same_records(tmp_path, math500_path):
    from test_analyze_truth import write_lm_eval_log

    from lm_eval_thinkbench.math500.data import read_math500

    logs = write_lm_eval_log(tmp_path / "logs", read_math500(math500_path)[:70], seed=5)
    for workers in (1, 2):
        analyze(AnalyzeOptions(runs=[str(logs)], output=tmp_path / f"w{workers}", plots=False,
                               progress=False, workers=workers))  # fmt: skip
    for name in ("per_sample.jsonl", "summary.json"):
        assert (tmp_path / "w1" / name).read_bytes() == (tmp_path / "w2" / name).read_bytes()


def test_help_explains_every_option(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["analyze", "--help"])
    text = capsys.readouterr().out
    parser = build_parser()
    analyze_parser = parser._subparsers._group_actions[0].choices["analyze"]
    for action in analyze_parser._actions:
        if action.option_strings and action.dest != "help":
            assert action.help, action.dest
            assert action.option_strings[-1] in text
    assert "THINKBENCH_JUDGE_API_KEY" in text


def test_cli_errors_name_the_file(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"what": 1}\n')
    assert main(["analyze", str(bad), "-o", str(tmp_path / "o")]) == 2
    assert str(bad) in capsys.readouterr().err
    assert main(["analyze", str(bad), "--locator", "judge"]) == 2
    assert "judge" in capsys.readouterr().err


@pytest.mark.slow
def test_cli_as_a_module(tmp_path):
    rows = [{"id": 1, "problem": "p", "gold": "4", "response": "<think>So it is 4.</think>4"}]
    inputs = plain(tmp_path / "in.jsonl", rows)
    proc = subprocess.run(
        [sys.executable, "-m", "lm_eval_thinkbench.thinkbench", "analyze", str(inputs),
         "-o", str(tmp_path / "o"), "--no-progress", "--no-plots"],
        capture_output=True, text=True, cwd=REPO,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "analysed 1 samples" in proc.stdout


@pytest.mark.slow
def test_a_drawing_error_is_raised(tmp_path):
    from lm_eval_thinkbench.analyze.aggregate import PLOTTED, Group, Stat
    from lm_eval_thinkbench.analyze.plots import write_plots

    stats = {name: Stat(mean=1.0, low=0.5, high=1.5, n=3) for name in PLOTTED}
    group = Group(model="m", subset="s", samples=3, judge_errors=0, dropped=0,
                  logged_disagreements=0, stats=stats)  # fmt: skip
    with pytest.raises(FileNotFoundError, match="missing"):
        write_plots(tmp_path / "missing", [group])
