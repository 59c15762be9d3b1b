"""A cheap numeric screen in front of the answer checker.

A long trace gives the locator hundreds of candidate values; most are plainly not the gold
(``\\sqrt{117}`` against ``\\frac{8}{15}``), and each that reaches math-verify costs a parse
in a worker process. :func:`surely_unequal` evaluates both sides as plain numbers when it
can (integers, decimals, ``\\frac``, ``\\sqrt``, ``\\pi``, powers, the four operations,
implicit products like ``3\\sqrt{13}``) and says "unequal" only when they differ by far more
than any rounding of the checker could bridge. Anything it cannot evaluate (a variable, a
degree sign, a set, a matrix) is left to the checker, so the screen never turns an equal pair
into an unequal one.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

#: Relative gap above which two evaluated numbers are surely different for the checker,
#: which compares decimals after rounding to 6 places.
_MARGIN = 1e-3
_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d+)?|\.\d+)|(?P<cmd>\\[A-Za-z]+|sqrt|π|√)|(?P<op>[-+*/^(){}×·÷]))"
)
_SPACING = re.compile(r"\\[,;!: ]|\\left|\\right|\\displaystyle|\$")


def surely_unequal(gold: str, candidate: str) -> bool:
    """Whether ``candidate`` plainly differs in value from ``gold`` (False: ask the checker)."""
    a, b = number(gold), number(candidate)
    if a is None or b is None:
        return False
    return abs(a - b) > _MARGIN * max(1.0, abs(a), abs(b))


@lru_cache(maxsize=4096)
def number(text: str) -> float | None:
    """The value of a plain numeric formula, or None when it is anything else."""
    tokens = _tokens(
        _SPACING.sub(" ", text.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac"))
    )
    if tokens is None:
        return None
    parser = _Parser(tokens)
    try:
        value = parser.expression()
    except (ValueError, ZeroDivisionError, OverflowError, IndexError):
        return None
    if parser.at != len(tokens) or not math.isfinite(value):
        return None
    return value


def _tokens(text: str) -> list[str] | None:
    out: list[str] = []
    at = 0
    while at < len(text):
        if text[at].isspace():
            at += 1
            continue
        m = _TOKEN.match(text, at)
        if m is None:
            return None
        token = m.group(m.lastgroup or "op")
        if m.lastgroup == "cmd" and token not in _COMMANDS:
            return None
        out.append(token)
        at = m.end()
    return out or None


_COMMANDS = frozenset(("\\frac", "\\sqrt", "sqrt", "√", "\\pi", "π", "\\times", "\\cdot", "\\div"))


class _Parser:
    """Recursive descent over the tokens: sums of products of powers of atoms."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.at = 0

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self) -> str:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def expression(self) -> float:
        value = self.term()
        while self.peek() in ("+", "-"):
            value = value + self.term() if self.take() == "+" else value - self.term()
        return value

    def term(self) -> float:
        value = self.power()
        while True:
            token = self.peek()
            if token in ("*", "×", "·", "\\times", "\\cdot"):
                self.take()
                value *= self.power()
            elif token in ("/", "÷", "\\div"):
                self.take()
                value /= self.power()
            elif token is not None and token not in ("+", "-", ")", "}", "^"):
                if token == "\\frac" and self.tokens[self.at - 1][0].isdigit():
                    raise ValueError("2\\frac{3}{4} is a mixed number: the checker decides")
                value *= self.power()  # an implicit product: 3\sqrt{13}, 2\pi
            else:
                return value

    def power(self) -> float:
        base = self.unary()
        if self.peek() == "^":
            self.take()
            exponent = self.unary()
            if abs(exponent) > 64:
                raise ValueError("exponent too large to be worth evaluating")
            return base**exponent
        return base

    def unary(self) -> float:
        if self.peek() == "-":
            self.take()
            return -self.unary()
        if self.peek() == "+":
            self.take()
            return self.unary()
        return self.atom()

    def atom(self) -> float:
        token = self.take()
        if token in ("(", "{"):
            value = self.expression()
            if self.take() not in (")", "}"):
                raise ValueError("unbalanced")
            return value
        if token in ("\\pi", "π"):
            return math.pi
        if token == "\\frac":
            top = self.atom()
            return top / self.atom()
        if token in ("\\sqrt", "sqrt", "√"):
            value = self.atom()
            if value < 0:
                raise ValueError("not real")
            return math.sqrt(value)
        if token[0].isdigit() or token[0] == ".":
            return float(token)
        raise ValueError(f"unexpected {token!r}")
