"""Moved: the critic tasks' lm-eval adapter is ``critic.filters`` (the verdict records) and
``critic.metrics`` (process_results, the aggregations); this old path forwards to them, with a
DeprecationWarning, so a task YAML naming ``!function lm_eval_thinkbench.critic.harness...``
still loads (docs/moved.md)."""

from lm_eval_thinkbench.critic import filters, metrics
from lm_eval_thinkbench.moved import forward

__getattr__ = forward(__name__, metrics, filters)
