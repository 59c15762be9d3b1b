"""The old import path of MATH-500's per-sample scoring, kept for code written against it.

The scoring moved to ``lm_eval_thinkbench.math500.score`` (the MATH-500 suite's folder) and the
config every suite shares to ``lm_eval_thinkbench.reading``; new code imports from there.
``LocatorError``, the value a locator returns when it cannot say where the answer was first
reached, is ``LocatorFailure`` in
``lm_eval_thinkbench.locate.rule`` (forwarded with a DeprecationWarning: docs/moved.md).
"""

from lm_eval_thinkbench.locate import rule
from lm_eval_thinkbench.math500.score import (
    Graded,
    Locate,
    SampleRecord,
    grade_response,
    score_graded,
    score_response,
)
from lm_eval_thinkbench.moved import forward
from lm_eval_thinkbench.reading import LOCAL_SPLITS, TRUNCATED_POLICIES, ScoringConfig

__all__ = [
    "LOCAL_SPLITS",
    "TRUNCATED_POLICIES",
    "Graded",
    "Locate",
    "SampleRecord",
    "ScoringConfig",
    "grade_response",
    "score_graded",
    "score_response",
]

__getattr__ = forward(__name__, rule, renamed={"LocatorError": "LocatorFailure"})
