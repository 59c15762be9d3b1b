"""``thinkbench leaderboard``: every format from simulated runs, and the HTML page driven in a
real headless Chromium (Debian's package, through playwright's own driver): every model's row,
sorting, the plots, the trace view (a 32k-token trace too), and no console errors."""

from __future__ import annotations

import csv
import json
import os
import shutil
import time
from pathlib import Path

import pytest
from support.data import SHARED_DATA, r1_reasonings

from lm_eval_thinkbench.analyze.samples import Sample
from lm_eval_thinkbench.board.collect import Figure, results_figures
from lm_eval_thinkbench.board.table import build, find_column
from lm_eval_thinkbench.board.traces import analyze_traces, payload, score_traces
from lm_eval_thinkbench.board.write import write_board
from lm_eval_thinkbench.math.grader import default_grader
from lm_eval_thinkbench.response import ModelResponse
from lm_eval_thinkbench.thinkbench import main as thinkbench
from lm_eval_thinkbench.tokens import get_counter

CHROMIUM = os.environ.get("THINKBENCH_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
ACC = "thinkbench_math500:exact_match"
SKY = SHARED_DATA / "traces" / "skythought_sky-t1-27b_math500.jsonl"
QWEN = SHARED_DATA / "outputs" / "skythought_qwen2.5-math-7b_math500.jsonl"


@pytest.fixture(scope="module")
def board(demo_runs, tmp_path_factory):
    """One leaderboard over both demo runs and a comparison of the first."""
    root = tmp_path_factory.mktemp("board")
    cmp = root / "cmp"
    assert thinkbench(["compare", f"sim-a={demo_runs['sim-a']}", "-o", str(cmp)]) == 0
    out = root / "board"
    rc = thinkbench(
        ["leaderboard", f"sim-a={demo_runs['sim-a']}", f"sim-b={demo_runs['sim-b']}",
         f"sim-a={cmp}", "--rename", "sim-b=Sim B", "--sort", ACC, "--workers", "1",
         "-o", str(out)]
    )  # fmt: skip
    assert rc == 0
    return out, json.loads((out / "board.json").read_text()), demo_runs


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).is_file():
        if os.environ.get("THINKBENCH_REQUIRE_BROWSER"):  # CI: never skip these silently
            pytest.fail(f"no Chromium at {CHROMIUM}")
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    # The grader forks its workers on first use; forked after playwright's threads started,
    # a worker can inherit a held lock and hang: start them first.
    default_grader().start()
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def open_page(browser, path: Path, tmp_path: Path):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    return page, errors


def results_value(run: Path, task: str, key: str) -> float:
    data = json.loads(next(run.rglob("results_*.json")).read_text())
    return data["results"][task][key]


@pytest.mark.e2e
def test_formats_hold_every_model_and_the_runs_figures(board):
    out, data, runs = board
    assert data["models"] == ["Sim B", "sim-a"] or data["models"] == ["sim-a", "Sim B"]
    for model, run in (("sim-a", runs["sim-a"]), ("Sim B", runs["sim-b"])):
        row = next(r for r in data["rows"] if r["model"] == model)
        expected = results_value(run, "thinkbench_math500", "exact_match,thinkbench")
        assert row["cells"][ACC]["value"] == pytest.approx(expected)
    sim_a = next(r for r in data["rows"] if r["model"] == "sim-a")["cells"]
    # the standard task's own figure, and the comparison's re-graded one, in the same row
    assert sim_a["hendrycks_math500_local:exact_match"]["value"] == pytest.approx(
        results_value(runs["sim-a"], "hendrycks_math500_local", "exact_match,none")
    )
    assert "compare:hendrycks_math500" in sim_a
    # rows sorted by accuracy, best first, in every format
    values = [r["cells"][ACC]["value"] for r in data["rows"]]
    assert values == sorted(values, reverse=True) and data["sort"] == ACC
    md = (out / "board.md").read_text()
    assert [line.split("|")[1].strip() for line in md.splitlines()[6:]] == data["models"]
    rows = list(csv.DictReader((out / "board.csv").open()))
    assert {r["model"] for r in rows} == set(data["models"])
    for png in ("board_scatter.png", "board_levels.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    levels = {f["subset"] for f in data["figures"] if f["set"] == "thinkbench_math500"}
    assert levels == {"overall", *(f"Level {i}" for i in range(1, 6))}


@pytest.mark.e2e
def test_page_renders_sorts_plots_and_shows_traces(board, browser, tmp_path):
    out, data, _ = board
    page, errors = open_page(browser, out / "index.html", tmp_path)
    rows = page.locator("#board tbody tr")
    assert rows.count() == len(data["models"])
    names = lambda: [rows.nth(i).get_attribute("data-model") for i in range(rows.count())]  # noqa: E731
    assert names() == data["models"]  # --sort's order
    assert page.locator("th.sorted").get_attribute("data-key") == ACC
    if os.environ.get("THINKBENCH_SCREENSHOT"):  # docs/img/leaderboard.png is made this way
        page.screenshot(path=str(tmp_path / "board.png"))
        shutil.copy(tmp_path / "board.png", os.environ["THINKBENCH_SCREENSHOT"])
    # sorting by reasoning tokens (lower is better: fewest first), then reversed
    tokens = {r["model"]: r["cells"]["thinkbench_math500:reasoning_tokens"]["value"]
              for r in data["rows"]}  # fmt: skip
    page.click('th[data-key="thinkbench_math500:reasoning_tokens"]')
    assert names() == sorted(tokens, key=tokens.get)
    page.click('th[data-key="thinkbench_math500:reasoning_tokens"]')
    assert names() == sorted(tokens, key=tokens.get, reverse=True)
    # the plots: one scatter point per model, one line per model on each per-level plot
    assert page.locator("svg.scatter circle.point").count() == len(data["models"])
    assert page.locator("svg.levels-accuracy polyline.series").count() == len(data["models"])
    assert page.locator("svg.levels-reasoning-tokens polyline.series").count() == 2
    # the trace view: open a correct sample whose reasoning reached the gold
    index = json.loads(page.locator("#trace-index").text_content())
    assert len(index) == 22  # 2 runs x 5 levels x 2 problems, + 2 hendrycks samples
    chosen = next(
        r for r in index if r["model"] == "sim-a" and r["correct"] and r["first_correct_tokens"]
    )
    assert not (out / "traces" / f"{chosen['n']}.js").read_text().startswith("<")
    page.select_option("#trace-model", "sim-a")
    page.click(f'#samples tbody tr[data-n="{chosen["n"]}"]')
    page.wait_for_selector("#trace .step")
    expected = json.loads(
        (out / "traces" / f"{chosen['n']}.js").read_text().split(", ", 1)[1].rsplit(");", 1)[0]
    )
    steps = page.locator("#trace .step")
    assert steps.count() == len(expected["steps"]) == expected["figures"]["steps"]
    first = page.locator("#trace .step.first-correct")
    assert first.count() == 1
    assert first.get_attribute("data-step") == str(expected["first_correct_step"])
    quote = expected["first_correct_quote"]
    assert quote and quote in first.text_content()
    assert page.locator("#trace blockquote").text_content() == quote
    after = len(expected["steps"]) - expected["first_correct_step"] - 1
    assert page.locator("#trace .step.reflection").count() == after
    assert page.locator("#trace mark.switch").count() == len(expected["switches"])
    assert expected["figures"]["thought_num"] == len(expected["switches"])
    assert "Correct" in page.locator("#trace .verdict").text_content()
    assert errors == []


def long_sample() -> Sample:
    """A 32k-token response: real R1 reasoning repeated, then a boxed answer."""
    counter = get_counter(None)
    pieces, tokens = [], 0
    reasonings = r1_reasonings()
    while tokens < 32_000:
        piece = reasonings[len(pieces) % len(reasonings)]
        pieces.append(piece)
        tokens += counter.count(piece)
    text = "<think>\n" + "\n\nWait, let me redo this.\n\n".join(pieces) + "\n</think>\n\\boxed{7}"
    return Sample("long", "plain", "plain", "0", 0, "p", "7", ModelResponse(content=text), "x:1")


@pytest.mark.slow
def test_a_32k_token_trace_renders(browser, tmp_path):
    traces = score_traces([long_sample()])
    assert traces[0].record["reasoning_tokens"] >= 32_000
    figures = [Figure("long", "plain", "overall", "accuracy", "accuracy", 1.0, None, None,
                      True, True, "x")]  # fmt: skip
    write_board(tmp_path, build(figures), traces, plots=False)
    page, errors = open_page(browser, tmp_path / "index.html", tmp_path)
    assert page.locator("#trace .step").count() == 0  # nothing rendered until opened
    start = time.perf_counter()
    page.click('#samples tbody tr[data-n="0"]')
    page.wait_for_selector("#trace .step")
    elapsed = time.perf_counter() - start
    expected = payload(traces[0])
    assert page.locator("#trace .step").count() == len(expected["steps"]) > 100
    assert page.locator("#trace mark.switch").count() == len(expected["switches"]) > 10
    assert elapsed < 10, elapsed
    assert errors == []


def test_sort_names_columns_by_key_or_label_and_refuses_unknown_ones():
    figs = [
        Figure(m, "s", "overall", "exact_match,thinkbench", "accuracy", v, None, None, True,
               True, "x")
        for m, v in (("a", 0.2), ("b", 0.9), ("c", 0.5))
    ] + [Figure("a", "s", "overall", "reasoning_tokens,thinkbench", "reasoning_tokens", 10.0,
                None, None, False, True, "x")]  # fmt: skip
    assert build(figs, "s:exact_match").models == ["b", "c", "a"]
    assert build(figs, "accuracy:asc").models == ["a", "c", "b"]
    # a model without the column goes last whatever the direction
    assert build(figs, "reasoning_tokens").models[0] == "a"
    with pytest.raises(ValueError, match="names no column"):
        find_column(build(figs), "nope")
    assert thinkbench(["leaderboard", "/nonexistent/run", "-o", "/tmp/x"]) == 2


def test_sampling_metrics_take_their_labels_and_k_from_the_run():
    """avg@k / pass@k / maj@k names come from math500.sampling's table, k from ``repeats``."""
    results = {
        "config": {"model": "hf", "model_args": "pretrained=org/model-7b,dtype=bfloat16"},
        "results": {
            "thinkbench_math500_avg4": {"exact_match,thinkbench": 0.5,
                                        "exact_match_stderr,thinkbench": 0.1,
                                        "pass_at_k,thinkbench": 0.75,
                                        "maj_at_k,thinkbench": 0.6,
                                        "reasoning_tokens,thinkbench": 900.0},
            "gsm8k": {"exact_match,strict-match": 0.8, "exact_match,flexible-extract": 0.82,
                      "exact_match_stderr,strict-match": "N/A"},
        },
        "configs": {"thinkbench_math500_avg4": {"repeats": 4}, "gsm8k": {}},
        "higher_is_better": {"gsm8k": {"exact_match": True}},
    }  # fmt: skip
    figures = results_figures(results, "r.json", None)
    labels = {(f.set, f.metric): f.label for f in figures}
    assert {f.model for f in figures} == {"org/model-7b"}
    assert labels["thinkbench_math500_avg4", "exact_match,thinkbench"] == "avg@4"
    assert labels["thinkbench_math500_avg4", "pass_at_k,thinkbench"] == "pass@4"
    assert labels["thinkbench_math500_avg4", "maj_at_k,thinkbench"] == "maj@4"
    assert labels["gsm8k", "exact_match,strict-match"] == "exact_match (strict-match)"
    avg = next(f for f in figures if f.metric == "exact_match,thinkbench")
    assert (avg.low, avg.high) == pytest.approx((0.5 - 1.96 * 0.1, 0.5 + 1.96 * 0.1), abs=1e-3)
    gsm = next(f for f in figures if f.metric == "exact_match,strict-match")
    assert gsm.low is None and not gsm.ours  # "N/A" stderr: no interval; a harness task
    board = build(figures)
    assert [c.label for c in board.columns][:3] == ["avg@4", "pass@4", "maj@4"]


def test_bad_run_files_are_one_line_errors(tmp_path, capsys):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "results_2026-01-01T00-00-00.json").write_text("{not json")
    assert thinkbench(["leaderboard", str(tmp_path / "run"), "-o", str(tmp_path / "o")]) == 2
    assert "not readable JSON" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert thinkbench(["leaderboard", str(tmp_path / "empty"), "-o", str(tmp_path / "o")]) == 2
    assert "--rename takes OLD=NEW" in _error(tmp_path, capsys, "--rename", "x")


def _error(tmp_path: Path, capsys, *extra: str) -> str:
    thinkbench(["leaderboard", str(tmp_path / "run"), "-o", str(tmp_path / "o"), *extra])
    return capsys.readouterr().err


@pytest.mark.slow
def test_board_of_analyze_outputs_on_real_traces(tmp_path, math500_path):
    """thinkbench analyze on the real Sky-T1 and Qwen2.5-Math-7B outputs (first response per
    level), then a board of the two analyze folders: its figures are analyze's, its traces
    the real responses with analyze's records."""
    real = {"sky": SKY, "qwen": QWEN}
    for name, path in real.items():
        rc = thinkbench(
            ["analyze", f"{name}={path}", "--gold", str(math500_path), "--limit", "1",
             "--no-plots", "--no-progress", "--workers", "1", "-o", str(tmp_path / name)]
        )  # fmt: skip
        assert rc == 0
    out = tmp_path / "board"
    runs = [str(tmp_path / name) for name in real]
    assert thinkbench(["leaderboard", *runs, "--no-plots", "-o", str(out)]) == 0
    assert not list(out.rglob("*.png"))  # the flag analyze declares, read as analyze reads it
    data = json.loads((out / "board.json").read_text())
    assert sorted(data["models"]) == ["qwen", "sky"]
    for name in real:
        summary = json.loads((tmp_path / name / "summary.json").read_text())
        overall = next(g for g in summary["groups"] if g["subset"] == "overall")
        row = next(r for r in data["rows"] if r["model"] == name)["cells"]
        assert row["analyze:accuracy"]["value"] == overall["metrics"]["accuracy"]["mean"]
        assert row["analyze:accuracy"]["low"] == overall["metrics"]["accuracy"]["ci_low"]
    per_sample = [
        json.loads(line) for name in real for line in (tmp_path / name / "per_sample.jsonl").open()
    ]
    chunks = sorted((out / "traces").glob("*.js"))
    assert len(chunks) == len(per_sample) == 10
    for chunk in chunks:
        p = json.loads(chunk.read_text().split(", ", 1)[1].rsplit(");", 1)[0])
        row = next(r for r in per_sample if r["model"] == p["model"] and r["id"] == p["id"])
        assert len(p["steps"]) == row["steps"]  # the same splitter as analyze's record
        assert p["first_correct_step"] == row["first_correct_step"]
        assert p["correct"] == row["correct"]
        if p["first_correct_step"] is not None and row["first_correct_source"] == "reasoning":
            start, end = p["steps"][p["first_correct_step"]]
            assert p["reasoning"][start:end] == row["first_correct_step_text"]
    markers = {
        p["model"]: p["markers"]
        for p in (json.loads(c.read_text().split(", ", 1)[1].rsplit(");", 1)[0]) for c in chunks)
    }
    assert markers == {"sky": "thought", "qwen": "none"}  # <|begin_of_thought|>; no markers


def test_trace_rows_whose_file_is_gone_are_left_out_with_a_warning(tmp_path, caplog):
    plain = tmp_path / "plain.jsonl"
    plain.write_text(json.dumps({"id": "a", "problem": "p", "gold": "1", "response": "1"}) + "\n")
    rows = [
        {"model": "m", "source": f"{tmp_path / 'gone.jsonl'}:1", "repeat": 0},
        {"model": "m", "source": f"{plain}:1", "repeat": 0, "correct": True},
        {"model": "m", "source": f"{plain}:7", "repeat": 0},  # no such line any more
    ]
    per_sample = tmp_path / "per_sample.jsonl"
    per_sample.write_text("".join(json.dumps(r) + "\n" for r in rows))
    traces = analyze_traces(per_sample, None)
    assert [t.sample.sample_id for t in traces] == ["a"] and traces[0].record["correct"]
    assert "gone.jsonl" in caplog.text and "1 rows name a response" in caplog.text
