"""Critic scores against hand-computed figures.

DeltaBench: the fixture (our own rows in the release's schema) with one hand-written critic reply
per row: "no error" on a sample with errors, duplicate section numbers, an out-of-range number,
free-form prose, an unreadable reply, a truncated critique, over-flagging. Every expected figure
below was worked out by hand from the table in the comments (the tolerant reading; where the
default, official reading differs, its test says how).
"""

from __future__ import annotations

import math
from fractions import Fraction as F
from pathlib import Path
from types import SimpleNamespace

import pytest
from lm_eval.api.group import Group
from lm_eval.config.group import AggMetricConfig
from lm_eval.tasks._yaml_loader import load_yaml

from lm_eval_thinkbench import TASKS_DIR
from lm_eval_thinkbench.critic import metrics as critic_metrics
from lm_eval_thinkbench.critic.data import deltabench_docs
from lm_eval_thinkbench.critic.filters import deltabench_record
from lm_eval_thinkbench.critic.parse import OFFICIAL, TOLERANT
from lm_eval_thinkbench.critic.scoring import harmonic, processbench_summary, score_sections
from lm_eval_thinkbench.harness import settings

FIXTURE = Path(__file__).parent / "fixtures" / "deltabench_sample.jsonl"

# id: reply                                       truth   flagged  tp fp fn  P    R    F1
REPLIES = {
    # "no error" on a sample with an error        {3}     {}       0  0  1   0    0    0
    "fx-math-1": "Conclusion: no error",
    # duplicate number                            {2,4,5} {2,4}    2  0  1   1    2/3  4/5
    "fx-math-2": "Conclusion: yes\nError Section Number: 2\nExplanation: a\n"
    "Error Section Number: 2\nExplanation: again\nError Section Number: 4\nExplanation: b",
    # no true error: excluded from the scores
    "fx-math-3": "Conclusion: no error",
    # 9 is beyond the 4 sections                  {2,3}   {2,9}    1  1  1   1/2  1/2  1/2
    #   reference filter drops 9 (> 3)                    {2}      1  0  1   1    1/2  2/3
    "fx-code-1": "Conclusion: yes\nError Section Number: 2\nExplanation: a\n"
    "Error Section Number: 9\nExplanation: b",
    # free-form prose                             {3}     {3}      1  0  0   1    1    1
    "fx-code-2": "Sections 1 and 2 are fine. I believe the mistake is in section 3.",
    # unreadable                                  {1}     {}       0  0  1   0    0    0
    "fx-code-3": "I cannot tell whether this is right.",
    # a late false positive                       {1}     {1,4}    1  1  0   1/2  1    2/3
    #   reference filter drops 4 (> 1)                    {1}      1  0  0   1    1    1
    "fx-pcb-1": "**Conclusion:** yes\n**Error Section Number:** 1\n**Explanation:** a\n"
    "**Error Section Number:** 4\n**Explanation:** b",
    # truncated critique                          {2}     {}       0  0  1   0    0    0
    "fx-pcb-2": "<think>\nConclusion: yes\nError Section Number: 2",
    # over-flagging in one entry                  {2,4}   {1..4}   2  2  0   1/2  1    2/3
    "fx-general-1": "Conclusion: yes\nError Section Number: 1, 2, 3, 4\nExplanation: all wrong",
    # unusable labels: excluded
    "fx-general-2": "Conclusion: yes\nError Section Number: 1",
    "fx-math-4": "Conclusion: no error",
}


def _items(
    reference_filter: bool | None, domain: str | None = None, reading: str = TOLERANT
) -> list[list[dict]]:
    """The scoring items of the fixture's replies; the filter follows the reading unless set."""
    metadata: dict[str, object] = {"deltabench_reading": reading}
    if reference_filter is not None:
        metadata["deltabench_reference_filter"] = reference_filter
    settings.configure(metadata)
    try:
        out = []
        for doc in deltabench_docs(FIXTURE):
            if domain and doc["domain"] != domain:
                continue
            reply = REPLIES[doc["id"]]
            raw = reply if reply.startswith("<think>") else f"<think>\nhm\n</think>\n\n{reply}"
            record = deltabench_record(raw, "think", settings.current().deltabench_reading)
            out.append(critic_metrics.deltabench_results(doc, [[record]])["f1_macro"])
        return out
    finally:
        settings.configure({})


def _figures(items: list[list[dict]]) -> dict[str, float]:
    names = critic_metrics.DELTABENCH_METRICS
    return {name: getattr(critic_metrics, name)(items) for name in names}


def _close(got: dict[str, float], want: dict[str, F | float]) -> None:
    for key, value in want.items():
        assert got[key] == pytest.approx(float(value), abs=1e-12), key


def test_deltabench_official_reading_and_filter_by_hand():
    """The default: DeltaBench's evaluation.py reading (its filter on). Against the table:
    free-form prose (fx-code-2) flags nothing; fx-general-1's entry "1, 2, 3, 4" flags its
    first number only, 1 (no true section: tp 0, fp 1, fn 2); the filter drops 9 and 4."""
    _close(
        _figures(_items(None, reading=OFFICIAL)),
        {
            "precision_macro": F(3, 8),
            "recall_macro": F(13, 6) / 8,
            "f1_macro": F(37, 15) / 8,
            "precision_micro": F(4, 5),
            "recall_micro": F(1, 3),
            "f1_micro": F(8, 17),
            "flagged_sections": F(5, 8),
            "true_sections": F(12, 8),
            "unparsed": F(3, 11),
            "excluded": F(3, 11),
        },
    )


def test_deltabench_tolerant_reading_counts_every_prediction():
    """``deltabench_reading=tolerant``: its filter is off unless asked for (next test)."""
    _close(
        _figures(_items(None)),
        {
            "precision_macro": F(7, 2) / 8,
            "recall_macro": F(25, 6) / 8,
            "f1_macro": F(109, 30) / 8,
            "precision_micro": F(7, 11),
            "recall_micro": F(7, 12),
            "f1_micro": F(14, 23),
            "flagged_sections": F(11, 8),
            "true_sections": F(12, 8),
            "unparsed": F(2, 11),
            "excluded": F(3, 11),
        },
    )


def test_deltabench_reference_filter_drops_flags_beyond_the_last_true_section():
    """``deltabench_reference_filter=true`` with the tolerant reading."""
    _close(
        _figures(_items(reference_filter=True)),
        {
            "precision_macro": F(9, 2) / 8,
            "recall_macro": F(25, 6) / 8,
            "f1_macro": F(62, 15) / 8,
            "precision_micro": F(7, 9),
            "recall_micro": F(7, 12),
            "f1_micro": F(2, 3),
        },
    )


@pytest.mark.parametrize(
    ("domain", "want"),
    [
        (
            "math",
            {
                "f1_macro": F(2, 5),
                "precision_micro": 1,
                "recall_micro": F(1, 2),
                "f1_micro": F(2, 3),
                "excluded": F(2, 4),
            },
        ),
        (
            "code",
            {
                "f1_macro": F(1, 2),
                "precision_micro": F(2, 3),
                "recall_micro": F(1, 2),
                "f1_micro": F(4, 7),
                "unparsed": F(1, 3),
            },
        ),
        (
            "pcb",
            {
                "f1_macro": F(1, 3),
                "precision_micro": F(1, 2),
                "recall_micro": F(1, 2),
                "f1_micro": F(1, 2),
                "unparsed": F(1, 2),
            },
        ),
        (
            "general",
            {
                "f1_macro": F(2, 3),
                "precision_micro": F(1, 2),
                "recall_micro": 1,
                "excluded": F(1, 2),
            },
        ),
    ],
)
def test_deltabench_per_domain(domain, want):
    _close(_figures(_items(False, domain)), want)


def test_deltabench_domains_pool_exactly_into_the_overall_figures():
    overall = _figures(_items(False))
    leaves = []
    for domain in ("math", "code", "pcb", "general"):
        items = _items(False, domain)
        leaves.append(
            {"sample_len": len(items)} | {f"{k},critic": v for k, v in _figures(items).items()}
        )
    pooled = _pool(leaves, critic_metrics.DELTABENCH_METRICS)
    for metric in set(critic_metrics.DELTABENCH_METRICS) - {"unparsed", "excluded"}:
        assert pooled[f"{metric},critic"] == pytest.approx(overall[metric], abs=1e-12), metric
    # lm-eval's own size-weighted mean would be wrong here
    naive = sum(leaf["f1_micro,critic"] * leaf["sample_len"] for leaf in leaves) / 11
    assert naive != pytest.approx(overall["f1_micro"])


def test_pooling_a_critic_that_never_flags_gives_zero_micro_precision():
    leaf = {
        "sample_len": 4,
        "excluded,critic": 0.25,
        "flagged_sections,critic": 0.0,
        "true_sections,critic": 2.0,
        "precision_micro,critic": 0.0,
        "recall_micro,critic": 0.0,
        "f1_macro,critic": 0.0,
    }
    empty = {
        "sample_len": 2,
        "excluded,critic": 1.0,
        "precision_micro,critic": math.nan,
        "f1_macro,critic": math.nan,
    }
    metrics = ("precision_micro", "recall_micro", "f1_micro", "f1_macro")
    assert _pool([leaf, empty], metrics) == {f"{m},critic": 0.0 for m in metrics}
    assert math.isnan(_pool([empty], metrics)["f1_macro,critic"])


def _pool(leaves: list[dict], metrics) -> dict[str, float]:
    """The DeltaBench group YAML's own declarations, applied by the real Group.aggregate."""
    yaml_path = Path(TASKS_DIR) / "deltabench" / "_thinkbench_deltabench.yaml"
    meta = load_yaml(yaml_path, resolve_func=False)  # lm-eval's own reader: the YAML has tags
    agg = [AggMetricConfig(metric=m, filter_list=["critic"]) for m in metrics]
    group = Group("g", aggregate_metric_list=agg, metadata=meta["metadata"])
    names = [f"leaf{i}" for i in range(len(leaves))]
    group.get_all_tasks = lambda recursive=True: [SimpleNamespace(task_name=n) for n in names]
    out = group.aggregate(dict(zip(names, leaves, strict=True)))
    return {k: v for k, v in out.items() if k.endswith(",critic") and "_stderr" not in k}


def test_score_sections_counts_sets_and_zero_denominators():
    assert score_sections([2, 2, 4], [2, 4, 5]) == score_sections([4, 2], [5, 4, 2])
    s = score_sections([], [3])
    assert (s.tp, s.fp, s.fn, s.precision, s.recall, s.f1) == (0, 0, 1, 0.0, 0.0, 0.0)
    s = score_sections([7], [3], reference_filter=True)
    assert (s.tp, s.fp, s.fn, s.precision) == (0, 0, 1, 0.0)


def test_processbench_summary():
    pairs = [(2, 2), (2, -1), (0, None), (-1, -1), (-1, 3), (-1, -1)]
    got = processbench_summary(pairs)
    assert got["error_acc"] == pytest.approx(1 / 3)
    assert got["correct_acc"] == pytest.approx(2 / 3)
    assert got["f1"] == pytest.approx(harmonic(1 / 3, 2 / 3)) == pytest.approx(4 / 9)
    only_errors = processbench_summary([(1, 1)])
    assert only_errors["error_acc"] == 1 and math.isnan(only_errors["f1"])
    assert processbench_summary([(1, 0), (-1, 2)])["f1"] == 0.0
