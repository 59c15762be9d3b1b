"""Moved: the section analysis is ``lm_eval_thinkbench.sections`` (MATH-500's records use it, and
no critic code does); this old path forwards to it with a DeprecationWarning (docs/moved.md)."""

from lm_eval_thinkbench import sections
from lm_eval_thinkbench.moved import forward

__getattr__ = forward(__name__, sections)
