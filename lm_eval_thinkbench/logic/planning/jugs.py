"""Water jugs (planning): measure an exact amount with fill, empty and pour moves.

The goal is "some jug holds exactly T litres". One BFS from the start (cached per capacities and
start) answers every target at once: a target's shortest plans end in the nodes of the first
layer that holds it, so it is kept only if that layer has one such node, reached one way.
Moves that change nothing (filling a full jug, emptying an empty one, pouring from an empty jug
or into a full one) are not legal.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator

from lm_eval_thinkbench.logic.base import PLAN_LENGTHS, PlanningTaskType, Puzzle, State
from lm_eval_thinkbench.logic.registry import register
from lm_eval_thinkbench.logic.search import Reach, explore

NAMES = "ABC"
Node = tuple[int, ...]


def _moves(caps: tuple[int, ...], node: Node) -> Iterator[tuple[str, Node]]:
    for i, cap in enumerate(caps):
        if node[i] < cap:
            yield f"fill({NAMES[i]})", (*node[:i], cap, *node[i + 1 :])
    for i in range(len(caps)):
        if node[i] > 0:
            yield f"empty({NAMES[i]})", (*node[:i], 0, *node[i + 1 :])
    for i in range(len(caps)):
        for j, cap in enumerate(caps):
            if i != j and node[i] > 0 and node[j] < cap:
                amount = min(node[i], cap - node[j])
                jugs = list(node)
                jugs[i] -= amount
                jugs[j] += amount
                yield f"pour({NAMES[i]},{NAMES[j]})", tuple(jugs)


@functools.lru_cache(maxsize=4096)
def _reach(caps: tuple[int, ...], start: Node) -> Reach:
    return explore(start, functools.partial(_moves, caps), PLAN_LENGTHS[-1][1])


def _targets(reach: Reach, lo: int, hi: int) -> dict[int, Node]:
    """Targets whose shortest plan is unique and ``lo``-``hi`` moves long, with its end node."""
    first: dict[int, list[Node]] = {}
    depth_of: dict[int, int] = {}
    for node, depth in sorted(reach.depth.items(), key=lambda kv: kv[1]):
        for amount in sorted(set(node) - {0}):
            if amount not in depth_of:
                depth_of[amount] = depth
            if depth_of[amount] == depth:
                first.setdefault(amount, []).append(node)
    return {
        t: nodes[0]
        for t, nodes in first.items()
        if lo <= depth_of[t] <= hi and len(nodes) == 1 and reach.count[nodes[0]] == 1
    }


def show_jugs(node: Node) -> str:
    return "(" + ",".join(map(str, node)) + ")"


_HEAD = {
    "en": "Jugs {names} hold at most {caps} litres. They now hold {start} litres (in that "
    "order). Goal: some jug holds exactly {target} litres. Moves: fill(X) fills jug X to the "
    "top, empty(X) pours jug X away, pour(X,Y) pours from X into Y until X is empty or Y is "
    "full. A move must change something. Find the plan with the fewest moves (it is unique). "
    "Write moves like fill(A) and pour(A,B), and a state as the litres in each jug, like {ex}.",
    "zh": "水壶 {names} 的容量分别是 {caps} 升，现在分别装有 {start} 升。"
    "目标：某个水壶里恰好有 {target} 升水。操作：fill(X) 把水壶 X 装满，"
    "empty(X) 把水壶 X 倒空，pour(X,Y) 把 X 中的水倒进 Y，直到 X 倒空或 Y 装满。"
    "每次操作都必须改变状态。请找出步数最少的方案（该方案唯一）。"
    "操作写成 fill(A)、pour(A,B) 这样的形式，状态写成各水壶中的升数，例如 {ex}。",
}


@register
class Pour(PlanningTaskType):
    family, name = "containers", "jugs"
    #: Jug capacities to draw two from, per level (with three jugs a 7-10 move plan is never
    #: the only shortest one).
    CAPACITIES = (range(2, 10), range(2, 10), range(2, 10), range(3, 14))

    def generate(self, rng: random.Random, level: int) -> Puzzle:
        lo, hi = PLAN_LENGTHS[level]
        while True:
            caps = tuple(sorted(rng.sample(self.CAPACITIES[level], 2)))
            start = tuple(0 if rng.random() < 0.5 else rng.randint(0, c) for c in caps)
            reach = _reach(caps, start)
            targets = _targets(reach, lo, hi)
            if targets:
                target = rng.choice(sorted(targets))
                state = {"caps": list(caps), "start": list(start), "target": target}
                return self.puzzle(state, reach.plan_to(targets[target]))

    def start(self, state: State) -> Node:
        return tuple(state["start"])

    def successors(self, state: State, node: Node) -> Iterator[tuple[str, Node]]:
        return _moves(tuple(state["caps"]), node)

    def is_goal(self, state: State, node: Node) -> bool:
        return state["target"] in node

    def show(self, state: State, node: Node) -> str:
        return show_jugs(node)

    def describe(self, state: State, lang: str) -> str:
        sep = "、" if lang == "zh" else ", "
        k = len(state["caps"])
        return _HEAD[lang].format(
            names=sep.join(NAMES[:k]),
            caps=sep.join(map(str, state["caps"])),
            start=sep.join(map(str, state["start"])),
            target=state["target"],
            ex=show_jugs(tuple(range(k))),
        )
