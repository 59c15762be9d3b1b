"""Sliding-tile puzzle (planning): slide numbered tiles into the empty cell to reach a goal.

Moves can be undone, so a BFS from the goal gives every start's distance and number of shortest
plans. Renaming tiles changes nothing about a puzzle, so the BFS runs once per board size and
empty-cell position on tiles numbered in reading order, and each item renumbers them at random.
(A river-crossing puzzle was tried here first: with up to five items no crossing plan longer
than six moves is ever the *only* shortest one, so it cannot fill level 3.)
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterator

from lm_eval_thinkbench.logic.base import PLAN_LENGTHS, PlanningTaskType, Puzzle, State
from lm_eval_thinkbench.logic.registry import register
from lm_eval_thinkbench.logic.search import Reach, descend, explore

Node = tuple[int, ...]  # cells in reading order, 0 for the empty cell


def _mover(rows: int, cols: int) -> Callable[[Node], Iterator[tuple[str, Node]]]:
    def moves(node: Node) -> Iterator[tuple[str, Node]]:
        blank = node.index(0)
        r, c = divmod(blank, cols)
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            if 0 <= r + dr < rows and 0 <= c + dc < cols:
                cell = (r + dr) * cols + c + dc
                cells = list(node)
                cells[blank], cells[cell] = cells[cell], 0
                yield str(node[cell]), tuple(cells)

    return moves


@functools.cache
def _from_goal(rows: int, cols: int, blank: int) -> Reach:
    goal = list(range(1, rows * cols))
    goal.insert(blank, 0)
    return explore(tuple(goal), _mover(rows, cols), PLAN_LENGTHS[-1][1])


def show_board(node: Node, cols: int) -> str:
    """Rows separated by ``/``, ``_`` for the empty cell: ``12_/345``."""
    cells = "".join("_" if x == 0 else str(x) for x in node)
    return "/".join(cells[i : i + cols] for i in range(0, len(cells), cols))


_HEAD = {
    "en": "A sliding puzzle on a {r}x{c} board, written row by row with rows separated by / "
    "and _ for the empty cell.\nStart: {start}\nGoal: {goal}\nA move slides one tile that is "
    "next to the empty cell (above, below, left or right of it) into the empty cell. Find the "
    "plan with the fewest moves (it is unique). Write a move as the number of the tile that "
    "slides, e.g. 5, and a state in the same form as above.",
    "zh": "滑块拼图，棋盘 {r}x{c}，按行书写，行与行之间用 / 分隔，_ 表示空格。\n初始：{start}\n"
    "目标：{goal}\n每次把一个与空格相邻（上、下、左、右）的方块滑入空格。请找出步数最少的方案"
    "（该方案唯一）。移动写成滑动的方块的编号，例如 5；状态用与上面相同的形式书写。",
}


@register
class Slide(PlanningTaskType):
    family, name = "tiles", "slide"
    SIZES = ((2, 3), (2, 3), (2, 3), (3, 3))

    def generate(self, rng: random.Random, level: int) -> Puzzle:
        lo, hi = PLAN_LENGTHS[level]
        rows, cols = self.SIZES[level]
        reach = _from_goal(rows, cols, rng.randrange(rows * cols))
        starts = sorted(n for n, d in reach.depth.items() if lo <= d <= hi and reach.count[n] == 1)
        start = rng.choice(starts)
        k = rows * cols - 1
        names = [0, *rng.sample(range(1, k + 1), k)]  # tile i is renamed names[i]

        def rename(node: Node) -> Node:
            return tuple(names[x] for x in node)

        plan = [
            (str(names[int(m)]), rename(n)) for m, n in descend(reach, start, _mover(rows, cols))
        ]
        state = {
            "rows": rows,
            "cols": cols,
            "start": list(rename(start)),
            "goal": list(rename(reach.origin)),
        }
        return self.puzzle(state, plan)

    def start(self, state: State) -> Node:
        return tuple(state["start"])

    def successors(self, state: State, node: Node) -> Iterator[tuple[str, Node]]:
        return _mover(state["rows"], state["cols"])(node)

    def is_goal(self, state: State, node: Node) -> bool:
        return node == tuple(state["goal"])

    def show(self, state: State, node: Node) -> str:
        return show_board(node, state["cols"])

    def describe(self, state: State, lang: str) -> str:
        cols = state["cols"]
        return _HEAD[lang].format(
            r=state["rows"],
            c=cols,
            start=show_board(tuple(state["start"]), cols),
            goal=show_board(tuple(state["goal"]), cols),
        )
