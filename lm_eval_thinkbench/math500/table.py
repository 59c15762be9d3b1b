"""MATH-500's metric table: every figure the suite reports, declared once.

The task YAMLs' metric lists and group metadata are generated from it (``task_yamls``), the
harness's ``process_results`` computes from it (``metrics``), the leaderboard labels the
sampling figures from it, and ``thinkbench analyze`` aggregates and labels its report columns
from it; a test checks the committed YAMLs match. A new metric is a new row here plus its
field in ``score.SampleRecord``.

Accuracy has one row. Its report name is ``accuracy``, its lm-eval metric key ``exact_match``
(the name lm-eval's own math tasks use, kept for users), and its record field ``correct``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: The tasks' filter, whose records every metric is computed from: results keys are
#: ``<key>,FILTER``.
FILTER = "thinkbench"
#: Which samples a metric averages over: every sample; the correctly or wrongly answered ones;
#: those whose producing run logged a verdict (analyze only); or one value per problem from all
#: of its samples at once (avg@k, pass@k, maj@k: the harness only).
Covers = Literal["all", "correct", "wrong", "logged", "problem"]
#: How a value is printed: a token count (no decimals), a small count (two), a share (three).
Format = Literal["tokens", "count", "share"]


@dataclass(frozen=True)
class Metric:
    """One reported figure.

    ``name``: its key in ``thinkbench analyze``'s reports; ``key``: its key in lm-eval's results
    (``<key>,thinkbench``): ``task_name``, else ``name``; ``task``/``analyzed``: whether the
    math tasks / ``thinkbench analyze`` report it; ``field``: the ``SampleRecord`` field
    averaged (``name`` unless given; none for ``logged``); ``label``: a display label;
    ``sampled_label``: the label with k samples per problem (``{k}`` stands for k), for the
    per-problem figures.
    """

    name: str
    label: str
    covers: Covers
    higher_is_better: bool
    format: Format
    task: bool = True
    analyzed: bool = True
    task_name: str = ""
    field: str = ""
    sampled_label: str = ""

    @property
    def key(self) -> str:
        return self.task_name or self.name

    @property
    def record_field(self) -> str:
        return self.field or self.name

    def label_for(self, k: int) -> str:
        """The label with ``k`` samples per problem (the plain label without a sampled one)."""
        return self.sampled_label.format(k=k) if self.sampled_label else self.label


ACCURACY = Metric(
    "accuracy", "Accuracy", "all", True, "share", task_name="exact_match", field="correct",
    sampled_label="avg@{k}",
)  # fmt: skip
#: In the order the tasks report them, then those only ``thinkbench analyze`` reports.
METRICS: tuple[Metric, ...] = (
    ACCURACY,
    Metric("pass_at_k", "pass@k", "problem", True, "share",
           sampled_label="pass@{k}", analyzed=False),
    Metric("maj_at_k", "maj@k", "problem", True, "share",
           sampled_label="maj@{k}", analyzed=False),
    Metric("reasoning_tokens", "Reasoning tokens", "all", False, "tokens"),
    Metric("answer_tokens", "Answer tokens", "all", False, "tokens"),
    Metric("truncated", "Truncated rate", "all", False, "share"),
    Metric("thought_num", "Thought switches", "all", False, "count"),
    Metric("first_correct_tokens", "First-correct tokens", "correct", False, "tokens"),
    Metric("reflection_tokens", "Reflection tokens", "correct", False, "tokens"),
    Metric("token_efficiency", "Token efficiency", "correct", True, "share"),
    Metric("outcome_efficiency", "Outcome efficiency", "all", True, "share", task=False),
    Metric("underthinking", "Underthinking", "wrong", False, "share", task=False),
    Metric("solution_rounds", "Solution rounds", "all", False, "count", task=False),
    Metric("redundant_sections", "Redundant sections", "correct", False, "count", task=False),
    Metric("logged_accuracy", "Logged accuracy", "logged", True, "share", task=False),
)  # fmt: skip
BY_NAME = {m.name: m for m in METRICS}
#: What the math tasks report, in their order.
TASK_METRICS = tuple(m for m in METRICS if m.task)
#: The per-problem figures of k samples per problem: avg@k, pass@k, maj@k.
PER_PROBLEM = tuple(m for m in TASK_METRICS if m.sampled_label)
#: The order of ``thinkbench analyze``'s report columns (summary.json, .csv, .md), every
#: analyzed row once (a test checks): accuracy first, then EvalScope's figures, then ours.
REPORT_ORDER = (
    "accuracy",
    "reasoning_tokens",
    "first_correct_tokens",
    "reflection_tokens",
    "token_efficiency",
    "thought_num",
    "truncated",
    "outcome_efficiency",
    "underthinking",
    "solution_rounds",
    "redundant_sections",
    "answer_tokens",
    "logged_accuracy",
)
REPORTED = tuple(BY_NAME[name] for name in REPORT_ORDER)
