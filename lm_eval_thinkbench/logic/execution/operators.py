"""New arithmetic operators (execution): evaluate a bracketed expression of made-up operators.

The order is fixed by the statement (innermost brackets first, leftmost first when several are
ready), which is the post-order of the expression tree; a step is one use of an operator,
written ``3#4=10``. Expressions whose values leave [-999, 999] are redrawn, so the item tests
rule-following rather than long multiplication.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from lm_eval_thinkbench.logic.base import OPS_PER_LEVEL, ExecutionTaskType, State, op_sequence
from lm_eval_thinkbench.logic.registry import register

SYMBOLS = ("#", "@", "&", "~")
LIMIT = 999

Tree = Any  # an int leaf, or [symbol, left, right]


def _coef(p: int) -> str:
    return "" if p == 1 else f"{p}*"


#: kind -> (parameter ranges, formula text, function)
FORMULAS: dict[str, tuple[tuple[range, ...], Callable[..., str], Callable[..., int]]] = {
    "lin": (
        (range(1, 4), range(1, 4)),
        lambda p, q: f"{_coef(p)}a + {_coef(q)}b",
        lambda a, b, p, q: p * a + q * b,
    ),
    "diff": ((range(1, 4),), lambda p: f"{_coef(p)}a - b", lambda a, b, p: p * a - b),
    "prod": ((range(1, 6),), lambda p: f"a*b - {p}", lambda a, b, p: a * b - p),
    "mod": ((range(5, 10, 2),), lambda m: f"(a + b) mod {m}", lambda a, b, m: (a + b) % m),
    "absd": ((range(1, 6),), lambda p: f"|a - b| + {p}", lambda a, b, p: abs(a - b) + p),
    "max": ((range(1, 6),), lambda p: f"max(a, b) + {p}", lambda a, b, p: max(a, b) + p),
}


def _apply(defs: dict[str, list[Any]], sym: str, a: int, b: int) -> int:
    kind, *params = defs[sym]
    return FORMULAS[kind][2](a, b, *params)


def _shape(rng: random.Random, n: int) -> Tree:
    """A random binary tree with ``n`` operator nodes and leaves 1-9."""
    if n == 0:
        return rng.randint(1, 9)
    left = rng.randint(0, n - 1)
    return [None, _shape(rng, left), _shape(rng, n - 1 - left)]


def _label(tree: Tree, symbols: list[str]) -> Tree:
    """Give the operator nodes their symbols in post-order (the order they are evaluated)."""
    if isinstance(tree, int):
        return tree
    left, right = _label(tree[1], symbols), _label(tree[2], symbols)
    return [symbols.pop(0), left, right]


def _evaluate(defs: dict[str, list[Any]], tree: Tree, steps: list[str]) -> int:
    if isinstance(tree, int):
        return tree
    a, b = _evaluate(defs, tree[1], steps), _evaluate(defs, tree[2], steps)
    value = _apply(defs, tree[0], a, b)
    steps.append(f"{a}{tree[0]}{b}={value}")
    return value


def _infix(tree: Tree, top: bool = True) -> str:
    if isinstance(tree, int):
        return str(tree)
    text = f"{_infix(tree[1], False)} {tree[0]} {_infix(tree[2], False)}"
    return text if top else f"({text})"


_HEAD = {
    "en": "New operators are defined for integers a and b:\n{defs}\n{mod}Compute {expr}. Work "
    "from the innermost brackets outwards; when several brackets are ready, take the leftmost "
    "first. A step is one use of an operator, written like 3#4=10.",
    "zh": "对整数 a 和 b 定义了新的运算符：\n{defs}\n{mod}计算 {expr}。从最内层的括号开始向外计算；"
    "同时有多个括号可以计算时，先算最左边的。每一步是一次运算，写成 3#4=10 的形式。",
}
_MOD = {
    "en": "x mod m is the remainder of x divided by m, from 0 to m-1.\n",
    "zh": "x mod m 表示 x 除以 m 的余数（0 到 m-1）。\n",
}


@register
class Custom(ExecutionTaskType):
    family, name = "operators", "custom"

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        symbols = sorted(set(op_sequence(rng, level, SYMBOLS)), key=SYMBOLS.index)
        defs = {}
        for sym in symbols:
            kind = rng.choice(sorted(FORMULAS))
            defs[sym] = [kind, *(rng.choice(r) for r in FORMULAS[kind][0])]
        while True:
            order = op_sequence(rng, level, symbols)
            expr = _label(_shape(rng, OPS_PER_LEVEL[level]), order)
            steps: list[str] = []
            _evaluate(defs, expr, steps)
            if all(abs(int(s.rsplit("=", 1)[1])) <= LIMIT for s in steps):
                return {"defs": defs, "expr": expr}

    def run(self, state: State) -> list[str]:
        steps: list[str] = []
        _evaluate(state["defs"], state["expr"], steps)
        return steps

    def result(self, last_step: str) -> str:
        return last_step.rsplit("=", 1)[1]

    def describe(self, state: State, lang: str) -> str:
        defs = state["defs"]
        lines = "\n".join(
            f"a {sym} b = {FORMULAS[defs[sym][0]][1](*defs[sym][1:])}" for sym in sorted(defs)
        )
        mod = _MOD[lang] if any(d[0] == "mod" for d in defs.values()) else ""
        return _HEAD[lang].format(defs=lines, mod=mod, expr=_infix(state["expr"]))
