"""Solution sets stated as inequalities, read as the intervals they describe.

Models often reach an interval answer in words or inequalities long before they write it in
interval notation: "0 < x < 36, excluding x = 9", "x < 2 or x > 3", "p is greater than 3/5 and
less than or equal to 8/3", "-sqrt(3) < x < sqrt(3)". :func:`interval_statements` turns such a
sentence into the interval it states (``(0, 9) \\cup (9, 36)``), so it can be graded against an
interval gold like any other value. Only whole statements about one variable are read: two
bounds of a double inequality, one-sided bounds joined by "or", or one bound alone ("which
implies x > 5", "all real numbers less than or equal to 0": a ray, the solution set when the
gold is one); exclusions split the result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

#: A bound: a number, a fraction, a root, or infinity.
_BOUND = (
    r"-?\s*(?:\\[dt]?frac\s*\{[^{}]+\}\s*\{[^{}]+\}|\\sqrt\s*\{[^{}]+\}|sqrt\(\d+\)|√\d+"
    r"|\d+(?:\.\d+)?(?:\s*/\s*\d+)?|\\infty|∞)"
)
_LESS = r"(?:<|≤|\\leq?|\\lt|\\le)"
_MORE = r"(?:>|≥|\\geq?|\\gt|\\ge)"
_VAR = r"(?P<var>[a-z])"
_DOUBLE = re.compile(
    rf"(?P<lo>{_BOUND})\s*(?P<lop>{_LESS})\s*{_VAR}\s*(?P<hop>{_LESS})\s*(?P<hi>{_BOUND})"
)
_SIDES_OR = re.compile(
    rf"(?<![\w\\])(?P<var>[a-z])\s*(?P<op>{_LESS}|{_MORE})\s*(?P<b>{_BOUND})\s*,?\s*or\s+"
    rf"(?P<svar>[a-z])\s*(?P<sop>{_LESS}|{_MORE})\s*(?P<sb>{_BOUND})"
)
_WORDS = re.compile(
    rf"(?P<var>[a-z])\s+(?:is|must\s+be)\s+greater\s+than\s+(?P<lq>or\s+equal\s+to\s+)?(?P<lo>{_BOUND})"
    rf"\s+and\s+less\s+than\s+(?P<hq>or\s+equal\s+to\s+)?(?P<hi>{_BOUND})"
)
#: One bound on a variable standing alone ("which implies x > 5"), not a side of a double
#: inequality or of an "or", and its prose form ("all real numbers less than or equal to 0").
_ONE_SIDE = re.compile(
    rf"(?<![\w\\<>≤≥=.])(?P<var>[a-z])\s*(?P<op>{_LESS}|{_MORE})\s*(?P<b>{_BOUND})"
    rf"(?!\w|\.\d|\s*(?:{_LESS}|{_MORE}|=|,?\s*or\b|,?\s*and\b))"
)
_JOINED = re.compile(rf"(?:\bor|\band|{_LESS}|{_MORE}|(?:{_LESS}|{_MORE})[^,;<>]*,)\s*$")
_ONE_SIDE_WORDS = re.compile(
    rf"\ball\s+(?:real\s+)?(?:numbers|values)\s+(?:that\s+are\s+)?(?P<dir>greater|less|more"
    rf"|larger|smaller)\s+than\s+(?P<eq>or\s+equal\s+to\s+)?(?P<b>{_BOUND})(?!\s*(?:and|or)\b)"
)
_EXCLUDED = re.compile(
    rf"\s*,?\s*(?:excluding|except(?:\s+for)?|but\s+not|other\s+than|and\s+not)\s+(?:at\s+)?"
    rf"(?:[a-z]\s*=\s*)?(?P<first>{_BOUND})(?P<rest>(?:\s*(?:,|and|or)\s*(?:[a-z]\s*=\s*)?{_BOUND})*)"
)
_DELIMITERS = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$")
#: An interval written out in a sentence: "for x in the interval [-2, 7]", "so λ ∈ (3,4]", "the
#: intervals are (0, 9) union (9, 36)".
_LITERAL = re.compile(
    rf"(?:\b(?:in|is|are|be|interval|set|domain|range)|∈)\s*:?\s*(?:the\s+(?:interval|set)\s+)?"
    rf"(?P<iv>(?:\\left)?[(\[]\s*{_BOUND}\s*,\s*{_BOUND}\s*(?:\\right)?[)\]]"
    rf"(?:\s*(?:\\cup|∪|\bunion\b)\s*(?:\\left)?[(\[]\s*{_BOUND}\s*,\s*{_BOUND}\s*(?:\\right)?[)\]])*)"
)
#: A union said in words between two intervals: "(0, 9) union (9, 36)".
_UNION_WORD = re.compile(r"\s*\bunion\b\s*")


@dataclass(frozen=True)
class _Piece:
    lo: str
    hi: str
    lo_closed: bool
    hi_closed: bool


def interval_statements(sentence: str) -> list[str]:
    """The intervals (LaTeX) that the inequalities of ``sentence`` state, and the ones it
    names in prose ("x in the interval [-2, 7]")."""
    text = _DELIMITERS.sub(" ", sentence)
    found: list[str] = []
    for m in _WORDS.finditer(text):
        piece = _Piece(_bound(m["lo"]), _bound(m["hi"]), bool(m["lq"]), bool(m["hq"]))
        found.append(_with_exclusions([piece], text, m.end()))
    for m in _DOUBLE.finditer(text):
        piece = _Piece(_bound(m["lo"]), _bound(m["hi"]), _closed(m["lop"]), _closed(m["hop"]))
        found.append(_with_exclusions([piece], text, m.end()))
    found += [
        " ".join(_UNION_WORD.sub(lambda _: " \\cup ", m["iv"]).split())
        for m in _LITERAL.finditer(text)
    ]
    for m in _ONE_SIDE.finditer(text):
        if _JOINED.search(text, 0, m.start()):
            continue  # a side of "0 < x < 36" or the second side of "x < 2 or x > 3"
        if ray := _ray(m["op"], m["b"]):
            found.append(_render([ray]))
    for m in _ONE_SIDE_WORDS.finditer(text):
        op = ("<" if m["dir"] in ("less", "smaller") else ">") + ("=" if m["eq"] else "")
        if ray := _ray(op, m["b"]):
            found.append(_render([ray]))
    for m in _SIDES_OR.finditer(text):
        first = _ray(m["op"], m["b"])
        second = _ray(m["sop"], m["sb"])
        if m["var"] == m["svar"] and first and second:
            found.append(_render(sorted([first, second], key=lambda p: _order(p.lo))))
    return found


def _closed(op: str) -> bool:
    return "=" in op or "≤" in op or "≥" in op or op.startswith(("\\le", "\\ge"))


def _ray(op: str, bound: str) -> _Piece | None:
    """``x < b`` as ``(-\\infty, b)``, ``x \\ge b`` as ``[b, \\infty)``."""
    b = _bound(bound)
    if re.match(_LESS, op):
        return _Piece("-\\infty", b, False, _closed(op))
    return _Piece(b, "\\infty", _closed(op), False)


def _bound(raw: str) -> str:
    raw = " ".join(raw.split())
    raw = re.sub(r"sqrt\((\d+)\)|√(\d+)", lambda m: f"\\sqrt{{{m[1] or m[2]}}}", raw)
    raw = re.sub(r"^(-?)\s*(\d+)\s*/\s*(\d+)$", r"\1\\frac{\2}{\3}", raw)
    return "\\infty" if raw in ("∞", "\\infty") else raw.replace("- ", "-")


def _with_exclusions(pieces: list[_Piece], text: str, at: int) -> str:
    """Split the pieces at the points an "excluding x = 9" right after them takes out."""
    m = _EXCLUDED.match(text, at)
    if m:
        points = [m["first"], *re.findall(_BOUND, m["rest"] or "")]
        for point in sorted({_bound(p) for p in points}, key=_order):
            pieces = [part for piece in pieces for part in _split(piece, point)]
    return _render(pieces)


def _split(piece: _Piece, point: str) -> list[_Piece]:
    """``piece`` without ``point`` (unchanged when the point lies outside it)."""
    if not _order(piece.lo) < _order(point) < _order(piece.hi):
        return [piece]
    return [
        _Piece(piece.lo, point, piece.lo_closed, False),
        _Piece(point, piece.hi, False, piece.hi_closed),
    ]


def _order(bound: str) -> float:
    """A bound's value, for ordering (never for grading)."""
    if bound == "\\infty":
        return float("inf")
    if bound == "-\\infty":
        return float("-inf")
    sign = -1.0 if bound.startswith("-") else 1.0
    body = bound.lstrip("-").strip()
    if m := re.fullmatch(r"\\[dt]?frac\s*\{(\d+)\}\s*\{(\d+)\}", body):
        return sign * float(Fraction(int(m[1]), int(m[2])))
    if m := re.fullmatch(r"\\sqrt\s*\{(\d+)\}", body):
        return sign * float(m[1]) ** 0.5
    try:
        return sign * float(body)
    except ValueError:
        return float("nan")


def _render(pieces: list[_Piece]) -> str:
    return " \\cup ".join(
        f"{'[' if p.lo_closed else '('}{p.lo}, {p.hi}{']' if p.hi_closed else ')'}" for p in pieces
    )
