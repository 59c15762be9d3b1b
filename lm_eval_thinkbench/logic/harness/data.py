"""Moved to ``lm_eval_thinkbench.logic.data`` (see this package's docstring)."""

from lm_eval_thinkbench.logic import data
from lm_eval_thinkbench.moved import forward

__getattr__ = forward(__name__, data)
