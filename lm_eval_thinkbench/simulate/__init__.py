"""Simulated reasoning model: R1-style traces with exact ground truth, for tests and demos.

MATH-500 documents are answered by :func:`simulate`. Other suites register a *responder* for
their documents in :data:`RESPONDERS` (keyed by a field only their documents have), so the one
``thinkbench-sim`` model serves every task of the plugin.
"""

from collections.abc import Callable, Mapping
from typing import Any

from lm_eval_thinkbench.simulate.traces import (
    CHARS_PER_TOKEN,
    SCENARIO_WEIGHTS,
    SCENARIOS,
    SimTrace,
    TraceTruth,
    simulate,
    wrong_answer,
)

#: doc field -> responder(doc, seed) for documents that are not MATH-500 problems.
RESPONDERS: dict[str, Callable[[Mapping[str, Any], int], SimTrace]] = {}


def respond(doc: Mapping[str, Any], seed: int = 0, **math_options: Any) -> SimTrace:
    """The simulated response to one document, from the responder that owns its kind."""
    for field, responder in RESPONDERS.items():
        if field in doc:
            return responder(doc, seed)
    return simulate(doc, seed=seed, **math_options)


__all__ = [
    "CHARS_PER_TOKEN",
    "RESPONDERS",
    "SCENARIOS",
    "SCENARIO_WEIGHTS",
    "SimTrace",
    "TraceTruth",
    "respond",
    "simulate",
    "wrong_answer",
]
