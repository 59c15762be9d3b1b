"""The ``llm`` step splitter: the judge copies the reasoning out, cut into steps.

Token counts must stay those of the model's own text, so the rewrite is only used to find
*where* steps begin and end: ``steps.align_steps`` maps it back to character offsets in the
original and rejects it when anything other than whitespace changed (EvalScope counts tokens on
the rewritten text instead, so its efficiency can exceed 1).
"""

from __future__ import annotations

import re

from lm_eval_thinkbench.judge.prompts import SPLIT
from lm_eval_thinkbench.locate.rule import LocatorFailure
from lm_eval_thinkbench.steps import Span, align_steps

_STEP = re.compile(r"<step>(.*?)</step>", re.DOTALL)
_THINK_END = re.compile(r"</think>|◁/think▷")


def split_prompt(problem: str, reasoning: str) -> str:
    return SPLIT.format(problem=problem.strip(), reasoning=reasoning)


def read_split(reply: str, reasoning: str) -> list[Span] | LocatorFailure:
    """The steps of ``reasoning`` named by the judge's rewrite, or why it was rejected."""
    pieces = _STEP.findall(_THINK_END.split(reply)[-1])
    if not pieces:
        return LocatorFailure("judge split reply has no <step> blocks")
    spans = align_steps(reasoning, pieces)
    if spans is None:
        return LocatorFailure("judge split rejected: the rewrite changed the reasoning's text")
    return spans
