"""Split a model response into its reasoning and its answer.

Reasoning models mark their chain of thought differently: DeepSeek-R1, QwQ and Qwen3 write
``<think>...</think>`` (their chat templates often put the opening tag in the prompt, so the
response starts mid-thought), Kimi writes ``◁think▷...◁/think▷``, gpt-oss uses harmony channels
(``analysis`` then ``final``, which read ``analysis...assistantfinal...`` once the special
tokens are stripped), Sky-T1, OpenThoughts and Bespoke-Stratos write
``<|begin_of_thought|>...<|end_of_thought|>`` followed by
``<|begin_of_solution|>...<|end_of_solution|>``, and servers with a reasoning parser return the
thought in a separate field. A *marker set* names one of these conventions; ``auto`` (the
default) finds it in the responses themselves, and a user can name their own markers.

A response whose reasoning never closes is *truncated*: it ran out of tokens (or the model
never stopped thinking). Its whole text counts as reasoning and its answer part is empty. A
model that does not reason at all (marker set ``none``) writes only an answer, which is
truncated only when generation hit the length limit.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from lm_eval_thinkbench.response import ModelResponse, from_wire

#: The default marker setting: find the family in the responses (:func:`detect_markers`).
AUTO = "auto"
#: The name a user-defined marker pair is recorded under.
CUSTOM = "custom"


@dataclass(frozen=True)
class MarkerSet:
    """How one model family delimits its reasoning.

    ``start`` is optional in the response (chat templates often emit it in the prompt);
    the *last* match of ``end`` separates reasoning from answer, as EvalScope does, so a model
    that quotes the tag inside its reasoning is still split where it stopped thinking.
    ``wrapper`` matches tags around the answer itself (Sky-T1's solution tags), which are
    not answer text. ``signature`` is what shows a response to be of this family, for
    detection; by default ``start`` or ``end``.
    """

    name: str
    start: re.Pattern[str] | None
    end: re.Pattern[str] | None
    wrapper: re.Pattern[str] | None = None
    signature: re.Pattern[str] | None = None

    def shows_in(self, text: str) -> bool:
        """Whether ``text`` carries one of this family's markers."""
        patterns = [self.signature] if self.signature else [self.start, self.end]
        return any(p is not None and p.search(text) for p in patterns)


MARKER_SETS: dict[str, MarkerSet] = {
    "think": MarkerSet("think", re.compile(r"<think>"), re.compile(r"</think>")),
    "kimi": MarkerSet("kimi", re.compile(r"◁think▷"), re.compile(r"◁/think▷")),
    "gpt-oss": MarkerSet(
        "gpt-oss",
        re.compile(r"(?:<\|start\|>assistant)?<\|channel\|>analysis<\|message\|>|^analysis"),
        re.compile(
            r"(?:<\|end\|>)?(?:<\|start\|>assistant)?<\|channel\|>final<\|message\|>"
            r"|assistantfinal"
        ),
        # A bare leading "analysis" is a family sign only when glued to the thought
        # ("analysisWe need..."), never in prose ("analysis of the problem...").
        signature=re.compile(
            r"<\|channel\|>(?:analysis|final)<\|message\|>|assistantfinal|^analysis(?=\S)"
        ),
    ),
    "thought": MarkerSet(
        "thought",
        re.compile(r"<\|begin_of_thought\|>"),
        re.compile(r"<\|end_of_thought\|>"),
        wrapper=re.compile(r"<\|(?:begin|end)_of_solution\|>"),
    ),
    # A model that does not reason: everything is answer.
    "none": MarkerSet("none", None, None),
}
#: The families ``auto`` looks for, in order of preference on a tie.
DETECTED = ("think", "thought", "kimi", "gpt-oss")
#: The least share of a run's responses that must show a family's markers for ``auto`` to
#: take the run as reasoning: one stray ``</think>`` in 500 plain answers must not turn the
#: other 499 into unfinished thoughts.
DETECTION_SHARE = 0.05
#: A response with no finish reason is taken to have hit the length limit when its counted
#: tokens reach this share of the request's limit. lm-eval's hf, vllm and
#: local-chat-completions models pass no finish reason, and the counter may not be the model's
#: own tokenizer, so the count is an estimate: 5% slack absorbs a vocabulary's difference,
#: while a complete answer that long is rare.
LENGTH_LIMIT_SHARE = 0.95

# Harmony's closing tokens would otherwise be counted as answer text.
_TRAILING_SPECIALS = re.compile(
    r"(?:<\|return\|>|<\|end\|>|<\|im_end\|>|<｜end▁of▁sentence｜>)+\s*$"
)


@dataclass(frozen=True)
class Trace:
    """The two parts of a response, and how they were found.

    ``source`` is "field" when the server sent the reasoning separately, "markers" when it was
    cut out of the text, "none" when the model wrote no reasoning (marker set ``none``).
    ``markers`` names the marker set that was applied (the detected one under ``auto``).
    """

    reasoning: str
    answer: str
    truncated: bool
    source: str
    markers: str
    response: ModelResponse

    @property
    def thought(self) -> str:
        """The text the think-efficiency figures measure: the reasoning, or for a model that
        wrote none (``source`` "none") its whole output, as EvalScope counts a non-reasoning
        model's output as its reasoning; so a plain step-by-step solution gets comparable
        first-correct and reflection figures."""
        return self.answer if self.source == "none" else self.reasoning


def get_marker_set(name: str) -> MarkerSet:
    """Look up a marker set by name, with an error that lists the known ones."""
    try:
        return MARKER_SETS[name]
    except KeyError:
        known = ", ".join([AUTO, *sorted(MARKER_SETS)])
        raise ValueError(f"unknown marker set {name!r}; known: {known}") from None


def custom_markers(start: str | None, end: str) -> MarkerSet:
    """A user's own marker pair, matched literally (``start`` optional, as for ``<think>``)."""
    if not end:
        raise ValueError("a custom end-of-reasoning marker must not be empty")
    opening = re.compile(re.escape(start)) if start else None
    return MarkerSet(CUSTOM, opening, re.compile(re.escape(end)))


def resolve_markers(markers: str | MarkerSet) -> MarkerSet | None:
    """The marker set a setting names; None for ``auto`` (detect from the responses)."""
    if isinstance(markers, MarkerSet):
        return markers
    return None if markers == AUTO else get_marker_set(markers)


def family_of(raw: object) -> MarkerSet:
    """The family whose markers one response shows, else ``none``."""
    text = _response(raw).content
    return next(
        (MARKER_SETS[n] for n in DETECTED if MARKER_SETS[n].shows_in(text)), MARKER_SETS["none"]
    )


def detect_markers(responses: Iterable[object]) -> MarkerSet:
    """The family of a run: the one most of its responses show; ``none`` when none shows any
    (or fewer than :data:`DETECTION_SHARE` of them do).

    Detection is per run, not per response, because the responses that matter most carry no
    marker at all: a reasoning model whose chat template opened ``<think>`` in the prompt and
    that ran out of tokens writes neither tag, and only its run-mates show that it was
    thinking. Per response, such a cut-off thought would pass for a finished plain answer.
    """
    seen = Counter(family_of(raw).name for raw in responses)
    total = seen.total()
    seen.pop("none", None)
    if not seen or max(seen.values()) < DETECTION_SHARE * total:
        return MARKER_SETS["none"]
    top = max(seen.values())
    return MARKER_SETS[next(n for n in DETECTED if seen.get(n) == top)]


def mark_length_stop(
    response: ModelResponse, limit: int | None, count: Callable[[str], int]
) -> ModelResponse:
    """``response``, with finish reason "length" when it gives none and its tokens (``count``)
    reach the request's token ``limit`` (see :data:`LENGTH_LIMIT_SHARE`)."""
    if limit is None or response.finish_reason is not None:
        return response
    if count(response.content) + count(response.reasoning or "") < LENGTH_LIMIT_SHARE * limit:
        return response
    return dataclasses.replace(response, finish_reason="length")


def split_trace(raw: object, markers: str | MarkerSet = AUTO) -> Trace:
    """Split one raw model output (plain text or our chat envelope) into reasoning and answer.

    A separate reasoning field wins when the server filled it; its response is truncated when
    the server says it stopped on the length limit or gave no answer text. Otherwise the text
    is cut at the last end marker; with no end marker the response is truncated and the whole
    text is reasoning. Under ``none`` the whole text is the answer, truncated only at the length
    limit. ``auto`` detects the family from this one response (:func:`family_of`); callers
    that hold a whole run detect once with :func:`detect_markers` and pass the result.
    Never raises on model output.
    """
    response = _response(raw)
    marker_set = resolve_markers(markers) or family_of(response)
    content = response.content
    hit_limit = response.finish_reason == "length"

    if response.reasoning and response.reasoning.strip():
        answer = _clean_answer(content, marker_set)
        return Trace(
            reasoning=response.reasoning.strip(),
            answer=answer,
            truncated=hit_limit or not answer,
            source="field",
            markers=marker_set.name,
            response=response,
        )

    if marker_set.end is None:
        answer = _clean_answer(content, marker_set)
        return Trace("", answer, hit_limit, "none", marker_set.name, response)

    last_end = None
    for last_end in marker_set.end.finditer(content):  # noqa: B007 - keep the last match
        pass
    head, answer = (
        (content[: last_end.start()], content[last_end.end() :]) if last_end else (content, "")
    )
    if marker_set.start is not None:
        opened = marker_set.start.search(head)
        if opened:
            head = head[opened.end() :]
    return Trace(
        reasoning=head.strip(),
        answer=_clean_answer(answer, marker_set),
        truncated=last_end is None or hit_limit,
        source="markers",
        markers=marker_set.name,
        response=response,
    )


def _response(raw: object) -> ModelResponse:
    return raw if isinstance(raw, ModelResponse) else from_wire(raw)


def _clean_answer(text: str, marker_set: MarkerSet) -> str:
    if marker_set.wrapper is not None:
        text = marker_set.wrapper.sub("", text)
    return _TRAILING_SPECIALS.sub("", text).strip()
