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

import functools
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

#: What the ``str.find`` search of ASCII phrases (:meth:`PhraseMatcher._spans`) cannot see:
#: the dotless i and the long s, which an ASCII letter matches under ``re.IGNORECASE`` but
#: which lowering keeps as they are, and the dotted capital I, whose lowering is two
#: characters. (The Kelvin sign, the other non-ASCII match of an ASCII letter, lowers to "k".)
_FOLDS_TO_ASCII = re.compile("[\u0130\u0131\u017f]")

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
        """The pattern's matches. ASCII phrases are found with ``str.find`` in the lowered
        text, many times faster and the same, in any text without the few characters of
        :data:`_FOLDS_TO_ASCII`: lowering the rest moves no offsets and makes an ASCII letter
        of what the regex takes for one, so the phrases are found where the regex finds them;
        word boundaries are read on the text itself (Unicode ``\\w`` is ``str.isalnum`` or
        ``_``); and at each position the longest phrase is taken, then the search goes on after
        it, as the regex does."""
        if not self._ascii or (not text.isascii() and _FOLDS_TO_ASCII.search(text)):
            return [m.span() for m in self._pattern.finditer(text)]
        lowered = text.lower()
        ends: dict[int, int] = {}
        for phrase in self._longest_first:
            at = lowered.find(phrase)
            while at >= 0:
                end = at + len(phrase)
                if at not in ends and (not self.bounded or _on_boundaries(text, at, end)):
                    ends[at] = end
                at = lowered.find(phrase, at + 1)
        spans: list[tuple[int, int]] = []
        for start in sorted(ends):
            if not spans or start >= spans[-1][1]:
                spans.append((start, ends[start]))
        return spans


def _on_boundaries(text: str, start: int, end: int) -> bool:
    """The regex's ``(?<!\\w)`` at ``start`` and, after a letter or digit, ``(?!\\w)`` at
    ``end``."""
    if start > 0 and _is_word(text[start - 1]):
        return False
    return not (text[end - 1].isalnum() and end < len(text) and _is_word(text[end]))


def _is_word(char: str) -> bool:
    """What the regex's ``\\w`` matches."""
    return char.isalnum() or char == "_"


def split_separator(text: str, separator: str = DEFAULT_SEPARATOR) -> list[Span]:
    """Steps between separator matches (a regex), whitespace trimmed, empty steps dropped.

    Scoring one response cuts its reasoning by the same separator four times (its steps, the
    locator's paragraphs, its sections, its solution rounds), so the last few cuts are kept;
    each caller gets a list of its own.
    """
    return list(_separator_spans(text, separator))


@functools.lru_cache(maxsize=16)
def _separator_spans(text: str, separator: str) -> tuple[Span, ...]:
    """The cut, kept for the last 16 texts: ``analyze`` scores several responses at once, on
    threads that take turns (four per process), each cutting its reasoning when it gets to."""
    bounds = [0, *(at for m in re.finditer(separator, text) for at in m.span()), len(text)]
    pieces = (_trimmed(text, a, b) for a, b in zip(bounds[::2], bounds[1::2], strict=True))
    return tuple(span for span in pieces if span is not None)


def split_keywords(text: str, matcher: PhraseMatcher) -> list[Span]:
    """Steps that each begin at a switch phrase (the text before the first one is step 0)."""
    cuts = [0, *(s.start for s in matcher.find(text)), len(text)]
    pieces = (_trimmed(text, a, b) for a, b in pairwise(cuts))
    return [span for span in pieces if span is not None]


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


def _trimmed(text: str, start: int, end: int) -> Span | None:
    """``text[start:end]`` without its surrounding whitespace, None when nothing is left
    (``str.strip`` removes what ``str.isspace`` calls whitespace, at C speed)."""
    piece = text[start:end]
    kept = piece.strip()
    if not kept:
        return None
    start += len(piece) - len(piece.lstrip())
    return Span(start, start + len(kept))
