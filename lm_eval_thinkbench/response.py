"""One model response, with the parts an OpenAI-compatible server may return separately.

lm-eval models hand a task one string per request. Servers with a reasoning parser (vLLM,
SGLang, DeepSeek's API) return the chain of thought in a separate ``reasoning_content`` (or
``reasoning``) field, with token counts in ``usage``; a plain string would lose both. Our chat
model therefore returns a small JSON *envelope* that the trace splitter recognises. The envelope
is what ``--log_samples`` stores, so nothing the server said is lost; any other string is an
ordinary completion. :func:`parse_completion` reads a raw ``chat.completion`` body into the same
shape, for the chat model and the LLM judge alike.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

ENVELOPE_KEY = "thinkbench_response"
ENVELOPE_VERSION = 1


@dataclass(frozen=True)
class ModelResponse:
    """What the server returned for one request.

    ``reasoning`` is None when the server sent no separate reasoning field (the chain of
    thought, if any, is then inline in ``content``). ``usage`` holds the server's own token
    counts, verbatim; ``finish_reason`` is "length" when generation hit the token limit.
    ``error`` is set (with ``finish_reason="error"`` and empty content) when the request still
    failed after retries: the run goes on and the failure stays visible in the sample logs.
    """

    content: str
    reasoning: str | None = None
    finish_reason: str | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    def to_wire(self) -> str:
        """Serialise for lm-eval (a plain string that round-trips through the sample logs)."""
        payload = {ENVELOPE_KEY: ENVELOPE_VERSION, **asdict(self)}
        return json.dumps(payload, ensure_ascii=False)


def from_wire(raw: object) -> ModelResponse:
    """Read what a model returned: an envelope from our chat model, or any plain text.

    Never raises: ``None`` (some servers send null content) becomes empty content, non-UTF-8
    bytes are decoded with replacement, lone surrogates (a ``"\\ud800"`` escape in a server's
    JSON) become U+FFFD, and a string that merely looks like JSON is plain text.
    """
    if raw is None:
        return ModelResponse(content="")
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", errors="replace")
    if not isinstance(raw, str):
        raw = str(raw)
    raw = utf8_safe(raw)
    if raw.startswith("{") and ENVELOPE_KEY in raw[:64]:
        try:
            payload = json.loads(raw)
        except (ValueError, RecursionError):
            return ModelResponse(content=raw)
        if isinstance(payload, dict) and payload.get(ENVELOPE_KEY) == ENVELOPE_VERSION:
            usage = payload.get("usage")
            reasoning = payload.get("reasoning")
            finish = payload.get("finish_reason")
            error = payload.get("error")
            return ModelResponse(
                content=_text(payload.get("content")),
                reasoning=None if reasoning is None else _text(reasoning),
                finish_reason=finish if isinstance(finish, str) else None,
                usage=usage if isinstance(usage, dict) else {},
                error=None if error is None else _text(error),
            )
    return ModelResponse(content=raw)


def _text(value: object) -> str:
    return "" if value is None else utf8_safe(value if isinstance(value, str) else str(value))


def utf8_safe(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (a split pair is joined), so
    that it can be written as UTF-8: one such character in a response would otherwise fail
    lm-eval's sample log at write time and lose every sample after it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


class MalformedCompletionError(ValueError):
    """The server answered 200 with a body that is not a usable chat completion."""


def parse_completion(body: str) -> ModelResponse:
    """Read a chat.completion body, keeping reasoning, usage and finish_reason verbatim.

    Raises:
        MalformedCompletionError: the body is not JSON, has no ``choices[0].message`` or has
            non-text content; the message quotes the start of the body, for diagnosis.
    """
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise MalformedCompletionError(f"body is not JSON ({exc}): {body[:200]!r}") from None
    choices = data.get("choices") if isinstance(data, dict) else None
    choice = choices[0] if isinstance(choices, list) and choices else None
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(choice, dict) or not isinstance(message, dict):
        raise MalformedCompletionError(f"no choices[0].message in the body: {body[:200]!r}")
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise MalformedCompletionError(f"message content is {type(content).__name__}, not text")
    reasoning = message.get("reasoning_content")
    if reasoning is None:
        reasoning = message.get("reasoning")
    finish = choice.get("finish_reason")
    usage = data.get("usage")
    return ModelResponse(
        content=content or "",
        reasoning=reasoning if isinstance(reasoning, str) else None,
        finish_reason=finish if isinstance(finish, str) else None,
        usage=usage if isinstance(usage, dict) else {},
    )
