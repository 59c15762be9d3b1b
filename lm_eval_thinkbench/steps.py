"""Step splitting and thought-switch counting, as character spans into the original text.

Spans rather than strings: token counts are always taken on what the model wrote, so a
first-correct position found in step *k* becomes ``tokens(text[:spans[k].end])``.

The same ``PhraseMatcher`` counts thought switches and splits on them, so the two cannot
disagree about what a switch is.

A model may also cut the reasoning into steps by rewriting it (``locate.split``);
:func:`align_steps` maps such a rewrite back onto the original text, and rejects it when it
changed anything but whitespace, so counts still come from what the model wrote.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

#: Phrases that start a new line of thought. Chosen from the switch markers studied in
#: "Thoughts Are All Over the Place" (Wang et al. 2025) and EvalScope's ThinkBench list, plus
#: R1's most frequent one, a sentence-opening "Wait,". A bare "wait" is not counted ("wait
#: for the train"); "but wait" and "wait," overlap and count once. Matching is
#: case-insensitive on word boundaries.
DEFAULT_SWITCH_PHRASES: tuple[str, ...] = (
    "alternatively",
    "but wait",
    "wait,",
    "hmm, wait",
    "let me reconsider",
    "on second thought",
    "another approach",
    "another way",
    "another method",
    "another angle",
)

#: What ``\\w`` matches among ASCII characters.
_ASCII_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")

#: Blank lines, the paragraph breaks reasoning models put between steps.
DEFAULT_SEPARATOR = r"\n[ \t]*\n"


@dataclass(frozen=True)
class Span:
    """A half-open character range ``[start, end)``."""

    start: int
    end: int

    def of(self, text: str) -> str:
        return text[self.start : self.end]


class PhraseMatcher:
    """Finds phrases (switch phrases; the locator's key words): case-insensitive, longest
    phrase first, left to right without overlaps.

    ``bounded`` (the default): on word boundaries. A phrase must not start inside a word, and
    one ending in a letter must not run on into one ("alternatively" is not matched inside
    "alternativelyx"); one ending in punctuation ("wait,") needs no right boundary.
    """

    def __init__(
        self, phrases: Iterable[str] = DEFAULT_SWITCH_PHRASES, *, bounded: bool = True
    ) -> None:
        self.phrases = tuple(dict.fromkeys(p.strip().lower() for p in phrases if p.strip()))
        if not self.phrases:
            raise ValueError("a phrase list needs at least one phrase")
        self.bounded = bounded
        self._longest_first = sorted(self.phrases, key=len, reverse=True)
        self._ascii = all(p.isascii() for p in self.phrases)
        parts = [
            re.escape(p) + (r"(?!\w)" if bounded and p[-1].isalnum() else "")
            for p in self._longest_first
        ]
        # The lookahead on the phrases' first letters changes nothing that matches; it lets
        # the engine skip most positions at once, which halves the cost on long traces.
        firsts = "".join(sorted({p[0] for p in self.phrases}))
        left = r"(?<!\w)" if bounded else ""
        self._pattern = re.compile(
            f"(?=[{re.escape(firsts)}]){left}(?:" + "|".join(parts) + ")", re.IGNORECASE
        )

    def find(self, text: str) -> list[Span]:
        return [Span(start, end) for start, end in self._spans(text)]

    def count(self, text: str) -> int:
        return len(self._spans(text))

    def _spans(self, text: str) -> list[tuple[int, int]]:
        """The pattern's matches. ASCII phrases in an ASCII text are found with ``str.find`` in
        the lowered text, many times faster and the same: lowering ASCII moves no offsets, no
        non-ASCII letter can be involved, and at each position the longest phrase is taken,
        then the search goes on after it, as the regex does."""
        if not (self._ascii and text.isascii()):
            return [m.span() for m in self._pattern.finditer(text)]
        lowered = text.lower()
        ends: dict[int, int] = {}
        for phrase in self._longest_first:
            at = lowered.find(phrase)
            while at >= 0:
                end = at + len(phrase)
                if at not in ends and (not self.bounded or self._on_boundaries(lowered, at, end)):
                    ends[at] = end
                at = lowered.find(phrase, at + 1)
        spans: list[tuple[int, int]] = []
        for start in sorted(ends):
            if not spans or start >= spans[-1][1]:
                spans.append((start, ends[start]))
        return spans

    @staticmethod
    def _on_boundaries(lowered: str, start: int, end: int) -> bool:
        """The regex's ``(?<!\\w)`` at ``start`` and, after a letter or digit, ``(?!\\w)`` at
        ``end``, for ASCII text."""
        if start > 0 and lowered[start - 1] in _ASCII_WORD_CHARS:
            return False
        return not (
            lowered[end - 1].isalnum() and end < len(lowered) and lowered[end] in _ASCII_WORD_CHARS
        )


def split_separator(text: str, separator: str = DEFAULT_SEPARATOR) -> list[Span]:
    """Steps between separator matches (a regex), whitespace trimmed, empty steps dropped."""
    spans: list[Span] = []
    start = 0
    for m in re.finditer(separator, text):
        _append_trimmed(spans, text, start, m.start())
        start = m.end()
    _append_trimmed(spans, text, start, len(text))
    return spans


def split_keywords(text: str, matcher: PhraseMatcher) -> list[Span]:
    """Steps that each begin at a switch phrase (the text before the first one is step 0)."""
    cuts = [0, *(s.start for s in matcher.find(text)), len(text)]
    spans: list[Span] = []
    for a, b in pairwise(cuts):
        _append_trimmed(spans, text, a, b)
    return spans


def align_steps(text: str, pieces: Sequence[str]) -> list[Span] | None:
    """Spans of ``text`` that hold ``pieces``, a rewrite of ``text`` cut into steps.

    The rewrite may change whitespace only (line breaks, indentation, spaces between steps):
    the pieces' non-space characters, concatenated, must equal those of ``text``; otherwise
    the rewrite changed the content and None is returned. Each step's span runs from its first
    to its last non-space character in ``text``; pieces with no such character are dropped.
    """
    positions = [i for i, ch in enumerate(text) if not ch.isspace()]
    spans: list[Span] = []
    at = 0
    for piece in pieces:
        chars = [ch for ch in piece if not ch.isspace()]
        if not chars:
            continue
        end = at + len(chars)
        if end > len(positions) or any(
            text[positions[k]] != ch for k, ch in zip(range(at, end), chars, strict=True)
        ):
            return None
        spans.append(Span(positions[at], positions[end - 1] + 1))
        at = end
    return spans if at == len(positions) else None


def step_index_at(spans: Sequence[Span], offset: int) -> int | None:
    """Index of the step containing character ``offset`` (None if it falls between steps).

    ``spans`` are sorted and disjoint, as every splitter here returns them: binary search.
    """
    lo, hi = 0, len(spans)
    while lo < hi:
        mid = (lo + hi) // 2
        if spans[mid].end <= offset:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < len(spans) and spans[lo].start <= offset else None


def _append_trimmed(spans: list[Span], text: str, start: int, end: int) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        spans.append(Span(start, end))
