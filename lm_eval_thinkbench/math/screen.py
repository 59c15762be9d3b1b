"""Answer pairs whose values plainly differ, or that are the same plain number, settled in
the parent without math-verify.

Most answer statements in a long trace are wrong attempts (``11`` against ``11\\sqrt{5} + 11``,
``x`` against ``\\frac{14}{3}``), and each one math-verify checks costs a worker round trip and
an ANTLR parse. :func:`surely_different` settles the plain ones here: it reads both answers
with a small, bounded evaluator and says "different" only when their values differ beyond any
tolerance math-verify applies. Everything else (equal values, close values, anything outside
the grammar below) goes to math-verify as before, so a verdict can never change: math-verify
calls two answers equal only when their sympy values agree (structurally, after rounding both
to 6 decimals when one is a float, or symbolically), and for the forms read here a value that
differs at one point beyond ``1e-5`` (and beyond ``1e-9`` of its size) differs in each of
those senses.

The grammar is what latex2sympy reads the conventional way, and nothing it reads otherwise:

* numbers (at most 30 digits), ``\\pi``, ``\\frac{..}{..}`` (also ``\\dfrac``/``\\tfrac``),
  ``\\sqrt{..}``, ``\\sqrt[n]{..}``, ``+ - * / \\cdot \\times``, powers ``^{..}`` or ``^`` one
  digit or letter, parentheses (``\\left``/``\\right`` too), braces as groups, a leading minus;
  the brace-less shorthand of one digit per argument (``\\frac43``, ``\\frac 59``,
  ``\\frac{270}7``, ``11\\sqrt2``; a longer run of digits, ``\\frac435``, is refused: latex2sympy
  splits it its own way);
* a degree mark ``^\\circ`` or ``^{\\circ}`` right after a digit or a group's brace, ending
  one value without letters (not a list, ``\\pm`` or set), which math-verify drops
  (``90^\\circ`` is 90, never ``\\frac{\\pi}{2}``); ``30°`` and ``30 ^ \\circ`` are not read
  (as a gold, math-verify reads nothing in them);
* products written without an operator only as a number then radicals, ``\\pi`` and letters
  (``2\\sqrt{3}``, ``3\\pi``, ``2x``); latex2sympy reads ``2(3)`` and ``1\\frac{4}{5}`` as
  mixed numbers (5 and 9/5), and ``1 2`` as 3, so any other juxtaposition is refused;
* lowercase single letters as variables except ``e``, ``i`` and ``o`` (constants to sympy, or
  a zero's look-alike), no two letters side by side (``xy`` could be a word, a unit or a
  function) and no letter math-verify strips as a unit at the end (``5m`` reads as 5);
* a list ``1, 2`` or ``(1, 2)``, ``[1, 2)``, ``\\{1, 2\\}`` of numbers, or one top-level
  ``a \\pm b``. A pair in brackets must rise (``(3, \\pi)`` is read as an interval, and
  ``[\\sqrt{79}, \\pi)`` as the empty one, equal to any other), a list holds no letters (an
  interval ``(x, y)`` may be empty too), and a number with thousands separators is refused
  (``1,000`` is a thousand to math-verify);
* ``\\infty`` or ``-\\infty`` as a whole element of a list or as the whole answer
  (``(2, \\infty)``, ``(-\\infty, 0]``), never inside arithmetic: sympy's ``oo``, which
  math-verify equates with nothing finite;
* one ``pmatrix`` or ``bmatrix`` on one line whose entries are values as above, rows split by
  ``\\\\`` and columns by ``&``, none empty, all rows as long (over several lines math-verify
  may read the last entry alone).

A list is compared as the set of its values: math-verify equates a tuple, interval or set with
another only element by element (in some order) or as the same set of reals, so different value
sets never match (an infinite end is apart from every other value). A matrix is compared entry by
entry: math-verify equates two matrices only when their shapes agree and every pair of entries
does (numerically or after ``simplify``), and a matrix with no number, tuple, set or interval
(a 1x1 matrix is not its entry; a column is not a tuple). Letters
are given fixed values (:data:`POINT`): two expressions math-verify equates are equal as
functions, hence at that point. Values are computed in :mod:`decimal` at 50 digits with every
intermediate bounded by ``10**40`` (an exponent by 1,000, a root's index by 10): a power tower
is refused at once. The input is at most :data:`MAX_SCREEN_CHARS` characters and the
recursion at most :data:`_MAX_DEPTH` deep, so a screen costs microseconds on any input.
``benchmarks/grading_screen.py`` checks every pair of the real traces with and without it, and
random expressions of this grammar against math-verify's reading.

:func:`surely_equal` settles the other plain case: two plain rational numbers of the same
exact value (a final ``\\boxed{4/3}`` against the gold ``\\frac43``, ``0.5`` against
``\\frac{1}{2}``): integers, decimals and fractions of integers only (:data:`_RATIONAL_RE`),
which math-verify reads as sympy numbers of those values and equates (a float compared after
rounding, so an equal value always matches). ``benchmarks/grading_screen.py`` checks every pair
it settles against math-verify.
"""

from __future__ import annotations

import decimal
import re
from decimal import Decimal
from fractions import Fraction
from typing import Any

from .extract import strip_answer

__all__ = [
    "MAX_SCREEN_CHARS",
    "POINT",
    "answer_values",
    "matrix_values",
    "reading_values",
    "surely_different",
    "surely_equal",
]

#: Longer answers are not screened (math-verify decides them).
MAX_SCREEN_CHARS = 200
_MAX_DEPTH = 20
_MAX_DIGITS = 30
_MAX_MAGNITUDE = Decimal(10) ** 40
_MAX_EXPONENT = 1000
_ABSOLUTE_MARGIN = Decimal("1e-5")
_RELATIVE_MARGIN = Decimal("1e-9")
_CONTEXT = decimal.Context(
    prec=50,
    Emax=60,
    Emin=-60,
    traps=[decimal.InvalidOperation, decimal.DivisionByZero, decimal.Overflow, decimal.Underflow],
)
_PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494")
#: Letters read as variables, each with the value it takes at the screening point: values
#: far from integers, simple fractions and each other.
POINT = {
    letter: Decimal(index + 2).sqrt(_CONTEXT) + Decimal("0.1234567")
    for index, letter in enumerate("abcdfghjklmnpqrstuvwxyz")
}
#: A degree mark ending an answer: math-verify reads ``90^\\circ`` as 90.
_DEGREES_AT_END_RE = re.compile(r"(?:(?<=\d)|(?<=[^\\]\}))\^(?:\{\\circ\}|\\circ)$")
#: Letters that math-verify strips as a unit when they end the answer after a digit, a brace
#: or a space (``5 m``, ``2c``): its ``units`` normalisation lists them.
_UNIT_AT_END_RE = re.compile(r"[\d}\s]\s*[cdghlmst]\s*$")
#: A comma before exactly three digits: math-verify may read the number as thousands.
#: What math-verify may read as one number with thousands separators (``1,000``; it reads
#: ``(1,000)`` as a pair, but no such reading is left to chance).
_THOUSANDS_RE = re.compile(r"[(\[]?-?\d{1,3}(?:,\d{3})+(?:\.\d+)?[)\]]?")
_TOKEN_RE = re.compile(
    r"\s+"
    r"|(?P<number>\d+(?:\.\d*)?|\.\d+)"
    r"|(?P<command>\\(?:[dt]?frac|sqrt|pi|infty|cdot|times|pm|left|right)(?![A-Za-z])|\\[{}]"
    r"|\\(?:begin|end)\{[pb]matrix\}|\\\\)"
    r"|(?P<letter>[a-z])(?![A-Za-z])"
    r"|(?P<symbol>[-+*/^()[\]{},&])"
)
#: Brackets around a list: tuples and intervals (either end open or closed) and sets.
_LIST_BRACKETS = frozenset({("(", ")"), ("(", "]"), ("[", ")"), ("[", "]"), ("\\{", "\\}")})
_INTERVAL_ONLY = frozenset({("(", "]"), ("[", ")")})
_MATRIX_TOKENS = frozenset(("&", "\\\\"))
_INFINITY = Decimal("Infinity")
_OPENING = frozenset(("(", "[", "{", "\\{"))
_CLOSING = frozenset((")", "]", "}", "\\}"))


class _Unread(Exception):
    """The answer is outside the screen's grammar or bounds: leave it to math-verify."""


def _tokens(text: str) -> list[tuple[str, str]]:
    """``(kind, text)`` tokens; spaces, ``\\left`` and ``\\right`` vanish. Raises
    :class:`_Unread` on any character outside the grammar, and on a number right after a
    number (``1 2``, ``2 .5``: latex2sympy adds them)."""
    out: list[tuple[str, str]] = []
    position = 0
    for match in _TOKEN_RE.finditer(text):
        if match.start() != position:
            raise _Unread
        position = match.end()
        kind, token = match.lastgroup, match.group()
        if kind is None or token in ("\\left", "\\right"):
            continue
        if kind == "number" and (len(token) > _MAX_DIGITS + 1 or (out and out[-1][0] == "number")):
            raise _Unread
        out.append((kind, token))
    if position != len(text):
        raise _Unread
    return out


def _bounded(value: Decimal) -> Decimal:
    if abs(value) > _MAX_MAGNITUDE:
        raise _Unread
    return value


class _Reader:
    """Recursive descent over :func:`_tokens`, evaluating as it goes."""

    def __init__(self, tokens: list[tuple[str, str]]):
        self.tokens = tokens
        self.at = 0
        self.depth = 0

    def peek(self, offset: int = 0) -> tuple[str, str]:
        index = self.at + offset
        return self.tokens[index] if index < len(self.tokens) else ("end", "")

    def take(self, token: str) -> None:
        if self.peek()[1] != token:
            raise _Unread
        self.at += 1

    def expression(self) -> Decimal:
        """``[-] term (('+'|'-') term)*``."""
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise _Unread
        negative = self.peek()[1] == "-"
        if negative:
            self.at += 1
        value = self.term()
        if negative:
            value = -value
        while self.peek()[1] in ("+", "-"):
            sign = self.peek()[1]
            self.at += 1
            right = self.term()
            add = _CONTEXT.add if sign == "+" else _CONTEXT.subtract
            value = _bounded(add(value, right))
        self.depth -= 1
        return value

    def term(self) -> Decimal:
        """``product (('*'|'\\cdot'|'\\times'|'/') factor)*``; after ``/`` one factor only
        (``1/2x`` is not read)."""
        value = self.product()
        while self.peek()[1] in ("*", "\\cdot", "\\times", "/"):
            divide = self.peek()[1] == "/"
            self.at += 1
            if divide:
                value = _CONTEXT.divide(value, self.power())
            else:
                value = _CONTEXT.multiply(value, self.product())
            value = _bounded(value)
        return value

    def product(self) -> Decimal:
        """One factor, or a number followed by radicals, ``\\pi`` and letters without an
        operator (``2\\sqrt{3}``, ``3\\pi``, ``2x``, ``x\\sqrt{2}``)."""
        starts_plain = self.peek()[0] in ("number", "letter") or self.peek()[1] in _JUXTAPOSED
        value = self.power()
        while starts_plain and (self.peek()[0] == "letter" or self.peek()[1] in _JUXTAPOSED):
            value = _bounded(_CONTEXT.multiply(value, self.power()))
        if self.peek()[0] == "number" or self.peek()[1] in ("(", "\\frac", "\\dfrac", "\\tfrac"):
            raise _Unread  # a mixed number or another reading latex2sympy has of juxtaposition
        return value

    def power(self) -> Decimal:
        """``primary ['^' ('{' expression '}' | digit | letter)]``; no tower (``2^3^2``)."""
        base = self.primary()
        if self.peek()[1] != "^":
            return base
        self.at += 1
        kind, token = self.peek()
        if token == "{":
            self.at += 1
            exponent = self.expression()
            self.take("}")
        elif kind == "number" and len(token) == 1:
            self.at += 1
            exponent = Decimal(token)
        elif kind == "letter":
            self.at += 1
            exponent = self.letter(token)
        else:
            raise _Unread
        if self.peek()[1] == "^":
            raise _Unread
        return _power(base, exponent)

    def letter(self, token: str) -> Decimal:
        value = POINT.get(token)
        if value is None:
            raise _Unread
        return value

    def primary(self) -> Decimal:
        kind, token = self.peek()
        self.at += 1
        if kind == "number":
            return Decimal(token)
        if kind == "letter":
            return self.letter(token)
        if token == "\\pi":
            return _PI
        if token in ("(", "{"):
            value = self.expression()
            self.take(")" if token == "(" else "}")
            return value
        if token in ("\\frac", "\\dfrac", "\\tfrac"):
            return self.fraction()
        if token == "\\sqrt":
            index = 2
            if self.peek()[1] == "[":
                self.at += 1
                kind, digits = self.peek()
                if kind != "number" or not digits.isdigit() or not 2 <= int(digits) <= 10:
                    raise _Unread
                index = int(digits)
                self.at += 1
                self.take("]")
            radicand = self.group(shorthand=index == 2)  # ``\\sqrt[3]8`` is not read
            if radicand < 0:
                raise _Unread
            if index == 2:
                return radicand.sqrt(_CONTEXT)
            return _power(radicand, _CONTEXT.divide(Decimal(1), Decimal(index)))
        raise _Unread

    def group(self, shorthand: bool = True) -> Decimal:
        """``{ expression }``, or (``shorthand``) one digit (``\\sqrt2``, ``\\frac{270}7``)."""
        kind, token = self.peek()
        if shorthand and kind == "number" and len(token) == 1:
            self.at += 1
            return Decimal(token)
        self.take("{")
        value = self.expression()
        self.take("}")
        return value

    def fraction(self) -> Decimal:
        """The arguments of ``\\frac``: two groups, or two digits in one number token
        (``\\frac43``, ``\\frac 59``)."""
        kind, token = self.peek()
        if kind == "number" and len(token) == 2 and token.isdigit():
            self.at += 1
            top, bottom = Decimal(token[0]), Decimal(token[1])
        else:
            top = self.group()
            bottom = self.group()
        return _bounded(_CONTEXT.divide(top, bottom))


#: Tokens that may follow a number (or each other) as a product without an operator.
_JUXTAPOSED = ("\\sqrt", "\\pi")


def _power(base: Decimal, exponent: Decimal) -> Decimal:
    """``base ** exponent`` within the bounds; refused where sympy's principal value could be
    complex or undefined (a negative base with a fractional exponent, ``0`` to a power <= 0)."""
    if abs(exponent) > _MAX_EXPONENT:
        raise _Unread
    if base == 0 and exponent <= 0:
        raise _Unread
    if base < 0 and exponent != exponent.to_integral_value():
        raise _Unread
    if base and _CONTEXT.multiply(exponent, abs(base).log10(_CONTEXT)) > 40:
        raise _Unread
    return _bounded(_CONTEXT.power(base, exponent))


def _split_top(tokens: list[tuple[str, str]], separator: str) -> list[list[tuple[str, str]]]:
    """``tokens`` split at ``separator`` outside every bracket."""
    parts: list[list[tuple[str, str]]] = [[]]
    depth = 0
    for token in tokens:
        depth += (token[1] in _OPENING) - (token[1] in _CLOSING)
        if depth == 0 and token[1] == separator:
            parts.append([])
        else:
            parts[-1].append(token)
    return parts


def _enclosed(tokens: list[tuple[str, str]]) -> bool:
    """Whether the first token is a list bracket closed by the last one (``(1, 2]``), not by
    an earlier one (``(1)+(2, 3)``)."""
    if (tokens[0][1], tokens[-1][1]) not in _LIST_BRACKETS:
        return False
    depth = 0
    for token in tokens[:-1]:
        depth += (token[1] in _OPENING) - (token[1] in _CLOSING)
        if depth == 0:
            return False
    return True


def _scalar(tokens: list[tuple[str, str]]) -> Decimal:
    reader = _Reader(tokens)
    value = reader.expression()
    if reader.at != len(tokens):
        raise _Unread
    return value


def _item(tokens: list[tuple[str, str]]) -> Decimal:
    """A list's element or a whole answer: a scalar, or ``\\infty`` or ``-\\infty`` alone
    (an interval's open end; never inside arithmetic, where sympy's rules for ``oo`` apply)."""
    if [token for _, token in tokens] == ["\\infty"]:
        return _INFINITY
    if [token for _, token in tokens] == ["-", "\\infty"]:
        return -_INFINITY
    return _scalar(tokens)


def _answer_tokens(text: str) -> tuple[list[tuple[str, str]], bool]:
    """The tokens of an answer the screen may read, and whether a degree mark ended it."""
    if "$" in text:  # read by math-verify's plain ``$`` wrapper too: not screened
        raise _Unread
    text = strip_answer(text)
    if not text or len(text) > MAX_SCREEN_CHARS:
        raise _Unread
    degrees = _DEGREES_AT_END_RE.search(text)
    if degrees is not None:
        text = text[: degrees.start()]
    if _THOUSANDS_RE.fullmatch(re.sub(r"\s+", "", text)) or _UNIT_AT_END_RE.search(text):
        raise _Unread
    tokens = _tokens(text)
    if not tokens:
        raise _Unread
    return tokens, degrees is not None


def _read(text: str) -> tuple[Decimal, ...]:
    tokens, degrees = _answer_tokens(text)
    if any(token in _MATRIX_TOKENS or token.startswith("\\begin") for _, token in tokens):
        raise _Unread  # a matrix is no list of values: :func:`matrix_values`
    has_letters = any(kind == "letter" for kind, _ in tokens)
    if degrees and (has_letters or any(t[1] in (",", "\\pm", "\\infty") for t in tokens)):
        raise _Unread  # ``x^\\circ``, ``\\{1, 2\\}^\\circ``: left to math-verify
    items = _split_top(tokens, ",")
    if len(items) == 1 and _enclosed(tokens):
        items = _split_top(tokens[1:-1], ",")
        if len(items) == 1 and tokens[0][1] != "(":  # ``[5]``, ``\{5\}``: not read
            raise _Unread
    if len(items) > 1:
        if has_letters or any(token[1] == "\\pm" for token in tokens):
            raise _Unread
        values = tuple(_item(item) for item in items)
        if len(values) == 2 and tokens[0][1] in "([" and not _apart_below(*values):
            raise _Unread  # an interval whose ends do not rise may be read as the empty set
        if len(values) > 2 and (tokens[0][1], tokens[-1][1]) in _INTERVAL_ONLY:
            raise _Unread  # ``[1, 2, 3)`` is no list to math-verify
        return values
    halves = _split_top(tokens, "\\pm")
    if len(halves) == 2 and halves[0] and halves[1] and not has_letters:
        center, offset = _scalar(halves[0]), _scalar(halves[1])
        return (_CONTEXT.add(center, offset), _CONTEXT.subtract(center, offset))
    if len(halves) > 1:
        raise _Unread
    return (_item(tokens),)


def _read_matrix(text: str) -> tuple[tuple[int, int], tuple[Decimal, ...]]:
    tokens, degrees = _answer_tokens(text)
    begin, end = tokens[0][1], tokens[-1][1]
    if degrees or not begin.startswith("\\begin") or end != "\\end" + begin[len("\\begin") :]:
        raise _Unread
    inner = tokens[1:-1]
    if any(token.startswith(("\\begin", "\\end")) for _, token in inner):
        raise _Unread
    rows = [_split_top(row, "&") for row in _split_top(inner, "\\\\")]
    if len({len(row) for row in rows}) != 1 or not all(cell for row in rows for cell in row):
        raise _Unread  # ragged rows or an empty cell (a final ``\\\\``): not read
    return (len(rows), len(rows[0])), tuple(_scalar(cell) for row in rows for cell in row)


def matrix_values(text: str) -> tuple[tuple[int, int], tuple[Decimal, ...]] | None:
    """An answer that is one ``pmatrix`` or ``bmatrix`` of values: its shape and its entries
    row by row (letters at the screening point), or ``None`` when it is not read so."""
    if not isinstance(text, str) or "matrix" not in text or re.search(r"[^\S ]", text):
        return None  # over lines: one reading of math-verify is the last entry alone
    try:
        return _read_matrix(text)
    except (_Unread, decimal.DecimalException, RecursionError):
        return None


def answer_values(text: str) -> tuple[Decimal, ...] | None:
    """The values of an answer as the screen reads it (one for a scalar, one per element of a
    list or ``\\pm``; letters at the screening point), or ``None`` when it is not read."""
    if not isinstance(text, str):
        return None
    try:
        return _read(text)
    except (_Unread, decimal.DecimalException, RecursionError):
        return None


def _apart(a: Decimal, b: Decimal) -> bool:
    if a.is_infinite() or b.is_infinite():
        return a != b
    margin = max(_ABSOLUTE_MARGIN, _RELATIVE_MARGIN * max(abs(a), abs(b)))
    return abs(a - b) > margin


def _apart_below(a: Decimal, b: Decimal) -> bool:
    """``a < b`` by more than the margin."""
    return a < b and _apart(a, b)


def surely_different(gold: str, candidate: str) -> bool:
    """True when math-verify can never equate ``candidate`` with ``gold``: both are read and
    some value of one is apart from every value of the other. False means "ask math-verify"."""
    gold_matrix, candidate_matrix = matrix_values(gold), matrix_values(candidate)
    if gold_matrix is not None and candidate_matrix is not None:
        (gold_shape, gold_entries), (shape, entries) = gold_matrix, candidate_matrix
        return gold_shape != shape or any(map(_apart, gold_entries, entries))
    if gold_matrix is not None:  # a matrix never equals a number, a tuple, a set or an interval
        return answer_values(candidate) is not None
    if candidate_matrix is not None:
        return answer_values(gold) is not None
    golds = answer_values(gold)
    if golds is None:
        return False
    candidates = answer_values(candidate)
    if candidates is None:
        return False
    return any(all(_apart(g, c) for c in candidates) for g in golds) or any(
        all(_apart(c, g) for g in golds) for c in candidates
    )


#: An integer (no leading zero), a decimal, or a fraction of two such integers: ``\\frac{a}{b}``
#: (``\\dfrac``, ``\\tfrac``), the one-digit ``\\frac43`` or ``a/b``; a leading minus.
_INTEGER = r"(?:0|[1-9]\d{0,29})"
_RATIONAL_RE = re.compile(
    rf"(-?)\s*(?:({_INTEGER}(?:\.\d{{1,30}})?)"
    rf"|\\[dt]?frac\s*(?:\{{\s*({_INTEGER})\s*\}}\s*\{{\s*({_INTEGER})\s*\}}|(\d)\s*(\d))"
    rf"|({_INTEGER})\s*/\s*({_INTEGER}))"
)


def _rational(text: str) -> Fraction | None:
    """The exact value of a plain rational number (:data:`_RATIONAL_RE`), else None."""
    m = _RATIONAL_RE.fullmatch(strip_answer(text)) if len(text) <= MAX_SCREEN_CHARS else None
    if m is None:
        return None
    sign, number, top, bottom = m[1], m[2], m[3] or m[5] or m[7], m[4] or m[6] or m[8]
    if number is not None:
        value = Fraction(number)
    elif int(bottom):
        value = Fraction(int(top), int(bottom))
    else:
        return None
    return -value if sign else value


def surely_equal(gold: str, candidate: str) -> bool:
    """True when math-verify equates ``candidate`` with ``gold``: both are plain rational
    numbers of the same exact value (see the module docstring). False means "ask
    math-verify"."""
    if not (isinstance(gold, str) and isinstance(candidate, str)):
        return False
    value = _rational(gold)
    return value is not None and value == _rational(candidate)


def reading_values(reading: Any) -> list[complex] | None:
    """The values of one math-verify reading (a sympy object) with letters at :data:`POINT`,
    or None if it has none there: what :func:`answer_values` is checked against (the tests
    and ``benchmarks/grading_screen.py``). A tuple, set or interval gives its elements' (an
    interval's ends'), a matrix its entries row by row."""
    from sympy import FiniteSet, Float, Interval, MatrixBase, Tuple

    if isinstance(reading, MatrixBase):
        items = list(reading)
    elif isinstance(reading, (FiniteSet, Tuple)):
        items = list(reading.args)
    elif isinstance(reading, Interval):
        items = [reading.start, reading.end]
    else:
        items = [reading]
    values = []
    for item in items:
        try:
            point = {s: Float(str(POINT[s.name]), 60) for s in item.free_symbols}
            values.append(complex(item.subs(point).evalf(60)))
        except (TypeError, AttributeError, KeyError):
            return None
    return values
