"""Blocks world (planning): restack lettered blocks into a goal arrangement.

A move puts the top block of a stack onto another stack or onto the (unlimited) table. Moves can
be undone, so as for Hanoi a BFS from the goal serves every start. Renaming blocks changes
nothing about a puzzle, so the BFS runs once per goal *shape* (its stack heights, at most seven
for five blocks) on canonically named blocks, and each item renames them at random (from
A-H).
"""

from __future__ import annotations

import functools
import random
import string
from collections.abc import Iterable, Iterator, Sequence

from lm_eval_thinkbench.logic.base import PLAN_LENGTHS, PlanningTaskType, Puzzle, State
from lm_eval_thinkbench.logic.registry import register
from lm_eval_thinkbench.logic.search import Reach, descend, explore

TABLE = "_"
NAMES = "ABCDEFGH"
Node = tuple[tuple[str, ...], ...]  # stacks bottom to top, sorted by bottom block


def _node(stacks: Iterable[Sequence[str]]) -> Node:
    return tuple(sorted(tuple(s) for s in stacks if s))


def _moves(node: Node) -> Iterator[tuple[str, Node]]:
    for i, src in enumerate(node):
        top, rest = src[-1], src[:-1]
        for j, dst in enumerate(node):
            if j != i:
                stacks = [s for k, s in enumerate(node) if k not in (i, j)]
                yield f"{top}->{dst[-1]}", _node([*stacks, rest, (*dst, top)])
        if rest:
            yield f"{top}->{TABLE}", _node([*node[:i], rest, (top,), *node[i + 1 :]])


def _random_shape(rng: random.Random, n: int) -> tuple[int, ...]:
    """Stack heights of a random arrangement of ``n`` blocks, tallest first."""
    heights: list[int] = []
    for _ in range(n):
        if heights and rng.random() < 0.6:
            heights[rng.randrange(len(heights))] += 1
        else:
            heights.append(1)
    return tuple(sorted(heights, reverse=True))


@functools.cache
def _from_goal(shape: tuple[int, ...]) -> Reach:
    """BFS from the goal of ``shape`` with blocks A, B, C, ... stacked in order."""
    letters = iter(string.ascii_uppercase)
    goal = _node([[next(letters) for _ in range(h)] for h in shape])
    return explore(goal, _moves, PLAN_LENGTHS[-1][1])


def _rename(node: Node, names: dict[str, str]) -> Node:
    return _node([[names[b] for b in s] for s in node])


def show_stacks(node: Node) -> str:
    return "/".join("".join(s) for s in node)


_HEAD = {
    "en": "Blocks world. Blocks stand in stacks on a table; each stack is written bottom to top "
    "and stacks are separated by /.\nStart: {start}\nGoal: {goal}\nA move takes the top block "
    "of a stack and puts it on top of another stack, or on the table as a new stack. Find the "
    "plan with the fewest moves (it is unique). Write a move like C->A (put C on A) or C->_ "
    "(put C on the table); write a state as its stacks, each bottom to top, sorted by their "
    "bottom block and separated by /, like AC/B.",
    "zh": "积木世界。积木在桌上堆成若干堆；每堆从下往上书写，堆与堆之间用 / 分隔。\n"
    "初始：{start}\n目标：{goal}\n每次把某一堆最上面的积木放到另一堆的顶上，"
    "或者放到桌上成为新的一堆。请找出步数最少的方案（该方案唯一）。"
    "移动写成 C->A（把 C 放到 A 上）或 C->_（把 C 放到桌上）；"
    "状态写成各堆积木，每堆从下往上，按最底下的积木字母排序，用 / 分隔，"
    "例如 AC/B。",
}


@register
class Stacking(PlanningTaskType):
    family, name = "blocks", "stacking"
    BLOCKS = (3, 3, 4, 5)

    def generate(self, rng: random.Random, level: int) -> Puzzle:
        lo, hi = PLAN_LENGTHS[level]
        n = self.BLOCKS[level]
        while True:
            reach = _from_goal(_random_shape(rng, n))
            starts = sorted(
                (s for s, d in reach.depth.items() if lo <= d <= hi and reach.count[s] == 1),
                key=show_stacks,
            )
            if starts:
                break
        start = rng.choice(starts)
        # Block names are drawn from A-H, so small levels still give many distinct puzzles.
        names = dict(zip(string.ascii_uppercase, rng.sample(NAMES, n), strict=False))
        plan = [
            (f"{names[m[0]]}->{names.get(m[-1], TABLE)}", _rename(node, names))
            for m, node in descend(reach, start, _moves)
        ]
        state = {
            "stacks": [list(s) for s in _rename(start, names)],
            "goal": [list(s) for s in _rename(reach.origin, names)],
        }
        return self.puzzle(state, plan)

    def start(self, state: State) -> Node:
        return _node(state["stacks"])

    def successors(self, state: State, node: Node) -> Iterator[tuple[str, Node]]:
        return _moves(node)

    def is_goal(self, state: State, node: Node) -> bool:
        return node == _node(state["goal"])

    def show(self, state: State, node: Node) -> str:
        return show_stacks(node)

    def describe(self, state: State, lang: str) -> str:
        return _HEAD[lang].format(
            start=show_stacks(_node(state["stacks"])), goal=show_stacks(_node(state["goal"]))
        )
