"""lm-eval's task loader over the thinkbench task YAMLs alone, for tests that load tasks.

Why not ``TaskManager()`` as ``lm_eval`` builds it: that indexes lm-eval's own ~14,700 task
YAMLs first (about 40 s on the 2-core CI machine, per manager) and no test loads one of them.
``TASKS_DIR`` is the checkout's ``tasks/`` or, after a wheel install, the copy inside lm-eval's
task tree; with lm-eval's defaults left out it is indexed exactly once either way, so no task is
registered twice. That lm-eval finds the installed tasks *without* ``--include_path`` is checked
once, by the plain ``lm_eval`` commands of the e2e tests and ``.ci/run``.
"""

from __future__ import annotations

from lm_eval.tasks import TaskManager

from lm_eval_thinkbench import TASKS_DIR


def task_manager(**metadata: object) -> TaskManager:
    """A loader for the thinkbench tasks; ``metadata`` is what ``--metadata`` would pass."""
    return TaskManager(include_path=TASKS_DIR, include_defaults=False, metadata=metadata or None)
