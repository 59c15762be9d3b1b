"""Recipes applied in a cycle (execution): block synthesis and crop exchanges (LogicGame's
字符串合成 and 合成拆解).

One engine runs both: the methods are tried in order 1, 2, ..., N, 1, 2, ...; a method whose
inputs are all there is applied once, otherwise it is skipped; the run stops when a whole round
of N methods applies none. The answer is the count of every kind at the end, in the stated
order; a step is one applied method (blocks: the recipe, as LogicGame writes it) or the counts
after it (exchanges). Every method of an item is applied at least once, so no rule is decorative,
and runs with too few or too many steps for their level are redrawn.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from typing import Any

from lm_eval_thinkbench.logic.base import ExecutionTaskType, State
from lm_eval_thinkbench.logic.registry import register

Recipe = list[list[Any]]  # [[kind, units], ...]

#: The longest run the engine simulates; longer ones (or cycles) are redrawn by the generator.
MAX_RUN = 40

_CYCLE = {
    "en": "Go through the methods in order: method 1, method 2, ..., the last one, then method 1 "
    "again, and so on. At each turn apply the method once if everything it needs is there, "
    "otherwise skip it. Stop as soon as a whole round applies no method.",
    "zh": "按顺序轮流尝试各方法：方法 1、方法 2……最后一个方法，然后再从方法 1 开始，如此循环。"
    "每轮到一个方法时，如果它需要的东西都有，就执行一次，否则跳过。当连续一整轮都没有方法可以执行时停止。",
}


def simulate(
    methods: Sequence[Sequence[Recipe]], counts: dict[str, int]
) -> tuple[dict[str, int], list[int]] | None:
    """Final counts and the index of each applied method, or None if the run exceeds
    ``MAX_RUN`` applications (a cycle of synthesis and decomposition may never end)."""
    counts, applied, idle, i = dict(counts), [], 0, 0
    while idle < len(methods):
        inputs, outputs = methods[i]
        if all(counts[k] >= n for k, n in inputs):
            for k, n in inputs:
                counts[k] -= n
            for k, n in outputs:
                counts[k] += n
            applied.append(i)
            idle = 0
            if len(applied) > MAX_RUN:
                return None
        else:
            idle += 1
        i = (i + 1) % len(methods)
    return counts, applied


def _run(state: State) -> tuple[dict[str, int], list[int]]:
    result = simulate(state["methods"], dict(zip(state["kinds"], state["start"], strict=True)))
    if result is None:  # generated states always terminate
        raise ValueError("the recipes of this state do not terminate")
    return result


def _generate_run(
    rng: random.Random,
    kinds: list[str],
    draw_methods: Callable[[], list[list[Recipe]]],
    draw_start: Callable[[], list[int]],
    steps: tuple[int, int],
) -> dict[str, Any]:
    """Draw methods and start counts until every method is used and the run length is in
    ``steps`` (inclusive)."""
    while True:
        methods = draw_methods()
        if len({json.dumps(m) for m in methods}) < len(methods):
            continue  # the same method twice
        start = draw_start()
        result = simulate(methods, dict(zip(kinds, start, strict=True)))
        if result is None:
            continue
        _, applied = result
        if steps[0] <= len(applied) <= steps[1] and set(applied) == set(range(len(methods))):
            return {"kinds": kinds, "methods": methods, "start": start}


# ----- block synthesis ------------------------------------------------------------------------

BLOCKS = ("[A]", "[B]", "[C]", "{A}", "{B}", "{C}", "(A)", "(B)", "(C)")
#: Blocks: methods per level, blocks in play per level, run lengths per level.
BLOCK_METHODS = (1, 2, 4, 6)
BLOCK_KINDS = (3, 4, 6, 9)
BLOCK_STEPS = ((1, 6), (2, 6), (4, 10), (6, 14))


def _recipe_text(inputs: Recipe, outputs: Recipe) -> str:
    """``[A] [A] [B] -> {A}``: every unit written out, as LogicGame's references do."""

    def units(side: Recipe) -> str:
        return " ".join(k for k, n in side for _ in range(n))

    return f"{units(inputs)} -> {units(outputs)}"


_BLOCK_HEAD = {
    "en": "There are {n} kinds of blocks: {kinds}. Blocks combine by these methods (the blocks "
    "on the left of -> are used up and the block on the right is made):\n{methods}\n{cycle}\n"
    "Start: {start}.\nWrite each step as the method you applied, exactly as listed above (e.g. "
    "{example}), and the answer as the number of each kind of block at the end, in the order "
    '{kinds}, e.g. ["1", "0", ...].',
    "zh": "共有 {n} 种方块：{kinds}。方块按下列方法合成"
    "（-> 左边的方块被用掉，右边的方块被合成出来）：\n{methods}\n{cycle}\n初始：{start}。\n"
    "每一步写出所执行的方法，与上面列出的写法完全相同（例如 "
    '{example}）；答案写出最后每种方块的数量，按 {kinds} 的顺序，例如 ["1", "0", ...]。',
}


@register
class Blocks(ExecutionTaskType):
    """Blocks synthesised into higher blocks. A method's output ranks above its inputs in the
    order of ``BLOCKS`` and uses at least two units, so every run ends."""

    family, name = "recipes", "blocks"
    version = 2

    def _methods(self, rng: random.Random, level: int) -> list[list[Recipe]]:
        n = BLOCK_KINDS[level]
        methods = []
        for _ in range(BLOCK_METHODS[level]):
            out = rng.randrange(2, n)
            ins = sorted(rng.sample(range(min(out, 6)), rng.randint(1, min(3, out))))
            recipe: Recipe = [[BLOCKS[k], 1] for k in ins]
            if len(recipe) == 1 or rng.random() < 0.3:
                recipe[rng.randrange(len(recipe))][1] += 1
            methods.append([recipe, [[BLOCKS[out], 1]]])
        return methods

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        kinds = list(BLOCKS[: BLOCK_KINDS[level]])
        lo, hi = (2, 7) if level < 2 else (3, 8)
        return _generate_run(
            rng,
            kinds,
            lambda: self._methods(rng, level),
            lambda: [rng.randint(lo, hi) for _ in range(3)] + [0] * (len(kinds) - 3),
            BLOCK_STEPS[level],
        )

    def run(self, state: State) -> list[str]:
        _, applied = _run(state)
        return [_recipe_text(*state["methods"][i]) for i in applied]

    def answer_of(self, state: State, steps: Sequence[str]) -> tuple[str, ...]:
        counts, _ = _run(state)
        return tuple(str(counts[k]) for k in state["kinds"])

    def describe(self, state: State, lang: str) -> str:
        sep = "、" if lang == "zh" else ", "
        start = sep.join(f"{k} x {n}" for k, n in zip(state["kinds"], state["start"], strict=True))
        methods = "\n".join(f"{i}. {_recipe_text(*m)}" for i, m in enumerate(state["methods"], 1))
        return _BLOCK_HEAD[lang].format(
            n=len(state["kinds"]),
            kinds=sep.join(state["kinds"]),
            methods=methods,
            cycle=_CYCLE[lang],
            start=start,
            example=_recipe_text(*state["methods"][0]),
        )


# ----- exchanges ------------------------------------------------------------------------------

#: Exchanges: (crops, products, methods) per level and run lengths per level.
EXCHANGE_SHAPE: tuple[tuple[tuple[str, ...], tuple[str, ...], int], ...] = (
    (("A", "B"), ("X",), 1),
    (("A", "B"), ("X",), 2),
    (("A", "B", "C"), ("X", "Y"), 3),
    (("A", "B", "C", "D"), ("X", "Y"), 5),
)
EXCHANGE_STEPS = ((1, 6), (2, 6), (4, 10), (6, 14))
PRODUCTS = ("X", "Y")

_EXCHANGE_HEAD = {
    "en": "A farmer grows the crops {crops}, which can be traded for the products {products} by "
    "these methods (what stands before -> is given up, what stands after it is received):\n"
    "{methods}\n{cycle}\nStart: {start}.\nWrite each step as the "
    "counts of {kinds} after the method applied, in that order, separated by commas (e.g. "
    "{example}), and the answer as the final counts in the same order, one string each, e.g. "
    '["1", "0", ...].',
    "zh": "一位农民有作物 {crops}，可以按下列方法换取产品 {products}"
    "（-> 前面的东西被换出，后面的东西被换得）：\n{methods}\n{cycle}\n初始：{start}。\n"
    "每一步写出执行该方法后 {kinds} 各自的数量，按此顺序、用逗号分隔（例如 {example}）；"
    "答案按同样顺序写出最后的数量，每个数量一个字符串，"
    '例如 ["1", "0", ...]。',
}


def _side(side: Recipe) -> str:
    return " + ".join(f"{n} {k}" for k, n in side)


@register
class Exchange(ExecutionTaskType):
    """Crops traded for products and, from level 2, products traded back (decomposition): a
    cycle of the two could run for ever, so runs longer than ``MAX_RUN`` are redrawn."""

    family, name = "recipes", "exchange"
    version = 2

    def _methods(self, rng: random.Random, level: int) -> list[list[Recipe]]:
        crops, products, count = EXCHANGE_SHAPE[level]
        methods = []
        for m in range(count):
            back = level >= 2 and m == count - 1  # the last method decomposes a product
            src, dst = (products, crops) if back else (crops + products[:-1], products)
            ins = rng.sample(src, rng.randint(1, min(2 if back else 3, len(src))))
            free = [k for k in dst if k not in ins]  # nothing on both sides
            outs = rng.sample(free, rng.randint(1, min(2, len(free))))
            inputs: Recipe = [[k, rng.randint(1, 3)] for k in sorted(ins, key=src.index)]
            outputs: Recipe = [[k, rng.randint(1, 2 if back else 3)] for k in sorted(outs)]
            if not back and sum(n for _, n in inputs) < 2:
                inputs[0][1] = 2
            methods.append([inputs, outputs])
        return methods

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        crops, products, _ = EXCHANGE_SHAPE[level]
        kinds = list(crops + products)
        return _generate_run(
            rng,
            kinds,
            lambda: self._methods(rng, level),
            lambda: [rng.randint(2, 7) for _ in crops] + [0] * len(products),
            EXCHANGE_STEPS[level],
        )

    def run(self, state: State) -> list[str]:
        kinds, methods = state["kinds"], state["methods"]
        counts = dict(zip(kinds, state["start"], strict=True))
        _, applied = _run(state)
        steps = []
        for i in applied:
            inputs, outputs = methods[i]
            for k, n in inputs:
                counts[k] -= n
            for k, n in outputs:
                counts[k] += n
            steps.append(",".join(str(counts[k]) for k in kinds))
        return steps

    def answer_of(self, state: State, steps: Sequence[str]) -> tuple[str, ...]:
        return tuple(steps[-1].split(","))

    def describe(self, state: State, lang: str) -> str:
        kinds = state["kinds"]
        crops = [k for k in kinds if k not in PRODUCTS]
        products = [k for k in kinds if k in PRODUCTS]
        sep = "、" if lang == "zh" else ", "
        method = {"en": "Method {i}: {ins} -> {outs}", "zh": "方法 {i}：{ins} -> {outs}"}[lang]
        methods = "\n".join(
            method.format(i=i, ins=_side(m[0]), outs=_side(m[1]))
            for i, m in enumerate(state["methods"], 1)
        )
        start = sep.join(f"{k} x {n}" for k, n in zip(kinds, state["start"], strict=True))
        return _EXCHANGE_HEAD[lang].format(
            crops=sep.join(crops),
            products=sep.join(products),
            methods=methods,
            cycle=_CYCLE[lang],
            start=start,
            kinds=sep.join(kinds),
            example=",".join(str(n) for n in state["start"]),
        )
