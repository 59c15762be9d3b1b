"""Moved to ``lm_eval_thinkbench.logic.logicgame_files`` (see this package's docstring)."""

from lm_eval_thinkbench.logic import logicgame_files
from lm_eval_thinkbench.moved import forward

__getattr__ = forward(__name__, logicgame_files)
