"""Bilingual rule-based execution and planning tasks, scored on answers and on steps.

Importing the package registers every subclass (cheaply: generators run only when asked).
"""

from lm_eval_thinkbench.logic import execution, planning  # noqa: F401  (register on import)
