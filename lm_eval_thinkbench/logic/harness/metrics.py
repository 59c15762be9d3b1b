"""Moved to ``lm_eval_thinkbench.logic.metrics`` (see this package's docstring)."""

from lm_eval_thinkbench.logic import metrics
from lm_eval_thinkbench.moved import forward

__getattr__ = forward(__name__, metrics)
