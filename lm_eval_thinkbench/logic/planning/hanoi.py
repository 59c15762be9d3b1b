"""Tower of Hanoi between any two legal configurations (planning).

Start and goal are both arbitrary legal configurations, which gives far more distinct puzzles
than "everything onto peg C". Moves can be undone, so one BFS from a goal (cached) gives every
start's distance and number of shortest plans; starts with exactly one shortest plan of the
level's length are drawn from that table.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator

from lm_eval_thinkbench.logic.base import PLAN_LENGTHS, PlanningTaskType, Puzzle, State
from lm_eval_thinkbench.logic.registry import register
from lm_eval_thinkbench.logic.search import Reach, descend, explore

PEGS = "ABC"
Node = tuple[tuple[int, ...], ...]


def _moves(node: Node) -> Iterator[tuple[str, Node]]:
    for i, src in enumerate(node):
        if not src:
            continue
        for j, dst in enumerate(node):
            if j != i and (not dst or dst[-1] > src[-1]):
                pegs = list(node)
                pegs[i], pegs[j] = src[:-1], (*dst, src[-1])
                yield f"{PEGS[i]}->{PEGS[j]}", tuple(pegs)


def _node(pegs: list[list[int]]) -> Node:
    return tuple(tuple(p) for p in pegs)


def _random_config(rng: random.Random, n: int) -> Node:
    pegs: list[list[int]] = [[], [], []]
    for disk in range(n, 0, -1):  # largest first, so every peg stays sorted
        pegs[rng.randrange(3)].append(disk)
    return tuple(tuple(p) for p in pegs)


@functools.cache
def _from_goal(goal: Node) -> Reach:
    return explore(goal, _moves, PLAN_LENGTHS[-1][1])


def show_pegs(node: Node) -> str:
    return " ".join(f"{PEGS[i]}[{','.join(map(str, p))}]" for i, p in enumerate(node))


_HEAD = {
    "en": "Tower of Hanoi with pegs A, B, C and {n} disks numbered 1 (smallest) to {n} "
    "(largest); each peg is listed bottom to top.\nStart: {start}\nGoal: {goal}\nA move takes "
    "the top disk of one peg and puts it on another peg, never on a smaller disk. Find the plan "
    "with the fewest moves (it is unique). Write a move like A->C (the top disk of A onto C) "
    "and a state like A[3,1] B[2] C[].",
    "zh": "汉诺塔：柱子 A、B、C，{n} 个圆盘编号 1（最小）到 {n}（最大）；每根柱子从下往上列出。\n"
    "初始：{start}\n目标：{goal}\n每次把某根柱子最上面的一个圆盘移到另一根柱子上，不能放在比它小的"
    "圆盘上。请找出步数最少的方案（该方案唯一）。移动写成 A->C（把 A 最上面的圆盘移到 C），"
    "状态写成 A[3,1] B[2] C[] 的形式。",
}


@register
class Hanoi(PlanningTaskType):
    family, name = "towers", "hanoi"
    DISKS = ((2, 3), (2, 3), (3, 3), (4, 4))

    def generate(self, rng: random.Random, level: int) -> Puzzle:
        lo, hi = PLAN_LENGTHS[level]
        while True:
            goal = _random_config(rng, rng.randint(*self.DISKS[level]))
            reach = _from_goal(goal)
            starts = sorted(
                (n for n, d in reach.depth.items() if lo <= d <= hi and reach.count[n] == 1),
                key=show_pegs,
            )
            if starts:
                start = rng.choice(starts)
                state = {"pegs": [list(p) for p in start], "goal": [list(p) for p in goal]}
                return self.puzzle(state, descend(reach, start, _moves))

    def start(self, state: State) -> Node:
        return _node(state["pegs"])

    def successors(self, state: State, node: Node) -> Iterator[tuple[str, Node]]:
        return _moves(node)

    def is_goal(self, state: State, node: Node) -> bool:
        return node == _node(state["goal"])

    def show(self, state: State, node: Node) -> str:
        return show_pegs(node)

    def describe(self, state: State, lang: str) -> str:
        start = _node(state["pegs"])
        return _HEAD[lang].format(
            n=sum(map(len, start)), start=show_pegs(start), goal=show_pegs(_node(state["goal"]))
        )
