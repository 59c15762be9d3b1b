"""4x4 Sudoku (planning, a small constraint puzzle): fill the empty cells in reading order.

Only puzzles with exactly one solution are kept (cells are emptied one at a time while the
solution stays unique), and the statement fixes the order of the moves, so the reference plan is
the only correct answer. A replay accepts the fills in any order: a fill is legal when its cell
is empty and its digit is the solution's (any other digit leaves the puzzle unsolvable).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator

from lm_eval_thinkbench.logic.base import PLAN_LENGTHS, PlanningTaskType, Puzzle, State
from lm_eval_thinkbench.logic.registry import register

EMPTY = "."
SIZE = 4
Node = str  # 16 cells in reading order, "." when empty

# Cells sharing a row, a column or a 2x2 box with each cell.
_PEERS = [
    {
        j
        for j in range(SIZE * SIZE)
        if j != i
        and (
            j // SIZE == i // SIZE
            or j % SIZE == i % SIZE
            or (j // 8, j % SIZE // 2) == (i // 8, i % SIZE // 2)
        )
    }
    for i in range(SIZE * SIZE)
]


def _solutions(cells: Node, limit: int = 2) -> list[Node]:
    """Up to ``limit`` completions of ``cells`` (backtracking on the first empty cell)."""
    blank = cells.find(EMPTY)
    if blank < 0:
        return [cells]
    used = {cells[j] for j in _PEERS[blank]}
    found: list[Node] = []
    for digit in "1234":
        if digit not in used:
            found += _solutions(cells[:blank] + digit + cells[blank + 1 :], limit - len(found))
            if len(found) >= limit:
                break
    return found


@functools.lru_cache(maxsize=4096)
def _solution(cells: Node) -> Node:
    return _solutions(cells, 1)[0]


def _random_grid(rng: random.Random) -> Node:
    """A random full grid: a fixed valid grid with digits, rows, columns and bands shuffled."""
    digits = rng.sample("1234", 4)
    rows = [[digits[(2 * r + r // 2 + c) % 4] for c in range(4)] for r in range(4)]
    bands = rng.sample([rng.sample([0, 1], 2), rng.sample([2, 3], 2)], 2)
    stacks = rng.sample([rng.sample([0, 1], 2), rng.sample([2, 3], 2)], 2)
    order_r = [r for band in bands for r in band]
    order_c = [c for stack in stacks for c in stack]
    grid = [[rows[r][c] for c in order_c] for r in order_r]
    if rng.random() < 0.5:
        grid = [list(col) for col in zip(*grid, strict=True)]
    return "".join("".join(row) for row in grid)


def show_grid(cells: Node) -> str:
    """Rows separated by ``/``: ``12.4/3412/21.3/4321``."""
    return "/".join(cells[i : i + SIZE] for i in range(0, SIZE * SIZE, SIZE))


def _move(cell: int, digit: str) -> str:
    return f"r{cell // SIZE + 1}c{cell % SIZE + 1}={digit}"


_HEAD = {
    "en": "Complete this 4x4 Sudoku so that every row, every column and every 2x2 box holds "
    "1, 2, 3 and 4 once each (. is an empty cell):\n{grid}\nIn one line, rows separated by /: "
    "{line}\nFill the empty cells in reading order (top row first, each row left to right), one "
    "cell per move; the solution is unique. Write a move like r1c3=2 (row 1, column 3 gets 2) "
    "and a state as the grid in one line, like the line above.",
    "zh": "完成这个 4x4 数独，使每行、每列和每个 2x2 宫都恰好包含 1、2、3、4 各一次"
    "（. 表示空格）：\n{grid}\n写成一行、行之间用 / 分隔：{line}\n"
    "按阅读顺序（从上到下逐行，每行从左到右）填写空格，每步填一个格子；答案唯一。"
    "移动写成 r1c3=2（第 1 行第 3 列填 2），状态写成与上面那一行相同形式的整个盘面。",
}


@register
class Mini(PlanningTaskType):
    family, name = "constraints", "sudoku"

    def generate(self, rng: random.Random, level: int) -> Puzzle:
        lo, hi = PLAN_LENGTHS[level]
        while True:
            target = rng.randint(lo, hi)
            cells = _random_grid(rng)
            for cell in rng.sample(range(SIZE * SIZE), SIZE * SIZE):
                if cells.count(EMPTY) == target:
                    break
                trial = cells[:cell] + EMPTY + cells[cell + 1 :]
                if len(_solutions(trial)) == 1:
                    cells = trial
            if cells.count(EMPTY) == target:
                return self.puzzle({"grid": show_grid(cells)}, self._reading_order(cells))

    def _reading_order(self, cells: Node) -> list[tuple[str, Node]]:
        solution, plan = _solution(cells), []
        for cell in (i for i, x in enumerate(cells) if x == EMPTY):
            cells = cells[:cell] + solution[cell] + cells[cell + 1 :]
            plan.append((_move(cell, solution[cell]), cells))
        return plan

    def start(self, state: State) -> Node:
        return state["grid"].replace("/", "")

    def successors(self, state: State, node: Node) -> Iterator[tuple[str, Node]]:
        solution = _solution(self.start(state))
        for cell, x in enumerate(node):
            if x == EMPTY:
                yield _move(cell, solution[cell]), node[:cell] + solution[cell] + node[cell + 1 :]

    def is_goal(self, state: State, node: Node) -> bool:
        return EMPTY not in node

    def show(self, state: State, node: Node) -> str:
        return show_grid(node)

    def describe(self, state: State, lang: str) -> str:
        rows = state["grid"].split("/")
        return _HEAD[lang].format(grid="\n".join(" ".join(r) for r in rows), line=state["grid"])
