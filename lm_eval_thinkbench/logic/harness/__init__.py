"""Moved: the logic suite's lm-eval adapter is ``logic.data``, ``logic.filters``,
``logic.metrics`` and ``logic.logicgame_files``; the modules of this old package forward to
them, with a DeprecationWarning, so a task YAML naming ``!function
lm_eval_thinkbench.logic.harness...`` still loads (docs/moved.md)."""
