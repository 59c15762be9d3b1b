"""``thinkbench compare``: the standard graders' verdicts beside ours, checked against the
graders' own functions run independently here on the same responses (real Sky-T1 and
Qwen2.5-Math-7B outputs, and a simulated run where lm-eval itself logged hendrycks' verdicts).
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import json
from functools import partial
from unittest import mock

import pytest
from support.data import SHARED_DATA

from lm_eval_thinkbench.compare import lm_eval_graders
from lm_eval_thinkbench.compare.graders import (
    GRADERS,
    HENDRYCKS,
    MATH_VERIFY,
    MINERVA,
    MINERVA_MV,
    OURS,
    Verdict,
    harness_verdicts,
)
from lm_eval_thinkbench.response import ModelResponse
from lm_eval_thinkbench.thinkbench import main as thinkbench

SKY = SHARED_DATA / "traces" / "skythought_sky-t1-27b_math500.jsonl"
QWEN = SHARED_DATA / "outputs" / "skythought_qwen2.5-math-7b_math500.jsonl"
#: Real documents graded per file: the first N per MATH level (``--limit``).
PER_LEVEL = 2


def own_graders():
    """hendrycks' and minerva's utils imported the ordinary way (minerva's antlr check
    answered and its parser swapped here, independently of ``compare.lm_eval_graders``)."""
    from math_verify import parse, verify
    from sympy.parsing.latex import parse_latex

    hendrycks = importlib.import_module("lm_eval.tasks.hendrycks_math.utils")
    real = importlib.metadata.version
    with mock.patch(
        "importlib.metadata.version",
        lambda d: "4.11" if d == "antlr4-python3-runtime" else real(d),
    ):
        minerva = importlib.import_module("lm_eval.tasks.minerva_math.utils")
    minerva.parse_latex = partial(parse_latex, backend="lark")
    return hendrycks, minerva, parse, verify


def first_response(record: dict) -> str:
    """The file's own first response (``code`` is a list, or one written as a string)."""
    code = record["code"]
    return (code if isinstance(code, list) else ast.literal_eval(code))[0]


@pytest.fixture(scope="module")
def real(tmp_path_factory, math500_path):
    out = tmp_path_factory.mktemp("compare-real")
    rc = thinkbench(
        ["compare", f"sky={SKY}", f"qwen={QWEN}", "--gold", str(math500_path), "--limit",
         str(PER_LEVEL), "-o", str(out)]
    )  # fmt: skip
    assert rc == 0
    return json.loads((out / "compare.json").read_text()), (out / "compare.md").read_text()


@pytest.mark.slow
def test_real_accuracies_equal_the_graders_own(real, math500_path):
    report, markdown = real
    hendrycks, minerva, parse, verify = own_graders()
    docs = [json.loads(line) for line in math500_path.open()]
    for path, model in ((SKY, "sky"), (QWEN, "qwen")):
        rows = [r for r in report["rows"] if r["model"] == model]
        assert len(rows) == 5 * PER_LEVEL
        records = {str(r["idx"]): r for r in map(json.loads, path.open())}
        own: dict[str, list[bool]] = {g: [] for g in GRADERS if g != OURS}
        for row in rows:
            doc = docs[int(row["id"])]
            text = first_response(records[row["id"]])
            own[HENDRYCKS].append(bool(hendrycks.process_results(doc, [text])["exact_match"]))
            gold = minerva.normalize_final_answer(
                minerva.remove_boxed(minerva.last_boxed_only_string(doc["solution"]))
            )
            scores = minerva.process_results({**doc, "answer": gold}, [text])
            own[MINERVA].append(bool(scores["exact_match"]))
            own[MINERVA_MV].append(bool(scores["math_verify"]))
            own[MATH_VERIFY].append(bool(verify(parse(f"${doc['answer']}$"), parse(text))))
            for grader, verdicts in own.items():
                assert row["verdicts"][grader] == verdicts[-1], (model, row["id"], grader)
        summary = next(s for s in report["summaries"] if s["model"] == model)
        for grader, verdicts in own.items():
            assert summary["accuracy"][grader] == pytest.approx(sum(verdicts) / len(verdicts))
        # every document where the verdicts (with the file's own score) are not all equal
        expected = {
            r["id"]
            for r in rows
            if len({*r["verdicts"].values(), *([r["logged"]] if r["logged"] is not None else [])})
            > 1
        }
        assert expected and set(summary["disagreements"]) == expected
        for doc_id in expected:
            assert f"**{doc_id}**" in markdown
    assert "| sky |" in markdown and "| qwen |" in markdown


@pytest.mark.slow
def test_real_reasons_show_what_each_grader_compared(real):
    report, _ = real
    sky = [r for r in report["rows"] if r["model"] == "sky"]
    # a reasoning model never writes minerva's "Final Answer: ..." sentence
    assert all("[invalidanswer]" in r["saw"][MINERVA] for r in sky)
    assert all(not r["verdicts"][MINERVA] for r in sky)
    right = [r for r in sky if r["verdicts"][OURS]]
    assert right and all(f"vs gold {r['gold']!r}" in r["saw"][OURS] for r in right)


def test_minerva_loads_with_lark_and_leaves_math_verify_intact():
    module = lm_eval_graders.minerva()
    assert module.is_equiv("\\frac{1}{2}", "0.5")
    assert not module.is_equiv("\\frac{1}{3}", "0.5")
    # the version check was answered only while minerva's module ran
    assert importlib.metadata.version("antlr4-python3-runtime").startswith("4.13")
    # latex2sympy2_extended picks its parser by that version: it must still be the 4.13 one
    from math_verify import parse, verify

    assert verify(parse("$\\frac{1}{2}$"), parse("$0.5$"))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\\boxed{",
        "$$$",
        "\\boxed{1}\\boxed",
        "Final Answer: The final answer is $\\frac{",
        "}" * 50,
    ],
)
def test_hostile_responses_are_verdicts_not_crashes(text):
    verdicts = harness_verdicts(ModelResponse(content=text), "p", "\\frac{1}{2}")
    assert set(verdicts) == {HENDRYCKS, MINERVA, MINERVA_MV, MATH_VERIFY}
    assert all(isinstance(v, Verdict) and not v.correct for v in verdicts.values())


def test_a_gold_without_a_box_is_a_recorded_failure():
    verdicts = harness_verdicts(ModelResponse(content="\\boxed{4}"), "p", "4", solution="four")
    assert not verdicts[MINERVA].correct and "error in the gold" in verdicts[MINERVA].saw
    assert not verdicts[HENDRYCKS].correct and verdicts[HENDRYCKS].saw.startswith("error")


@pytest.mark.e2e
def test_demo_run_hendrycks_verdicts_equal_what_lm_eval_logged(demo_runs, tmp_path):
    out = tmp_path / "cmp"
    assert thinkbench(["compare", f"sim={demo_runs['sim-a']}", "-o", str(out)]) == 0
    report = json.loads((out / "compare.json").read_text())
    rows = [r for r in report["rows"] if r["task"] == "hendrycks_math500_local"]
    assert rows and all(r["logged"] is not None for r in rows)
    assert all(r["verdicts"][HENDRYCKS] == r["logged"] for r in rows)
    ours = [r for r in report["rows"] if r["task"].startswith("thinkbench_math500")]
    assert ours and all(r["verdicts"][OURS] == r["logged"] for r in ours)
    csv_lines = (out / "compare.csv").read_text().splitlines()
    assert len(csv_lines) == len(report["rows"]) + 1
