"""Per-sample think-efficiency: one function from a raw response to one record.

The harness adapters and the post-hoc analysis both call :func:`score_response`, so a metric
is defined here once and the in-harness number and the post-hoc number cannot drift apart.

Definitions (tokens are counted on the model's own text, see ``tokens.py``):

* ``reasoning_tokens`` / ``answer_tokens``: the two parts of the response (``trace.py``).
* ``thought_num``: switch phrases in the reasoning (``steps.PhraseMatcher``).
* ``first_correct_tokens``: tokens of the reasoning up to the *end* of the first step that
  commits to an answer equivalent to the gold (``locate.rule``). When the reasoning never
  states it but the final answer is right, the answer was first reached after the reasoning:
  the whole reasoning counts.
* ``reflection_tokens`` = reasoning − first_correct; ``token_efficiency`` =
  first_correct / reasoning (1.0 for a correct answer with no reasoning at all).

The last three are reported for correctly answered samples (EvalScope's coverage); a record
of a wrong answer still carries them when the reasoning reached the gold and moved away.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from lm_eval_thinkbench import METRICS_VERSION
from lm_eval_thinkbench.locate.rule import locate_first_correct
from lm_eval_thinkbench.math.extract import Extraction, extract_final_answer
from lm_eval_thinkbench.math.grader import Grader
from lm_eval_thinkbench.steps import DEFAULT_SEPARATOR, PhraseMatcher, split_separator
from lm_eval_thinkbench.tokens import TokenCounter
from lm_eval_thinkbench.trace import Trace, split_trace

TRUNCATED_POLICIES = ("lenient", "zero")


@dataclass(frozen=True)
class ScoringConfig:
    """How responses are read. Every field is recorded with each sample.

    ``truncated``: "lenient" grades a truncated response by the last answer in its text (what
    lm-eval's ``think_end_token`` does when the token is missing, so accuracy matches the
    harness's own math tasks); "zero" scores it as wrong.
    """

    markers: str = "think"
    separator: str = DEFAULT_SEPARATOR
    matcher: PhraseMatcher = field(default_factory=PhraseMatcher)
    truncated: str = "lenient"

    def __post_init__(self) -> None:
        if self.truncated not in TRUNCATED_POLICIES:
            raise ValueError(
                f"truncated must be one of {TRUNCATED_POLICIES}, not {self.truncated!r}"
            )


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
    first_correct_tokens: int | None
    reflection_tokens: int | None
    token_efficiency: float | None
    grading_timeouts: int
    split_source: str
    markers: str
    tokenizer: str
    locator: str = "rule"
    metrics_version: str = METRICS_VERSION

    def to_dict(self) -> dict:
        return asdict(self)


def score_response(
    raw: object, gold: str, config: ScoringConfig, counter: TokenCounter, grader: Grader
) -> SampleRecord:
    """Split, grade, locate and count one response. Never raises on model output."""
    trace = split_trace(raw, config.markers)
    reasoning = trace.reasoning
    extraction = _final_answer(trace, config)
    final = grader.equivalent(gold, extraction.value) if extraction.value else None
    correct = bool(final and final.equivalent)

    steps = split_separator(reasoning, config.separator)
    located = locate_first_correct(reasoning, steps, gold, grader)
    reasoning_tokens = counter.count(reasoning)

    if located.char_end is not None:
        first_tokens: int | None = counter.count(reasoning[: located.char_end])
        source: str | None = "reasoning"
    elif correct:
        first_tokens, source = reasoning_tokens, "answer"
    else:
        first_tokens, source = None, None
    reflection = None if first_tokens is None else reasoning_tokens - first_tokens
    if first_tokens is None:
        efficiency = None
    else:
        efficiency = first_tokens / reasoning_tokens if reasoning_tokens else 1.0

    return SampleRecord(
        correct=correct,
        extracted=extraction.value,
        extraction=extraction.method,
        truncated=trace.truncated,
        reasoning_tokens=reasoning_tokens,
        answer_tokens=counter.count(trace.answer),
        thought_num=config.matcher.count(reasoning),
        steps=len(steps),
        first_correct_step=located.step_index,
        first_correct_source=source,
        first_correct_quote=located.quote,
        first_correct_tokens=first_tokens,
        reflection_tokens=reflection,
        token_efficiency=efficiency,
        grading_timeouts=located.timeouts + int(final is not None and final.status == "timeout"),
        split_source=trace.source,
        markers=trace.markers,
        tokenizer=counter.name,
    )


def _final_answer(trace: Trace, config: ScoringConfig) -> Extraction:
    """The graded answer: from the answer part; for a truncated response (no answer part)
    under the lenient policy, the last ``\\boxed{}`` of the reasoning and nothing looser, since
    the last formula of an unfinished thought is not an answer."""
    if not trace.truncated:
        return extract_final_answer(trace.answer)
    if config.truncated == "zero":
        return Extraction(None, "none")
    if trace.answer:  # the server split the reasoning off, then hit the limit mid-answer
        return extract_final_answer(trace.answer)
    extraction = extract_final_answer(trace.reasoning)
    return extraction if extraction.method == "boxed" else Extraction(None, "none")
