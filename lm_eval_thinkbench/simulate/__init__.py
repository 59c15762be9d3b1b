"""Simulated reasoning model: R1-style traces with exact ground truth, for tests and demos."""

from lm_eval_thinkbench.simulate.traces import (
    CHARS_PER_TOKEN,
    SCENARIO_WEIGHTS,
    SCENARIOS,
    SimTrace,
    TraceTruth,
    simulate,
    wrong_answer,
)

__all__ = [
    "CHARS_PER_TOKEN",
    "SCENARIOS",
    "SCENARIO_WEIGHTS",
    "SimTrace",
    "TraceTruth",
    "simulate",
    "wrong_answer",
]
