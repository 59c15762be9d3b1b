"""MATH-500's per-sample think-efficiency: one function from a raw response to one record.

The harness adapter (``math500.harness``) and the post-hoc analysis (``analyze``) both build
their records here, so a metric is defined once and the in-harness number and the post-hoc
number cannot drift apart. AIME and AMC are scored the same way.

Definitions (tokens are counted on the model's own text, see ``tokens.py``):

* ``reasoning_tokens`` / ``answer_tokens``: the two parts of the response (``trace.py``). A
  model that writes no reasoning (marker set ``none``) is measured on its whole output
  (``Trace.thought``): all of it counts as reasoning and ``answer_tokens`` is 0, as EvalScope
  counts it, so plain step-by-step solutions get comparable figures.
* ``thought_num``: switch phrases in the reasoning (``steps.PhraseMatcher``).
* ``first_correct_tokens``: tokens of the reasoning up to the *end* of the first step that
  commits to an answer equivalent to the gold (``locate.rule``, or a judge);
  ``first_correct_quote`` quotes the committing words and ``first_correct_rule`` says why they
  count (``locate.commit``). When the reasoning
  never states it but the final answer is right, the answer was first reached after the
  reasoning: the whole reasoning counts.
* ``reflection_tokens`` = reasoning − first_correct; ``token_efficiency`` =
  first_correct / reasoning (1.0 for a correct answer with no reasoning at all).
* ``outcome_efficiency`` (Chen et al. 2024, "Do NOT Think That Much for 2+3=?"): for a correct
  response, the share of the whole response (reasoning + answer) spent up to the first correct
  solution (1.0 when only the answer part states it); 0 for a wrong one. Its mean over all
  samples is the paper's ξ_O.
* ``underthinking`` (Wang et al. 2025, "Thoughts Are All Over the Place"): for a wrong response,
  1 − (tokens up to the end of the first correct thought) / (tokens of the whole response), 0
  when no thought reached the gold; None for a correct one. Its mean over wrong samples is the
  paper's ξ_UT. A "correct thought" here is a step that commits to the gold (the paper asks an
  LLM whether a thought *would lead* to it).
* ``solution_rounds``: paragraphs (``config.separator``) of the reasoning that state an answer
  (any answer statement of ``locate.rule``, right or wrong): how many times the model concluded.
* ``sections`` / ``redundant_sections``: DeltaBench-style sections of the reasoning and, after
  the first-correct position, those that only restate or re-check the answer
  (``sections``); None when the reasoning never reached the gold.

The first-correct figures are reported for correctly answered samples (EvalScope's coverage);
a record of a wrong answer still carries them when the reasoning reached the gold and moved
away. When the locator failed (``LocatorFailure``: a judge call that never succeeded, a rewrite
that changed the text), every figure that depends on the first-correct position is None and
the record says why in ``locator_error``; the others stand.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from lm_eval_thinkbench import METRICS_VERSION
from lm_eval_thinkbench.locate.commit import unitless
from lm_eval_thinkbench.locate.rule import (
    FirstCorrect,
    LocatorFailure,
    Statement,
    find_statements,
    locate_first_correct,
)
from lm_eval_thinkbench.math.extract import (
    Extraction,
    extract_final_answer,
    last_boxed,
    strip_answer,
)
from lm_eval_thinkbench.math.grader import Grader, Verdict
from lm_eval_thinkbench.math.verify import normalize
from lm_eval_thinkbench.reading import ScoringConfig
from lm_eval_thinkbench.sections import redundant_reflection, split_sections
from lm_eval_thinkbench.steps import Span, split_separator, step_index_at
from lm_eval_thinkbench.tokens import TokenCounter
from lm_eval_thinkbench.trace import Trace, split_trace


@dataclass(frozen=True)
class SampleRecord:
    """Everything measured on one response, JSON-ready via ``to_dict``."""

    correct: bool
    extracted: str | None
    extraction: str
    truncated: bool
    reasoning_tokens: int
    answer_tokens: int
    thought_num: int
    steps: int
    first_correct_step: int | None
    first_correct_source: str | None
    first_correct_quote: str | None
    first_correct_rule: str | None
    first_correct_tokens: int | None
    reflection_tokens: int | None
    token_efficiency: float | None
    grading_timeouts: int
    split_source: str
    markers: str
    tokenizer: str
    outcome_efficiency: float | None
    underthinking: float | None
    solution_rounds: int
    sections: int
    redundant_sections: int | None
    step_split: str = "separator"
    locator: str = "rule"
    locator_error: str | None = None
    metrics_version: str = METRICS_VERSION

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Graded:
    """A response split and its final answer checked: everything that does not depend on how
    the reasoning is cut into steps or on where the answer was first reached.

    ``correct`` is the checker's verdict; an adapter that trusts another verdict (a task's own
    logged score) replaces it with ``dataclasses.replace`` before :func:`score_graded`.
    """

    trace: Trace
    extraction: Extraction
    final: Verdict | None
    correct: bool


#: Where the first-correct position comes from: ``(reasoning, steps, gold, statements)`` ->
#: result. The rule locator is the default; a judge's answer can be passed in the same shape.
Locate = Callable[[str, Sequence[Span], str, Sequence[Statement]], "FirstCorrect | LocatorFailure"]


def score_response(
    raw: object,
    gold: str,
    config: ScoringConfig,
    counter: TokenCounter,
    grader: Grader,
    *,
    problem: str | None = None,
    locate: Locate | None = None,
    locator: str = "rule",
) -> SampleRecord:
    """Split, grade, locate and count one response. Never raises on model output.

    ``problem`` (the question) lets the rule locator tell the asked quantity from
    intermediate ones. ``locate`` replaces the rule locator (a first-correct position found
    elsewhere, e.g. by a judge); ``locator`` names it in the record.
    """
    graded = grade_response(raw, gold, config, grader)
    reasoning = graded.trace.thought
    steps = config.split_steps(reasoning)
    statements = find_statements(reasoning)
    if locate is None:
        located: FirstCorrect | LocatorFailure = locate_first_correct(
            reasoning, steps, gold, grader, problem=problem, answer=graded.trace.answer
        )
    else:
        located = locate(reasoning, steps, gold, statements)
    return score_graded(
        graded, steps, located, config, counter, statements=statements, locator=locator
    )


def verdict_keys(gold: str) -> frozenset[str]:
    """The golds under which scoring a response against ``gold`` reads and writes the grader's
    verdict cache: as written, and without its unit (as the locator grades it), in normal form,
    which merges more than the cache's own key (the text as written) and so covers every pair
    of responses that could share a verdict. Scoring threads that take turns
    (``turns.in_order``) score two responses whose keys meet one after the other, in order, so
    that each record is what it is when the responses are scored one by one."""
    return frozenset({normalize(gold), normalize(unitless(gold))})


def grade_response(raw: object, gold: str, config: ScoringConfig, grader: Grader) -> Graded:
    """Split one response into reasoning and answer and check its final answer."""
    trace = split_trace(raw, config.markers)
    extraction = _final_answer(trace, config)
    final = grader.equivalent(gold, extraction.value) if extraction.value else None
    return Graded(trace, extraction, final, bool(final and final.equivalent))


def score_graded(
    graded: Graded,
    steps: Sequence[Span],
    located: FirstCorrect | LocatorFailure,
    config: ScoringConfig,
    counter: TokenCounter,
    *,
    statements: Sequence[Statement] | None = None,
    locator: str = "rule",
    step_split: str | None = None,
) -> SampleRecord:
    """Count and measure a graded response, given its steps and its first-correct position.

    ``statements`` (the answer statements of the reasoning, from ``find_statements``) may be
    passed when the caller already has them; ``step_split`` names a splitter other than the
    config's (the judge's rewrite).
    """
    trace = graded.trace
    reasoning = trace.thought
    correct = graded.correct
    if statements is None:
        statements = find_statements(reasoning)
    char_end = None if isinstance(located, LocatorFailure) else located.char_end
    if char_end is None:
        reasoning_tokens, reached_tokens = counter.count(reasoning), None
    else:
        reasoning_tokens, reached_tokens = counter.count_with_prefix(reasoning, char_end)
    # A non-reasoning response is all "reasoning" (``Trace.thought``): counted once.
    answer_tokens = 0 if trace.source == "none" else counter.count(trace.answer)
    response_tokens = reasoning_tokens + answer_tokens
    sections = split_sections(reasoning, config.separator)
    grading_timeouts = int(graded.final is not None and graded.final.status == "timeout")
    common: dict[str, Any] = {  # the fields both records below share
        "correct": correct,
        "extracted": graded.extraction.value,
        "extraction": graded.extraction.method,
        "truncated": trace.truncated,
        "reasoning_tokens": reasoning_tokens,
        "answer_tokens": answer_tokens,
        "thought_num": config.matcher.count(reasoning),
        "steps": len(steps),
        "split_source": trace.source,
        "markers": trace.markers,
        "tokenizer": counter.name,
        "solution_rounds": _solution_rounds(reasoning, statements, config.separator),
        "sections": len(sections),
        "step_split": step_split or config.split,
        "locator": locator,
    }

    if isinstance(located, LocatorFailure):
        return SampleRecord(
            **common,
            first_correct_step=None,
            first_correct_source=None,
            first_correct_quote=None,
            first_correct_rule=None,
            first_correct_tokens=None,
            reflection_tokens=None,
            token_efficiency=None,
            grading_timeouts=grading_timeouts,
            outcome_efficiency=None,
            underthinking=None,
            redundant_sections=None,
            locator_error=located.message,
        )

    if char_end is not None:
        first_tokens: int | None = reached_tokens
        source: str | None = "reasoning"
        answer_end: int | None = char_end
    elif correct:
        first_tokens, source, answer_end = reasoning_tokens, "answer", len(reasoning)
    else:
        first_tokens, source, answer_end = None, None, None
    reflection = None if first_tokens is None else reasoning_tokens - first_tokens
    if first_tokens is None:
        efficiency = None
    else:
        efficiency = first_tokens / reasoning_tokens if reasoning_tokens else 1.0

    if correct:
        # (A correct answer always has first_tokens; the test narrows it for the type checker.)
        reached = response_tokens if source == "answer" or first_tokens is None else first_tokens
        outcome = reached / response_tokens if response_tokens else 1.0
        underthinking = None
    else:
        outcome = 0.0
        underthinking = (
            1 - first_tokens / response_tokens
            if source == "reasoning" and first_tokens is not None  # (the one implies the other)
            else 0.0
        )

    redundant = None
    if answer_end is not None:
        redundancy = redundant_reflection(
            reasoning,
            answer_end=answer_end,
            answer=located.value or graded.extraction.value,
            sections=sections,
            statements=statements,
        )
        redundant = len(redundancy.redundant)

    return SampleRecord(
        **common,
        first_correct_step=located.step_index,
        first_correct_source=source,
        first_correct_quote=located.quote,
        first_correct_rule=located.rule,
        first_correct_tokens=first_tokens,
        reflection_tokens=reflection,
        token_efficiency=efficiency,
        grading_timeouts=grading_timeouts + located.timeouts,
        outcome_efficiency=outcome,
        underthinking=underthinking,
        redundant_sections=redundant,
    )


def _solution_rounds(reasoning: str, statements: Sequence[Statement], separator: str) -> int:
    """Paragraphs holding at least one answer statement."""
    if not statements:
        return 0
    paragraphs = split_separator(reasoning, separator)
    return len({step_index_at(paragraphs, s.start) for s in statements} - {None})


def _final_answer(trace: Trace, config: ScoringConfig) -> Extraction:
    """The graded answer: from the answer part; for a truncated response under the lenient
    policy, from the answer part the limit cut short, else (an unfinished thought, or a
    non-reasoning answer cut by the limit) the last ``\\boxed{}`` of its text and nothing
    looser, since the last formula of an unfinished thought is not an answer."""
    if not trace.truncated:
        return extract_final_answer(trace.answer)
    if config.truncated == "zero":
        return Extraction(None, "none")
    if trace.answer and trace.source != "none":  # the thought closed, then the limit hit
        return extract_final_answer(trace.answer)
    boxed = last_boxed(trace.thought)  # what extraction's first rule finds: no other is read
    return Extraction(None, "none") if boxed is None else Extraction(strip_answer(boxed), "boxed")
