"""MATH-500's metric table is the one declaration: YAMLs, process_results and reports follow it."""

import json
from pathlib import Path

from lm_eval.tasks._yaml_loader import load_yaml

from lm_eval_thinkbench import TASKS_DIR
from lm_eval_thinkbench.analyze.aggregate import PLOTTED
from lm_eval_thinkbench.harness.groups import Subset, declared_subsets
from lm_eval_thinkbench.harness.records import pooled_mean
from lm_eval_thinkbench.math500 import table, task_yamls
from lm_eval_thinkbench.math500.metrics import process_results
from lm_eval_thinkbench.math500.score import SampleRecord

MATH_DIR = Path(TASKS_DIR) / "math500"
KEYS = [m.key for m in table.TASK_METRICS]


def test_committed_yamls_are_the_generated_ones():
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in MATH_DIR.iterdir()}
    assert on_disk == task_yamls.files(), "run: python -m lm_eval_thinkbench.math500.task_yamls"


def test_main_writes_the_tree_and_drops_stale_generated_files(tmp_path):
    (tmp_path / "thinkbench_math500_level9.yaml").write_text(task_yamls.HEADER + "task: x\n")
    (tmp_path / "mine.yaml").write_text("task: mine\n")
    task_yamls.main([str(tmp_path)])
    written = {p.name: p.read_text(encoding="utf-8") for p in tmp_path.iterdir()}
    assert written == {**task_yamls.files(), "mine.yaml": "task: mine\n"}


def test_the_task_reports_the_tables_metrics_in_its_order():
    """Template metric list, every group's aggregate list and process_results: one key set."""
    template = load_yaml(MATH_DIR / task_yamls.TEMPLATE)
    assert [m["metric"] for m in template["metric_list"]] == KEYS
    pooled = {m["metric"] for m in template["metric_list"] if m["aggregation"] is pooled_mean}
    assert pooled == {m.key for m in table.TASK_METRICS if m.covers == "correct"} != set()
    by_key = {m.key: m for m in table.TASK_METRICS}
    for m in template["metric_list"]:
        assert m["higher_is_better"] is by_key[m["metric"]].higher_is_better
    for name in ("_thinkbench_math500.yaml", "_thinkbench_math500_avg4.yaml"):
        group = load_yaml(MATH_DIR / name)
        assert [m["metric"] for m in group["aggregate_metric_list"]] == KEYS
        within = Subset(within=(table.ACCURACY.key,))
        assert declared_subsets(group["metadata"]) == dict.fromkeys(pooled, within)
        assert group["metadata"]["stderr_over_problems"] == [m.key for m in table.PER_PROBLEM]
    record = {f: 1 for f in SampleRecord.__dataclass_fields__} | {"correct": True, "vote": 0}
    assert list(process_results({}, [[json.dumps(record)]])) == KEYS


def test_every_task_metric_covers_what_process_results_computes():
    wrong = {f: 2 for f in SampleRecord.__dataclass_fields__} | {"correct": False, "vote": 0}
    right = {**wrong, "correct": True, "token_efficiency": 0.5}
    out = process_results({}, [[json.dumps(wrong), json.dumps(right)]])
    assert out["exact_match"] == 0.5  # accuracy: its task key and its record field
    assert out["token_efficiency"] == [0.5]  # over the correct repeat only
    assert out["reasoning_tokens"] == 2.0  # over every repeat


def test_the_reports_show_each_analyzed_metric_once():
    assert sorted(table.REPORT_ORDER) == sorted(m.name for m in table.METRICS if m.analyzed)
    assert set(PLOTTED) <= set(table.REPORT_ORDER)
    assert table.ACCURACY.key == "exact_match" and table.ACCURACY.record_field == "correct"
    for m in table.METRICS:
        if m.covers not in ("logged", "problem"):  # (those are not means of a record field)
            assert m.record_field in SampleRecord.__dataclass_fields__, m
