"""Claims: every place where a reasoning trace states that something has a value.

Real reasoning models first reach an answer in many shapes: ``a + b = -3 + 3 = 0``,
``N = 2*36 + 4*6 + 2 = 98``, a display ``\\[ n = 6 \\]``, "the degree should be 4", "the
smallest integer ... is 17", "which is 36 miles", a bare ``\\[ 2k + 2 \\]`` after "I get:". A
locator that only reads "so ... is X" and boxes finds most of them late or not at all.

This module reads a text as sentences and each sentence as *chains*: terms joined by links
(``=``, ``\\equiv``, "is", "should be", "gives", ", which is", ...), a chain ending at a clause
break (a sentence end, ``;``, ``:``, a comma, "and", "or", "so", "if", ...). The last term that
looks like a value is the chain's *value*; the terms before it (the subject noun phrase, the
left-hand side, a named middle term) are its *names*, which the locator compares with the asked
quantity. Every chain carries the flags a careful reader would weigh: inside a question, a
hypothesis or a check ("if x = 6", "plugging in", "let's try"), an option list ("35 or 36",
several values for the same name), a case header ("n = 4:"), a negation, an approximation.

Values are always cut at the end of their clause: a value never runs past a sentence end, a
comma that starts a new clause, or the end of its math span.

It is pure text processing: no grading, no problem text. ``locate.rule`` decides which claims
commit to the gold.
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import lru_cache
from math import gcd, isqrt
from operator import itemgetter

from lm_eval_thinkbench.math.extract import all_boxed

#: Entries of each memoised reading of a term's text. A clause's terms are read several times
#: over (as a value, a name, a subject, from each end of the chain), and a trace repeats its
#: terms; reading each distinct text once makes :func:`read` several times faster.
_MEMO = 1 << 15

# ----- math spans -------------------------------------------------------------------------------

#: Display and inline math. Inline ``$..$`` must hug its content (``$70 - $60`` is money, not
#: math), and ``\$`` inside it is a literal dollar.
_MATH = re.compile(
    r"\\\[(?P<d1>.*?)\\\]"
    r"|\$\$(?P<d2>.*?)\$\$"
    r"|\\\((?P<i1>.*?)\\\)"
    r"|\\begin\{(?P<env>equation|align|gather|eqnarray)\*?\}(?P<d3>.*?)\\end\{(?P=env)\*?\}"
    r"|\$(?![\s$])(?P<i2>(?:\\\$|[^$\n]){1,400}?)(?<![\s\\])\$(?!\d)",
    re.DOTALL,
)


@dataclass(frozen=True)
class MathSpan:
    """A math span: the whole ``[start, end)`` and its content ``[inner_start, inner_end)``."""

    start: int
    end: int
    inner_start: int
    inner_end: int


def math_spans(text: str) -> list[MathSpan]:
    """The math spans of ``text``, in order, not overlapping."""
    spans = []
    for m in _MATH.finditer(text):
        content = m.lastgroup  # the content's group closes last ("env" before "d3")
        assert content is not None
        spans.append(MathSpan(m.start(), m.end(), m.start(content), m.end(content)))
    return spans


# ----- case folding -----------------------------------------------------------------------------

#: The letters that lowercasing does not fold the way a case-insensitive pattern does: "ı"
#: and "ſ" match "i" and "s", "İ" lowercases to two characters (``tests/test_locate_speed.py``
#: compares every code point).
_UNFOLDABLE = frozenset("\u0130\u0131\u017f")


def _folded(text: str) -> str | None:
    """``text`` lowercased, for the case-sensitive twins (:func:`_twin`) of the
    case-insensitive patterns, or None when it holds a letter of :data:`_UNFOLDABLE`.

    A twin finds in the folded text what its pattern finds in ``text`` (same spans; groups
    lowercased), about twice as fast: the regex engine dismisses a literal alternative of a
    long alternation ("is", "are", "should be", ...) with one comparison, but enters every
    case-folded one."""
    if text.isascii() or _UNFOLDABLE.isdisjoint(text):
        return text.lower()
    return None


def _twin(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """The case-sensitive twin of a case-insensitive ``pattern`` whose letters are all
    lowercase (``tests/test_locate_speed.py`` checks that, and compares each twin with its
    pattern on real and random texts)."""
    source = pattern.pattern.removeprefix("(?i)")
    return re.compile(source, pattern.flags & ~re.IGNORECASE)


# ----- tokens -----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Tok:
    """One piece of a sentence: a term, a link, or a break.

    A term may join prose and math ("the sum of the roots \\(a + b + c\\)"): ``pieces`` are
    its ``(start, end, is_math)`` parts, in order. ``math``: whether it is math only (all its
    pieces are), kept by whoever builds or joins terms since every chain asks it many times.
    ``subject`` and ``name``: what :func:`_subject` and :func:`_name` read from the term, once
    each (a chain asks for its first term's subject up to five times); None until read.
    """

    kind: str  # "term", "link", "break"
    start: int
    end: int
    what: str = ""  # link: "eq", "equiv", "approx", "is", "hedge"; break: "or", "if", ":", ...
    pieces: tuple[tuple[int, int, bool], ...] = ()
    math: bool = False
    subject: tuple[str | None] | None = None
    name: tuple[str | None] | None = None


#: Relations inside math. ``=`` chains; the others end a chain (an inequality's right side is
#: a bound, not a value) and, for arrows, start a new one.
_MATH_REL = re.compile(
    r"\\(?:equiv|approx|Rightarrow|Longrightarrow|implies|iff|to|rightarrow|longrightarrow"
    r"|leq?|geq?|neq?|lt|gt|quad|qquad|pm|mp|in|notin|subset|subseteq|mid)(?![A-Za-z])"
    r"|\\text\{[^{}]*\}|\\mbox\{[^{}]*\}|\\\\|:=|[=≡≈⇒→<>≤≥≠±∈,;]|(?<!\\)&"
)
_ENVIRONMENT = re.compile(r"\\(begin|end)\s*\{([A-Za-z*]+)\}")
#: Environments whose rows are equations of a derivation, read one by one (a matrix's or a
#: ``cases`` block's rows stay one value).
_ALIGNING = frozenset(
    f"{name}{star}"
    for name in ("align", "aligned", "gather", "gathered", "eqnarray", "split")
    for star in ("", "*")
)
#: An alignment mark or a row break that goes on with the same chain: ``3x &= 9`` and
#: ``\\sqrt{4} \\\\ &= 2`` (the row that opens with its relation continues the one before).
_ALIGNED_RELATION = re.compile(r"(?:\\\\\s*)?&\s*(?=[=<>≤≥≈]|\\(?:approx|leq?|geq?|equiv|lt|gt)\b)")
#: The characters :func:`_math_tokens` acts on: brackets, and those a relation of
#: :data:`_MATH_REL` starts with. It skips from one to the next.
_MATH_STOPS = re.compile(r"[\\{}()\[\]:=≡≈⇒→<>≤≥≠±∈,;&]")
_MATH_LINKS = {"=": "eq", ":=": "eq", "\\equiv": "equiv", "≡": "equiv", "\\approx": "approx"}
_MATH_LINKS["≈"] = "approx"
#: Words in ``\\text{..}`` that break a chain the way the same words do in prose.
_TEXT_BREAK_WORDS = re.compile(r"(?i)\b(?:and|or|so|if|when|where|for|since|then|thus|hence)\b")


def _by_first_letter(words: Sequence[str]) -> str:
    """An alternation of ``words`` (patterns that start with a letter) grouped by that letter:
    at the start of a word the engine dismisses each other letter's group with one comparison,
    where it would enter every word. The same word matches first: words that start with
    different letters cannot match at the same position, and a group keeps its words' order."""
    groups: dict[str, list[str]] = {}
    for word in words:
        assert word[0].isalpha(), word
        groups.setdefault(word[0], []).append(word[1:])
    alternatives = (
        letter + (rests[0] if len(rests) == 1 else "(?:" + "|".join(rests) + ")")
        for letter, rests in groups.items()
    )
    return "(?:" + "|".join(alternatives) + ")"


#: The links "which" makes: ", which is", "which gives".
_WHICH_LINK = r"which\s+(?:is|are|equals|gives|makes|becomes|would\s+be|should\s+be|comes\s+to)"
#: An adverb between a modal and "be": "the price should indeed be $1", "x would then be 5".
_MODAL_ADVERB = r"(?:(?:indeed|also|still|actually|then|therefore|thus|now|just|really)\s+)?"
#: Who a result is handed to: "gives each child 2", "leaving him with 250".
_RECEIVER = r"(?:him|her|them|you|each\s+[a-z]+)"
#: Links in words, "which ..." (with no comma or space before it) first.
_LINK_WORDS = (
    _WHICH_LINK, r"is\s+equal\s+to", r"are\s+equal\s+to", "equals",
    *(rf"{modal}\s+{_MODAL_ADVERB}be" for modal in ("should", "would", "must", "will")),
    *(rf"{modal}\s+{_MODAL_ADVERB}equal\b" for modal in ("should", "would", "must", "will")),
    r"has\s+to\s+be", r"could\s+be", r"might\s+be", r"can\s+be", r"is\s+written\s+as", "is",
    "are", "was", "were",
    "becomes", "become", r"totall?ing", r"totals(?:\s+to)?", r"for\s+a\s+total\s+of",
    r"simplifies\s+to",
    # a sum said as its total: "$35.00 plus $15.00 adds up to $50.00" (verbs only: "the sum
    # to infinity", "the amount to pay" are names)
    r"adds?\s+up\s+to", r"sums\s+(?:up\s+)?to", r"amounts\s+to",
    r"simplify\s+to", r"reduces\s+to", r"evaluates\s+to", r"comes\s+out\s+to", r"comes\s+to",
    r"works\s+out\s+to", r"turns\s+out\s+to\s+be", r"results\s+in", r"resulting\s+in",
    r"corresponds\s+to",
    r"written\s+as",
    r"gives\s+us", r"gives\s+me",
    # a result handed to someone: "gives each child 2 chocolate bars", "giving a difference of
    # $100", "leaving him with 250 minutes" (not "leaves" alone: a book's leaves)
    rf"gives\s+{_RECEIVER}", rf"giving(?:\s+{_RECEIVER}|\s+us|\s+me)?",
    rf"leaving(?:\s+(?:{_RECEIVER}|us|me))?(?:\s+with)?",
    rf"leaves?\s+(?:{_RECEIVER}|us|me)\s+with",
    *(rf"{modal}\s+leave\s+(?:{_RECEIVER}|us|me)\s+with" for modal in ("would", "will", "should")),
    "gives", "give", "yields", "makes", "get", "gets", "got", "obtain",
    # "after combining like terms, I have 2k + 2": "have" links only after "I" or "we", before
    # a number or formula ("We have Navin from Mauritius making ...": no value), and not
    # before an equation, a colon or "of" ("we have x = 5", "I have two solutions: ...", "we
    # have 3/4 of the cake left") in the next 120 characters of its sentence (bounded: a line
    # of "we have" would be quadratic)
    r"have(?:(?<=\bi\shave)|(?<=\bwe\shave))(?=\s+(?:[-\d($√]|\\[(\[]))"
    r"(?![^.\n]{0,120}(?:[=:]|\bof\b))",
)  # fmt: skip
#: Breaks in words.
_BREAK_WORDS = (
    r"which\s+means\b", r"meaning\b", r"i\.e\.", r"or\b(?!\s+equal)",
    *(rf"{word}\b" for word in (
        "and", "but", "so", "then", "thus", "hence", "therefore", "because", "since", "if",
        "when", "whenever", "where", "whereas", "while", "unless", "although", "though",
        "assuming", "suppose", "versus", "vs", "except", "excluding", r"other\s+than", "besides",
    )),
)  # fmt: skip
#: Links and breaks in prose. A comma between a digit and three more is no break ("1,625
#: square centimeters" is one number). Order matters: longer phrases first (words grouped by their
#: first letter keep their order, :func:`_by_first_letter`). "'s" after a pronoun ("it's",
#: "that’s") is tried apostrophe first, the pronoun then looked back at: most positions hold
#: no apostrophe, and six look-behinds at each would cost more than the rest of the pattern.
#: A "which" link is tried after a comma, after a space and as a word apart, each where the
#: phrases that start with the same character are (``tests/test_locate_speed.py`` compares
#: this with the pattern first written, with one "which" link and each word by itself).
#: Adverbs that make a link an approximation ("is approximately 1.55"), read by
#: :func:`_link_kind`.
_ROUGHLY_WORDS = r"approximately|roughly|about|around|nearly"
#: Links after a comma: ", which is", ", i.e.", ", resulting in".
_AFTER_COMMA = (
    rf"\b{_WHICH_LINK}\b|i\.e\.,?|resulting\s+in\b"
    rf"|giving(?:\s+{_RECEIVER})?\b|leaving(?:\s+(?:{_RECEIVER}|us|me))?(?:\s+with)?\b"
)
_PROSE_PHRASES = (
    r"(?P<link>(?:,\s*(?:" + _AFTER_COMMA + r")|\s+\b" + _WHICH_LINK + r"\b|=(?!>)|≡|≈"
    r"|\b" + _by_first_letter(_LINK_WORDS) + r"\b"
    r"|['’](?:(?<=\bthat.)|(?<=\bit.)|(?<=\bwhat.)|(?<=\bwhich.)|(?<=\bthere.)|(?<=\bhere.))s\b)"
    r"(?:\s+(?:just|simply|exactly|indeed|actually|still|also|now|precisely|clearly|again"
    r"|always|currently|presently|equal\s+to|" + _ROUGHLY_WORDS + r")\b)*)"
    r"|(?P<brk>[;:]|(?<!\d),|,(?!\d{3}(?!\d))|→|⇒|=>|->|⟹|\b" + _by_first_letter(_BREAK_WORDS) + ")"
)
_PROSE_PLAIN = re.compile(_PROSE_PHRASES, re.IGNORECASE)
#: The same, for scanning: the leading lookahead only restates where a match can start (a
#: symbol, the start of a word with the first letter of a phrase, or the first space of a run
#: of spaces before "which"), which settles most positions of a sentence at once, where the
#: alternation would try its sixty phrases one by one; and a position inside a run of
#: spaces, where the plain pattern would scan the rest of the run each time (40,000 spaces:
#: 7 s), is never a leftmost match's start (the run's first space starts the same match),
#: except where a scan starts (:func:`_prose_matches`). ``tests/test_locate_speed.py``
#: compares both on real and random texts.
_PROSE = re.compile(
    r"(?=[,=≡≈'’;:→⇒\-⟹]|\b[abceghilmorstuvwy]|\s(?<!\s\s)\s*which)(?:" + _PROSE_PHRASES + ")",
    re.IGNORECASE,
)
_PROSE_PLAIN_FOLDED, _PROSE_FOLDED = _twin(_PROSE_PLAIN), _twin(_PROSE)
#: After a comma these continue the chain: "15x + (-80), which is just 15x - 80".
_CONTINUES = re.compile(r"\s*(?:which|i\.e\.)\s", re.IGNORECASE)
#: Links that only hedge ("could be", "might be", "can be"): what follows is an option.
_HEDGES = re.compile(r"(?i)could|might|can\b")

# ----- sentences --------------------------------------------------------------------------------

_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def _after_line_breaks(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """``pattern`` after a line break, for :func:`_line_starts`."""
    return re.compile(r"\n(?:" + pattern.pattern + ")", pattern.flags)


def _line_starts(
    text: str, pattern: re.Pattern[str], after_break: re.Pattern[str]
) -> list[re.Match[str]]:
    """What ``(?m)^`` and ``pattern`` (which matches no line break) find in ``text``: its
    matches at the start of a line. The engine tries ``^`` at every position of a trace, but
    finds the line breaks of ``after_break`` (:func:`_after_line_breaks`) at once; the few
    lines that match are matched again from their start."""
    first = pattern.match(text)
    found = [first] if first else []
    for m in after_break.finditer(text):
        line = pattern.match(text, m.start() + 1)
        assert line is not None  # what matched after the break matches from the line start
        found.append(line)
    return found


#: A "!" after a digit or bracket is a factorial (``5! \\times 2``), not a sentence end. Read:
#: ``[.?]+(?=\s|$)|(?<![\d)!])!+(?=\s|$)|\n``, each alternative written to start with its own
#: character, so that the regex engine skips to the next ".", "?", "!" or line break at once
#: instead of trying the pattern at every character (four times faster;
#: ``tests/test_locate_speed.py`` compares the two).
_SENTENCE_END = re.compile(r"\.[.?]*(?=\s|$)|\?[.?]*(?=\s|$)|!(?<![\d)!]!)!*(?=\s|$)|\n")

#: Words that open a hypothesis, a trial or a check: what the sentence computes is not yet
#: adopted. Matched at the start of a sentence (after discourse words) or anywhere for the
#: unmistakable ones ("plug", "substitut", "let's try").
_HYPOTHESIS_START = re.compile(
    r"(?i)^(?:[-*•\d.)\s]*)(?:(?:so|and|but|now|then|okay|ok|well|first|next|similarly"
    r"|again|also|hmm|wait|alternatively|maybe|perhaps)\b[\s,]*)*"
    r"(?:if|suppose|supposing|assume|assuming|say|consider|considering|try|trying|test|testing"
    r"|check|checking|verify|verifying|what\s+if|for\s+example|for\s+instance|e\.g\."
    r"|let\s+(?:me|us|'s)\s+(?:try|test|check|verify|consider|see|assume|suppose|plug"
    r"|substitute|say|guess|pick|choose|take))\b"
)
#: A check, or a trial of another variable's value ("Wait, m = 29 gives n = 103, which is
#: greater than 100": what a tried value gives is not yet adopted).
_CHECK_ANYWHERE = re.compile(
    r"(?i)\b(?:let(?:'s|\s+(?:me|us))\s+(?:try|test|check"
    r"|verify)|to\s+(?:check|verify|test)|double[- ]check\w*|sanity"
    r"|(?<![\w\\])[a-z]\s*=\s*-?\d+\s+(?:gives|yields))\b"
)
#: Substituting a value ("plugging in x = 5", "we substitute n = 2004"): a check of the value
#: plugged in, unless the sentence computes the asked quantity from a given (see
#: ``locate.commit``), so a flag of its own.
SUBSTITUTION = re.compile(
    r"(?i)\b(?:plug(?:ging|ged|s)?|substitut\w*)\b"
    # "Plugging in the numbers: (0.1s² / s²) * 100% = 10%", "Substituting the points gives
    # \sqrt{(6 - 2)^2 + (0 - 2)^2} = 2\sqrt{5}": a formula evaluated, no value tried
    r"(?!\s+(?:in\s+)?(?:all\s+)?(?:the\s+|these\s+|those\s+)?(?:given\s+|known\s+)?"
    r"(?:numbers|values|points|coordinates)\b)"
)
#: Words that make the values around them options, not commitments.
_OPTION_WORDS = re.compile(
    r"(?i)\b(?:maybe|perhaps|possibly|either|candidates?|options?|guess|guessing|or\s+so|suggests?"
    r"|not\s+(?:sure|certain|justified|confirmed)|unsure|uncertain|can'?t\s+confirm"
    r"|cannot\s+confirm|haven'?t\s+(?:justified|shown|proved|checked)|keep\s+coming\s+back"
    r"|not\s+(?:every|all)\b[^.;]*\byet)\b"
)
_NEGATION = re.compile(r"(?i)\b(?:not|isn't|aren't|wasn't|cannot|can't|never|no\s+longer)\b")
_NEGATION_FOLDED = _twin(_NEGATION)

#: Symbols that models write for a problem's ``\\square``, ``\\triangle``, ... : letters of a name,
#: not punctuation.
SYMBOLS = "□△◇⋄♣♦♥♠○"
#: Discourse words stripped from the front of a subject, and marks (not a number's minus,
#: "-1 + 5 = 4", nor an absolute value's bar, "|(1 - i)^8| = ...").
_LEAD = re.compile(
    r"(?i)^(?:(?!-\d|\|[^|\n]{1,80}\|)[^\w\\" + SYMBOLS + r"]"
    r"|\b(?:so|thus|therefore|hence|then|now|and|also|okay|ok|well|yes|no|here|both|all|each|only"
    r"|finally|again|indeed|clearly|first|next|similarly|putting\s+it\s+all\s+together"
    r"|in\s+conclusion|in\s+summary|this\s+means|which\s+means|that\s+means|it\s+seems|seems"
    r"|so\s+that|we\s+have|i\s+have|we\s+get|i\s+get|we\s+find|i\s+find|we\s+know|i\s+know"
    r"|we\s+see|i\s+see|we\s+can\s+see|i\s+can\s+see|the\s+result|result)\b)+"
)
#: A subject is cut after the last of these: "it seems that [the maximum value]" ("has to" is
#: no verb of its own: "the number of pages she has to read").
_SUBJECT_CUT = re.compile(
    r"(?i).*\b(?:that|so|then|thus|therefore|hence|means|shows|showing|confirms|find|found"
    r"|know|see|conclude|concluded|get|got|(?:have|has|had)(?!\s+to\b)|compute|computed"
    r"|calculate|calculated"
    r"|need|want|gives|give|because|since|if|when|wait)\b"
)
_SUBJECT_CUT_FOLDED = _twin(_SUBJECT_CUT)
#: A clause that opens with a pronoun pointing back ("that is", "That's just", "which is").
_POINTING = re.compile(r"(?i)that|this|it|which")
_POINTING_WORDS = ("that", "this", "it", "which")
_ADVERBIAL = re.compile(
    r"(?i)(?:in|on|at|for|from|with|by|to|after|before|using|from|via|under|over|now|then|so"
    r"|thus|therefore|hence|okay|well|first|next|finally|similarly|also)\b"
)
#: What :func:`_chain` reads at the start of a clause, and the twins for folded text.
_OPENERS = (_ADVERBIAL, _LEAD, _POINTING)
_OPENERS_FOLDED = tuple(map(_twin, _OPENERS))
_PRONOUN = re.compile(
    r"(?i)^(?:that|this|it|which|these|those|they|what|there|here|all|i|we|you|one)$"
)


@dataclass(frozen=True)
class Claim:
    """One chain of a sentence that ends in a value: the value and the names it is given.

    ``start`` .. ``end`` is the quoted text (from the first name to the end of the value);
    ``value_start`` .. ``end`` the value itself. ``names`` are the terms before the value, in
    order (a subject noun phrase, a left-hand side, named middle terms); a subject left open by
    the previous clause ("the area of triangle OAB is:" before a displayed chain) and a word
    term after the value ("x = 66 is the solution") are names too. ``lhs`` is the chain's first
    math term and ``prev`` the term just before the value (for answers that are equations:
    ``y = 4t + 1 = 2x + 3``, "the plane is 5x - 7y + 11z + 4 = 0"). ``condition`` is the
    "if"/"when" clause a claim depends on (flag "condition"): "when x = 4, the value is 11" is
    a commitment when x = 4 is what the problem gives, a hypothesis otherwise. ``flags``:
    "question", "hypothesis", "condition", "premise" (the condition itself), "check",
    "substitution" (a value plugged in), "given" (a sentence that cites the problem),
    "reason" (a reason in brackets: "(since g is even)"), "option", "intermediate", "list",
    "header", "negated", "approx", "mention", "boxed",
    "bound" (the right side of an inequality, in its math: "n \\geq \\frac{9216}{144} = 64").
    """

    start: int
    end: int
    value_start: int
    value: str
    names: tuple[str, ...]
    lhs: str | None
    flags: frozenset[str]
    sentence: tuple[int, int]
    prev: str | None = None
    condition: str | None = None


@dataclass(frozen=True)
class Reading:
    """What :func:`read` finds: the claims, and the alias chains (names a chain sets equal to
    each other, with or without a value: "the median is the 14th term", ``b = a_1 = 3``)."""

    claims: list[Claim]
    aliases: list[tuple[str, ...]]


@dataclass
class _State:
    """What carries from clause to clause: a subject left open ("the area is:"), the previous
    clause's first term, whose name a pronoun refers to ("3/4 of the cake is left, that is
    0.75"; "..., which is 5^1. That's just 5"; kept as the term and named only when a pronoun
    asks, which few clauses do), and the last chain's subject, which a line that opens with
    "=" continues."""

    pending: str | None = None
    header: str | None = None  # a header before a colon, for an unnamed chain after it
    previous: _Tok | None = None
    subject: str | None = None
    joins: frozenset[str] = frozenset()
    words: frozenset[str] = frozenset()
    folded: str | None = None  # the text folded (:func:`_folded`), if it can be
    #: Whether the last sentence supposed something or gave an example ("For example, if the
    #: sum was 10, ..."), whose consequence the next sentence may still draw.
    supposed: bool = False
    #: Where the counts in words start (:data:`_COUNT_AT`): found in one scan of the text,
    #: since a trace has thousands of clauses and a few dozen of these.
    counts: list[int] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    aliases: list[tuple[str, ...]] = field(default_factory=list)


def read(
    text: str, joins: frozenset[str] = frozenset(), words: frozenset[str] = frozenset()
) -> Reading:
    """Every chain of ``text``, in order of position.

    ``joins`` are math relations that do not split a term here (``,`` and ``\\pm`` when the
    gold is a list like ``3, 5, 7`` or ``1 \\pm \\sqrt{19}``). ``words`` are words that are
    values here ("ellipse" when the gold is ``\\text{ellipse}``: "this must be an ellipse").
    Code blocks are read as blank (see :func:`without_code`)."""
    text = without_code(text)
    if "*" in text:  # "*N = 11*": a line of math in markdown emphasis, read without the stars
        text = _EMPHASIZED_LINE.sub(lambda m: m[1] + " " * len(m[2]) + m[3] + " " * len(m[4]), text)
        if "**" in text:  # "= 36 * 3 = **108**": a value in bold, read without the stars
            text = _BOLD.sub(_unbold, text)
        # "* Therefore, *f(2) = 5*.", "*x* = 3125": math in emphasis, read without the stars
        text = _EMPHASIS.sub(lambda m: f" {m[1]} ", text)
    if ".." in text or "…" in text:  # "8 + 15 equals... 23": a pause, read as a space
        text = _HESITATION.sub(lambda m: " " * len(m[0]), text)
    spans = math_spans(text)
    cut = _sentences(text, spans)
    folded = _folded(text)
    counts = _COUNT_AT.finditer(text) if folded is None else _COUNT_AT_FOLDED.finditer(folded)
    state = _State(joins=joins, words=words, folded=folded, counts=[m.start() for m in counts])
    at = 0
    last_end = 0
    for start, end in cut:
        if _BLANK_LINE.search(text, last_end, start + 1):
            state.previous = None  # a new paragraph: pronouns do not reach back
        last_end = end  # the sentence's end without its trailing spaces
        while last_end > start and text[last_end - 1].isspace():
            last_end -= 1
        while at < len(spans) and spans[at].end <= start:
            at += 1
        stop = at
        while stop < len(spans) and spans[stop].start < end:
            stop += 1
        _read_sentence(text, start, end, spans[at:stop], state)
    _mark_enumerations(text, state.claims)
    _mark_alternative_lines(text, state.claims)
    _loose_boxes(text, state.claims, cut)
    _bare_conclusions(text, state.claims, cut)
    _remainders(text, state.claims, cut)
    _possessions(text, state.claims, cut)
    _cases(text, state.claims)
    if words:
        _shapes(text, state.claims, cut, words)
    _announced_checks(text, state.claims, state.folded)
    _announced_cases(text, state.claims)
    _announced_roots(text, state.claims)
    _case_paragraphs(text, state.claims)
    _affirmed_questions(text, state.claims)
    _reasons(text, state.claims)
    if "to" in text:
        _ranges(text, state.claims)
    return Reading(state.claims, state.aliases)


def _ranges(text: str, claims: list[Claim]) -> None:
    """Flag as bounds the values that end a range of one variable's values (:data:`_RANGE`)."""
    ends = [m.span(2) for m in _RANGE.finditer(text)]
    for i, claim in enumerate(claims):
        if any(start <= claim.value_start < end for start, end in ends):
            claims[i] = _with(claim, "bound")


#: A range of one variable's values ("erase the factors from x = 1 to x = 2016", "from $k = 1$
#: to $k = 10$"): its ends are bounds, not values the variable takes.
_RANGE = re.compile(
    r"\bfrom\s+[$(\\]*\s*([A-Za-z])\s*=\s*[-\w.{}\\]+\s*[$)\\]*\s+to\s+[$(\\]*\s*\1\s*=\s*"
    r"([-\w.{}\\]+)"
)


#: A paragraph that ends by announcing a check of a candidate value: "Let me check if choosing
#: $a = -2$ and $b = 3$ gives the maximum value." (not "Let me see if I can remember ...").
_CHECK_HEAD = r"\blet(?:'s|\s+(?:me|us))\s+(?:check|verify|test)\s+(?:if|whether)\b"
_CHECK_ANNOUNCED = re.compile(_CHECK_HEAD + r"[^\n]*?[=\d][^\n]*$", re.IGNORECASE)
#: Where the announcements can start: a trace has thousands of blank lines and a few of these
#: (no "let" inside one can start another, so a scan of the text finds every one). The
#: lookahead lets the engine pass over most positions at once.
_CHECK_STARTS = re.compile("(?=[lL])" + _CHECK_HEAD, re.IGNORECASE)
#: The same in the folded text (:func:`_folded`), "let" first and its "\\b" looked back at:
#: the engine then finds each "let" at once, where it tries the lookahead at every position.
_CHECK_STARTS_FOLDED = re.compile(r"let(?<!\wlet)" + _CHECK_HEAD.removeprefix(r"\blet"))


def _paragraph_from(text: str, start: int) -> tuple[int, int]:
    """The span from ``start`` to the end of its paragraph: what a paragraph announces (a check,
    a case) is carried out in the next one, and a case's paragraph holds its result."""
    stop = text.find("\n\n", start)
    return start, len(text) if stop < 0 else stop


def _flag_spans(claims: list[Claim], spans: list[tuple[int, int]], flag: str) -> None:
    """Flag the claims that start in any of ``spans``, in one pass: a trace of thousands of
    announcements and claims is read in n log n, not one scan of the claims per span."""
    merged = _union(spans)
    if not merged:
        return
    starts = [start for start, _ in merged]
    for i, claim in enumerate(claims):
        at = bisect_right(starts, claim.start) - 1
        if at >= 0 and claim.start < merged[at][1]:
            claims[i] = _with(claim, flag)


def _announced_checks(text: str, claims: list[Claim], folded: str | None) -> None:
    """The claims of the paragraph after one that ends by announcing a check of a candidate
    (:data:`_CHECK_ANNOUNCED`) carry it out: a check, not yet an adoption. ``folded``:
    ``text`` folded (:func:`_folded`), if it can be."""
    if not ("check" in text or "verify" in text or "test" in text):
        return
    if folded is None:
        starts = [m.start() for m in _CHECK_STARTS.finditer(text)]
    else:
        starts = [m.start() for m in _CHECK_STARTS_FOLDED.finditer(folded)]
    if not starts:
        return
    spans = []
    for brk in _BLANK_LINE.finditer(text):
        window = max(0, brk.start() - 300)
        first = bisect_left(starts, window)
        if first == len(starts) or starts[first] >= brk.start():
            continue  # no announcement starts in the window: the pattern cannot match there
        announced = _CHECK_ANNOUNCED.search(text, window, brk.start())
        if not announced or _CARRIED_OUT.search(text, announced.start(), brk.start()):
            continue
        spans.append(_paragraph_from(text, brk.end()))
    _flag_spans(claims, spans, "check")


#: An announced check carried out in the announcing paragraph itself, a sentence after the
#: announcement computing or judging ("Let's check if the difference is 27: 85 - 58 = 27.
#: Yep, that works."): what follows is no check.
_CARRIED_OUT = re.compile(
    r"(?i)[.!?:]\s[^\n]*?(?:=|\b(?:that|it|this)\s+(?:works|checks\s+out|is\s+correct)\b)"
)


#: A paragraph that works out a case and ends by announcing its result: "If \\(\\omega = 1\\),
#: then \\(1 + \\omega = 2\\) ... So, the expression becomes:", "So, if \\(a = b = c = d\\),
#: then the expression becomes:".
_CASE_ANNOUNCED = re.compile(
    r"(?is)\s*(?:[-*•]\s*)?(?:(?:so|now|then|and|but)\b,?\s*)?if\b[^.]*?=[^\n]*:\s*"
)


def _announced_cases(text: str, claims: list[Claim]) -> None:
    """The claims of the paragraph after one that opens with a case ("If x = 1, then ...")
    and ends with a colon (:data:`_CASE_ANNOUNCED`) are that case's result: a hypothesis, as
    the case is."""
    if ":" not in text:
        return
    spans = []
    for brk in _BLANK_LINE.finditer(text):
        if text[brk.start() - 1 : brk.start()] != ":":
            continue
        begin = text.rfind("\n\n", 0, brk.start())
        begin = 0 if begin < 0 else begin
        if not _CASE_ANNOUNCED.fullmatch(text, begin, brk.start()):
            continue
        spans.append(_paragraph_from(text, brk.end()))
    _flag_spans(claims, spans, "hypothesis")


def _announced_roots(text: str, claims: list[Claim]) -> None:
    """The short lines after a paragraph that announces the roots of each factor and ends
    with a colon ("Setting each factor equal to zero gives me the possible solutions:", then
    "x + 2 = 0 => x = -2", "x - 1 = 0 => x = 1") are candidates, not yet the answer: a
    hypothesis each, until the trace picks one."""
    if ":" not in text or "factor" not in text:
        return
    spans: list[tuple[int, int]] = []
    reached = 0  # where the lists read so far end: a later announcement inside one adds nothing
    for brk in _BLANK_LINE.finditer(text):
        if brk.start() < reached or text[brk.start() - 1 : brk.start()] != ":":
            continue
        begin = text.rfind("\n\n", 0, brk.start())
        if not _ROOTS_ANNOUNCED.search(text, 0 if begin < 0 else begin, brk.start()):
            continue
        at = brk.end()
        while at < len(text):
            start, stop = _paragraph_from(text, at)
            if stop - start > 60:
                break  # the list of roots ends where the prose resumes
            spans.append((start, stop))
            at = stop
            while at < len(text) and text[at].isspace():
                at += 1
        reached = at
    _flag_spans(claims, spans, "hypothesis")


def _case_paragraphs(text: str, claims: list[Claim]) -> None:
    """The claims of a paragraph that opens a case ("Starting with the first case: 5x - 1 = x
    + 3 ... x = 1", "Case 2: ...") are that case's result: a hypothesis, as the case is, until
    the trace compares the cases."""
    if "case" not in text and "Case" not in text:
        return
    spans = [_paragraph_from(text, m.start()) for m in _CASE_OPENING.finditer(text)]
    _flag_spans(claims, spans, "hypothesis")


def _reasons(text: str, claims: list[Claim]) -> None:
    """A claim in a reason put in brackets ("f(g(-f(x))) = f(g(f(x))) (Since *g* is even)")
    cites a fact, given or found before, to justify the step beside it: no conclusion (nor an
    "if" clause, which "premise" flags)."""
    if "(" in text:
        _flag_spans(claims, [m.span() for m in _REASON.finditer(text)], "reason")


#: A reason in brackets: "(since g is even)", "(because 7 is prime)".
_REASON = re.compile(r"\((?=[SsBb])(?i:since|because)\b[^()\n]*\)")


def _affirmed_questions(text: str, claims: list[Claim]) -> None:
    """A question the next sentence answers yes at once ("So is the volume 65 cubic units?
    That seems straightforward.", "So, 4 days? Yes, that adds up.") states its value: the
    model asks itself and agrees, with no check in between."""
    if "?" not in text:
        return
    for i, claim in enumerate(claims):
        if "question" not in claim.flags:
            continue
        end = claim.sentence[1]
        if text[end - 1 : end] == "?" and _AFFIRMED.match(text, end):
            claims[i] = replace(claim, flags=claim.flags - {"question"})


#: A sentence that agrees with the question before it: "That seems right.", "Yes.", "Yep,".
_AFFIRMED = re.compile(
    r"(?i)[ \t]*(?:yes|yeah|yep|exactly|correct|right|that(?:'s|\s+is|\s+seems|\s+looks)"
    r"\s+(?:right|correct|straightforward|it|good|fine))\b(?![^.!?\n]*\b(?:but|wait|check)\b)"
)
#: A paragraph that opens a case: "Starting with the first case:", "Case 1:", "For the second
#: case, ...".
_CASE_OPENING = re.compile(
    r"(?im)(?:\A|(?<=\n\n))[ \t*#>-]*(?:\*\*)?"
    r"(?:(?:starting\s+with|for|in|now,?\s+(?:for|moving\s+on\s+to))\s+)?"
    r"(?:the\s+)?(?:(?:first|second|third|fourth|other|next)\s+case\b|case\s+\d)"
)
#: A paragraph that announces the roots of each factor of a product set to zero.
_ROOTS_ANNOUNCED = re.compile(
    r"(?i)\bset(?:ting)?\s+each\s+factor\s+(?:equal\s+)?to\s+(?:zero|0)\b"
)


#: A shape named by a verb that links nothing else ("the polar equation represents a
#: hyperbola", "This describes a plane", "I recognize this as the equation of a hyperbola").
_SHAPE_VERB = re.compile(
    r"(?i)\b(?:(?:represents?|describes?|defines?|recogni[sz]e\s+(?:this|it)\s+as)\s+"
    r"(?:the\s+(?:standard\s+form|equation|graph)\s+of\s+)?an?"
    # a direction: "after 6 full spins plus 90 degrees, she should be facing east"
    r"|facing|faces|pointing|points|heading)\s+(?P<word>[a-z][a-z-]*)\b"
)


def _shapes(
    text: str, claims: list[Claim], cut: Sequence[tuple[int, int]], words: frozenset[str]
) -> None:
    """For a gold that is a word (a shape, or the shape an option letter names, or a
    direction): the word after "represents", "describes", "recognize this as", "facing" is a
    claim of that value, flagged as its sentence is (a question, a hypothesis, a negation).
    Kept in order of position."""
    found = []
    starts = [s for s, _ in cut]
    for m in _SHAPE_VERB.finditer(text):
        word = m.group("word").lower()
        if word not in words:
            continue
        at = bisect_right(starts, m.start()) - 1
        sentence = cut[at] if at >= 0 and m.start() < cut[at][1] else (m.start(), m.end())
        said = text[sentence[0] : sentence[1]]
        flags = set(sentence_flags(said))
        if _NEGATION.search(text, sentence[0], m.start()):
            flags.add("negated")
        found.append(
            Claim(m.start(), m.end(), m.start("word"), f"\\text{{{word}}}", (), None,
                  frozenset(flags), sentence)
        )  # fmt: skip
    if found:
        claims[:] = sorted([*claims, *found], key=lambda c: (c.start, c.end))


#: A paragraph that opens one case of a case analysis: "If \\(\\frac{x + 9}{2} = 12\\):",
#: "Suppose n is odd:", "For \\( x = 11 \\):" on a line of its own, the work below it.
_CASE_HEADER = re.compile(
    r"(?i)[ \t]*(?:[-*•][ \t]*|\d{1,2}[.)][ \t]*|\*\*)?"
    r"(?:(?:if|suppose|assume|assuming)\b(?![ \t]+(?:we|i|you)\b)[^\n,;]{1,80}"
    r"|for[ \t]+(?:\\\(|\$)?[ \t]*[A-Za-z](?:_\{?\w+\}?)?[ \t]*=[^\n,;:]{1,30})"
    r":[ \t]*(?:\*\*)?[ \t]*\n"
)


def _cases(text: str, claims: list[Claim]) -> None:
    """The claims of a paragraph that opens with a case header (:data:`_CASE_HEADER`) work out
    that case: a hypothesis ("x = 15" under "If (x + 9)/2 = 12:"), not a commitment; so do
    those of a listed case's line (:data:`_CASE_LINE`)."""
    if ":" not in text:
        return
    starts = [0] + [m.end() for m in _BLANK_LINE.finditer(text)]
    ends = [m.start() for m in _BLANK_LINE.finditer(text)] + [len(text)]
    at = 0
    for start, end in zip(starts, ends, strict=True):
        header = _CASE_HEADER.match(text, start, end)
        if not header:
            continue
        while at < len(claims) and claims[at].start < header.end():
            at += 1
        i = at
        while i < len(claims) and claims[i].start < end:
            claims[i] = _with(claims[i], "hypothesis")
            i += 1
    if "for" in text or "For" in text:
        starts = [c.start for c in claims]  # in order of position, as read
        for line in _line_starts(text, _CASE_LINE, _CASE_LINES):
            i = bisect_left(starts, line.start("body"))
            while i < len(claims) and claims[i].start < line.end():
                claims[i] = _with(claims[i], "hypothesis")
                i += 1


#: A listed case with its result on the same line ("- For n = 56: 56 + 2 = 58"): one of the
#: candidates a search lists before they are compared.
_CASE_LINE = re.compile(
    r"[ \t]*[-*•][ \t]*for[ \t]+(?:\\\(|\$)?[ \t]*[A-Za-z](?:_\{?\w+\}?)?[ \t]*="
    r"[^\n,;:]{1,30}:(?P<body>[^\n]+)$",
    re.IGNORECASE | re.MULTILINE,
)
_CASE_LINES = _after_line_breaks(_CASE_LINE)


#: A remainder stated beside its quotient: "21 divided by 9 is 2 with a remainder of 3",
#: "30 goes into 2520 eighty times with a remainder of 120", "leaves a remainder of 4". The
#: lookahead restates the verbs' first letters: it settles most positions at once.
_REMAINDER = re.compile(
    r"(?i)(?=[wlgh])\b(?:with|leaves|leaving|gives|giving|has|having)\s+(?:a\s+|the\s+)?remainder\s+of\s+"
    r"\$?(?P<value>-?\d+)(?!\d)(?![.,]\d|\s*[-+*/×÷^]\s*\d)"
)


def _remainders(text: str, claims: list[Claim], cut: Sequence[tuple[int, int]]) -> None:
    """Remainders stated beside their quotient (:data:`_REMAINDER`), which no chain reads
    ("with" is no link): claims named "the remainder", kept in order of position, the
    quotient just before one an intermediate; a remainder still to be computed ("a remainder
    of 63 - 42 = 21") is left to its chain."""
    if "remainder" not in text:
        return
    sentence_starts = [s for s, _ in cut]
    ends = {c.end: i for i, c in enumerate(claims)}
    found = []
    for m in _REMAINDER.finditer(text):
        before = len(text[: m.start()].rstrip())
        if before in ends:  # "is 2 with a remainder of 3": the 2 is the quotient
            i = ends[before]
            claims[i] = _with(claims[i], "intermediate")
        at = bisect_right(sentence_starts, m.start()) - 1
        sentence = cut[at] if at >= 0 else (m.start(), m.end())
        flags = sentence_flags(text[sentence[0] : sentence[1]])
        start = m.start() + m.group().lower().find("remainder")
        value = m.group("value")
        found.append(
            Claim(
                start, m.end(), m.start("value"), value, ("the remainder",), None, flags, sentence
            )
        )
    if found:
        claims[:] = sorted([*claims, *found], key=lambda c: (c.start, c.end))


def _possessions(text: str, claims: list[Claim], cut: Sequence[tuple[int, int]]) -> None:
    """Values a subject is said to have (:data:`_POSSESSION`: "f(x) must have a degree of 3",
    "the circle has a radius of 5"), which no chain reads ("has" is no link): claims named
    by the noun ("the degree"), kept in order of position."""
    if "ha" not in text:
        return
    sentence_starts = [s for s, _ in cut]
    found = []
    for m in _POSSESSION.finditer(text):
        if m["noun"].lower() == "remainder":  # read with its quotient (:func:`_remainders`)
            continue
        at = bisect_right(sentence_starts, m.start()) - 1
        sentence = cut[at] if at >= 0 else (m.start(), m.end())
        flags = sentence_flags(text[sentence[0] : sentence[1]])
        if _SUPPOSED_BEFORE.search(text, sentence[0], m.start()):  # "If f had a degree of 3,"
            flags |= {"condition", "hypothesis"}
        name = f"the {m['noun'].lower()}"
        found.append(
            Claim(
                m.start("noun"),
                m.end(),
                m.start("value"),
                m["value"],
                (name,),
                None,
                flags,
                sentence,
            )
        )
    if found:
        claims[:] = sorted([*claims, *found], key=lambda c: (c.start, c.end))


#: An "if" whose clause runs on to the end of the text searched (no comma closes it).
_SUPPOSED_BEFORE = re.compile(r"(?i)\b(?:if|suppose|assuming)\b[^,;]*$")
#: "has a degree of 3", "have an area of $24$": a value said to be the subject's, by a noun.
_POSSESSION = re.compile(
    r"(?i)(?=h)\b(?:has|have|had)\s+(?:a|an)\s+(?P<noun>[a-z]{3,})\s+of\s+(?:\$|\\\(\s*)?"
    r"(?P<value>-?\d+(?:\.\d+)?(?:/\d+)?)(?![\d.,]*\d)(?!\s*[-+*/×÷^]\s*\d)"
)


#: A whole line in markdown emphasis whose content is a relation (``*N = 11*``). The "=" is
#: looked for ahead and the content read greedily, in linear time: a line of a hundred
#: thousand "= " after a star took a minute with the two lazy runs around the "=".
_EMPHASIZED_LINE = re.compile(r"(?m)^([ \t]*)(\*{1,2})(?=[^*\n]*=)([^*\n]*)(\*{1,2})(?=[ \t]*$)")
#: A short span in markdown emphasis on one line (``*x*``; not ``2*3*4``, a bullet's "* ", nor
#: a product spaced out, ``a * b``). The star comes first and its look-behind after it, so the
#: engine finds each star at once instead of testing every position of a trace.
_EMPHASIS = re.compile(r"\*(?<![\w*]\*)(?=[^\s*])([^*\n]{1,200}?)(?<=[^\s*])\*(?![\w*])")
#: A short span in markdown bold on one line (``**108**``; not ``2**3``, a power in code).
_BOLD = re.compile(r"(?<![\w*])\*\*(?=[^\s*])([^*\n]{1,200}?)(?<=[^\s*])\*\*(?![\w*])")


def _unbold(m: re.Match[str]) -> str:
    """A bold span without its stars, unless it opens its line (a heading, "**3. Multiply:**",
    which with its stars is no item of a numbered list) and is no equation (a bullet's result,
    "* **-1 + 13 = 12**"); the line's start is looked for in the 40 characters before, so each
    span costs the same however long its line."""
    line = m.string[max(0, m.start() - 40) : m.start()].rpartition("\n")
    if (line[1] or m.start() <= 40) and _LINE_LEAD.fullmatch(line[2]) and "=" not in m[1]:
        return m[0]
    return "  " + m[1] + "  "


_LINE_LEAD = re.compile(r"[ \t]*(?:[*+#>-][ \t]*)*(?:\d+[.)][ \t]*)?")
#: A code fence: three backticks and the language, if any, to the end of the line.
_FENCE = re.compile(r"```[^\n`]*")
#: What marks a fenced block without a language as code: a statement keyword opening a line,
#: a call of a print or a method, or a name of two letters or more assigned to (unless the
#: block writes math no code does: "Area = (1/2) * 6√5 = 3√5", :data:`_MATH_ONLY`).
_CODE_STATEMENT = re.compile(
    r"(?m)^[ \t]*(?:import\s|from\s+\S+\s+import\s|def\s|class\s|return\b"
    r"|(?:for|while|if)\s.*:[ \t]*$)"
    r"|\bprint\s*\(|\b[A-Za-z_]\w*\.\w+\s*\("
)
_CODE_ASSIGNMENT = re.compile(r"\b[A-Za-z_][A-Za-z_0-9]+\s*=(?!=)")
#: Characters of written math that code does not use outside its strings.
_MATH_ONLY = re.compile(r"[√²³×÷·≈π∞≤≥]")


def _is_code(text: str, start: int, end: int) -> bool:
    """Whether a fenced block without a language (``text[start:end]``) holds code."""
    if _CODE_STATEMENT.search(text, start, end):
        return True
    return bool(_CODE_ASSIGNMENT.search(text, start, end)) and not _MATH_ONLY.search(
        text, start, end
    )


def without_code(text: str) -> str:
    """``text`` with its fenced code blocks (```` ```python ... ``` ````) blanked out, same
    length: code assigns variables (``total_dishes = 10``) but states nothing about the problem
    (the protocol's reading); an ```` ```output ```` block is what the model says it printed
    and stays, and so does a block without a language that holds no code (instruction-tuned
    models fence their math that way: ```` ```\\ny = -4\\n``` ````). Fences pair in order,
    opening and closing; an unclosed block runs to the end."""
    if "```" not in text:
        return text
    fences = list(_FENCE.finditer(text))
    out = []
    at = 0
    for i in range(0, len(fences), 2):
        opening = fences[i]
        close = fences[i + 1].start() if i + 1 < len(fences) else len(text)
        language = opening.group().strip("`").strip().lower()
        if language == "output" or (not language and not _is_code(text, opening.end(), close)):
            continue
        out.append(text[at : opening.end()])
        out.append(re.sub(r"[^\n]", " ", text[opening.end() : close]))
        at = close
    out.append(text[at:])
    return "".join(out)


def _loose_boxes(text: str, claims: list[Claim], cut: Sequence[tuple[int, int]]) -> None:
    """Boxes that no chain reached ("Karla would have saved \\(\\boxed{550}\\) gallons": no
    link before the box) are claims of their own: the protocol counts a boxed value as the
    answer however the sentence around it runs. Kept in order of position.

    ``cut`` are the sentences of ``text`` (in order, apart). A line of a thousand boxes is
    read in linear time: the sentence of a box and whether a chain covers it are bisections,
    and each sentence's flags are read once."""
    covered = _union((c.start, c.end) for c in claims if "boxed" in c.flags)
    covered_starts = [s for s, _ in covered]
    sentence_starts = [s for s, _ in cut]
    flags_of: dict[tuple[int, int], frozenset[str]] = {}
    loose = []
    for start, end, content in all_boxed(text):
        at = bisect_right(covered_starts, start) - 1
        if (at >= 0 and start < covered[at][1]) or not content:
            continue
        at = bisect_right(sentence_starts, start) - 1
        sentence = cut[at] if at >= 0 and start < cut[at][1] else (start, end)
        if sentence not in flags_of:
            found = sentence_flags(text[sentence[0] : sentence[1]])
            flags_of[sentence] = frozenset(found | {"boxed"})
        value = _clean(content)
        loose.append(Claim(start, end, start, value, (), None, flags_of[sentence], sentence))
    if loose:
        claims[:] = sorted([*claims, *loose], key=lambda c: (c.start, c.end))


#: A sentence that is a conclusion word and a value, nothing else: "So, 7i - 2.", "So putting
#: it all together, 6 + 9i.", "Therefore, \\(x = 3\\)." is read by the chains already. The value is
#: a short run of numbers, ``i``, ``π``, roots and operations, or one inline math span.
_BARE_CONCLUSION = re.compile(
    r"(?i)[\s*>#-]*(?:so|thus|therefore|hence)\b,?\s*"
    r"(?:(?:putting\s+it\s+(?:all\s+)?together|in\s+total|altogether|overall|finally"
    r"|in\s+the\s+end)\s*,?\s*)?"
    r"(?P<value>\$[^$]{1,40}\$|\\\((?:(?!\\\)).){1,40}\\\)"
    r"|[-−]?\s*(?=[\d.]*\d|i\b|π|√)[\d.,iπ√()+\-−*/^ ]{1,30}?)\s*[.!]?\s*"
)


def _bare_conclusions(text: str, claims: list[Claim], cut: Sequence[tuple[int, int]]) -> None:
    """Sentences that state a value after a conclusion word and nothing else (see
    :data:`_BARE_CONCLUSION`) and where no chain was read: a claim with no name (the value of
    what the model was computing), which the rules weigh like an unnamed chain. Kept in order
    of position."""
    read_in = {c.sentence for c in claims}
    bare = []
    for start, end in cut:
        if end - start > 80 or (start, end) in read_in:
            continue
        found = _BARE_CONCLUSION.fullmatch(text, start, end)
        if found is None:
            continue
        value = _clean(found["value"].strip("$").removeprefix("\\(").removesuffix("\\)"))
        if not value or "=" in value or _unreduced(value):
            continue  # "So, \\(\\frac{550}{4}\\)": a fraction still to reduce
        at = found.start("value")
        bare.append(Claim(at, found.end("value"), at, value, (), None, frozenset(), (start, end)))
    if bare:
        claims[:] = sorted([*claims, *bare], key=lambda c: (c.start, c.end))


def _unreduced(value: str) -> bool:
    """Whether ``value`` is a fraction of whole numbers not in lowest terms (``\\frac{550}{4}``,
    ``6/8``)."""
    found = WHOLE_FRACTION.fullmatch(value)
    if found is None:
        return False
    return gcd(int(found["n1"] or found["n2"]), int(found["d1"] or found["d2"])) > 1


#: A fraction of two whole numbers, maybe negative (``-\\frac{1}{5}``, ``3/8``).
WHOLE_FRACTION = re.compile(
    r"\s*-?\s*(?:\\[dt]?frac\{(?P<n1>\d+)\}\{(?P<d1>\d+)\}|(?P<n2>\d+)\s*/\s*(?P<d2>\d+))\s*"
)


def _union(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """The union of half-open spans as sorted spans that neither overlap nor touch."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(s for s in spans if s[0] < s[1]):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


#: An ellipsis between a link and the value it gives, on one line: "equals... 23", "is… 12"
#: (QwQ-32B pausing before a result; read, it ended the sentence and left the link open).
_HESITATION = re.compile(
    r"(?<=\b(?:is|be|to))(?:\.{2,}|…)(?=[ \t]+\$?-?\d)"
    r"|(?<=\b(?:are|was|get))(?:\.{2,}|…)(?=[ \t]+\$?-?\d)"
    r"|(?<=\b(?:gets|give|make))(?:\.{2,}|…)(?=[ \t]+\$?-?\d)"
    r"|(?<=\b(?:gives|makes|equal))(?:\.{2,}|…)(?=[ \t]+\$?-?\d)"
    r"|(?<=\bequals)(?:\.{2,}|…)(?=[ \t]+\$?-?\d)"
)


def _sentences(text: str, spans: list[MathSpan]) -> list[tuple[int, int]]:
    """Sentence spans: ends at ``.``/``!``/``?`` before a space, or a line break, outside math."""
    cut = []
    at = 0
    start = 0
    for span in [*spans, MathSpan(len(text), len(text), len(text), len(text))]:
        for m in _SENTENCE_END.finditer(text, at, span.start):
            end = m.end()
            if not text[start:end].isspace():  # never empty: an end takes a character
                cut.append((start, end))
            start = end
        at = span.end
    if text[start:].strip():
        cut.append((start, len(text)))
    return cut


def _tokens(
    text: str,
    start: int,
    end: int,
    spans: list[MathSpan],
    joins: frozenset[str],
    folded: str | None = None,
) -> list[_Tok]:
    toks: list[_Tok] = []
    at = start
    for span in spans:
        _prose_tokens(text, at, span.start, toks, folded)
        _math_tokens(text, span, toks, joins)
        at = span.end
    _prose_tokens(text, at, end, toks, folded)
    return toks


def _prose_tokens(
    text: str, start: int, end: int, toks: list[_Tok], folded: str | None = None
) -> None:
    """Links and breaks of a prose stretch; what lies between them is a term. Commas inside
    brackets (``(16/49, 48/49, 24/49)``, ``[-18, -49, 96]``) belong to the term. ``folded``:
    ``text`` folded (:func:`_folded`), if it can be."""
    at = scanned = start
    depth = 0
    for m in _prose_matches(text, start, end, folded):
        link, brk = m.group("link", "brk")
        found, after = m.span()
        if link is None:
            brk = brk.lower()
            if brk == "and":
                begin = toks[-1].start if at == start and toks and toks[-1].kind == "term" else at
                if _BETWEEN.search(text, begin, found) or (
                    _OF_OPERAND.search(text, begin, found) and _OPERAND.match(text, after)
                ):
                    continue  # "the multiples of 7 between 100 and 200", "the GCD of 63 and 1491",
                    # "the number of students in both MATHCOUNTS and the science club"
            elif brk == ",":
                depth = _bracket_depth(text, scanned, found, depth)
                scanned = found
                if depth > 0 or _CONTINUES.match(text, after):
                    continue
        _term(text, at, found, False, toks)
        if link is not None:
            toks.append(_Tok("link", found, after, what=_link_kind(link)))
        else:
            toks.append(_Tok("break", found, after, what=brk))
        at = after
    _term(text, at, end, False, toks)


@lru_cache(maxsize=_MEMO)
def _link_kind(link: str) -> str:
    """What a prose link says: "eq", "equiv", "approx", "hedge" ("could be") or "is"
    (memoised: a trace writes a few dozen links thousands of times)."""
    word = " ".join(link.lower().split())
    if _HEDGES.match(word):
        return "hedge"
    if _ROUGHLY.search(word):
        return "approx"  # "is approximately 1.55", as "≈"
    return {"=": "eq", "≡": "equiv", "≈": "approx"}.get(word, "is")


_ROUGHLY = re.compile(rf"\b(?:{_ROUGHLY_WORDS})\b")


def _prose_matches(
    text: str, start: int, end: int, folded: str | None = None
) -> Iterator[re.Match[str]]:
    """What ``_PROSE_PLAIN.finditer(text, start, end)`` finds, in linear time (see
    :data:`_PROSE`): a scan that starts inside a run of spaces tries its first position with
    the plain pattern. Given ``text`` folded (:func:`_folded`), the twins match in that (the
    same spans; groups in lowercase)."""
    plain, scan = (_PROSE_PLAIN, _PROSE) if folded is None else (_PROSE_PLAIN_FOLDED, _PROSE_FOLDED)
    text = text if folded is None else folded
    if 0 < start < end and text[start].isspace() and text[start - 1].isspace():
        first = plain.match(text, start, end)
        if first:
            return itertools.chain((first,), scan.finditer(text, first.end(), end))
    return scan.finditer(text, start, end)


#: "between" and a phrase with no "and", "or", link or punctuation ("the difference between
#: the positive square root of 64 and"), or "both" and up to three words (not a number's:
#: "both 5 and" joins two numbers only, :data:`_OF_OPERAND`), before an "and": the "and" joins
#: a range or a pair, not clauses.
_BETWEEN = re.compile(
    r"(?i)\b(?:between\s+(?:(?!\b(?:and|or|is|are|was|equals)\b)[^.,;:!?=\n]){1,60}"
    r"|both\s+(?![-\d])\S+(?:\s+\S+){0,2})\s*$"
)
#: "of" or "both" and a number before an "and" that another number follows: the "and" joins
#: the operands of one quantity ("the GCD of 63 and 1491 is 21", "the sum of $3$ and $5$",
#: "3 integers that are factors of both 100 and 150").
_OPERAND_TEXT = r"(?:-?\d[\d,.]*|\$[^$\s]{1,40}\$|\\\([^()]{1,40}\\\))"
_OF_OPERAND = re.compile(r"(?i)\b(?:of|both)\s+" + _OPERAND_TEXT + r"\s*$")
_OPERAND = re.compile(r"\s*" + _OPERAND_TEXT + r"(?![\w(])")


_BRACKET = re.compile(r"[()\[\]]")


def _bracket_depth(text: str, start: int, at: int, depth: int) -> int:
    """The ``(``/``[`` nesting at ``at``, given ``depth`` at ``start``."""
    if not _BRACKET.search(text, start, at):  # most stretches between commas have none
        return depth
    for ch in text[start:at]:
        if ch in "([":
            depth += 1
        elif ch in ")]" and depth:
            depth -= 1
    return depth


def _math_tokens(text: str, span: MathSpan, toks: list[_Tok], joins: frozenset[str]) -> None:
    """A math span's top-level relations split it into terms: braces, brackets and
    ``\\begin{..}..\\end{..}`` environments (a matrix's ``\\\\`` rows) protect what is
    inside them, and ``\\text{..}`` breaks only when it holds a word like "and" or "so"."""
    at = i = span.inner_start
    depth = 0
    while stop := _MATH_STOPS.search(text, i, span.inner_end):
        i = stop.start()
        ch = text[i]
        if ch == "\\":
            if text.startswith(_MATH_SPACES, i):  # "12 \\, \\text{cm}": a thin space, no comma
                i += 2
                continue
            if text.startswith(("\\{", "\\}"), i):  # a set's braces nest like any others
                depth += 1 if text[i + 1] == "{" else -1 if depth else 0
                i += 2
                continue
            env = _ENVIRONMENT.match(text, i)
            if env and env.group(2) in _ALIGNING and depth == 0:
                _term(text, at, i, True, toks)  # its rows are read as equations
                at = i = env.end()
                continue
            if env:
                depth += 1 if env.group(1) == "begin" else -1 if depth else 0
                i = env.end()
                continue
        if depth == 0 and ch in "\\&" and (mark := _ALIGNED_RELATION.match(text, i)):
            _term(text, at, i, True, toks)  # "x &= 3": the relation after the mark is read
            at = i = mark.end()
            continue
        if ch in "{([":
            depth += 1
        elif ch in "})]" and depth:
            depth -= 1
        elif depth == 0 and (m := _MATH_REL.match(text, i)) and m.end() <= span.inner_end:
            rel = m.group()
            if rel in joins or (rel == "," and _THOUSANDS.match(text, i - 1, span.inner_end)):
                i = m.end()  # "8,000 - 6,000 = 2,000": a number's thousands, not a list
                continue
            if rel.startswith(("\\text", "\\mbox")):
                word = _TEXT_BREAK_WORDS.search(rel)
                if not word:
                    i = m.end()
                    continue
                what = word.group().lower()
            else:
                what = _MATH_LINKS.get(rel) or _math_break(rel)
            _term(text, at, i, True, toks)
            kind = "link" if rel in _MATH_LINKS else "break"
            toks.append(_Tok(kind, i, m.end(), what=what))
            at = i = m.end()
            continue
        i += 1
    _term(text, at, span.inner_end, True, toks)


#: LaTeX spaces, whose punctuation is no relation: ``\\,``, ``\\;``, ``\\:``, ``\\!``.
_MATH_SPACES = ("\\,", "\\;", "\\:", "\\!")
#: A comma between a number's thousands (``2,000``, ``10,\\!080``).
_THOUSANDS = re.compile(r"\d,(?:\\!)?\d{3}(?![\d.])")


def _math_break(rel: str) -> str:
    if rel in ("\\pm", "\\mp", "±"):
        return "or"
    if rel in ("<", ">", "≤", "≥", "≠") or rel.startswith(("\\le", "\\ge", "\\ne", "\\lt", "\\gt")):
        return "ineq"
    if rel == "\\\\":  # a row of a derivation (``3x &= 9 \\\\ x &= 3``), as after "so"
        return "row"
    if rel in (",", ";", "&", "\\quad", "\\qquad"):
        return ","
    return "imply"


def _term(text: str, start: int, end: int, math: bool, toks: list[_Tok]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end <= start:
        return
    if toks and toks[-1].kind == "term":  # prose next to math: one term ("the sum \\(a+b\\)")
        last = toks[-1]
        pieces = (*last.pieces, (start, end, math))
        toks[-1] = _Tok("term", last.start, end, pieces=pieces, math=last.math and math)
        return
    toks.append(_Tok("term", start, end, pieces=((start, end, math),), math=math))


# ----- chains -----------------------------------------------------------------------------------

#: A token of a prose value: numbers and operators, single letters, functions and constants.
_VALUE_WORD = re.compile(
    r"(?i)^(?:[-+−]?[\d.,]*\d[\d.,]*%?|[a-z]|sqrt|cbrt|pi|π|e|i|inf|infinity|∞|sin|cos|tan|cot|sec"
    r"|csc|log|ln|exp|mod|arcsin|arccos|arctan)$"
)
_VALUE_CHARS = re.compile(r"[\d√π∞^*/+\-−×÷·()\[\]{}|!\\⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁽⁾]")  # "r⁵": gemma-2, R1
_TRAILING = re.compile(r"(?:\s*(?:[.,;:?]|(?<![\d)!])!|\\[,;!.]|\\quad|\\qquad))+$")
_MODULUS = re.compile(
    r"\s*(?:\\pmod\s*\{[^{}]*\}|\(\s*\\?(?:mod|bmod|text\{mod\})\s*[^()]*\)|\\bmod\s*\S+"
    r"|\\mod\s*\S+|\bmod\s+\S+)\s*$"
)
#: Units after a value (``16\\text{ cm}``, ``288 \\text{ cm}^3``, OlympiadBench's spaced
#: ``166 \\mathrm{~cm}^{2}``).
_UNIT = re.compile(
    r"\s*\\(?:text|mathrm|mbox)\s*\{\s*(?:(?:~|\\[,;: ])\s*)*[A-Za-z][A-Za-z ./]*\}"
    r"(?:\^\{[23]\}|\^[23]|[²³])?\s*$"
)
_UNIT_FROM = re.compile(_UNIT.pattern.removeprefix(r"\s*"))
#: A unit of area or volume abbreviated after a prose number ("864 in^2", "72 cm³"): its
#: exponent makes it look like math, but it is no part of the value.
_POWER_UNIT = re.compile(r"(?:in|ft|yd|mi|mm|cm|dm|km|m)(?:\^\{?[23]\}?|[²³])")
#: Operators spelt out in prose ("2 times cos A", "18 plus 5"): a value goes on past them.
_OPERATOR_WORDS = {
    "times": "*", "plus": "+", "minus": "-", "over": "/", "divided": "/", "by": "",
    "multiplied": "*", "squared": "^2", "cubed": "^3",
}  # fmt: skip


#: A formula spelt out: numbers around operator words ("550 divided by 4", "250,000 divided by
#: 16", "plus 5").
_SPOKEN = re.compile(
    r"(?i)^(?:-?\d{1,3}(?:,\d{3})++(?:\.\d+)?\s*|[-\d.\s]+|\s*)\b"
    r"(?:times|plus|minus|divided\s+by|multiplied\s+by|over)\b\s+[-\d]"
)


def _spoken_operators(value: str) -> str:
    """``2 times cos A`` -> ``2 * cos A``, ``5 squared`` -> ``5 ^2``."""
    return " ".join(_OPERATOR_WORDS.get(w.lower(), w) for w in value.split() if w.lower() != "by")


#: Words after a prose value that are no unit of it ("6 is", "4 and").
_NOT_UNITS = frozenset(
    (
        "and", "the", "but", "then", "which", "that", "this", "with", "for", "from", "into", "when",
        "where", "since", "because", "are", "was", "were", "has", "have", "had", "not", "also",
        "just", "only", "times", "plus", "minus", "over", "divided", "multiplied", "than", "is",
        "its", "it",
    )
)  # fmt: skip
_BOXED = re.compile(r"\\(?:boxed|fbox)\s*\{")
#: Breaks that end one part of a sentence and start another (for option lists).
_SEGMENT_BREAKS = frozenset(
    ("but", "so", "then", "thus", "hence", "therefore", ";", "which means", "→", "⇒", "=>", "->")
) | {"row"}
#: A subject that names a case, whose "when" clause supposes ("the case when \\( n = 6 \\)").
_CASE_BEFORE = re.compile(r"(?i)\b(?:cases?|scenarios?|situations?)\s*$")
#: Breaks that may open a relative clause of a subject noun phrase.
_RELATIVE = frozenset(("where", "when"))
#: A line that is an item of an enumeration ("1.", "2)", "- ", "(a)"), read at line starts
#: (:func:`_line_starts`).
_ENUMERATED = re.compile(r"[ \t]*(?:\d{1,2}[.)]|[-*•]|\([a-z0-9]\))[ \t]+")
_ENUMERATED_LINES = _after_line_breaks(_ENUMERATED)
#: Conditions that may follow what they condition ("x is even if ...", "... unless x = 0").
_CONSEQUENT_BREAKS = frozenset(("if", "unless", "assuming", "suppose"))
_CONDITION_BREAKS = frozenset(
    ("if", "when", "whenever", "unless", "assuming", "suppose", "except", "excluding", "besides")
)
#: A plural subject lists candidates ("the possible values of d are 1 and 13").
_PLURAL_SUBJECT = re.compile(
    r"(?i)^(?:the\s+|all\s+|its\s+)?(?:[\w-]+\s+)?(?:values|solutions|roots|candidates"
    r"|possibilities|options|choices|answers|cases|zeros|numbers)\b"
)


def _qualifying_bound(
    text: str, clause: Sequence[_Tok], tok: _Tok, spans: Sequence[MathSpan]
) -> bool:
    """Whether an inequality only qualifies the noun phrase it is in ("the number of positive
    integers $n > 1$ for which ..."): an inline formula with nothing but the bound, inside a
    subject in words that no link has ended yet. A bound that a chain goes on from ("$n \\geq
    \\frac{9216}{144} = 64$") is no qualifier."""
    if not clause or clause[0].kind != "term" or clause[0].math:
        return False
    if any(t.kind == "link" for t in clause):
        return False
    span = next((m for m in spans if m.inner_start <= tok.start < m.inner_end), None)
    if span is None or text.startswith(("\\[", "$$"), span.start):
        return False
    inner = text[span.inner_start : span.inner_end]
    return "=" not in inner and len(inner) <= 30


def _read_sentence(text: str, start: int, end: int, spans: list[MathSpan], state: _State) -> None:
    toks = _tokens(text, start, end, spans, state.joins, state.folded)
    words = text[start:end]
    if " of " in words and ("where" in words or "that" in words or "which" in words):
        toks = _relative_clause(text, toks)  # (most sentences have no such subject)
    flags = sentence_flags(words)
    if state.supposed and _STILL_SUPPOSED.match(words):
        flags |= {"hypothesis"}  # "For example, if the sum was 10, ... So the remainder here
        # would be 2.": the example's consequence, not the problem's
    state.supposed = "hypothesis" in flags and bool(_SUPPOSE_OPENS.match(words))
    first = len(state.claims)
    clause: list[_Tok] = []
    clause_flags: set[str] = set()
    condition: str | None = None  # the text of an "if"/"when" clause the claims depend on
    bound = -1  # the end of the math after an inequality: "n \\geq \\frac{9216}{144} = 64"
    segment = 0
    segments: list[int] = []
    solved: list[tuple[int, int]] = []  # (claim before an "or", first claim after it)
    last_clause = len(state.claims)  # the first claim of the clause read last
    toks.append(_Tok("break", end, end, what="end"))  # the list is this sentence's own
    for tok in toks:
        if tok.kind != "break":
            clause.append(tok)
            continue
        if tok.what == "ineq" and _qualifying_bound(text, clause, tok, spans):
            continue  # "the number of positive integers $n > 1$ for which ... is $7$"
        if (
            tok.what in _RELATIVE
            and clause
            and not any(t.kind == "link" for t in clause)
            and not _CASE_BEFORE.search(text, clause[0].start, tok.start)
        ):
            # "the largest x-value where the graphs meet is 6": a relative clause of the subject
            clause.append(_Tok("term", tok.start, tok.end, pieces=((tok.start, tok.end, False),)))
            continue
        if clause:
            premise = condition == ""  # the clause right after "if"/"when": the condition
            if premise:
                condition = text[clause[0].start : clause[-1].end]
            before = last_clause = len(state.claims)
            _chain(text, clause, frozenset(flags | clause_flags), (start, end), state)
            if tok.what == ":" and len(state.claims) == before and state.pending is None:
                state.pending = _described(text, clause)
                state.header = None if state.pending else _header(text, clause, start)
            if solved and solved[-1][1] < 0 and len(state.claims) > before:
                solved[-1] = (solved[-1][0], before)
            for i in range(before, len(state.claims)):
                if condition:
                    state.claims[i] = replace(state.claims[i], condition=condition)
                if premise:
                    state.claims[i] = _with(state.claims[i], "premise")
                if state.claims[i].value_start < bound:
                    state.claims[i] = _with(state.claims[i], "bound")
            segments += [segment] * (len(state.claims) - first - len(segments))
        clause = []
        bound = -1
        if tok.what == "ineq":  # the inequality's own math only, not "... \\le 5 is \\boxed{81}"
            bound = next((m.end for m in spans if m.start <= tok.start < m.end), -1)
        if tok.what == "or":
            if len(state.claims) > first:
                if "option" not in state.claims[-1].flags | flags:
                    solved.append((len(state.claims) - 1, -1))
                state.claims[-1] = _with(state.claims[-1], "option")
            clause_flags.add("option")
        elif tok.what in _CONDITION_BREAKS:
            clause_flags.add("condition")
            condition = ""
            if tok.what in _CONSEQUENT_BREAKS:  # "f(x) is even if f(-x) = f(x)": a definition
                for i in range(last_clause, len(state.claims)):
                    state.claims[i] = _with(state.claims[i], "condition")
        elif tok.what in _SEGMENT_BREAKS:
            segment += 1
            clause_flags.clear()
            condition = None
        if tok.what == ":" and state.claims and len(state.claims) > first:
            last = state.claims[-1]
            if not text[last.end : tok.start].strip() and (
                not text[tok.end : end].strip() or _case_label(text, last)
            ):
                state.claims[-1] = _with(last, "header")  # "n = 4:" opens a trial
    _unhedge_solved(state.claims, solved)
    _mark_lists(text, state, first, segments)


#: A sentence that supposes or gives an example: "Suppose ...", "For example, if ...".
_SUPPOSE_OPENS = re.compile(
    r"(?i)\s*(?:(?:so|now|okay|ok|well|but|and|wait)\b[\s,]*)*(?:suppose|assume|imagine"
    r"|let(?:'s|\s+(?:me|us))\s+(?:say|suppose|assume)|say|for\s+(?:example|instance))\b"
)
#: A sentence that goes on with a supposition: it opens with "Then", or draws a consequence
#: in the conditional ("So the remainder here would be 2.").
_STILL_SUPPOSED = re.compile(r"(?i)\s*(?:then\b|(?:so|and)\b[^.?!]*\bwould\b)")


def _summed_subject(
    text: str, claims: Sequence[Claim], sentence: tuple[int, int], at: int
) -> str | None:
    """The subject of a sentence whose first value is added to before its total ("the number
    of integers from 101 to 999 is 899, plus 1 for n = 1, plus 1 for n = 100, totaling 901";
    "the total number of paths is 147 (for case 1) plus 147 (for case 2), totaling 294"): the
    total at ``at`` is the value of what that subject began, or None."""
    i = len(claims)  # the sentence's claims are the last ones: walk back to its first
    while i and claims[i - 1].sentence == sentence:
        i -= 1
    first = claims[i] if i < len(claims) else None
    if first is None or not first.names or first.start < sentence[0]:
        return None
    return first.names[0] if _ADDED_TO.search(text, first.value_start, at) else None


#: A value added to: "899, plus 1 for n = 1", "147 (for case 1) plus 147".
_ADDED_TO = re.compile(r"(?i)\bplus\b|\band\s+another\b")


def _case_label(text: str, claim: Claim) -> bool:
    """Whether ``claim``, just before a colon, labels a line's case: a variable set to a
    number at the line's start ("n=5: 2^5 - 5 = 27, matches."), the trial the line works out."""
    line = text.rfind("\n", 0, claim.start) + 1
    return (
        not text[line : claim.start].strip(" \t-*•")
        and len(claim.names) == 1
        and bool(_CASE_VARIABLE.fullmatch(claim.names[0].strip()))
        and bool(_NUMBER.fullmatch(claim.value.strip()))
    )


_CASE_VARIABLE = re.compile(r"[A-Za-z](?:_\{?\w+\}?)?")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _relative_clause(text: str, toks: list[_Tok]) -> list[_Tok]:
    """``toks`` with a counted subject's relative clause read into the subject: "the total
    number of n ≤ 2024 where n ≡ 0 or 2 mod 5 is 404 + 405 = 809", "the number of $n$ such
    that $n \\equiv 1$ is 7". The relations and "or" between the relative word and the
    sentence's first "is" or "are" qualify the noun phrase; read as links and breaks, they
    would make "n ≡ 0" a claim and 809 an option of "2 mod 5". Most sentences have no
    relative word, settled by one scan."""
    first = next((i for i, t in enumerate(toks) if t.kind != "break"), None)
    if first is None or toks[first].kind != "term" or toks[first].math:
        return toks
    relative = None
    for i in range(first, len(toks)):
        tok = toks[i]
        if tok.kind == "link" or (tok.kind == "break" and tok.what not in ("ineq", "where")):
            return toks  # the subject ended before any relative clause (most sentences)
        if (tok.kind == "break" and tok.what == "where") or (
            tok.kind == "term" and _RELATIVE_MARK.search(text, tok.start, tok.end)
        ):
            relative = i
            break
    if relative is None:
        return toks
    if not _COUNTED.match(_without_lead(text[toks[first].start : toks[first].end].lstrip())):
        return toks
    for copula in range(relative + 1, len(toks) - 1):
        tok = toks[copula]
        if tok.kind == "link" and text[tok.start : tok.end].strip().lower() in ("is", "are"):
            break
        if tok.kind == "break" and tok.what not in ("or", "ineq"):
            return toks
    else:
        return toks
    inside = toks[relative + 1 : copula]
    if toks[copula + 1].kind != "term" or all(t.kind == "term" for t in inside):
        return toks  # nothing to read into the subject: a copula of the clause's own follows
    pieces = tuple(
        piece
        for tok in toks[first:copula]
        for piece in (tok.pieces if tok.kind == "term" else ((tok.start, tok.end, False),))
    )
    subject = _Tok("term", toks[first].start, toks[copula - 1].end, pieces=pieces)
    return [*toks[:first], subject, *toks[copula:]]


#: A subject that counts or sums what its relative clause selects.
_COUNTED = re.compile(r"(?i)(?:the\s+)?(?:total\s+)?(?:number|count|sum|product)\s+of\b")


_NUMBER_FRACTION = re.compile(
    r"(-?)(?:\\[dt]?frac\{(\d+(?:\.\d+)?)\}\{(\d+(?:\.\d+)?)\}|(\d+(?:\.\d+)?)/(\d+(?:\.\d+)?))"
)


#: A whole number's power, small enough to compute (``2^2``, ``10^{3}``; not ``-3^2``).
_SMALL_POWER = re.compile(r"(\d{1,3})\^(?:\{(\d)\}|(\d))")


def _number_key(value: str) -> str:
    """A value's key for telling values apart, a fraction of numbers by its value: "x =
    \\frac{30}{5} \\implies x = 6" and "x = \\frac{12}{1.5}, x = 8" give x one value, written
    twice; so does a small power of a whole number ("5. ... x = 2^2", "6. ... x = 4": a
    derivation's numbered lines, not two solutions listed)."""
    key = _key(value)
    m = _NUMBER_FRACTION.fullmatch(key)
    if m and Fraction(m[3] or m[5]):
        number = Fraction(m[2] or m[4]) / Fraction(m[3] or m[5])
        return str(-number if m[1] else number)
    power = _SMALL_POWER.fullmatch(key)
    if power and len(power[1]) * int(exponent := power[2] or power[3]) <= 7:  # no huge power
        return str(int(power[1]) ** int(exponent))
    return key


def _unhedge_solved(claims: list[Claim], pairs: Sequence[tuple[int, int]]) -> None:
    """An equation and the same equation solved for its variable, joined by "or" ("\\(33x =
    330\\) or \\(x = 10\\)"), state one thing twice, not two options: the second's name is the
    variable of the first's last one (x of 33x)."""
    for before, after in pairs:
        if after < 0 or not claims[before].names or not claims[after].names:
            continue
        first, second = _key(claims[before].names[-1]), _key(claims[after].names[0])
        if (
            second
            and first != second
            and second in first
            and re.search(rf"\d{re.escape(second)}$", first)
        ):
            for i in (before, after):
                claims[i] = replace(claims[i], flags=claims[i].flags - {"option"})


#: A value the model sets aside for a later step: an intermediate by its own account.
_FOR_LATER = re.compile(
    r"(?i)\b(?:(?:need|use|keep|save|come\s+back\s+to)\s+(?:it|this|that|them)?\s*later"
    r"|for\s+later|later\s+on)\b"
)

#: A sentence that attributes what it says to the problem: "According to the problem, this sum
#: is 13", "the problem states that the volume is 1/2", "we are told that ...": a given
#: restated, whatever its value (not "the problem asks for", which names the goal), unless it
#: goes on to a conclusion of its own ("the problem states that x ≠ 0, so x = 5").
_GIVEN_BY_PROBLEM = re.compile(
    r"(?i)\b(?:according\s+to\s+the\s+(?:problem|question|statement)"
    r"|the\s+(?:problem|question)\s+(?:states?|says|tells\s+us|gives|saying|stating)"
    r"|we(?:'re|\s+are)\s+told)\b"
    r"(?!.*\b(?:so|thus|therefore|hence|then|which\s+gives|giving)\b)"
)


def sentence_flags(sentence: str) -> frozenset[str]:
    """What a whole sentence says about the values in it: "question", "hypothesis" (it opens
    with "if", "suppose", "let's try", ...), "check", "substitution" ("plugging in"), "option"
    (maybe, perhaps, not sure), "intermediate" ("which I need later")."""
    return _sentence_flags(sentence.strip())


@lru_cache(maxsize=_MEMO)
def _sentence_flags(sentence: str) -> frozenset[str]:
    """:func:`sentence_flags` of a stripped sentence, memoised: a quarter of a trace's
    sentences are ones it wrote before ("Wait, no.", "Let me think differently.")."""
    flags: set[str] = set()
    if sentence.endswith("?") and not _tag_question(sentence):
        flags.add("question")
    folded = _folded(sentence)
    hypothesis, any_cue, cues = _SENTENCE_CUES if folded is None else _SENTENCE_CUES_FOLDED
    sentence = sentence if folded is None else folded
    if hypothesis.match(sentence):
        flags.add("hypothesis")
    if any_cue.search(sentence):
        flags.update(flag for flag, cue in cues if cue.search(sentence))
    return frozenset(flags)


def _tag_question(sentence: str) -> bool:
    """Whether a sentence is a statement with a question tag ("That means x must be 4,
    right?"): the model states the value and only asks for assent, so annotators count it as
    stated; a question that the tag ends ("Is it 4, right?") is still a question."""
    return bool(_TAG.search(sentence)) and not _ASKING.match(sentence)


#: A question tag at the end of a sentence.
_TAG = re.compile(
    r"(?i),\s*(?:right|correct|yes|(?:is\s+)?(?:that|this)\s+(?:right|correct)|isn['’]t\s+it)\s*\?$"
)
#: A sentence that asks from its start ("So, is it 4, right?"), after discourse words.
_ASKING = re.compile(
    r"(?i)(?:(?:so|wait|but|and|then|hmm+|okay|ok|now|well|or)\b[\s,.]*)*"
    r"(?:is|are|was|were|do|does|did|can|could|would|should|will|what|how|why|which|who|where"
    r"|when|has|have|isn['’]t|aren['’]t|doesn['’]t)\b"
)


def _cues(
    hypothesis: re.Pattern[str], cues: Sequence[tuple[str, re.Pattern[str]]]
) -> tuple[re.Pattern[str], re.Pattern[str], tuple[tuple[str, re.Pattern[str]], ...]]:
    """What :func:`_sentence_flags` reads with: the opening pattern, one pattern for any of the
    cues searched anywhere (it matches where one of them does: one scan settles the nine
    sentences in ten that have none), and the flag each cue gives. Every cue starts with a
    word boundary and a letter: read once, before the cues, in front of a lookahead for the
    letter, they let the engine pass over most positions at once (a third faster)."""
    flags = cues[0][1].flags
    bodies = [cue.pattern.removeprefix("(?i)") for _, cue in cues]
    assert all(body.startswith("\\b") for body in bodies), "a cue that does not start with \\b"
    either = "(?=[a-z])\\b(?:" + "|".join(f"(?:{body[2:]})" for body in bodies) + ")"
    return hypothesis, re.compile(either, flags), tuple(cues)


_FLAG_CUES = (
    ("check", _CHECK_ANYWHERE),
    ("substitution", SUBSTITUTION),
    ("option", _OPTION_WORDS),
    ("intermediate", _FOR_LATER),
    ("given", _GIVEN_BY_PROBLEM),
)
_SENTENCE_CUES = _cues(_HYPOTHESIS_START, _FLAG_CUES)
_SENTENCE_CUES_FOLDED = _cues(
    _twin(_HYPOTHESIS_START), [(flag, _twin(cue)) for flag, cue in _FLAG_CUES]
)


def sentences(text: str) -> list[tuple[int, int]]:
    """The sentence spans of ``text`` as :func:`read` cuts them."""
    return _sentences(text, math_spans(text))


def _with(claim: Claim, flag: str) -> Claim:
    return replace(claim, flags=claim.flags | {flag})


def _mark_lists(text: str, state: _State, since: int, segments: Sequence[int]) -> None:
    """Several values for the same name (or variable, see :func:`_list_key`) in one part of a
    sentence ("x = 6, x = 1, and x = -2") are a list of solutions or candidates, not a
    commitment to one; "but x = 1 is smaller" after such a list is a part of its own. A
    formula in other variables is no value of its own ("b = -a/2, so b = -(-2)/2 = 1" gives b
    one value), and a fraction is its value (``\\frac{30}{5}`` and 6 are one). A value after
    "totaling" or "for a total of" is the sum of the ones before it, no item of a list ("180
    minutes, plus 24 minutes, totaling 204 minutes"); nor is a rounding of a value
    (:func:`_listed_value` says what is)."""
    if len(state.claims) - since < 2:  # a list needs two values (most sentences give none)
        return
    claims = state.claims[since:]
    totals = {
        i
        for i, claim in enumerate(claims)
        if _TOTALING.search(text, max(0, claim.start - 24), claim.start)
    }
    seen: dict[tuple[str, int], set[str]] = {}
    for i, (claim, segment) in enumerate(zip(claims, segments, strict=True)):
        name = _list_key(claim.names) if claim.names else ""
        if _listed_value(claim, name) and i not in totals and not _rounding(claim):
            seen.setdefault((name, segment), set()).add(_number_key(claim.value))
    for i, (claim, segment) in enumerate(zip(claims, segments, strict=True)):
        key = (_list_key(claim.names), segment) if claim.names and i not in totals else None
        if key is not None and key[0] and len(seen.get(key, ())) > 1:
            state.claims[since + i] = _with(claim, "list")


def _listed_value(claim: Claim, key: str) -> bool:
    """Whether a claim gives a value that can be one of several listed under ``key`` (its
    name's): :func:`_listable`, and not an equation that still holds the name (``P(A) =
    \\frac{1}{2} + \\frac{1}{4} P(A)``, solved in the next line of a derivation)."""
    if not key or not _listable(claim.value):
        return False
    # (a command's letters are no name's: ``ac`` is not in ``\\frac{1}{2}``)
    return len(key) < 2 or key not in _key(_COMMAND.sub(" ", claim.value))


def _rounding(claim: Claim) -> bool:
    """Whether a claim rounds a value (flag "approx"): "20000/π ≈ 6366.2" is one value."""
    return "approx" in claim.flags


#: Words that give the sum of what came before: as a link opening a clause, they go on with
#: the chain before it (:func:`_chain`); right before a value, it is no list item
#: (:func:`_mark_lists`).
_SUM_WORDS = r"(?:equals|totall?ing|(?:for\s+)?a\s+total\s+of)"
_CONTINUES_SUM = re.compile(rf"(?i){_SUM_WORDS}\s*")
_TOTALING = re.compile(rf"(?i)\b{_SUM_WORDS}\s*\$?$")
#: A variable in a value (``-\\frac{a}{2}``, ``2\\cos(85\\theta)``), not a command's letters.
_VARIABLE = re.compile(
    r"(?<![A-Za-z\\])[a-z](?![A-Za-z])|\\(?:theta|alpha|beta|gamma|phi|omega|lambda|mu)(?![A-Za-z])"
)
#: A number, an operator, and a number: a computation still to be done (``-3 + 2``,
#: ``50 \\times \\frac{11}{4}``, ``7! * 2!``, ``180^\\circ - 104^\\circ``), or a factorial
#: (``7!``), not a result; a fraction of letters is no number (``1 + \\frac{r}{r_0}``).
_PENDING = re.compile(
    r"(?:\d|\}|!|\\circ|°)\s*(?:[-+*×·÷]|\\times|\\cdot|\\div)\s*"
    r"(?:\(?\s*-?\d|\\[dt]?frac\s*(?:\d|\{\s*-?(?:\d|\\sqrt))|\\sqrt)"
    r"|\d\s*!"
)


def pending_operation(value: str) -> bool:
    """Whether ``value`` still holds an operation between numbers."""
    return bool(_PENDING.search(value))


#: A formula still to be evaluated though no operator joins two numbers in it: a ratio of
#: named lengths (``\\frac{\\text{opposite}}{\\text{adjacent}}``), a trigonometric function at a
#: multiple of pi (``2^{1002} \\cos(501\\pi)``).
_UNEVALUATED = re.compile(
    r"\\[dt]?frac\s*\{[^{}]*\\text|(?:\\cdot|\\times|[-+*/×·])\s*\\text\s*\{\s*[A-Za-z]{3}"
    r"|\\(?:sin|cos|tan|cot|sec|csc)(?![A-Za-z])[^=]{0,30}?\\pi"
)


def _listable(value: str) -> bool:
    """Whether ``value`` can be one of several values listed for a name: a result, not a
    formula (in other variables, ``-\\frac{a}{2}``) nor a computation still to be done
    (``10 - 1`` before ``x = 9``, ``\\frac{900^\\circ}{7} - 90^\\circ``, ``\\cos(501\\pi)``,
    ``(10\\sqrt{6})^2``):
    "x = 10 - 1, so x = 9" gives x one value, computed, in enumerated steps as in a
    sentence."""
    return not (
        pending_operation(value)
        or _VARIABLE.search(value)
        or (_CAPITAL.search(value) and _OPERATION.search(value))  # "(T / 20)(T + 30)"
        or _SEGMENT.fullmatch(value)  # "AB = AC": another name, no value of AB
        or _UNEVALUATED.search(value)
        or perfect_root(value)
        or _BRACKET_POWER.search(value)
        or _BRACKETS_OPERATED.search(value)
        or _FUNCTION_OF.search(value)
    )


#: A capital letter of a formula (``(T / 20)(T + 30)``, a variable of the problem) or two, a
#: segment (``AD^2 + BD^2``), not a command's nor a word's: alone, a capital is an option or a
#: point ("B").
_CAPITAL = re.compile(r"(?<![A-Za-z\\])[A-Z]{1,2}(?![A-Za-z])")
_OPERATION = re.compile(r"[-+*/×·÷()]")
#: A segment's name (``AC``), alone.
_SEGMENT = re.compile(r"[A-Z]{2}")
#: A bracket raised to a power, still to be evaluated: ``(10\sqrt{6})^2`` before ``x = 600``.
_BRACKET_POWER = re.compile(r"\)\s*\^")
#: A function still applied to something: ``\frac{\sin A}{\cos A}`` before ``\tan A = 2``.
_FUNCTION_OF = re.compile(r"\\(?:sin|cos|tan|cot|sec|csc|log|ln|exp)(?![A-Za-z])")
#: Brackets (or π) an operation joins, still to be done: ``(45π) / (9π)`` before ``h = 5``.
_BRACKETS_OPERATED = re.compile(r"[)π]\s*(?:[-+*/×·÷]|\\times|\\cdot|\\div)\s*[(\d\\π]")


#: A root of a whole number, its index if it has one (``\\sqrt[3]{27}``).
_ROOT = re.compile(r"\\sqrt\s*(?:\[\s*(\d)\s*\])?\s*\{\s*(\d{1,12})\s*\}")


def perfect_root(value: str) -> bool:
    """Whether ``value`` takes the root of a perfect power (``\\sqrt{225}``, ``\\sqrt[3]{27}``):
    a computation still to be done ("n = \\sqrt{225}, n = 15" gives n one value), where
    ``\\sqrt{2}`` is a result."""
    return "sqrt" in value and any(
        _is_power(int(n), int(index or 2)) for index, n in _ROOT.findall(value)
    )


def _is_power(n: int, index: int) -> bool:
    """Whether ``n`` is a whole number's ``index``-th power."""
    if index < 2:
        return False
    root = isqrt(n) if index == 2 else round(n ** (1 / index))
    return any((r**index == n) for r in (root - 1, root, root + 1) if r >= 0)


def _mark_enumerations(text: str, claims: list[Claim]) -> None:
    """Enumerated paragraphs ("1. x = 66", "2. x = -62") that give the same name different
    values list the solutions; none of them is chosen yet (a formula in other variables is no
    value, as in :func:`_mark_lists`)."""
    enumerated = _line_starts(text, _ENUMERATED, _ENUMERATED_LINES)
    if not enumerated:
        return
    items: list[tuple[int, int, int]] = []  # (claim index, enumeration run, item)
    run = 0
    last_item_end = -1
    # each item's claims by bisection of the claims in order of position, not a scan of all
    # claims per item (a trace lists hundreds of lines)
    by_start = sorted(range(len(claims)), key=lambda i: claims[i].start)
    starts = [claims[i].start for i in by_start]
    for m in enumerated:
        between = text[last_item_end : m.start()] if last_item_end >= 0 else ""
        if last_item_end < 0 or between.strip():
            run += 1
        end = text.find("\n\n", m.end())
        end = len(text) if end < 0 else end
        inside = by_start[bisect_left(starts, m.start()) : bisect_left(starts, end)]
        items += [(i, run, m.start()) for i in inside]
        last_item_end = end
    # the values of each name in each run, and the items they come from: one item that
    # gives a described name two values ("the number of angles, which is $12$. This gives us
    # $d = 150$": the second sentence's subject is the first's) lists nothing; one that
    # gives a variable two values ("x = 6", "x = 3") lists them
    seen: dict[tuple[str, int], set[str]] = {}
    places: dict[tuple[str, int], set[int]] = {}
    for i, run, item in items:
        key = _key(claims[i].names[0]) if claims[i].names else ""
        if _listed_value(claims[i], key):
            seen.setdefault((key, run), set()).add(_number_key(claims[i].value))
            places.setdefault((key, run), set()).add(item)
    for i, run, _ in items:
        at = (_key(claims[i].names[0]), run) if claims[i].names else None
        if (
            at
            and len(seen.get(at, ())) > 1
            and (len(places[at]) > 1 or _LONE_VARIABLE.fullmatch(at[0]))
        ):
            claims[i] = _with(claims[i], "list")


def _mark_alternative_lines(text: str, claims: list[Claim]) -> None:
    """Lines that follow one another in a paragraph, each nothing but math that ends by giving
    the same variable a different plain number ("$x - 5 = 0 \\Rightarrow x = 5$", then "$x - 1 =
    0 \\Rightarrow x = 1$"), list the roots found; none of them is chosen yet (a derivation's
    lines, "d = \\sqrt{0.5625 + 1.0}" then "d = \\sqrt{1.5625}", give no plain numbers). Each
    claim's line is looked at once (a line holding many claims, once for all of them), and only
    claims whose name is one letter: a linear pass."""
    # the last such line: its end, its claim's name and value, and where that claim is
    previous: tuple[int, str, str, int] | None = None
    math_lines: dict[int, bool] = {}  # a line's start: whether it is nothing but math
    for i, claim in enumerate(claims):
        if not claim.lhs or not _LONE_VARIABLE.fullmatch(_key(claim.lhs)):
            continue
        start = text.rfind("\n", 0, claim.start) + 1
        end = text.find("\n", claim.end)
        end = len(text) if end < 0 else end
        if start not in math_lines:
            math_lines[start] = _MATH_LINE.fullmatch(text, start, end) is not None
        if not math_lines[start] or not _PLAIN_NUMBER.fullmatch(claim.value):
            previous = None
            continue
        name, value = _key(claim.lhs), _number_key(claim.value)
        if previous and previous[0] == start - 1 and previous[1] == name and previous[2] != value:
            claims[i] = _with(claim, "list")
            claims[previous[3]] = _with(claims[previous[3]], "list")
        previous = (end, name, value, i)


#: A line that is nothing but math: ``$...$``, ``\\[...\\]``, ``\\(...\\)`` with spaces around.
_MATH_LINE = re.compile(r"[ \t]*(?:\$[^$\n]+\$|\\\[[^\n]*?\\\]|\\\([^\n]*?\\\))[ \t.,]*")


def _list_key(names: tuple[str, ...]) -> str:
    """The name a value is listed under: its variable when it has one ("the only integer
    roots are x = 1 and x = -2" lists two values of x), else its first name."""
    if len(names) > 1:
        for name in names:
            if _LONE_VARIABLE.fullmatch(name):
                return _key(name)
    return _key(names[0])


_LONE_VARIABLE = re.compile(r"[A-Za-z](?:_\{?\w+\}?)?")


@lru_cache(maxsize=_MEMO)
def _key(s: str) -> str:
    return _KEY_NOISE.sub("", s)


_KEY_NOISE = re.compile(r"\s+|\\[,;!]|\\left|\\right|\$")


#: A clause that only announces the answer ("The final answer:").
_THE_ANSWER = re.compile(r"(?i)\W*(?:the\s+)?(?:final\s+)?answer\W*")
#: A number that can stand on the left of a chain: "6 = xy + yz + zx".
_PLAIN_NUMBER = re.compile(r"-?[\d.,/\s]+|-?\\frac\{\d+\}\{\d+\}")
_OPENING_BRACKET = re.compile(r"\s*(?:\\left)?[(\[{]")


def _chain(
    text: str, clause: list[_Tok], flags: frozenset[str], sentence: tuple[int, int], state: _State
) -> None:
    """Read one clause as a chain: record its claim (if it ends in a value) and its aliases
    (if it sets names equal), or leave its subject open when it ends in a link ("the area
    is") for the clause that follows."""
    pending, state.pending = state.pending, None
    header, state.header = state.header, None
    condition = None
    if len(clause) > 1:  # most clauses are one token: no terms to merge, no relative clause
        clause, condition = _relative_subject(text, _merge_terms(clause))
        terms = [t for t in clause if t.kind == "term"]
        links = [t for t in clause if t.kind == "link"]
    else:
        terms, links = (clause, []) if clause[0].kind == "term" else ([], clause)
    if not terms:
        return
    referent, state.previous = state.previous, terms[0]
    folded = state.folded
    adverbial, lead, pointing = _OPENERS if folded is None else _OPENERS_FOLDED
    if adverbial.match(folded or text, terms[0].start):
        state.previous = referent  # "In interval notation, that would be ...": no referent
    opening = (folded or text)[terms[0].start : terms[0].end].strip()
    # what is left of the term without its discourse words is an end of it: only a term that
    # ends in a pronoun can be one (in folded text, lowercase; the few others are read whole)
    if (folded is None or opening.endswith(_POINTING_WORDS)) and pointing.fullmatch(
        lead.sub("", opening).strip()
    ):  # the whole subject is "that", "this", "it", "which"
        pointed = pending is None
        pending = pending or (_name(text, referent) if referent else None)
        state.previous = referent
    else:
        pointed = False
    if clause[-1].kind == "link":
        if len(terms) == 1:
            state.pending = _subject(text, terms[0])
        return
    summed = clause[0].kind == "link" and clause[0].what == "is"
    # "|A ∩ B| = 49 - 44", then "Which is 5.": the chain before goes on, as after "="
    # (or "... would be 20 + 20. Which is 40.": the link then holds the space before it)
    which = summed and text[clause[0].start : clause[0].end].lstrip().startswith(("Which", "which"))
    summed = summed and not which
    if clause[0].kind == "link" and (
        clause[0].what == "eq"
        or which
        or (summed and _CONTINUES_SUM.fullmatch(text, clause[0].start, clause[0].end))
    ):
        # "= 2 \times 14400" on its own line goes on with the chain before it; ", equals 204
        # minutes" after "3 hours is 180 minutes, plus 24 minutes" sums that chain's value and
        # what followed it, no value of its subject
        value = _value(text, terms[-1], state.words)
        if value:
            subject = pending if summed else pending or state.subject
            last = state.claims[-1] if summed and state.claims else None
            if last and last.sentence == sentence and last.names and pending_operation(last.value):
                subject = subject or last.names[0]  # "the total is 147 + 147, totaling 294"
            if summed and not subject:
                subject = _summed_subject(text, state.claims, sentence, terms[-1].start)
            _add(text, state, terms[-1:], value, flags, sentence, subject, None)
        return
    if len(terms) == 1 and not links:
        term = terms[0]
        if _THE_ANSWER.fullmatch(text, term.start, term.end):
            state.pending = "answer"
            return
        last = state.claims[-1] if state.claims else None
        more = _value(text, term) if last and last.sentence == sentence else None
        if last and more and _counted_then_listed(text, last, term):
            more = None  # "three distinct values: 1, 0, and -1": what is counted, not counts
        if last and more and _whole_value(text, term, more[1], True):
            # "the possible values of d are 1 and 13": the list goes on; both are options
            state.claims[-1] = _with(last, "list")
            start, end = _widen(text, more[0], more[0] + len(more[1]))
            listed = last.flags | {"list"}
            state.claims.append(
                replace(
                    last,
                    start=start,
                    end=end,
                    value_start=more[0],
                    value=_unbox(more[1]),
                    flags=listed,
                )
            )
            return
        if pending is None and _in_words_only(text, term):
            # no claim: a value of it would not be a formula, and no number is mentioned but
            # in words ("the function takes three distinct values")
            _counted_mentions(text, term.start, term.end, flags, sentence, state)
            return
        value = _value(text, term, state.words)
        if not value or not (pending is not None or _alone(text, term, sentence)):
            _mentions(text, term, flags, sentence, state)
            return
        if term.math or _whole_value(text, term, value[1]):
            _add(text, state, [term], value, flags, sentence, pending, None)
        return
    if len(terms) == 1 and "question" in flags and clause[0].kind == "link":
        # "So, is the profit $78?": a question that asks whether a value is its subject's
        asked = _INVERTED.fullmatch(text, terms[0].start, terms[0].end)
        if asked and clause[0].what == "is":
            found = (asked.start("value"), asked["value"], None)
            _add(text, state, terms, found, flags, sentence, asked["name"], None)
        return
    value_at, value = None, None
    for i in range(len(terms) - 1, 0, -1):
        value = _value(text, terms[i], state.words)
        if value:
            value_at = i
            break
    if len(terms) == 2 and (value is None or not _DIGIT.search(value[1])):
        left = _value(text, _past_adverb(text, terms[0]))  # "6 = xy + yz + zx"; "clearly 1
        # is larger": the value is on the left
        if state.words and not (left and _PLAIN_NUMBER.fullmatch(left[1])):
            # "Evelyn is the one with the greatest average speed": a word the gold is
            worded = _value(text, terms[0], state.words)
            left = worded if worded and _WORD_VALUE.fullmatch(worded[1]) else left
        if left and (_PLAIN_NUMBER.fullmatch(left[1]) or _WORD_VALUE.fullmatch(left[1])):
            terms = [terms[1], terms[0]]
            value_at, value = 1, left
    subject = _subject(text, terms[0])
    names = [subject] if subject else []
    for term in terms[1:]:  # a loop, not a generator: this runs for every chain of a trace
        if name := _name(text, term):
            names.append(name)
    if header and not (names and has_letter(names[0])):
        pending = pending or header  # "the constant terms: -4 + 18 = 14", not "...: x = 6"
    if pointed and value and state.words and _WORD_VALUE.fullmatch(value[1]):
        pending = None  # "Therefore, it's an ellipse": the graph asked about, not the last term
    if pending:
        names.insert(0, pending)
    if not flags & {"question", "hypothesis", "condition"}:
        symbolic = [n for n in names if has_letter(n)]
        if value_at is not None and value and has_letter(value[1]):
            symbolic.append(_unbox(value[1]))
        if len(symbolic) > 1:
            state.aliases.append(tuple(symbolic))
    if value_at is None or value is None:
        return
    extra = set()
    before_value = [t for t in links if t.start < terms[value_at].start]
    if before_value and before_value[-1].what == "hedge":
        extra.add("option")  # "x could be 5", not "the cookies that can be selected is 28"
    rounded = next((t for t in links if t.what == "approx"), None)
    if rounded is not None:
        extra.add("approx")
    between = (state.folded or text)[terms[0].end : terms[value_at].start]
    negations = list((_NEGATION if state.folded is None else _NEGATION_FOLDED).finditer(between))
    if negations and not any(
        link.start > terms[0].end + negations[-1].end() and link.start < terms[value_at].start
        for link in links
    ):  # "the books are not next to each other is 480": the "not" is the subject's
        extra.add("negated")
    if subject and _PLURAL_SUBJECT.match(subject) and not _OPENING_BRACKET.match(value[1]):
        extra.add("option")
    if pending and _PLURAL_SUBJECT.match(pending) and not state.joins & {",", "\\pm"}:
        # "So, the solutions are:" then "\\[ r = 4 \\]", "\\[ r = 3.5 \\]": one of the roots
        # found, not yet the one chosen (unless the gold lists them all)
        extra.add("option")
    after = _subject(text, terms[-1]) if value_at < len(terms) - 1 else None
    before = len(state.claims)
    if condition is not None:
        extra.add("condition")
    if rounded is not None:
        _exact_before(text, state, terms, rounded, flags | extra, sentence, pending)
    _add(text, state, terms[: value_at + 1], value, flags | extra, sentence, pending, after)
    if condition is not None:
        for i in range(before, len(state.claims)):
            state.claims[i] = replace(state.claims[i], condition=condition)


def _exact_before(
    text: str,
    state: _State,
    terms: list[_Tok],
    rounded: _Tok,
    flags: frozenset[str],
    sentence: tuple[int, int],
    pending: str | None,
) -> None:
    """The exact value a chain reaches before it rounds ("A = 100 * (200/π) = 20000/π ≈
    6366.2"): a claim of its own, not approximate; the rounded one follows as before."""
    k = max((i for i, t in enumerate(terms) if t.end <= rounded.start), default=0)
    if k == 0:
        return  # "π ≈ 3.14": nothing is computed before the rounding
    exact = _value(text, terms[k], state.words)
    if exact:
        _add(text, state, terms[: k + 1], exact, flags - {"approx"}, sentence, pending, None)


#: The subject and value of an inverted question's term: "the profit $78" of "is the profit
#: $78?", "the answer 12" of "Is the answer 12?".
_INVERTED = re.compile(
    r"\s*(?P<name>(?:the|its|their)\s+[A-Za-z][A-Za-z' -]{0,60}?)\s+\$?"
    r"(?P<value>-?\d[\d,]*(?:\.\d+)?)\s*[?.]?\s*"
)


#: Adverbs before a value on the left of its link: "Comparing 1 and -1/3, clearly 1 is larger".
_VALUE_ADVERB = re.compile(r"(?i)\s*(?:clearly|obviously|certainly|definitely)\s+")


def _past_adverb(text: str, term: _Tok) -> _Tok:
    """``term`` less a leading adverb of :data:`_VALUE_ADVERB` (the term itself if none)."""
    adverb = _VALUE_ADVERB.match(text, term.start, term.end)
    if adverb is None or not term.pieces:
        return term
    first = (adverb.end(), *term.pieces[0][1:])
    return replace(term, start=adverb.end(), pieces=(first, *term.pieces[1:]))


def _in_words_only(text: str, term: _Tok) -> bool:
    """Whether a term is prose with no digit and nothing of a formula (:data:`_STATED`): alone
    in its clause and named by nothing before it, such a term states no claim (its value, if
    any, is no formula that is the whole term, and it mentions no number), which is what most
    clauses of a trace are ("Wait, let me think again")."""
    # ``map``, not a generator: most clauses of a trace come here
    return not _STATED.search(text, term.start, term.end) and not any(map(_IS_MATH, term.pieces))


_IS_MATH = itemgetter(2)  # of a term's piece ``(start, end, is_math)``


#: What a term alone in its clause needs to state a claim: a digit (a mention), or a formula
#: mark of :data:`_FORMULA_MARK` (a delimiter ``$`` or ``\\`` too, which the term loses).
_STATED = re.compile(r"[\d()\[\]+*/^√=\\$]|sqrt")


def _relative_subject(text: str, clause: list[_Tok]) -> tuple[list[_Tok], str | None]:
    """A subject whose relative clause has a copula of its own ("the remainder when $N$ is
    divided by 7 is 3", "the smallest $n$ for which the sum is a square is 17") as one term:
    the clause's first "is" (or "are") belongs to the relative clause, and the value to the
    link after it. A relative clause that sets something to a number ("the area when the side
    is 3 is 9") is the condition the value depends on, returned with the clause unchanged."""
    mark = None
    if (
        len(clause) >= 5
        and [t.kind for t in clause[:4]] == ["term", "link", "term", "link"]
        and text[clause[1].start : clause[1].end].strip().lower() in ("is", "are")
        and clause[3].what == "is"
    ):
        mark = _RELATIVE_MARK.search(text, clause[0].start, clause[0].end)
    if mark is None:
        return clause, None
    first, link, middle = clause[:3]
    if _PLAIN_NUMBER.fullmatch(text[middle.start : middle.end].strip(" $")):
        return clause, text[mark.end() : middle.end]
    pieces = (*first.pieces, (link.start, link.end, False), *middle.pieces)
    return [_Tok("term", first.start, middle.end, pieces=pieces), *clause[3:]], None


#: A relative clause inside a noun phrase: "the remainder when", "the number of $n$ for which",
#: "the largest value of a that satisfies the condition" (after a symbol, "that" starts a
#: relative clause; after a verb, "it seems that", a new subject).
_RELATIVE_MARK = re.compile(
    r"(?i)[\w)$]\s+(?:when|where|for\s+which|in\s+which|such\s+that)\s"
    r"|(?<![\w\\])[a-z]\s+that\s|(?<=\\)\)\s+that\s"
)


#: A header's noun phrase: one that opens with "the", or, without an article, with a word that
#: names a quantity ("the constant terms", "the sum of the digits", "Total subsets: 1 + 10 + 36
#: = 47", "Area of the triangle: ...", not "So we have:" or "Check:").
_HEADER_PHRASE = re.compile(
    r"(?i)(?:the\s+(?:[a-z][a-z-]*\s+){0,5}"
    r"|(?:total|sum|number|count|product|area|volume|perimeter|probability)\s+"
    r"(?:[a-z][a-z-]*\s+){0,4})[a-z][a-z-]*"
)


def _header(text: str, clause: Sequence[_Tok], sentence_start: int) -> str | None:
    """The noun phrase of a sentence that is only a header before a colon ("Finally, the
    constant terms: $-4 + 18 = 14$"): what an unnamed computation after it is the value of.
    Not the last part of a longer sentence ("we need to find the sum of A and B:")."""
    if len(clause) != 1 or clause[0].kind != "term" or clause[0].math:
        return None
    if _LEAD.sub("", text[sentence_start : clause[0].start]).strip():
        return None
    raw = _without_lead(text[clause[0].start : clause[0].end].strip())
    return _subject(text, clause[0]) if _HEADER_PHRASE.fullmatch(raw) else None


def _described(text: str, clause: Sequence[_Tok]) -> str | None:
    """The subject of a clause that says in words how its quantity is computed and then
    gives the computation after a colon ("the number of arrangements where ... is the total
    arrangements minus the restricted ones: 720 - 240 = 480"): what that computation is the
    value of."""
    terms = [t for t in clause if t.kind == "term"]
    if len(terms) < 2 or clause[0].kind != "term" or not any(t.kind == "link" for t in clause):
        return None
    subject = _subject(text, terms[0])
    raw = _without_lead(text[terms[0].start : terms[0].end].strip())
    whole = " ".join(_clean(_DELIMITERS.sub(" ", raw)).split())
    return subject if subject == whole else None  # not a subject cut from a longer phrase


@lru_cache(maxsize=_MEMO)
def has_letter(name: str) -> bool:
    """Whether a name or value has a letter of its own (``a_1``, ``g(6)``, "the radius"), not
    only numbers and commands (``10 - 3``, ``\\frac{1}{2}``): only those can alias each other,
    and only those name a quantity."""
    return bool(_LETTER.search(_COMMAND.sub("", name)))


_LETTER = re.compile(r"[A-Za-z]")
_COMMAND = re.compile(r"\\[A-Za-z]+")


def _merge_terms(clause: list[_Tok]) -> list[_Tok]:
    """Adjacent terms (a relative clause kept in its subject) as one term."""
    merged: list[_Tok] = []
    for tok in clause:
        if merged and tok.kind == "term" and merged[-1].kind == "term":
            last = merged[-1]
            pieces = (*last.pieces, *tok.pieces)
            merged[-1] = _Tok(
                "term", last.start, tok.end, pieces=pieces, math=last.math and tok.math
            )
        else:
            merged.append(tok)
    return merged


#: What is left of a counted unit, said after it: "3 slices left", "10 pots left over".
_LEFT_AFTER = re.compile(r"(?i)[ \t]+(left(?:[ \t]+over)?|remaining)\b")


def _left_after(text: str, at: int) -> str:
    """What is left of the unit that ends at ``at``, as a suffix of its name (" left", " left
    over", " remaining"), or "" when nothing is said."""
    rest = _LEFT_AFTER.match(text, at)
    return f" {' '.join(rest[1].lower().split())}" if rest else ""


#: The plural noun after a prose value, possibly after up to three adjectives ("3 distinct
#: ways", "8 possible integer values", "3 such two-digit prime numbers"), read whole.
_PLURAL_UNIT = re.compile(
    r"\s*((?:(?!(?:more|fewer|less|times|and|then|that|than|but|for)\b)[a-z][a-z-]{2,}(?<![s-])"
    r"\s+){0,3}[A-Za-z]{2,}s)\b"
)
#: A number with its unit in prose: "$10 more", "36 miles", "4 beakers", "5,600 pounds" (not
#: "600 pounds": the digits before a thousands comma are the number's). The leading lookahead
#: only restates that a match starts with "$", "-" or a digit: it dismisses the other positions
#: of a term at once, before the look-behind.
_MENTION = re.compile(
    r"(?=[$\d-])(?<![\w.$\\^_])(?<!\d,)(?P<dollar>\$)?"
    r"(?P<value>-?\d{1,3}(?:,\d{3})++(?:\.\d+)?|-?\d+(?:\.\d+)?(?:/\d+)?)(?![\w.]*\d)"
    r"\s*(?:(?P<adjective>(?!(?:more|fewer|less|times|and|then|that|than|but|for)\b)"
    r"[a-z]{3,}(?<!s))\s+(?=[A-Za-z]{2,}s\b))?"
    # one of a singular unit: "it will take them 1 hour" (not "a $1 discount": an amount)
    r"(?P<unit>[A-Za-z]{2,}s|more|fewer|less|(?<=(?<![\d.,/$])1 )[a-z]{3,}(?<!s))\b"
    r"(?:\s+(?P<next>[A-Za-z]{3,}))?"
)

_DIGIT = re.compile(r"\d")
#: What may follow "N times" that ends a clause, a count of times ("appears 3 times in total"),
#: not a product ("3 times 4").
_TIMES_ENDS = re.compile(r"(?i)\s*(?:(?:in\s+(?:total|all)|altogether|overall)\s*)?[.,;:!)]*\s*")


def _mentions(
    text: str, term: _Tok, flags: frozenset[str], sentence: tuple[int, int], state: _State
) -> None:
    """Numbers stated with their unit in a clause with no link ("So, Pam pays $10 more than
    Susan"): named by the unit ("number of more", "number of dollars"), to be compared with
    what the question counts ("How many more dollars ..."). A unit is a plural word or
    "more"/"fewer"/"less" ("4 beakers", "6 days"; not "4 again"), possibly after one adjective
    ("there are exactly 3 distinct ways": the number of ways)."""
    for start, end, is_math in term.pieces:
        if is_math:
            continue
        if not _DIGIT.search(text, start, end):  # a cheap scan: most clauses have none
            _counted_mentions(text, start, end, flags, sentence, state)
            continue
        for m in _MENTION.finditer(text, start, end):
            units = [
                u for u in (m.group("unit"), m.group("next")) if u and u.lower() not in _NOT_UNITS
            ]
            if m["unit"].lower() == "times" and _TIMES_ENDS.fullmatch(text, m.end("unit"), end):
                units = ["times"]  # "The digit 7 appears 3 times.": a count of times, no product
            units = (
                units[:1] if m.group("unit").lower() not in ("more", "fewer", "less") else units[:2]
            )
            if m.group("dollar"):
                units.append("dollars")
            if not units:
                continue
            units[0] += _left_after(text, m.end("unit"))  # "3 slices left over"
            state.claims.append(
                Claim(
                    start=m.start(),
                    end=m.end("value"),
                    value_start=m.start("value"),
                    value=m.group("value"),
                    names=tuple(f"number of {u}" for u in units),
                    lhs=None,
                    flags=flags | {"mention"},
                    sentence=sentence,
                )
            )


def _counted_then_listed(text: str, last: Claim, term: _Tok) -> bool:
    """Whether ``term`` follows a count (a claim named "number of ...") after a colon: the
    items counted, listed ("there are three distinct values: 1, 0, and -1")."""
    return (
        bool(last.names)
        and last.names[0].startswith("number of")
        and ":" in text[last.end : term.start]
    )


def _counted_mentions(
    text: str, start: int, end: int, flags: frozenset[str], sentence: tuple[int, int], state: _State
) -> None:
    """Counts in words with the plural noun they count, in a clause with no link ("the
    function takes three distinct values"), named by the noun as :func:`_mentions` names a
    number's unit ("number of values")."""
    at = bisect_left(state.counts, start)
    if at == len(state.counts) or state.counts[at] >= end:
        return
    for m in _COUNT_MENTION.finditer(text, start, end):
        unit = " ".join(m.group("unit").split())  # with its adjectives: "distinct values"
        if unit.rsplit(" ", 1)[-1].lower() in _NOT_UNITS:
            continue
        state.claims.append(
            Claim(
                start=m.start("count"),
                end=m.end("count"),
                value_start=m.start("count"),
                value=COUNT_WORDS[m.group("count").lower()],
                names=(f"number of {unit}",),
                lhs=None,
                flags=flags | {"mention"},
                sentence=sentence,
            )
        )


def _whole_value(text: str, term: _Tok, value: str, bare: bool = False) -> bool:
    """A term that is nothing but a value: a prose line that is a formula (``sqrt(117)``,
    ``(8, -10, 4)``, written out as a display would be; a bare number only when ``bare``, as
    a list item after a claim), or a math term."""
    raw = _without_trailing(_DELIMITERS.sub("", text[term.start : term.end]).strip()).strip()
    if raw != value:
        return False
    return bare or term.math or bool(_FORMULA_MARK.search(value))


_FORMULA_MARK = re.compile(r"[()\[\]+*/^√=⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁽⁾]|sqrt|\\")
#: Nothing but math delimiters (``\\[``, ``\\]``, ``\\(``, ``\\)``, ``$``) and stops (spaces,
#: ``.,;:``), as a fullmatch: it stops at the first other character, where removing them all
#: and testing what is left reads the whole sentence (``tests/test_locate_speed.py``).
_DELIMITERS_AND_STOPS = re.compile(r"(?:[\s.,;:$]|\\[\[\]()])*")


def _alone(text: str, term: _Tok, sentence: tuple[int, int]) -> bool:
    """A math term that is its whole sentence (``\\[ 2k + 2 \\]`` on its own lines)."""
    outside = text[sentence[0] : term.start] + text[term.end : sentence[1]]
    return bool(_DELIMITERS_AND_STOPS.fullmatch(outside))


#: A plain-text left-hand side: ``y``, ``a_1``, ``f(x)``.
_PLAIN_LHS = re.compile(r"[A-Za-z](?:_\{?\w+\}?)?|[A-Za-z]\([^()]*\)")


def _add(
    text: str,
    state: _State,
    terms: list[_Tok],
    value: tuple[int, str, str | None],
    flags: set[str] | frozenset[str],
    sentence: tuple[int, int],
    carried: str | None,
    after: str | None,
) -> None:
    value_start, value_text, unit = value
    value_tok = terms[-1]
    first = _subject(text, terms[0]) if len(terms) > 1 else None
    names: list[str] = [carried] if carried else []
    if first:
        names.append(first)
    for term in terms[1:-1]:
        if name := _name(text, term):
            names.append(name)
    if after:
        names.append(after)
    noun = unit.split()[-1] if unit else None
    if unit and noun and noun.lower() not in _NOT_UNITS:
        # "3 slices left", "3 slices remaining": what is left of them, said after the unit
        at = text.find(noun, value_start)
        left = _left_after(text, at + len(noun)) if at >= 0 else ""
        names.append(f"number of {noun}{left}")  # "11 integers": the number of integers
        if unit != noun:  # "3 such two-digit prime numbers": a number of two-digit primes
            names.append(f"number of {unit}")
    lhs = None
    if len(terms) > 1:
        lhs = _name(text, terms[0]) if terms[0].math else _math_tail(text, terms[0])
        if lhs is None and first and _PLAIN_LHS.fullmatch(first):
            lhs = first  # a plain-text left-hand side: "y = 4*((x + 1)/2) + 1 = ..."
    # "\log_2{8} is the exponent to which 2 must be raised to get 8": what follows a name
    # that opens a relative clause is the clause's, not a value of the names before it; so is
    # what follows a value that a verb goes on from ("x = 3 satisfies the original equation
    # \\sqrt{3x-5} = 2": 2 is no value of x)
    relative = next((k for k in range(1, len(names)) if _OPENS_CLAUSE.search(names[k])), None)
    if relative is not None:
        names, lhs = names[relative + 1 :], None
    start = value_tok.start
    if len(terms) > 1:
        head = text.find(first, terms[0].start, terms[0].end) if first else -1
        start = head if head >= 0 else terms[0].start
    # the box must be the value's: "the parabola $x = y^2 - 4y - 1$ has $\\boxed{2}$ points"
    # states y^2 - 4y - 1 of x, unboxed (the box is a claim of its own, :func:`_loose_boxes`)
    boxed = _BOXED.search(text, value_tok.start, value_tok.end)
    if boxed and "\\boxed" not in value_text and "\\fbox" not in value_text:
        boxed = None
    cleaned = _unbox(value_text)
    cleaned = _BARE_COUNTS.get(cleaned.lower(), cleaned)  # "two y-intercepts": 2
    written = _WORD_VALUE.fullmatch(value_text)  # "an ellipse", read as \\text{ellipse}
    if written and not text.startswith(value_text, value_start):
        end = value_start + len(written.group(1))
    elif "\\sqrt" in value_text and (root := _SPOKEN_ROOT.match(text, value_start)):
        end = root.end()  # "the square root of 117", quoted whole
    else:
        end = value_tok.end if boxed else value_start + len(value_text)
    if start >= end:  # a reversed chain ("30 degrees is the smallest angle"): quote it whole
        start, end = value_start, max(t.end for t in terms)
    start, end = _widen(text, start, end)
    state.subject = names[0] if names else state.subject
    state.claims.append(
        Claim(
            start=start,
            end=end,
            value_start=value_start,
            value=cleaned,
            names=tuple(names),
            lhs=lhs,
            flags=frozenset(
                flags
                | ({"boxed"} if boxed else set())
                | ({"hypothesis"} if first and _TRIED.match(first) else set())
                | ({"intermediate"} if any(map(_REMARK_OPENED.search, names)) else set())
            ),
            sentence=sentence,
            prev=_name(text, terms[-2]) if len(terms) > 1 else None,
        )
    )


#: A name that ends inside a remark in brackets on the value before it ("3^4 = 81 (units digit
#: is 1)": the units digit of 81, not yet of what is asked).
_REMARK_OPENED = re.compile(r"\d\s*+\(\s*+[A-Za-z][A-Za-z ]*+$")
#: A variable the sentence sets to a value to try it ("But now, setting \(k = 1\), I have:",
#: "taking x = 2"): a hypothesis, whatever the value.
_TRIED = re.compile(
    r"(?i)(?:setting|letting|taking|putting|choosing|trying|plugging\s+in)\s+"
    r"(?:\\\(|\$)?\s*[A-Za-z](?:_\{?\w+\}?)?\s*(?:\\\)|\$)?\s*$"
)


_OPENING_DELIMITER = re.compile(r"(?:\\\(|\\\[|\$\$?)\s*$")
_CLOSING_DELIMITER = re.compile(r"\s*(?:\\\)|\\\]|\$\$?)")


def _widen(text: str, start: int, end: int) -> tuple[int, int]:
    """A quote that begins or ends just inside a math span takes the delimiter with it
    (``\\(x = 3\\)``, ``$0.75$``), so it reads as the model wrote it."""
    opening = _OPENING_DELIMITER.search(text[max(0, start - 3) : start])
    if opening:
        start -= len(opening.group())
    closing = _CLOSING_DELIMITER.match(text[end : end + 4])
    if closing:
        end += len(closing.group())
    return start, end


def _unbox(value: str) -> str:
    """``\\boxed{X}`` (anywhere in the value) -> ``X``."""
    m = _BOXED.search(value)
    if not m:
        return value
    depth, i = 1, m.end()
    while i < len(value) and depth:
        depth += {"{": 1, "}": -1}.get(value[i], 0)
        i += 1
    return _clean(value[m.end() : i - 1]) if depth == 0 else value


def _value(
    text: str, term: _Tok, words: frozenset[str] = frozenset()
) -> tuple[int, str, str | None] | None:
    """The value a term states, as ``(start, text, unit)``, or None when it states none.

    A term that starts with math states that math, less units, a modulus and trailing
    punctuation; a prose term states its leading run of value-like words ("36 miles" -> "36",
    "4005." -> "4005"), which ends at the first plain word, so a value never runs past its
    clause. The word after a prose value is its unit ("11 integers": "integers")."""
    start, end, is_math = term.pieces[0]
    if not is_math and (typed := _TYPED.match(text, start, end)):
        # "Which corresponds to the complex number -2 + 7i", "the fraction \\(3/4\\)": a value
        # after the kind of thing it is
        if typed.end() < end:
            start = typed.end()
        elif len(term.pieces) > 1 and _DELIMITERS_AND_STOPS.fullmatch(
            text, term.pieces[1][1], term.end
        ):  # the math ends the term: "the number $n$ of ways" is no value n
            start, end, is_math = term.pieces[1]
    if not is_math and (total := _A_TOTAL_OF.match(text, start, end)):
        start = total.end()  # "That's a total of 6 intervals where P(x) is positive."
    after = text[end : term.pieces[1][1]] if is_math and len(term.pieces) > 1 else None
    # "there is exactly one ordered pair (a, b) that ...": a count of one, of what it names
    if (
        not is_math
        and _THERE_IS.search(text, max(0, start - 24), start)
        and (one := _ONE_COUNTED.match(text, start, end))
    ):
        return one.start("count"), "one", one.group("unit")
    found = _value_of(text[start:end], is_math, after, words)
    return None if found is None else (start + found[0], found[1], found[2])


#: The kind of thing a value is, before it: "the complex number", "the ordered pair", "a
#: fraction" (its adjectives from a short list, so "the first 10 terms" is no kind).
_TYPED = re.compile(
    # where a point is, in math: "the midpoint is at the coordinates $(-1, 6)$", "is at $(2,
    # 3)$" (not "Oliver is at 3,000 feet", a position)
    r"(?i)\s*(?:(?:located\s+)?at\s*\Z|(?:(?:located\s+)?at\s+)?"
    r"(?:the|an?)\s+(?:(?:resulting|final|simplified|complex|ordered|real|whole|positive"
    r"|negative|common|mixed|improper|rational|irrational|exact|octal|binary|hexadecimal)\s+){0,2}"
    r"(?:number|fraction|point"
    r"|vector|integer|expression|pair|triple|interval|matrix|decimal|polynomial|coordinates)"
    r"(?:\s+(?=[-−(\[\d$\\√])|\s*\Z))"
)
#: A count's "a total of" before its number ("a total of 6 intervals": 6 intervals; "a total of
#: $18"), and an amount's kind before it ("equals a net profit of $20.00", "gives an annual
#: salary of $57,500", "resulting in a final count of 17"). The kinds are results of a
#: computation; relations ("a multiple of 3", "a factor of 12") and kinds whose number is no
#: whole value ("a probability of 3 out of 6") are not among them.
_A_TOTAL_OF = re.compile(
    r"(?i)\s*(?:(?:a|the)\s+total|an?\s+(?:(?:net|gross|final|combined|total|annual|monthly|remaining"
    r"|weekly|daily|average|overall|new)\s+){0,2}"
    r"(?:profit|loss|cost|amount|difference|change|balance|saving|gain|price|total|subtotal|sum"
    r"|salary|income|revenue|payment|expenditure|value|weight|distance|volume|area|perimeter"
    r"|count|temperature|speed|increase|decrease|interest|discount|capacity)s?)\s+of\s+(?=\\?\$?\d)"
)
#: An existence stated with a count: "there is", "there exists", "there's".
_THERE_IS = re.compile(r"(?i)\bthere(?:\s+(?:is|exists)|'s)\s+(?:(?:exactly|only|just)\s+)?$")
_NOT_NOUN = (
    r"(?:more|of|and|or|other|another|thing|that|which|who|whose|where|when|with|in|on|for|to"
    r"|from|such|satisf\w*|is|are|was|left)\b"
)
#: One of a singular noun, with up to two adjectives: "exactly one ordered pair".
_ONE_COUNTED = re.compile(
    r"(?i)\s*(?:(?:exactly|only|just)\s+)?(?P<count>one)\s+"
    rf"(?P<unit>(?:(?!{_NOT_NOUN})[a-z][a-z-]{{2,}}\s+){{0,2}}(?!{_NOT_NOUN})[a-z][a-z-]{{2,}})\b"
)


@lru_cache(maxsize=_MEMO)
def _value_of(
    raw: str, is_math: bool, after: str | None, words: frozenset[str]
) -> tuple[int, str, str | None] | None:
    """:func:`_value` of a term's first piece ``raw`` (``after``: the text from its end to the
    end of the next piece, for a math piece), the start relative to ``raw``."""
    if is_math:
        value = _clean(raw)
        if not value or not _looks_like_value(value):
            return None
        # "$12$ pairs"
        unit = _MATH_UNIT.match(after) if after is not None else None
        return max(raw.find(value), 0), value, unit.group(1) if unit else None
    named = _NAMED_WORD.match(raw) if words else None
    if named and named.group(1).lower() in words:  # "an ellipse" when the gold is a word
        return named.start(1), f"\\text{{{named.group(1)}}}", None
    counted = _COUNT_WORD.match(raw)
    if counted:  # "two y-intercepts": a count in words, with the plural noun it counts
        return counted.start("count"), counted.group("count"), counted.group("unit")
    bare = _BARE_COUNT.fullmatch(raw)
    if bare:  # "... is one.": a count in words with nothing after it
        return bare.start("count"), bare.group("count"), None
    root = _SPOKEN_ROOT.match(raw)
    if root:  # "the distance is the square root of 117": a radical in words
        return root.start(), f"{root['factor'] or ''}\\sqrt{{{root['radicand']}}}", None
    if article := _ARTICLE_BEFORE_NUMBER.match(raw):  # "equals a 10% increase": not a * 10%
        raw = " " * article.end() + raw[article.end() :]
    kept_end = None
    open_operator: str | bool = False  # "2 times" ends in an operator: not yet a value
    for w in _NON_SPACE.finditer(raw):  # lazily: the run ends soon
        core = w.group().strip(".,;:?").rstrip("!") or w.group()
        value_word = _VALUE_WORD.match(core)
        is_value = bool(value_word or _VALUE_CHARS.search(core))
        if core.lower() in _OPERATOR_WORDS and kept_end is not None:
            if core.lower() in ("squared", "cubed"):
                kept_end = w.end()
            elif core.lower() == "times" and not raw[w.end() :].strip():
                break  # "it rang 22 times": a count of times that ends the term, no product
            else:
                open_operator = core.lower()
            continue
        if not value_word and _PLAIN_WORD.fullmatch(core):
            is_value = False
        if kept_end is not None and _POWER_UNIT.fullmatch(core):
            break  # "864 in^2", "288 cm³": a unit, not a power of a variable
        # the word after a lone letter, looked up only then (most runs end at their first word)
        if len(core) == 1 and core.isalpha() and (ahead := _NON_SPACE.search(raw, w.end())):
            following = ahead.group().strip(".,;:!?")
            if _PLAIN_WORD.fullmatch(following) and not _VALUE_WORD.match(following):
                is_value = False  # "a total of 11", "I think"
        if not is_value:
            if open_operator == "over":
                open_operator = False  # "$9,500 over her budget": a preposition, no division
            break
        kept_end, open_operator = w.end(), False
    if kept_end is None or open_operator or _OPERATED_AFTER_UNIT.match(raw, kept_end):
        return None  # ("x = 96 cm / 8": the value is still to be computed)
    value = _clean(raw[:kept_end])
    if not value or not _looks_like_value(value):
        return None
    if any(w in _OPERATOR_WORDS for w in value.lower().split()):
        value = _spoken_operators(value)
    # a plural noun with its adjectives: "36 miles", "3 distinct ways"
    unit = _PLURAL_UNIT.match(raw, kept_end)
    at = raw.find(value)
    return max(at, 0), value, " ".join(unit.group(1).split()) if unit else None


#: A name that opens a relative clause with a preposition ("the exponent to which 2"), or a
#: value a verb goes on from ("3 satisfies the original equation").
_OPENS_CLAUSE = re.compile(
    r"(?i)\b(?:to|for|in|at|by|on|from|with)\s+which\b"
    r"|^\s*-?\d[\d.,/]*\s+(?:satisf(?:y|ies)|works|holds|checks\s+out)\b"
)
#: A unit after a value, and an operation on both: "96 cm / 8" (not "12 cm/s").
_OPERATED_AFTER_UNIT = re.compile(
    r"\s*[A-Za-z]{1,12}\.?\s*(?:[*/×÷]|\\times|\\div|[-+](?=\s))\s*\d"  # ("remains -2": a sign)
)
#: "a" before a number and the word it qualifies: "a 10% increase", "a 25 cent coin".
_ARTICLE_BEFORE_NUMBER = re.compile(r"(?i)\s*a\s+(?=\$?\d[\d,.]*%?\s)")
#: A square root in words, of a number, with a factor before it or not: "the square root of
#: 117", "3 times the square root of 13" (not "the square root of 117 divided by 3").
_SPOKEN_ROOT = re.compile(
    r"(?i)\s*(?:(?P<factor>\d+)\s+(?:times\s+)?)?(?:the\s+)?(?:positive\s+)?square\s+root\s+of\s+"
    r"(?P<radicand>\d+(?:\.\d+)?)(?![\d.]*\d|[\w(^])(?!\s*(?:[-+*/^×÷]|times|plus|minus|divided|over)\b)"
)
#: A word value, after its article and a "form of" that only says what it is the form of:
#: "an ellipse", "the standard form of an ellipse", "the equation of a hyperbola".
_NAMED_WORD = re.compile(
    r"(?i)\s*(?:(?:a|an|the)\s+)?(?:(?:(?:standard|general)\s+)?(?:form|equation|graph)\s+of"
    r"\s+(?:a|an|the)\s+)?([A-Za-z][A-Za-z-]*)"
)
_WORD_VALUE = re.compile(r"\\text\{([A-Za-z][A-Za-z-]*)\}")
#: Counts in words, as models write small counts ("there are two y-intercepts", "exactly
#: three ways"); "one" is left out, a pronoun and an article as often as a count.
_COUNTS = (
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
)  # fmt: skip
COUNT_WORDS = {w: str(n) for n, w in enumerate(_COUNTS, start=2)}
#: A count in words that is the whole value, "one" too: "the number of ordered pairs is one.",
#: "the minimum number of turns is four." (not "one of them", "one solution").
_BARE_COUNT = re.compile(
    r"(?i)\s*(?:(?:exactly|only|just)\s+)?(?P<count>one|" + "|".join(COUNT_WORDS) + r")[.!;]?\s*"
)
_BARE_COUNTS = {"one": "1", **COUNT_WORDS}
#: A count in words and the plural noun it counts, with up to two adjectives ("six times" only
#: where the clause ends: "six times Sam's age" is a product).
_COUNT_WORD = re.compile(
    r"(?i)\s*(?:(?:exactly|only|just)\s+)?(?P<count>" + "|".join(COUNT_WORDS) + r")\s+"
    r"(?P<unit>(?:(?!(?:more|fewer|less|times|of|and|or)\b)[a-z][a-z-]{2,}(?<![s-])\s+){0,2}"
    r"(?:[A-Za-z]-)?(?!times\b(?!\s*(?:[.,;:!?)]|$)))[A-Za-z]{2,}s)\b"
)
#: A count in words (:func:`_counted_mentions`); the lookahead only restates the first
#: letters, which dismisses most positions at once.
_COUNT_AT = re.compile(r"(?i)(?=[efnst])(?<![a-z])(?:" + "|".join(COUNT_WORDS) + r")\b")
_COUNT_AT_FOLDED = _twin(_COUNT_AT)
#: ... after a verb that asserts it ("takes three distinct values", "there are two
#: solutions"; not "the angle between two lines").
_COUNT_MENTION = re.compile(
    r"\b(?:are|is|has|have|had|takes?|took|gives?|gave|gets?|got|yields?|exists?|makes?)\s+"
    + _COUNT_WORD.pattern.removeprefix(r"(?i)\s*"),
    re.I,
)
#: A plural noun after a math value: "$12$ pairs".
_MATH_UNIT = re.compile(r"[\s)$\\]*([A-Za-z]{2,}s)\b")
_NON_SPACE = re.compile(r"\S+")
_PLAIN_WORD = re.compile(r"[A-Za-z]{2,}")


@lru_cache(maxsize=_MEMO)
def _clean(value: str) -> str:
    """A value or name without delimiters, trailing punctuation, a modulus (``\\pmod{11}``) or
    a unit after it (``16\\text{ cm}``; a ``\\text{..}`` that is the whole value stays).

    Each pattern runs only when the value holds what every match of it holds (a backslash or a
    dollar, "mod"): most values hold none, and this is the locator's most frequent reading."""
    value = value.strip()
    if "\\" in value or "$" in value:
        for pattern in _OUTER_DELIMITERS:
            value = pattern.sub("", value).strip()
    value = _without_trailing(value)
    for _ in range(2):
        if "mod" in value:
            value = _MODULUS.sub("", value)
        if "\\" in value:
            without_unit = _without_unit(value)
            value = without_unit if without_unit.strip() else value
        value = _without_trailing(value).strip()
    if value.startswith("\\"):
        value = _LEADING_SPACING.sub("", value)
    return value.strip()


#: Up to this length a value's unit and trailing punctuation are cut by their patterns (quick
#: on short values); a longer one, which may hold a long run of spaces, from which the
#: patterns take quadratic time (40,000 spaces before a final "2.": 30 s), in linear time.
_SHORT_VALUE = 256


def _without_unit(value: str) -> str:
    """What ``_UNIT.sub("", value)`` leaves (see :data:`_SHORT_VALUE`)."""
    return _UNIT.sub("", value) if len(value) <= _SHORT_VALUE else _unit_cut(value)


def _unit_cut(value: str) -> str:
    """What ``_UNIT.sub("", value)`` leaves, in linear time: the pattern's leftmost match
    starts in the spaces before the first backslash from which a unit runs to the end, and
    runs to the end."""
    at = value.find("\\")
    while at >= 0:
        if _UNIT_FROM.match(value, at):
            return value[:at].rstrip()  # rstrip's whitespace is the pattern's \\s
        at = value.find("\\", at + 1)
    return value


def _without_trailing(value: str) -> str:
    """``value`` less its trailing punctuation: what ``_TRAILING.sub("", value)`` leaves (see
    :data:`_SHORT_VALUE`). Most values end in none: the pattern runs only after one of the
    characters its match ends with (or a line break, before which its ``$`` also matches)."""
    if not (value[-1:] in ".,;:?!\n" or value.endswith("quad")):
        return value
    if len(value) <= _SHORT_VALUE or value.endswith("\n"):
        return _TRAILING.sub("", value)
    return _trailing_cut(value)


def _trailing_cut(value: str) -> str:
    """What ``_TRAILING.sub("", value)`` leaves, read from the end in linear time, for a value
    that does not end in a line break. The units are taken longest first ("\\." before "."),
    which never stops short of where the pattern's leftmost match starts: no unit ends in a
    backslash."""
    cut = len(value)
    while unit := _trailing_unit(value, cut):
        cut -= unit
        while cut and value[cut - 1].isspace():
            cut -= 1
    return value[:cut]


def _trailing_unit(value: str, end: int) -> int:
    """The length of the :data:`_TRAILING` unit that ends at ``end``, or 0."""
    for unit in ("\\qquad", "\\quad", "\\,", "\\;", "\\!", "\\."):
        if value.endswith(unit, 0, end):
            return len(unit)
    last = value[end - 1 : end]
    if last and last in ".,;:?":
        return 1
    if last == "!" and (end < 2 or not (value[end - 2] in ")!" or value[end - 2].isdecimal())):
        return 1  # not a factorial's "!" (after a digit, a bracket or another "!")
    return 0


_OUTER_DELIMITERS = tuple(map(re.compile, (r"^\\\[|\\\]$", r"^\\\(|\\\)$", r"^\$+|\$+$")))
_LEADING_SPACING = re.compile(r"^\\(?:displaystyle|quad)\s*")


def _looks_like_value(value: str) -> bool:
    """A value has a digit, a constant, a bracketed tuple/matrix, or is a short expression; a
    lone word or a sentence fragment is not one, nor is a term cut before its operand
    (``2 \\cdot`` of ``2 \\cdot \\text{adjacent}``, where the words end the math chain)."""
    if len(value) > 200 or not value or _DANGLING.search(value):
        return False
    if _VALUE_MARK.search(value):
        return True
    letters = _COMMAND_OR_NON_LETTER.sub(" ", value).split()
    return bool(letters) and all(len(w) <= 2 for w in letters) and len(value) <= 40


_VALUE_MARK = re.compile(r"[\d√π∞]|\\(?:pi|infty|sqrt|frac|begin|text)|\binfty\b")
_COMMAND_OR_NON_LETTER = re.compile(r"\\[A-Za-z]+|[^A-Za-z]")
_DANGLING = re.compile(r"(?:[-+*/×·÷]|\\cdot|\\times|\\div)\s*$")

#: Math delimiters left in a name that mixes prose and math.
_DELIMITERS = re.compile(r"\\[()\[\]]|\$")


def _subject(text: str, term: _Tok) -> str | None:
    """The name a chain's first term gives: its noun phrase without discourse words before it
    ("So, it seems that the maximum value" -> "the maximum value")."""
    if term.subject is None:
        term.subject = (_subject_of(text[term.start : term.end], term.math),)
    return term.subject[0]


@lru_cache(maxsize=_MEMO)
def _subject_of(raw: str, math: bool) -> str | None:
    if math:
        return _clean(raw) or None
    folded = _folded(raw)  # the twin: ten times faster on this backtracking pattern
    # not inside a relative clause ("the remainder when N is divided by 7"): its "when" or
    # "that" starts no new subject
    mark = _RELATIVE_MARK.search(raw)
    head = mark.start() + 1 if mark and _LEAD.sub("", raw[: mark.start() + 1]).strip() else len(raw)
    pattern, subject = (_SUBJECT_CUT, raw) if folded is None else (_SUBJECT_CUT_FOLDED, folded)
    cut = pattern.match(subject, 0, head)
    if head < len(raw) and cut and not raw[cut.end() : head].strip():
        cut = pattern.match(subject)  # "that when x is 2, ...": no noun before the clause
    if cut and not _WORD_CHAR.search(raw, cut.end()):
        cut = None
    rest = raw[cut.end() :] if cut else raw
    rest = _clean(_DELIMITERS.sub(" ", _without_lead(rest.strip())).strip())
    rest = " ".join(rest.split())
    rest = _arithmetic(rest)  # "550 divided by 4", "plus 5": arithmetic, not a name
    if asks := _ASKS_FOR.match(rest):  # "the question asks for a + b, which is 4"
        rest = rest[asks.end() :]
    if not rest or _PRONOUN.match(rest):
        return None
    if (at := _AT_VARIABLE.search(rest)) and not _AGGREGATE.match(rest):
        return at.group(1)  # "the minimum ... will occur at x" = 15: x is 15; "the product of
        # the solutions for x is 1" is the product's
    return rest


#: The question said to ask for what follows: "the problem asks for", "the question wants".
_ASKS_FOR = re.compile(
    r"(?i)the\s+(?:problem|question)\s+(?:asks|is\s+asking|wants)\s+(?:for\s+|us\s+to\s+find\s+)?"
)


def _without_lead(raw: str) -> str:
    """``raw`` without the discourse words and punctuation before its subject, less a bracket
    or bar its subject closes ("Therefore, |(1 - i)^8|" -> "|(1 - i)^8|", not "1 - i)^8|")."""
    rest = _LEAD.sub("", raw)
    if (
        rest.count(")") > rest.count("(")
        or rest.count("]") > rest.count("[")
        or rest.count("|") % 2
    ):
        gone = _OPENING_RUN.search(raw, 0, len(raw) - len(rest))
        if gone:
            rest = gone.group(1) + rest
            if _wrapped(rest):
                return rest[1:-1]  # "So (a + b) = 5": the brackets only wrap the name
    return rest


def _wrapped(name: str) -> bool:
    """Whether one pair of round brackets holds the whole of ``name``: ``(a + b)``, not
    ``(8/9) * (2/3)``."""
    if not (name.startswith("(") and name.endswith(")")):
        return False
    depth = 0
    for i, ch in enumerate(name):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            return i == len(name) - 1
    return False


_WORD_CHAR = re.compile(r"\w")
_OPENING_RUN = re.compile(r"([(\[|]+)\s*$")


#: A subject that ends in a variable after "at"/"when"/"for": the chain's "=" gives the
#: variable's value ("the minimum value of f(x) will occur at x = 15"), not the noun's.
_AT_VARIABLE = re.compile(r"\b(?:at|when|for|where)\s+([a-zA-Z](?:_\{?\w+\}?)?)\s*$")
_AGGREGATE = re.compile(r"(?i)(?:the\s+)?(?:product|sum|number|count|average|mean|total)\s+of\s")


def _name(text: str, term: _Tok) -> str | None:
    if term.name is None:
        term.name = (_name_of(text[term.start : term.end], term.math),)
    return term.name[0]


@lru_cache(maxsize=_MEMO)
def spoken_root(name: str) -> str | None:
    """A name that says a square root of a number in words, as math ("the square root of
    1.5625": ``\\sqrt{1.5625}``), or None."""
    root = _SPOKEN_ROOT.fullmatch(name)
    return f"\\sqrt{{{root['radicand']}}}" if root and not root["factor"] else None


@lru_cache(maxsize=_MEMO)
def _name_of(raw: str, math: bool) -> str | None:
    if math:
        return _clean(raw) or None
    name = " ".join(_clean(_DELIMITERS.sub(" ", raw)).split())
    if asks := _ASKS_FOR.match(name):  # "Since the problem asks for the smallest angle, that
        name = name[asks.end() :]  # would be 30°": the smallest angle is 30°
    return _arithmetic(name) or None


def _arithmetic(name: str) -> str:
    """A prose name that is arithmetic in words, as math: operator words as symbols ("550
    divided by 4": ``550 / 4``), a gerund's operation on two numbers ("Adding 2 to 16":
    ``2 + 16``; "Subtracting 80 from 400": ``400 - 80``) and numbers with remarks in brackets
    ("200 (goal) minus 174 (earned)": ``200 - 174``, "24 (invited) - 10 (couldn't attend)").
    Such a chain names no quantity of its own: only its numbers. Any other name is kept as
    written, its brackets too ("the number of apples (red ones)")."""
    spoken = _spoken_operators(name) if _SPOKEN.search(name) else name
    bare = " ".join(_PROSE_REMARK.sub(" ", name).split()) if "(" in name else name
    if gerund := _GERUND.fullmatch(bare):
        bare = _gerund_formula(gerund) or bare
    elif bare is name:
        return spoken  # no remark to drop, no gerund: the operator words alone
    elif _SPOKEN.search(bare):
        bare = _spoken_operators(bare)
    return spoken if has_letter(bare) else bare


def _gerund_formula(gerund: re.Match[str]) -> str | None:
    """The formula of a gerund's operation (:data:`_GERUND`), or None ("subtracting 2 and 3"
    says no order)."""
    first, second = gerund["first"], gerund["second"]
    if gerund["operation"].lower() == "subtracting":
        return f"{second} - {first}" if gerund["joint"].lower() == "from" else None
    symbol = {"adding": "+", "multiplying": "*", "dividing": "/"}[gerund["operation"].lower()]
    return f"{first} {symbol} {second}"


#: A remark in words in brackets on a number of a chain: "(goal)", "(couldn't attend)".
_PROSE_REMARK = re.compile(r"(?<=\d)\s*+\(\s*+[a-z][a-z'’]++(?:\s++[a-z'’]++)*+\s*+\)")
#: An operation in a gerund on two numbers: "Adding 2 to 16", "Dividing 56 by 8".
_NUMBER_WORD = r"-?\d[\d,]*+(?:\.\d+)?+"
_GERUND = re.compile(
    rf"(?i)(?P<operation>adding|subtracting|multiplying|dividing)\s+(?P<first>{_NUMBER_WORD})"
    rf"\s+(?P<joint>to|from|by|and)\s+(?P<second>{_NUMBER_WORD})"
)


def _math_tail(text: str, term: _Tok) -> str | None:
    """The math that ends a mixed first term ("the sum of the roots \\(a + b + c\\)")."""
    start, end, is_math = term.pieces[-1]
    if is_math and len(term.pieces) > 1:
        return _clean(text[start:end]) or None
    return None
