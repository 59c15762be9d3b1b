"""The judge locator: an LLM reads the numbered steps and names the first correct one.

Pure functions around one judge call (the call itself is ``judge.client``'s job): build the
ProcessBench-style prompt from the steps the splitter found, and read the reply back into the
same :class:`~lm_eval_thinkbench.locate.rule.FirstCorrect` the rule locator returns, so every
metric is computed the same way whichever locator found the position. Tokens are counted
through the *end* of the named step, as for the rule locator (EvalScope stops before it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lm_eval_thinkbench.judge.prompts import FIRST_CORRECT
from lm_eval_thinkbench.locate.rule import FirstCorrect, LocatorFailure
from lm_eval_thinkbench.math.extract import last_boxed
from lm_eval_thinkbench.steps import Span

#: A judge's own chain of thought ends here; only what follows is its verdict.
_THINK_END = re.compile(r"</think>|◁/think▷")
_INDEX = re.compile(r"-?\d+")
#: The quote shows a reader the named step; very long steps keep their head and tail.
QUOTE_CHARS = 600


def first_correct_prompt(problem: str, answer: str, reasoning: str, steps: Sequence[Span]) -> str:
    """The judge's prompt: problem, reference answer, steps as ``<paragraph_i>`` blocks."""
    paragraphs = "\n\n".join(
        f"<paragraph_{i}>\n{span.of(reasoning)}\n</paragraph_{i}>" for i, span in enumerate(steps)
    )
    return FIRST_CORRECT.format(problem=problem.strip(), answer=answer, paragraphs=paragraphs)


def read_first_correct(
    reply: str, reasoning: str, steps: Sequence[Span]
) -> FirstCorrect | LocatorFailure:
    """The judge's verdict as a :class:`FirstCorrect`, or why it cannot be used.

    The verdict is the integer in the last ``\\boxed{}`` after the judge's own reasoning
    (``\\boxed{3}``, ``\\boxed{\\text{paragraph 3}}``); -1 means the reasoning never reaches the
    answer. No box, several integers, or an index outside the steps is an error, not a guess.
    """
    verdict = _THINK_END.split(reply)[-1]
    boxed = last_boxed(verdict)
    if boxed is None:
        return LocatorFailure(f"judge reply has no \\boxed{{}} index: {_excerpt(verdict)}")
    numbers = _INDEX.findall(boxed)
    if len(numbers) != 1:
        return LocatorFailure(f"judge reply \\boxed{{{_excerpt(boxed)}}} is not one index")
    if len(numbers[0].lstrip("-0")) > 9:  # no such step; int() refuses over 4,300 digits
        return LocatorFailure(
            f"judge index {_excerpt(numbers[0])} is outside steps 0..{len(steps) - 1}"
        )
    index = int(numbers[0])
    if index == -1:
        return FirstCorrect(None, None, None, None, 0, 0)
    if not 0 <= index < len(steps):
        return LocatorFailure(f"judge index {index} is outside steps 0..{len(steps) - 1}")
    span = steps[index]
    return FirstCorrect(
        step_index=index,
        char_end=span.end,
        quote=quote_step(span.of(reasoning)),
        value=None,
        candidates=0,
        timeouts=0,
    )


def quote_step(text: str, limit: int = QUOTE_CHARS) -> str:
    """The step's text, or its head and tail around " … " when longer than ``limit``."""
    if len(text) <= limit:
        return text
    half = (limit - 3) // 2
    return text[:half].rstrip() + " … " + text[-half:].lstrip()


def _excerpt(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")
