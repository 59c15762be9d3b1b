"""Split a model response into its reasoning and its answer.

Reasoning models mark the end of their chain of thought differently: DeepSeek-R1, QwQ and Qwen3
write ``<think>...</think>`` (their chat templates often put the opening tag in the prompt, so
the response starts mid-thought), Kimi writes ``◁think▷...◁/think▷``, gpt-oss uses harmony
channels (``analysis`` then ``final``, which read ``analysis...assistantfinal...`` once the
special tokens are stripped), and servers with a reasoning parser return the thought in a
separate field. A *marker set* names one of these conventions.

A response whose reasoning never closes is *truncated*: it ran out of tokens (or the model
never stopped thinking). Its whole text counts as reasoning and its answer part is empty.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lm_eval_thinkbench.response import ModelResponse, from_wire


@dataclass(frozen=True)
class MarkerSet:
    """How one model family delimits its reasoning.

    ``start`` is optional in the response (chat templates often emit it in the prompt);
    the *last* match of ``end`` separates reasoning from answer, as EvalScope does, so a model
    that quotes the tag inside its reasoning is still split where it stopped thinking.
    """

    name: str
    start: re.Pattern[str] | None
    end: re.Pattern[str] | None


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
    ),
    # A model that does not reason: everything is answer, nothing is ever truncated.
    "none": MarkerSet("none", None, None),
}

# Harmony's closing tokens would otherwise be counted as answer text.
_TRAILING_SPECIALS = re.compile(
    r"(?:<\|return\|>|<\|end\|>|<\|im_end\|>|<｜end▁of▁sentence｜>)+\s*$"
)


@dataclass(frozen=True)
class Trace:
    """The two parts of a response, and how they were found.

    ``source`` is "field" when the server sent the reasoning separately, "markers" when it was
    cut out of the text, "none" when the marker set says the model does not reason.
    """

    reasoning: str
    answer: str
    truncated: bool
    source: str
    markers: str
    response: ModelResponse


def get_marker_set(name: str) -> MarkerSet:
    """Look up a marker set by name, with an error that lists the known ones."""
    try:
        return MARKER_SETS[name]
    except KeyError:
        known = ", ".join(sorted(MARKER_SETS))
        raise ValueError(f"unknown marker set {name!r}; known: {known}") from None


def split_trace(raw: object, markers: str | MarkerSet = "think") -> Trace:
    """Split one raw model output (plain text or our chat envelope) into reasoning and answer.

    A separate reasoning field wins when the server filled it; its response is truncated when
    the server says it stopped on the length limit or gave no answer text. Otherwise the text
    is cut at the last end marker; with no end marker the response is truncated and the whole
    text is reasoning. Never raises on model output.
    """
    marker_set = markers if isinstance(markers, MarkerSet) else get_marker_set(markers)
    response = raw if isinstance(raw, ModelResponse) else from_wire(raw)
    content = response.content
    hit_limit = response.finish_reason == "length"

    if response.reasoning and response.reasoning.strip():
        answer = _strip_specials(content)
        return Trace(
            reasoning=response.reasoning.strip(),
            answer=answer,
            truncated=hit_limit or not answer,
            source="field",
            markers=marker_set.name,
            response=response,
        )

    if marker_set.end is None:
        return Trace("", _strip_specials(content), hit_limit, "none", marker_set.name, response)

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
        answer=_strip_specials(answer),
        truncated=last_end is None or hit_limit,
        source="markers",
        markers=marker_set.name,
        response=response,
    )


def _strip_specials(text: str) -> str:
    return _TRAILING_SPECIALS.sub("", text).strip()
