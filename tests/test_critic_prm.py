"""PRM evaluation against hand-computed z-score predictions, HitRate@k and ProcessBench F1.

The DeltaBench score file (tests/fixtures/prm_deltabench_scores.jsonl) against the fixture:

id            truth    scores                        mean-std flagged tp fp fn P  R   F1 hit@1/3/5
fx-math-1     {3}      .9 .8 .1 .7                   .3138    {3}      1  0  0 1  1   1  y y y
fx-math-2     {2,4,5}  .9 .2 .85 .3 .8               .3127    {2,4}    2  0  1 1  2/3 .8 y y y
fx-code-1     {2,3}    .1 .9 .8 .85                  .3358    {1}      0  1  2 0  0   0  n y y
fx-code-2     {3}      .5 .5 .5 (zero deviation)     .5       {}       0  0  1 0  0   0  n y y
fx-code-3     {1}      .05 (one section)             .05      {}       0  0  1 0  0   0  y y y
fx-pcb-1      {1}      null .9 .2 .95 (1 unscored)   .3410    {3}      0  1  1 0  0   0  n n n
fx-pcb-2      {2}      (no line)                              {}       0  0  1 0  0   0  n n n
fx-general-1  {2,4}    .9 .3 .85 .35 .9 (+2 extra)   .3854    {2,4}    2  0  0 1  1   1  y y y
fx-math-3, fx-general-2, fx-math-4: excluded (no true error / unusable labels).
"""

from __future__ import annotations

import json
import math
import os
from fractions import Fraction as F
from pathlib import Path

import pytest

from lm_eval_thinkbench.critic import data, prm
from lm_eval_thinkbench.critic.prm_cli import main
from lm_eval_thinkbench.datafiles import DatasetError

FIXTURES = Path(__file__).parent / "fixtures"
DELTA = FIXTURES / "deltabench_sample.jsonl"
SCORES = FIXTURES / "prm_deltabench_scores.jsonl"


def test_zscore_rule_edge_cases():
    assert prm.zscore_flags([0.9, 0.8, 0.1, 0.7]) == [2]
    assert prm.zscore_flags([0.05]) == []  # one section: no deviation
    assert prm.zscore_flags([0.5, 0.5, 0.5]) == []  # equal scores
    assert prm.zscore_flags([0.1, 0.9]) == []  # two scores: the lower one sits at mean - std
    assert prm.zscore_flags([None, 0.9, 0.2, 0.95]) == [2]  # the unscored section is skipped
    assert prm.zscore_flags([None, float("nan"), "x", True]) == []
    assert prm.zscore_flags([]) == []


def test_threshold_rule_and_ranking():
    assert prm.threshold_flags([0.9, 0.4, None, 0.49, 0.5], 0.5) == [1, 3]
    assert prm.lowest([0.5, 0.5, 0.2, None, 0.5], 3) == [2, 0, 1]  # ties: earlier first
    assert prm.lowest([0.3], 5) == [0]


def _deltabench() -> dict:
    score_file = prm.read_scores(SCORES)
    return prm.evaluate_deltabench(data.deltabench_docs(DELTA), score_file.scores, ks=(1, 3, 5))


def test_deltabench_prm_overall_matches_the_hand_computation():
    overall = _deltabench()["overall"]
    want = {
        "precision_macro": F(3, 8),
        "recall_macro": F(1, 3),
        "f1_macro": F(7, 20),
        "precision_micro": F(5, 7),
        "recall_micro": F(5, 12),
        "f1_micro": F(10, 19),
        "hit@1": F(1, 2),
        "hit@3": F(3, 4),
        "hit@5": F(3, 4),
    }
    for key, value in want.items():
        assert overall[key] == pytest.approx(float(value), abs=1e-12), key
    assert (overall["samples"], overall["scored"], overall["excluded"]) == (11, 8, 3)
    assert overall["missing_scores"] == 1


def test_deltabench_prm_per_domain_and_per_sample_records():
    result = _deltabench()
    assert result["domains"]["math"]["f1_macro"] == pytest.approx(0.9)
    assert result["domains"]["code"]["hit@1"] == pytest.approx(1 / 3)
    assert result["domains"]["pcb"]["hit@5"] == 0.0
    samples = {s["id"]: s for s in result["samples"]}
    assert samples["fx-general-1"]["extra_scores"] == 2
    assert samples["fx-pcb-1"]["unscored_sections"] == 1 and samples["fx-pcb-1"]["flagged"] == [3]
    assert samples["fx-pcb-2"]["missing_scores"] is True
    assert samples["fx-code-2"]["flagged"] == [] and samples["fx-code-2"]["hits"]["1"] is False
    assert samples["fx-math-4"]["excluded"].startswith("reason_error_section_numbers")


def test_score_file_problems_are_recorded_not_fatal(tmp_path):
    score_file = prm.read_scores(SCORES)
    assert len(score_file.problems) == 2
    assert any(":11: not valid JSON" in p for p in score_file.problems)
    assert any(":12: scores is not a list" in p for p in score_file.problems)
    with pytest.raises(DatasetError, match="cannot read"):
        prm.read_scores(tmp_path / "missing.jsonl")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(DatasetError, match="holds no score lines"):
        prm.read_scores(empty)


def _pb_doc(id_: str, label: int, steps: int) -> dict:
    return data.processbench_doc(
        {"id": id_, "problem": "p", "steps": ["s"] * steps, "label": label}, "gsm8k"
    )


def test_processbench_prm_first_flagged_step():
    docs = {
        "gsm8k": [
            _pb_doc("a", 2, 4),  # z: mean-std = .1464 flags step 3 only; threshold .5: 2, 3
            _pb_doc("b", -1, 3),  # equal scores: nothing flagged -> -1
            _pb_doc("c", 0, 4),  # z: mean-std = .3536 flags step 0
            _pb_doc("d", -1, 2),  # no scores: no prediction
            data.processbench_doc({"id": "e", "problem": "p", "steps": ["s"], "label": 5}, "gsm8k"),
        ]
    }
    scores = {
        "a": [0.9, 0.8, 0.2, 0.1],
        "b": [0.9, 0.9, 0.9],
        "c": [0.1, 0.9, 0.9, 0.9],
        "d": [None, None],
        "e": [0.1],
    }
    z = prm.evaluate_processbench(docs, scores)
    predictions = {s["id"]: s.get("prediction") for s in z["samples"]}
    assert predictions == {"a": 3, "b": -1, "c": 0, "d": None, "e": None}
    figures = z["subsets"]["gsm8k"]
    assert (figures["error_acc"], figures["correct_acc"], figures["f1"]) == (0.5, 0.5, 0.5)
    assert (figures["scored"], figures["excluded"], figures["missing_scores"]) == (4, 1, 1)
    assert z["average_f1"] == 0.5
    fixed = prm.evaluate_processbench(docs, scores, threshold=0.5)["subsets"]["gsm8k"]
    assert (fixed["error_acc"], fixed["correct_acc"]) == (1.0, 0.5)
    assert fixed["f1"] == pytest.approx(2 / 3)


def test_cli_deltabench_writes_figures_and_samples(tmp_path, capsys):
    out, per_sample = tmp_path / "figures.json", tmp_path / "samples.jsonl"
    code = main(
        [
            "deltabench",
            str(SCORES),
            "--data",
            str(DELTA),
            "--output",
            str(out),
            "--samples",
            str(per_sample),
        ]
    )
    assert code == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[1].startswith("overall | 0.3500 | 0.3750 | 0.3333")
    assert "1 score lines match no sample (e.g. not-a-sample)" in captured.err
    figures = json.loads(out.read_text())
    assert figures["overall"]["f1_micro"] == pytest.approx(10 / 19)
    assert figures["unmatched_ids"] == ["not-a-sample"]
    assert len(per_sample.read_text().splitlines()) == 11


def test_cli_processbench_on_the_local_data(tmp_path, capsys):
    folder = Path(
        os.environ.get(data.PROCESSBENCH_ENV)
        or Path(__file__).resolve().parents[2] / "shared" / "data" / "processbench"
    )
    docs = data.processbench_docs("gsm8k", folder)
    scores = tmp_path / "scores.jsonl"
    with scores.open("w") as f:  # a perfect PRM under a 0.5 threshold
        for d in docs:
            values = [
                0.9 if i < d["label"] or d["label"] == -1 else 0.1 for i in range(len(d["steps"]))
            ]
            f.write(json.dumps({"id": d["id"], "scores": values}) + "\n")
    out = tmp_path / "figures.json"
    code = main(
        [
            "processbench",
            str(scores),
            "--data",
            str(folder),
            "--subsets",
            "gsm8k",
            "--threshold",
            "0.5",
            "--output",
            str(out),
        ]
    )
    assert code == 0
    figures = json.loads(out.read_text())
    assert figures["subsets"]["gsm8k"]["f1"] == 1.0 and figures["average_f1"] == 1.0
    assert "average F1 over subsets: 1.0000" in capsys.readouterr().out


def test_cli_reports_unusable_data_in_one_line(tmp_path, capsys):
    assert main(["deltabench", str(SCORES), "--data", str(tmp_path / "none.csv")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("thinkbench-prm: cannot read") and "\n" not in err


def test_cli_help_documents_the_input_schema():
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0


def test_nan_figures_become_null_in_the_json(tmp_path):
    only_excluded = tmp_path / "d.jsonl"
    only_excluded.write_text(DELTA.read_text().splitlines()[2] + "\n")  # fx-math-3, no error
    out = tmp_path / "f.json"
    args = ["deltabench", str(SCORES), "--data", str(only_excluded), "--output", str(out)]
    assert main(args) == 0
    assert json.loads(out.read_text())["overall"]["f1_macro"] is None
    assert math.isnan(
        prm.evaluate_deltabench(data.deltabench_docs(only_excluded), {})["overall"]["f1_macro"]
    )
