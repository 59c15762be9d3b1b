"""Shortest path on a small grid with walls (planning).

One BFS from the start gives every cell's distance and number of shortest paths; the goal is
drawn among the cells that are the level's distance away and reached by exactly one shortest
path, so the reference route is the only shortest one.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator

from lm_eval_thinkbench.logic.base import PLAN_LENGTHS, PlanningTaskType, Puzzle, State
from lm_eval_thinkbench.logic.execution.grid import DIRS, show_pos
from lm_eval_thinkbench.logic.registry import register
from lm_eval_thinkbench.logic.search import explore

Node = tuple[int, int]
WALL, START, GOAL = "#", "S", "G"


def _moves(grid: list[str], node: Node) -> Iterator[tuple[str, Node]]:
    r, c = node
    for d, (dr, dc) in DIRS.items():
        rr, cc = r + dr, c + dc
        if 0 <= rr < len(grid) and 0 <= cc < len(grid[0]) and grid[rr][cc] != WALL:
            yield d, (rr, cc)


def _find(grid: list[str], mark: str) -> Node:
    return next((r, row.index(mark)) for r, row in enumerate(grid) if mark in row)


_HEAD = {
    "en": "Find the shortest path from S to G on this grid (rows 1 to {n} from the top, columns "
    "1 to {n} from the left; # is a wall, . is open):\n{grid}\nEach move goes one cell: U up, D "
    "down, L left, R right; walls and the edge cannot be crossed. The shortest path is unique. "
    "Write moves as U, D, L, R and positions as (row,column), e.g. (2,3).",
    "zh": "在下面的网格上找出从 S 到 G 的最短路径（行从上到下编号 1 到 {n}，"
    "列从左到右编号 1 到 {n}；# 是墙，. 可以通行）：\n{grid}\n"
    "每步走一格：U 向上，D 向下，L 向左，R 向右；不能穿墙，也不能走出网格。"
    "最短路径是唯一的。移动写成 U、D、L、R，位置写成 (行,列)，例如 (2,3)。",
}


@register
class Maze(PlanningTaskType):
    family, name = "routes", "maze"
    SIZES = (3, 4, 5, 6)

    def generate(self, rng: random.Random, level: int) -> Puzzle:
        lo, hi = PLAN_LENGTHS[level]
        n = self.SIZES[level]
        while True:
            cells = [[WALL if rng.random() < 0.3 else "." for _ in range(n)] for _ in range(n)]
            open_cells = [(r, c) for r in range(n) for c in range(n) if cells[r][c] == "."]
            if not open_cells:
                continue
            start = rng.choice(open_cells)
            grid = ["".join(row) for row in cells]
            reach = explore(start, functools.partial(_moves, grid), hi)
            goals = sorted(
                node for node, d in reach.depth.items() if lo <= d <= hi and reach.count[node] == 1
            )
            if goals:
                goal = rng.choice(goals)
                cells[start[0]][start[1]] = START
                cells[goal[0]][goal[1]] = GOAL
                return self.puzzle({"grid": ["".join(row) for row in cells]}, reach.plan_to(goal))

    def start(self, state: State) -> Node:
        return _find(state["grid"], START)

    def successors(self, state: State, node: Node) -> Iterator[tuple[str, Node]]:
        return _moves(state["grid"], node)

    def is_goal(self, state: State, node: Node) -> bool:
        return node == _find(state["grid"], GOAL)

    def show(self, state: State, node: Node) -> str:
        return show_pos(node)

    def describe(self, state: State, lang: str) -> str:
        grid = state["grid"]
        return _HEAD[lang].format(n=len(grid), grid="\n".join(" ".join(row) for row in grid))
