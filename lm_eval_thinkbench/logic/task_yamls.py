"""Write the logic task tree: ``python -m lm_eval_thinkbench.logic.task_yamls [DIR]``.

The YAMLs under ``tasks/logic/`` are generated here from the subclass registry and committed (a
test checks they match), so leaves and groups cannot drift apart, and a newly registered
subclass gets its tasks by rerunning this command. Two partitions of the same items:

* **by level** (``thinkbench_logic``): leaves ``thinkbench_logic_{lang}_{kind}_level{n}``
  (language x kind x level; the subclass is a field of each document), each tagged
  ``thinkbench_logic_level{n}``; groups ``thinkbench_logic_{lang}_{kind}`` over the four
  levels, ``thinkbench_logic_{lang}`` over both kinds, and ``thinkbench_logic`` over both
  languages;
* **by subclass** (``thinkbench_logic_by_subclass``): leaves
  ``thinkbench_logic_{lang}_{family}_{name}`` (one subclass, all four levels), under
  ``thinkbench_logic_{lang}_{kind}_by_subclass``, ``thinkbench_logic_{lang}_by_subclass`` and
  ``thinkbench_logic_by_subclass``.

lm-eval aggregates a group over every leaf below it, so one tree holding both partitions would
count every item twice; and it refuses a task under two parents in one run. So each partition
is its own tree, and the extra views are groups outside ``thinkbench_logic`` over the same
leaves: ``thinkbench_logic_{kind}`` over both languages (``--tasks
thinkbench_logic_execution,thinkbench_logic_planning``). A group of the by-subclass tree reports
the same figures as its by-level counterpart (same items, size-weighted and pooled means).
"""

from __future__ import annotations

import sys
from pathlib import Path

from lm_eval_thinkbench import TASKS_DIR
from lm_eval_thinkbench.harness.yaml_tree import header, write_tree
from lm_eval_thinkbench.logic import registry
from lm_eval_thinkbench.logic.base import KINDS, LANGS, LEVELS, TaskType

GROUP = "thinkbench_logic"
BY_SUBCLASS = "by_subclass"
TEMPLATE = "_logic_template_yaml"
LANG_ALIAS = {"en": "English", "zh": "Chinese"}
METRICS = (  # (name, higher is better, aggregation)
    ("answer_acc", True, "mean"),
    ("step_acc", True, "mean"),
    ("answer_step_acc", True, "mean"),
    ("if_error", False, "mean"),
    ("format_error", False, "mean"),
    ("overall_acc", True, "!function lm_eval_thinkbench.harness.records.pooled_mean"),
    ("valid_process", True, "mean"),
)
HEADER = header("lm_eval_thinkbench.logic.task_yamls")

_TEMPLATE = """custom_dataset: !function lm_eval_thinkbench.logic.data.load_logic
test_split: test
output_type: generate_until
doc_to_text: "{{prompt}}"
doc_to_target: "{{target}}"
# The two worked examples are part of every item's prompt.
num_fewshot: 0
generation_kwargs:
  # No stop strings: a blank line is a paragraph break inside a chain of thought, not its end.
  until: []
  max_gen_toks: 32768
  do_sample: false
  temperature: 0.0
filter_list:
  - name: thinkbench
    filter:
      - function: !function lm_eval_thinkbench.logic.filters.LogicFilter
process_results: !function lm_eval_thinkbench.logic.metrics.process_results
metric_list:
{metrics}metadata:
  version: 1.0
"""

_GROUP_METADATA = """metadata:
  version: 1.0
  # overall_acc is a mean over the samples with neither error: pooled, not size-weighted
  # (see lm_eval_thinkbench/harness/groups.py).
  pooled_over_subset:
    overall_acc: {excluding: [if_error, format_error]}
"""


def leaf(lang: str, kind: str, level: int) -> str:
    return f"{GROUP}_{lang}_{kind}_level{level}"


def subclass_leaf(lang: str, sub: TaskType) -> str:
    return f"{GROUP}_{lang}_{sub.family}_{sub.name}"


def _group(name: str, alias: str, children: list[str]) -> str:
    tasks = "".join(f"  - {c}\n" for c in children)
    metrics = "".join(f"  - metric: {m}\n    weight_by_size: true\n" for m, _, _ in METRICS)
    return (
        f"{HEADER}group: {name}\ngroup_alias: {alias}\ntask:\n{tasks}"
        f"aggregate_metric_list:\n{metrics}{_GROUP_METADATA}"
    )


def files() -> dict[str, str]:
    """File name -> content of every YAML of the tree."""
    metrics = "".join(
        f"  - metric: {m}\n    aggregation: {agg}\n    higher_is_better: {str(hib).lower()}\n"
        for m, hib, agg in METRICS
    )
    out = {TEMPLATE: HEADER + _TEMPLATE.replace("{metrics}", metrics)}
    for lang in LANGS:
        for kind in KINDS:
            for level in LEVELS:
                out[f"{leaf(lang, kind, level)}.yaml"] = (
                    f"{HEADER}include: {TEMPLATE}\ntask: {leaf(lang, kind, level)}\n"
                    f"task_alias: level {level}\ntag:\n  - {GROUP}_level{level}\n"
                    f"dataset_kwargs:\n  lang: {lang}\n  kind: {kind}\n  level: {level}\n"
                )
            name = f"{GROUP}_{lang}_{kind}"
            alias = f"{LANG_ALIAS[lang]} {kind}"
            out[f"_{name}.yaml"] = _group(name, alias, [leaf(lang, kind, n) for n in LEVELS])
        children = [f"{GROUP}_{lang}_{kind}" for kind in KINDS]
        out[f"_{GROUP}_{lang}.yaml"] = _group(f"{GROUP}_{lang}", LANG_ALIAS[lang], children)
    out[f"_{GROUP}.yaml"] = _group(
        GROUP, "Logic (thinkbench)", [f"{GROUP}_{lang}" for lang in LANGS]
    )
    for kind in KINDS:
        children = [f"{GROUP}_{lang}_{kind}" for lang in LANGS]
        out[f"_{GROUP}_{kind}.yaml"] = _group(
            f"{GROUP}_{kind}", f"Logic {kind} (thinkbench)", children
        )
    out.update(_by_subclass())
    return out


def _by_subclass() -> dict[str, str]:
    """The by-subclass tree: a leaf per registered subclass and language."""
    out = {}
    for lang in LANGS:
        kinds = []
        for kind in KINDS:
            leaves = []
            for sub in registry.subclasses(kind):
                name = subclass_leaf(lang, sub)
                if name.startswith(tuple(f"{GROUP}_{lang}_{k}" for k in KINDS)):
                    raise ValueError(f"{sub.key}: its task {name} would clash with the level tree")
                out[f"{name}.yaml"] = (
                    f"{HEADER}include: {TEMPLATE}\ntask: {name}\ntask_alias: {sub.key}\n"
                    f"dataset_kwargs:\n  lang: {lang}\n  subclass: {sub.key}\n"
                )
                leaves.append(name)
            group = f"{GROUP}_{lang}_{kind}_{BY_SUBCLASS}"
            alias = f"{LANG_ALIAS[lang]} {kind}, by subclass"
            out[f"_{group}.yaml"] = _group(group, alias, leaves)
            kinds.append(group)
        group = f"{GROUP}_{lang}_{BY_SUBCLASS}"
        out[f"_{group}.yaml"] = _group(group, f"{LANG_ALIAS[lang]}, by subclass", kinds)
    group = f"{GROUP}_{BY_SUBCLASS}"
    children = [f"{GROUP}_{lang}_{BY_SUBCLASS}" for lang in LANGS]
    out[f"_{group}.yaml"] = _group(group, "Logic by subclass (thinkbench)", children)
    return out


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    write_tree(argv, Path(TASKS_DIR) / "logic", files(), HEADER)


if __name__ == "__main__":
    main()
