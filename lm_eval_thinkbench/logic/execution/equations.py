"""Puzzles with exactly one solution, checked by rule (LogicGame's 逻辑等式 and 组合计算).

* ``equations/letters``: letters stand for distinct numbers 1..n; equations and inequalities
  pin them down. Generation adds true constraints until one assignment is left (counted over
  all n! assignments), so the answer is unique. A step states one letter's value (``C=3``), in
  whatever order the model finds them: each step is checked against the unique solution.
* ``equations/target``: put ``+ - * /`` and brackets between given numbers, in their order, to
  reach a target. Targets are drawn only among values that exactly one expression tree reaches
  (counted over every tree), so the answer is unique up to brackets that change nothing. The
  model's expression is parsed by a small walker over Python's ``ast`` that admits only integer
  literals, the four operators and brackets, and evaluated with ``Fraction``: model text is
  never executed. A step is one operation of that expression, in evaluation order (``5+1=6``).
"""

from __future__ import annotations

import ast
import functools
import itertools
import math
import random
import re
import string
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from lm_eval_thinkbench.logic.base import ExecutionTaskType, Replay, State, canon, first_mismatch
from lm_eval_thinkbench.logic.registry import register

# ----- letters --------------------------------------------------------------------------------

#: Letters per level, and the constraint kinds each level may use.
LETTER_COUNTS = (3, 4, 5, 6)
LETTER_KINDS = (
    ("sum", "neq"),
    ("sum", "neq", "diff", "gt"),
    ("sum", "neq", "diff", "gt", "lin"),
    ("sum", "neq", "diff", "gt", "lin", "prod"),
)

Constraint = list[Any]


def holds(c: Constraint, v: dict[str, int]) -> bool:
    kind = c[0]
    if kind == "sum":
        return v[c[1]] + v[c[2]] == c[3]
    if kind == "diff":
        return v[c[1]] - v[c[2]] == c[3]
    if kind == "gt":
        return v[c[1]] > v[c[2]]
    if kind == "neq":
        return v[c[1]] != c[2]
    if kind == "lin":  # a*X = b*Y + k
        return c[1] * v[c[2]] == c[3] * v[c[4]] + c[5]
    return v[c[1]] * v[c[2]] == c[3] * v[c[4]] + c[5]  # prod: X*Y = a*Z + k


def constraint_text(c: Constraint) -> str:
    """The constraint in the usual notation (the same in both languages)."""

    def coef(a: int, x: str) -> str:
        return x if a == 1 else f"{a}{x}"

    def plus(k: int) -> str:
        return "" if k == 0 else f" + {k}" if k > 0 else f" - {-k}"

    kind = c[0]
    if kind == "sum":
        return f"{c[1]} + {c[2]} = {c[3]}"
    if kind == "diff":
        return f"{c[1]} - {c[2]} = {c[3]}"
    if kind == "gt":
        return f"{c[1]} > {c[2]}"
    if kind == "neq":
        return f"{c[1]} ≠ {c[2]}"
    if kind == "lin":
        return f"{coef(c[1], c[2])} = {coef(c[3], c[4])}{plus(c[5])}"
    return f"{c[1]}{c[2]} = {coef(c[3], c[4])}{plus(c[5])}"


def _draw_constraint(rng: random.Random, kind: str, v: dict[str, int]) -> Constraint:
    """A constraint of ``kind`` that the assignment ``v`` satisfies."""
    x, y, z = rng.sample(sorted(v), 3)
    if kind == "sum":
        return ["sum", x, y, v[x] + v[y]]
    if kind == "diff":
        x, y = (x, y) if v[x] > v[y] else (y, x)
        return ["diff", x, y, v[x] - v[y]]
    if kind == "gt":
        return ["gt", x, y] if v[x] > v[y] else ["gt", y, x]
    if kind == "neq":
        return ["neq", x, rng.choice([k for k in range(1, len(v) + 1) if k != v[x]])]
    if kind == "lin":
        a, b = rng.randint(2, 3), rng.randint(1, 3)
        return ["lin", a, x, b, y, a * v[x] - b * v[y]]
    a = rng.randint(1, 3)
    return ["prod", x, y, a, z, v[x] * v[y] - a * v[z]]


@functools.lru_cache(maxsize=8)
def _assignments(letters: tuple[str, ...]) -> tuple[dict[str, int], ...]:
    """All n! assignments, built once per letter set (callers must not modify them)."""
    n = len(letters)
    return tuple(
        dict(zip(letters, perm, strict=True)) for perm in itertools.permutations(range(1, n + 1))
    )


def solutions(letters: Sequence[str], constraints: Sequence[Constraint]) -> list[dict[str, int]]:
    """Every assignment of distinct numbers 1..n to ``letters`` meeting ``constraints``."""
    return [v for v in _assignments(tuple(letters)) if all(holds(c, v) for c in constraints)]


_LETTERS_HEAD = {
    "en": "The letters {letters} stand for the numbers 1 to {n}, each letter for a different "
    "number. They satisfy:\n{rules}\n(XY means X times Y; 2X means 2 times X.) Exactly one "
    "assignment fits. A step states the value of one letter, like C=3, in the order you "
    "determine them; every letter once. The answer lists the values of {letters} in that order.",
    "zh": "字母 {letters} 分别代表 1 到 {n} 中的数，不同字母代表不同的数。它们满足：\n{rules}\n"
    "（XY 表示 X 乘以 Y；2X 表示 2 乘以 X。）恰好只有一种对应方式满足条件。每一步写出一个字母的值，"
    "例如 C=3，按你确定它们的先后顺序，每个字母写一次。答案按 {letters} 的顺序列出它们的值。",
}


@register
class Letters(ExecutionTaskType):
    family, name = "equations", "letters"
    version = 2

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        n = LETTER_COUNTS[level]
        letters = list(string.ascii_uppercase[:n])
        values = rng.sample(range(1, n + 1), n)
        v = dict(zip(letters, values, strict=True))
        constraints: list[Constraint] = []
        left = solutions(letters, [])
        while len(left) > 1:
            c = _draw_constraint(rng, rng.choice(LETTER_KINDS[level]), v)
            kept = [s for s in left if holds(c, s)]
            if len(kept) < len(left):  # a constraint that rules nothing out is not stated
                constraints.append(c)
                left = kept
        return {"letters": letters, "constraints": constraints}

    def run(self, state: State) -> list[str]:
        """The letters in the order the constraints, read one by one, fix them (ties
        alphabetically): a deduction order that the worked examples can show."""
        letters, constraints = state["letters"], state["constraints"]
        (solution,) = solutions(letters, constraints)
        order: list[str] = []
        left = solutions(letters, [])
        for c in constraints:
            left = [s for s in left if holds(c, s)]
            fixed = [x for x in letters if x not in order and len({s[x] for s in left}) == 1]
            order.extend(fixed)
        return [f"{x}={solution[x]}" for x in order]

    def answer_of(self, state: State, steps: Sequence[str]) -> tuple[str, ...]:
        values = dict(s.split("=") for s in steps)
        return tuple(values[x] for x in state["letters"])

    def replay(self, state: State, answer: Sequence[str], process: Sequence[str] | None) -> Replay:
        """Any order of the letters is valid; each step must give one letter its value, each
        letter exactly once."""
        reference = self.run(state)
        if process is None:
            return Replay(first_mismatch(answer, self.answer_of(state, reference)), len(answer))
        truth = {canon(s).split("=")[0]: canon(s) for s in reference}
        seen: set[str] = set()
        for i, step in enumerate(process):
            letter = canon(step).split("=")[0]
            if truth.get(letter) != canon(step) or letter in seen:
                return Replay(i, len(process))
            seen.add(letter)
        return Replay(None if len(seen) == len(truth) else len(process), len(process))

    def describe(self, state: State, lang: str) -> str:
        sep = "、" if lang == "zh" else ", "
        rules = "\n".join(
            f"{i}. {constraint_text(c)}" for i, c in enumerate(state["constraints"], 1)
        )
        letters = state["letters"]
        return _LETTERS_HEAD[lang].format(letters=sep.join(letters), n=len(letters), rules=rules)


# ----- target arithmetic ----------------------------------------------------------------------

#: Numbers per level; targets up to this bound.
TARGET_NUMBERS = (2, 3, 4, 5)
TARGET_MAX = 120
#: The longest expression text the parser looks at (five one-digit numbers need about 20).
MAX_EXPRESSION = 200
OPS = ("+", "-", "*", "/")

Tree = Any  # an int leaf, or [op, left, right]


def _apply(op: str, a: Fraction, b: Fraction) -> Fraction | None:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    return None if b == 0 else a / b


Rational = tuple[int, int]  # (numerator, denominator > 0), in lowest terms


def _apply_pair(op: str, a: Rational, b: Rational) -> Rational | None:
    """``_apply`` on integer pairs: the same exact values, without ``Fraction``'s overhead
    (the enumeration below makes tens of thousands of these per item)."""
    (p, q), (r, s) = a, b
    if op == "+":
        num, den = p * s + r * q, q * s
    elif op == "-":
        num, den = p * s - r * q, q * s
    elif op == "*":
        num, den = p * r, q * s
    elif r == 0:
        return None
    else:
        num, den = (p * s, q * r) if r > 0 else (-p * s, -q * r)
    g = math.gcd(num, den)
    return num // g, den // g


@functools.lru_cache(maxsize=64)
def expression_trees(numbers: tuple[int, ...]) -> dict[Rational, tuple[int, Tree]]:
    """Value -> (number of expression trees over ``numbers`` in order that reach it, one such
    tree). Interval by interval, so each sub-sequence is enumerated once; cached, because an
    item's generation and its reference both need the table (callers must not modify it)."""
    table: dict[tuple[int, int], dict[Rational, tuple[int, Tree]]] = {}
    n = len(numbers)
    for i, x in enumerate(numbers):
        table[i, i + 1] = {(x, 1): (1, x)}
    for width in range(2, n + 1):
        for i in range(n - width + 1):
            j = i + width
            cell: dict[Rational, tuple[int, Tree]] = {}
            for k in range(i + 1, j):
                right = list(table[k, j].items())
                for va, (ca, ta) in table[i, k].items():
                    for vb, (cb, tb) in right:
                        for op in OPS:
                            v = _apply_pair(op, va, vb)
                            if v is None:
                                continue
                            old = cell.get(v)
                            cell[v] = (
                                (ca * cb, [op, ta, tb])
                                if old is None
                                else (old[0] + ca * cb, old[1])
                            )
            table[i, j] = cell
    return table[0, n]


@functools.lru_cache(maxsize=4096)
def unique_tree(numbers: tuple[int, ...], target: int) -> Tree:
    """The one expression tree over ``numbers`` that reaches ``target`` (cached: the steps and
    the answer of an item both need it). Callers must not modify it."""
    count, tree = expression_trees(numbers).get((target, 1), (0, None))
    if count != 1:  # generated states have exactly one
        raise ValueError(f"{count} expressions over {numbers} reach {target}")
    return tree


_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}


def show_tree(tree: Tree) -> str:
    """The expression with the brackets its tree needs (and no others), so that parsing the
    text gives the same tree back."""
    if isinstance(tree, int):
        return str(tree)
    op, left, right = tree
    p = _PRECEDENCE[op]
    a, b = show_tree(left), show_tree(right)
    if not isinstance(left, int) and _PRECEDENCE[left[0]] < p:
        a = f"({a})"
    if not isinstance(right, int) and _PRECEDENCE[right[0]] <= p:
        b = f"({b})"
    return f"{a}{op}{b}"


def show_value(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


def tree_steps(tree: Tree) -> tuple[list[str], Fraction | None]:
    """The operations in evaluation order (post-order), and the value (None on division by
    zero)."""
    steps: list[str] = []

    def walk(t: Tree) -> Fraction | None:
        if isinstance(t, int):
            return Fraction(t)
        a, b = walk(t[1]), walk(t[2])
        if a is None or b is None:
            return None
        v = _apply(t[0], a, b)
        if v is not None:
            steps.append(f"{show_value(a)}{t[0]}{show_value(b)}={show_value(v)}")
        return v

    return steps, walk(tree)


_AST_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
_ALLOWED = re.compile(r"[0-9+\-*/()]+")
_SYMBOLS = str.maketrans({"×": "*", "÷": "/", "x": "*", "[": "(", "]": ")"})


def parse_expression(parts: Sequence[str]) -> Tree | None:
    """The tree of a model's expression (its answer strings joined, so LogicGame's one token
    per string works too), or None if it holds anything but integers, ``+ - * /`` and brackets.
    Only parsed, never executed."""
    text = canon("".join(parts)).translate(_SYMBOLS)
    if not text or len(text) > MAX_EXPRESSION or not _ALLOWED.fullmatch(text):
        return None
    try:
        node = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None

    def walk(n: ast.AST) -> Tree | None:
        if isinstance(n, ast.Constant) and type(n.value) is int:
            return n.value
        if isinstance(n, ast.BinOp) and type(n.op) in _AST_OPS:
            left, right = walk(n.left), walk(n.right)
            if left is None or right is None:
                return None
            return [_AST_OPS[type(n.op)], left, right]
        return None

    return walk(node)


def _leaves(tree: Tree) -> list[int]:
    return [tree] if isinstance(tree, int) else _leaves(tree[1]) + _leaves(tree[2])


_TARGET_HEAD = {
    "en": "Put the operations +, -, *, / and brackets between the numbers {numbers}, which stay "
    "in this order, so that the expression equals {target}. Use every number exactly once as it "
    "is (do not join digits or put a minus sign in front of a number). Division is exact "
    "(fractions are allowed on the way). Exactly one arrangement works (brackets that change "
    "nothing do not count). Evaluate your expression one operation at a time, always the "
    "leftmost one that can be done now: both its operands must be numbers, where brackets and "
    "the usual precedence (* and / before + and -, otherwise left to right) decide what its "
    "operands are. A step is one operation, like 5+1=6 (a fraction as 7/2, a negative number "
    "as -3). The answer is your expression as one string, like (5+1)*4.",
    "zh": "在数 {numbers} 之间加入运算符 +、-、*、/ 和括号（这些数的顺序不变），"
    "使算式等于 {target}。"
    "每个数恰好用一次、保持原样（不能把数字拼接，也不能在数前加负号）。除法是精确除法（中间结果可以是分数）。"
    "恰好只有一种做法（不改变结果的多余括号不算不同做法）。把你的算式一次算一个运算：每次都算当前可以算的"
    "最左边的运算——它的两个运算数都已是数；哪些是它的运算数由括号和通常的优先级决定（先乘除后加减，"
    "同级从左到右）。每一步是一个运算，例如 5+1=6（分数写成 7/2，负数写成 -3）。答案是你的算式，"
    "写成一个字符串，例如 (5+1)*4。",
}


@register
class Target(ExecutionTaskType):
    family, name = "equations", "target"
    version = 2

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        while True:
            numbers = [rng.randint(1, 9) for _ in range(TARGET_NUMBERS[level])]
            unique = sorted(
                num
                for (num, den), (count, _) in expression_trees(tuple(numbers)).items()
                if count == 1 and den == 1 and 0 < num <= TARGET_MAX
            )
            if unique:
                return {"numbers": numbers, "target": rng.choice(unique)}

    def _reference(self, state: State) -> Tree:
        return unique_tree(tuple(state["numbers"]), state["target"])

    def run(self, state: State) -> list[str]:
        return tree_steps(self._reference(state))[0]

    def answer_of(self, state: State, steps: Sequence[str]) -> tuple[str, ...]:
        return (show_tree(self._reference(state)),)

    def _model_tree(self, state: State, answer: Sequence[str]) -> Tree | None:
        tree = parse_expression(answer)
        return tree if tree is not None and _leaves(tree) == list(state["numbers"]) else None

    def answer_correct(self, state: State, answer: Sequence[str], reference: Sequence[str]) -> bool:
        """Right if the expression uses the numbers in order and evaluates to the target."""
        tree = self._model_tree(state, answer)
        return tree is not None and tree_steps(tree)[1] == state["target"]

    def replay(self, state: State, answer: Sequence[str], process: Sequence[str] | None) -> Replay:
        """The steps must be the operations of the model's own expression, in evaluation order,
        and the expression must reach the target."""
        tree = self._model_tree(state, answer)
        if tree is None:
            return Replay(0, len(answer if process is None else process))
        steps, value = tree_steps(tree)
        if process is None:
            return Replay(None if value == state["target"] else 0, len(answer))
        mismatch = first_mismatch(process, steps)
        if mismatch is not None:
            return Replay(mismatch, len(process))
        return Replay(None if value == state["target"] else len(process), len(process))

    def describe(self, state: State, lang: str) -> str:
        sep = "、" if lang == "zh" else ", "
        numbers = sep.join(map(str, state["numbers"]))
        return _TARGET_HEAD[lang].format(numbers=numbers, target=state["target"])
