"""Moved to ``lm_eval_thinkbench.logic.filters`` (see this package's docstring); its
``score_response`` is ``score_logic_response`` there."""

from lm_eval_thinkbench.logic import filters
from lm_eval_thinkbench.moved import forward

__getattr__ = forward(__name__, filters, renamed={"score_response": "score_logic_response"})
