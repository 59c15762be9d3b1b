"""lm-eval-thinkbench: lm-evaluation-harness tasks that measure how reasoning models think.

Importing the package is cheap on purpose: lm-eval imports it while resolving the first
``!function lm_eval_thinkbench...`` reference of a task YAML, so heavy dependencies (math-verify,
tokenizers, the grading pool) load lazily in the modules that need them.
"""

import importlib.util
from pathlib import Path

__version__ = "0.1.0"

#: Bumped whenever a change can move a reported number (extraction, grading, locating,
#: counting). Every per-sample record carries it, so two runs can be compared honestly.
METRICS_VERSION = "1"


def _tasks_dir() -> str:
    """The task YAMLs: the checkout's ``tasks/`` (source or editable install), else where the
    wheel put them, inside lm-eval's own task tree (found without importing lm-eval)."""
    checkout = Path(__file__).resolve().parent.parent / "tasks"
    if checkout.is_dir():
        return str(checkout)
    spec = importlib.util.find_spec("lm_eval")
    roots = list(spec.submodule_search_locations or []) if spec else []
    return str(Path(roots[0]) / "tasks" / "thinkbench") if roots else str(checkout)


#: The task YAMLs (for ``--include_path``, tests, and lm-eval's future plugin entry point).
TASKS_DIR = _tasks_dir()
