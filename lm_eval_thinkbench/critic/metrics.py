"""The critic tasks' ``process_results`` and aggregations, over the records of :mod:`.filters`.

``process_results`` pairs each record with its doc into a scoring *item*; every metric of a
task aggregates the same items, so a task's figures are computed once, at task level, from
per-sample values (ratios such as micro precision or the ProcessBench F1 are not means of
per-sample numbers). Every repeat (``repeats: n``) is an item of its own.

Items of excluded samples (unusable labels; DeltaBench samples without a true error section)
carry ``excluded`` and count only in the ``excluded`` and ``unparsed`` shares.
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from statistics import fmean
from typing import Any

from lm_eval.tasks._factory import TaskFactory

from lm_eval_thinkbench.critic.data import NoRows
from lm_eval_thinkbench.critic.filters import TRUNCATED
from lm_eval_thinkbench.critic.parse import UNPARSED
from lm_eval_thinkbench.critic.scoring import (
    SECTION_FIGURES,
    SectionScore,
    processbench_summary,
    score_sections,
    summarize_sections,
)
from lm_eval_thinkbench.harness import groups, settings
from lm_eval_thinkbench.harness.records import records

log = logging.getLogger("lm_eval.thinkbench.critic")

NO_TRUTH = "no error sections in the ground truth"

groups.install()


# ----- groups with an empty member -----------------------------------------------------------


def leave_out_empty_members() -> None:
    """Let groups leave out members whose loader raised :class:`NoRows`.

    lm-eval builds a group's members from its static list, and one member that cannot be built
    stops the whole run. This wraps lm-eval 0.4.13's ``TaskFactory._build_group_members`` to
    build the members one by one (the same call, one member at a time) and drop those without
    rows, with a warning; a group none of whose members has rows still fails. The group's
    figures then pool the members that ran (lm-eval's and ``harness.groups``' aggregation skip
    absent members). For the wrapper to be in place before a group's members are built, the
    group YAML must import this module: ``thinkbench_deltabench`` names its ``process_results``.
    """
    original = TaskFactory._build_group_members
    if getattr(original, "_thinkbench", False):
        return

    @functools.wraps(original)
    def build_members(
        self: TaskFactory, member_list: list, group_name: str, *args: Any, **kwargs: Any
    ) -> list:
        built: list = []
        empty: list[NoRows] = []
        for member in member_list:
            try:
                built += original(self, [member], group_name, *args, **kwargs)
            except NoRows as exc:
                empty.append(exc)
        if empty and not built:
            raise empty[0]
        for missing in empty:
            log.warning("group %s: %s", group_name, missing)
        return built

    build_members._thinkbench = True  # type: ignore[attr-defined]
    TaskFactory._build_group_members = build_members


leave_out_empty_members()


# ----- process_results -----------------------------------------------------------------------

PROCESSBENCH_METRICS = ("error_acc", "correct_acc", "f1", "unparsed", "excluded")
DELTABENCH_METRICS = (
    *SECTION_FIGURES,
    "flagged_sections",
    "true_sections",
    "unparsed",
    "excluded",
)


def processbench_results(doc: Mapping[str, Any], results: Sequence[Any]) -> dict[str, Any]:
    items = [
        {
            "label": doc["label"],
            "prediction": record["prediction"],
            "status": record["status"],
            "excluded": doc["data_error"] or None,
        }
        for record in records(results)
    ]
    return dict.fromkeys(PROCESSBENCH_METRICS, items)


def deltabench_results(doc: Mapping[str, Any], results: Sequence[Any]) -> dict[str, Any]:
    reference_filter = settings.current().reference_filter
    excluded = doc["data_error"] or (NO_TRUTH if not doc["truth_sections"] else None)
    items = []
    for record in records(results):
        item: dict[str, Any] = {
            "status": record["status"],
            "excluded": excluded,
            "out_of_range": [n for n in record["sections"] if not 1 <= n <= doc["n_sections"]],
        }
        if not excluded:
            item.update(
                asdict(score_sections(record["sections"], doc["truth_sections"], reference_filter))
            )
        items.append(item)
    return dict.fromkeys(DELTABENCH_METRICS, items)


# ----- aggregations --------------------------------------------------------------------------


def _flat(items: Sequence[Sequence[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [item for per_doc in items for item in per_doc]


def _scored(items: Sequence[Sequence[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [item for item in _flat(items) if not item["excluded"]]


def _processbench(items: Sequence[Sequence[dict[str, Any]]], key: str) -> float:
    return processbench_summary((i["label"], i["prediction"]) for i in _scored(items))[key]


def error_acc(items: Sequence[Sequence[dict[str, Any]]]) -> float:
    """Share of erroneous samples whose earliest wrong step was found exactly."""
    return _processbench(items, "error_acc")


def correct_acc(items: Sequence[Sequence[dict[str, Any]]]) -> float:
    """Share of correct samples the critic called correct (-1)."""
    return _processbench(items, "correct_acc")


def processbench_f1(items: Sequence[Sequence[dict[str, Any]]]) -> float:
    """Harmonic mean of ``error_acc`` and ``correct_acc`` (the ProcessBench F1)."""
    return _processbench(items, "f1")


def unparsed(items: Sequence[Sequence[dict[str, Any]]]) -> float:
    """Share of responses with no readable verdict (truncated ones included)."""
    flat = _flat(items)
    return fmean(i["status"] in (UNPARSED, TRUNCATED) for i in flat) if flat else math.nan


def excluded(items: Sequence[Sequence[dict[str, Any]]]) -> float:
    """Share of samples left out of the scores (unusable labels, or nothing to find)."""
    flat = _flat(items)
    return fmean(bool(i["excluded"]) for i in flat) if flat else math.nan


def _sections(items: Sequence[Sequence[dict[str, Any]]], key: str) -> float:
    scores = [
        SectionScore(**{k: i[k] for k in ("tp", "fp", "fn", "precision", "recall", "f1")})
        for i in _scored(items)
    ]
    return summarize_sections(scores)[key]


def precision_macro(items: Sequence[Sequence[dict[str, Any]]]) -> float:
    return _sections(items, "precision_macro")


def recall_macro(items: Sequence[Sequence[dict[str, Any]]]) -> float:
    return _sections(items, "recall_macro")


def f1_macro(items: Sequence[Sequence[dict[str, Any]]]) -> float:
    """DeltaBench's headline: the per-sample F1, averaged over scored samples."""
    return _sections(items, "f1_macro")


def precision_micro(items: Sequence[Sequence[dict[str, Any]]]) -> float:
    return _sections(items, "precision_micro")


def recall_micro(items: Sequence[Sequence[dict[str, Any]]]) -> float:
    return _sections(items, "recall_micro")


def f1_micro(items: Sequence[Sequence[dict[str, Any]]]) -> float:
    return _sections(items, "f1_micro")


def flagged_sections(items: Sequence[Sequence[dict[str, Any]]]) -> float:
    """Mean number of sections flagged per scored sample (after the reference filter, if on)."""
    scored = _scored(items)
    return fmean(i["tp"] + i["fp"] for i in scored) if scored else math.nan


def true_sections(items: Sequence[Sequence[dict[str, Any]]]) -> float:
    """Mean number of true error sections per scored sample."""
    scored = _scored(items)
    return fmean(i["tp"] + i["fn"] for i in scored) if scored else math.nan
