"""How a response is read: the one config every suite's filter and the analysis share.

Which reasoning markers split a response, how its reasoning is cut into steps, which phrases
count as thought switches, and how a response cut by the length limit is graded. It sits below
the suites (the shared lm-eval settings carry it to every filter) and knows none of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lm_eval_thinkbench.steps import (
    DEFAULT_SEPARATOR,
    PhraseMatcher,
    Span,
    split_keywords,
    split_separator,
)
from lm_eval_thinkbench.trace import AUTO, MarkerSet

TRUNCATED_POLICIES = ("lenient", "zero")
#: Step splitters that need no model; "llm" (a judge rewrites the reasoning) lives in
#: ``lm_eval_thinkbench.locate.split`` because it needs an async client.
LOCAL_SPLITS = ("separator", "keywords")


@dataclass(frozen=True)
class ScoringConfig:
    """How responses are read. Every field is recorded with each sample.

    ``truncated``: "lenient" grades a truncated response by the last answer in its text (what
    lm-eval's ``think_end_token`` does when the token is missing, so accuracy matches the
    harness's own math tasks); "zero" scores it as wrong. ``split``: how the reasoning is cut
    into steps for the first-correct position ("separator": between ``separator`` matches;
    "keywords": at each switch phrase of ``matcher``).
    """

    markers: str | MarkerSet = AUTO
    separator: str = DEFAULT_SEPARATOR
    matcher: PhraseMatcher = field(default_factory=PhraseMatcher)
    truncated: str = "lenient"
    split: str = "separator"

    def __post_init__(self) -> None:
        if self.truncated not in TRUNCATED_POLICIES:
            raise ValueError(
                f"truncated must be one of {TRUNCATED_POLICIES}, not {self.truncated!r}"
            )
        if self.split not in LOCAL_SPLITS:
            raise ValueError(f"split must be one of {LOCAL_SPLITS}, not {self.split!r}")

    def split_steps(self, reasoning: str) -> list[Span]:
        """The steps of ``reasoning`` under this config's local splitter."""
        if self.split == "keywords":
            return split_keywords(reasoning, self.matcher)
        return split_separator(reasoning, self.separator)
