"""lm-eval-thinkbench: lm-evaluation-harness tasks that measure how reasoning models think.

Importing the package is cheap on purpose: lm-eval imports it while resolving the first
``!function lm_eval_thinkbench...`` reference of a task YAML, so heavy dependencies (math-verify,
tokenizers, the grading pool) load lazily in the modules that need them.
"""

from pathlib import Path

__version__ = "0.1.0"

#: Bumped whenever a change can move a reported number (extraction, grading, locating,
#: counting). Every per-sample record carries it, so two runs can be compared honestly.
METRICS_VERSION = "1"

#: The task YAMLs, for ``--include_path`` from a source checkout.
TASKS_DIR = str(Path(__file__).resolve().parent.parent / "tasks")
