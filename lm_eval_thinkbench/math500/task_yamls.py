"""Write the MATH-500 task tree: ``python -m lm_eval_thinkbench.math500.task_yamls [DIR]``.

The YAMLs under ``tasks/math500/`` are generated here and committed (a test checks they match),
so that the template's metric list and the groups' aggregation and pooling metadata are read
off the suite's metric table (``math500.table``) and cannot drift from ``process_results``:

* ``_math500_template_yaml``: the prompt, filter and ``process_results`` shared by every math
  task (the AIME/AMC tasks of ``tasks/competition/`` include it too), with one ``metric_list``
  entry per task metric: lm-eval's ``mean``, or ``records.pooled_mean`` for a metric over the
  correct samples;
* ``thinkbench_math500``: a leaf per level under one group whose metadata pools the metrics
  over the correct samples by the levels' correct counts (``pooled_over_subset``) and gives
  the per-problem figures their standard error over problems (``stderr_over_problems``), see
  ``harness/groups.py``;
* ``thinkbench_math500_avg<k>`` (k in :data:`AVERAGED`): the same under DeepSeek-R1's sampling
  (``_math500_r1_yaml``) with k samples per problem.
"""

from __future__ import annotations

import sys
from pathlib import Path

from lm_eval_thinkbench import TASKS_DIR
from lm_eval_thinkbench.harness.yaml_tree import header, write_tree
from lm_eval_thinkbench.math500.data import LEVELS
from lm_eval_thinkbench.math500.table import ACCURACY, FILTER, PER_PROBLEM, TASK_METRICS

GROUP = "thinkbench_math500"
TEMPLATE = "_math500_template_yaml"
R1 = "_math500_r1_yaml"
#: The samples per problem of the avg@k groups.
AVERAGED = (4, 16)
#: The prompt, as a YAML double-quoted string (a Jinja template over the document).
PROMPT = r'"{{problem}}\nPlease reason step by step, and put your final answer within \\boxed{}."'
POOLED = "!function lm_eval_thinkbench.harness.records.pooled_mean"
HEADER = header("lm_eval_thinkbench.math500.task_yamls")

_TEMPLATE = """\
# Shared by the thinkbench_math500 levels (and the AIME/AMC tasks). Zero-shot, one user turn,
# long generations.
custom_dataset: !function lm_eval_thinkbench.math500.data.load_math500
test_split: test
output_type: generate_until
doc_to_text: %(prompt)s
doc_to_target: "{{answer}}"
num_fewshot: 0
generation_kwargs:
  # No stop strings: a blank line is a paragraph break inside a chain of thought, not its end.
  until: []
  max_gen_toks: 32768
  do_sample: false
  temperature: 0.0
filter_list:
  - name: %(filter)s
    filter:
      - function: !function lm_eval_thinkbench.math500.filters.ThinkEfficiencyFilter
process_results: !function lm_eval_thinkbench.math500.metrics.process_results
metric_list:
  # The suite's metric table (lm_eval_thinkbench/math500/table.py); avg@k, pass@k and maj@k
  # are over the k = repeats samples of each problem, means over problems.
%(metrics)smetadata:
  version: 1.0
"""

_R1 = f"""\
# The thinkbench_math500_avg<k> levels: the MATH-500 template with DeepSeek-R1's sampling
# (temperature 0.6, top-p 0.95, 32k tokens); each level sets `repeats: k`.
include: {TEMPLATE}
generation_kwargs:
  until: []
  max_gen_toks: 32768
  do_sample: true
  temperature: 0.6
  top_p: 0.95
"""


def _metric_list() -> str:
    return "".join(
        f"  - metric: {m.key}\n"
        f"    aggregation: {POOLED if m.covers == 'correct' else 'mean'}\n"
        f"    higher_is_better: {str(m.higher_is_better).lower()}\n"
        for m in TASK_METRICS
    )


def _group(name: str, alias: str, leaves: list[str]) -> str:
    tasks = "".join(f"  - {leaf}\n" for leaf in leaves)
    metrics = "".join(f"  - metric: {m.key}\n    weight_by_size: true\n" for m in TASK_METRICS)
    pooled = "".join(
        f"    {m.key}: {{within: [{ACCURACY.key}]}}\n"
        for m in TASK_METRICS
        if m.covers == "correct"
    )
    per_problem = ", ".join(m.key for m in PER_PROBLEM)
    return (
        f"{HEADER}group: {name}\ngroup_alias: {alias}\ntask:\n{tasks}"
        f"aggregate_metric_list:\n{metrics}"
        "metadata:\n  version: 1.0\n"
        "  # Means over correctly answered samples: re-weighted by the levels' correct counts,\n"
        "  # see lm_eval_thinkbench/harness/groups.py.\n"
        f"  pooled_over_subset:\n{pooled}"
        f"  stderr_over_problems: [{per_problem}]\n"
    )


def _leaf(name: str, include: str, level: int, repeats: int | None = None) -> str:
    repeat = f"repeats: {repeats}\n" if repeats else ""
    return (
        f"{HEADER}include: {include}\ntask: {name}\ntask_alias: level {level}\n{repeat}"
        f"dataset_kwargs:\n  level: {level}\n"
    )


def files() -> dict[str, str]:
    """File name -> content of every YAML of the tree."""
    out = {
        TEMPLATE: HEADER
        + _TEMPLATE % {"prompt": PROMPT, "filter": FILTER, "metrics": _metric_list()},
        R1: HEADER + _R1,
    }
    leaves = [f"{GROUP}_level{level}" for level in LEVELS]
    out[f"_{GROUP}.yaml"] = _group(GROUP, "MATH-500 (thinkbench)", leaves)
    for name, level in zip(leaves, LEVELS, strict=True):
        out[f"{name}.yaml"] = _leaf(name, TEMPLATE, level)
    for k in AVERAGED:
        group = f"{GROUP}_avg{k}"
        leaves = [f"{group}_level{level}" for level in LEVELS]
        out[f"_{group}.yaml"] = _group(group, f"MATH-500 avg@{k} (thinkbench)", leaves)
        for name, level in zip(leaves, LEVELS, strict=True):
            out[f"{name}.yaml"] = _leaf(name, R1, level, repeats=k)
    return out


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    write_tree(argv, Path(TASKS_DIR) / "math500", files(), HEADER)


if __name__ == "__main__":
    main()
