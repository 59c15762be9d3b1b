"""Placement puzzles (planning): n-queens completion (八皇后) and number picks under sum limits
(逻辑拼图).

Queens: some queens stand on an n x n board; the rest go one per empty row, top to bottom, so that
no two share a row, column or diagonal. Picks: a grid of numbers; one cell is chosen for each
number 1 to k, the first given, the others in ascending order, so that the chosen numbers in each
row and each column add up to at most a limit. Both keep only puzzles with one solution, found
by the solvers below.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator
from typing import Any

from lm_eval_thinkbench.logic.base import PLAN_LENGTHS, Puzzle, State
from lm_eval_thinkbench.logic.planning.fill import OrderedFill
from lm_eval_thinkbench.logic.registry import register

# ----- n-queens ----------------------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def all_queens(n: int) -> tuple[tuple[int, ...], ...]:
    """Every solution of n-queens as the column of the queen in each row (in lexical order)."""
    out: list[tuple[int, ...]] = []

    def place(cols: tuple[int, ...]) -> None:
        r = len(cols)
        if r == n:
            out.append(cols)
            return
        for c in range(n):
            if all(c != c2 and abs(c - c2) != r - r2 for r2, c2 in enumerate(cols)):
                place((*cols, c))

    place(())
    return tuple(out)


@functools.lru_cache(maxsize=16)
def _queen_masks(n: int) -> tuple[tuple[int, ...], ...]:
    """``[r][c]``: one bit per solution of :func:`all_queens` with its row-``r`` queen on ``c``."""
    masks = [[0] * n for _ in range(n)]
    for k, s in enumerate(all_queens(n)):
        for r, c in enumerate(s):
            masks[r][c] |= 1 << k
    return tuple(tuple(row) for row in masks)


def _fixes_one(n: int, given: dict[int, int]) -> bool:
    """Whether exactly one solution keeps the queens ``given`` (row: column)."""
    alive = (1 << len(all_queens(n))) - 1
    for r, c in given.items():
        alive &= _queen_masks(n)[r][c]
    return alive.bit_count() == 1


def queen_completions(rows: list[str]) -> list[tuple[int, ...]]:
    """The solutions that keep every queen already on the board (``1`` marks one)."""
    given = {r: row.index("1") for r, row in enumerate(rows) if "1" in row}
    return [s for s in all_queens(len(rows)) if all(s[r] == c for r, c in given.items())]


_QUEENS_HEAD = {
    "en": "This board of {n}x{n} cells, row by row (1 is a queen, 0 an empty cell; rows 1 to {n} f"
    "rom the top, columns 1 to {n} from the left):\n{board}\nIn one line, rows separated by /: {li"
    "ne}\nPlace {n} queens in all, one in every row, so that no two queens share a row, a column o"
    "r a diagonal; the queens already on the board stay. Place one queen per move, in the empty ro"
    "ws from top to bottom; the solution is unique. Write a move like r3c5 (a queen on row 3, colu"
    "mn 5) and a state as the board in one line, like the line above.",
    "zh": "一个 {n}x{n} 的棋盘，按行书写（1 表示皇后，0 表示空格；行从上到下编号 1 到 {n}，列从左"
    "到右编号 1 到 {n}）：\n{board}\n写成一行、行之间用 / 分隔：{line}\n一共要放 {n} 个皇后，每行"
    "一个，使任意两个皇后都不在同一行、同一列或同一条斜线上；棋盘上已有的皇后保持不动。每步放一个"
    "皇后，按从上到下的顺序填满空行；答案唯一。移动写成 r3c5（在第 3 行第 5 列放皇后），状态写成与"
    "上面那一行相同形式的整个棋盘。",
}


@register
class Queens(OrderedFill):
    family, name, version = "placement", "queens", 2
    #: Board sides per level (one is drawn); queens to place come from ``PLAN_LENGTHS``.
    SIDES = ((4, 5, 6), (5, 6), (6, 7, 8), (9, 10))

    def generate(self, rng: random.Random, level: int) -> Puzzle:
        """A random solution, its queens taken off in random order while the rest still fix it."""
        lo, hi = PLAN_LENGTHS[level]
        while True:
            n = rng.choice(self.SIDES[level])
            target = rng.randint(lo, min(hi, n))
            solution = rng.choice(all_queens(n))
            given = set(range(n))
            for r in rng.sample(range(n), n):
                if n - len(given) == target:
                    break
                rest = given - {r}
                if _fixes_one(n, {q: solution[q] for q in rest}):
                    given = rest
            if n - len(given) == target:
                rows = ["".join("1" if r in given and solution[r] == c else "0" for c in range(n))
                        for r in range(n)]  # fmt: skip
                state = {"board": "/".join(rows)}
                return self.puzzle(state, self.plan(state))

    def slots(self, state: State) -> list[int]:
        return [r for r, row in enumerate(state["board"].split("/")) if "1" not in row]

    def solve(self, state: State) -> list[int]:
        (solution,) = queen_completions(state["board"].split("/"))
        return [solution[r] for r in self.slots(state)]

    def move(self, state: State, slot: Any, value: Any) -> str:
        return f"r{slot + 1}c{value + 1}"

    def candidates(self, state: State, node: Any) -> Iterator[int]:
        """Columns of the next empty row that no queen attacks (along a column or diagonal)."""
        rows = self.show(state, node).split("/")
        queens = [(r, row.index("1")) for r, row in enumerate(rows) if "1" in row]
        r = self.slots(state)[len(node)]
        for c in range(len(rows)):
            if all(c != c2 and abs(c - c2) != abs(r - r2) for r2, c2 in queens):
                yield c

    def show(self, state: State, node: Any) -> str:
        rows = state["board"].split("/")
        n = len(rows)
        for r, c in zip(self.slots(state), node, strict=False):
            rows[r] = "".join("1" if j == c else "0" for j in range(n))
        return "/".join(rows)

    def describe(self, state: State, lang: str) -> str:
        rows = state["board"].split("/")
        return _QUEENS_HEAD[lang].format(n=len(rows), board="\n".join(rows), line=state["board"])


# ----- number picks under sum limits -------------------------------------------------------

Cell = tuple[int, int]


def pick_solutions(
    grid: list[list[int]], k: int, limit: int, start: Cell, cap: int = 2
) -> list[dict[int, Cell]]:
    """Up to ``cap`` choices of one cell per number 1..k, ``start`` among them, whose chosen
    numbers add up to at most ``limit`` in every row and column (largest numbers first, which
    prunes soonest)."""
    n = len(grid)
    where: dict[int, list[Cell]] = {v: [] for v in range(k + 1)}
    for r in range(n):
        for c in range(n):
            where[grid[r][c]].append((r, c))
    first = grid[start[0]][start[1]]
    rows, cols = [0] * n, [0] * n
    rows[start[0]] += first
    cols[start[1]] += first
    chosen: dict[int, Cell] = {first: start}
    found: list[dict[int, Cell]] = []
    order = [v for v in range(k, 0, -1) if v != first]

    def search(i: int) -> None:
        if i == len(order):
            found.append(dict(chosen))
            return
        v = order[i]
        for r, c in where[v]:
            if rows[r] + v <= limit and cols[c] + v <= limit:
                rows[r] += v
                cols[c] += v
                chosen[v] = (r, c)
                search(i + 1)
                del chosen[v]
                rows[r] -= v
                cols[c] -= v
                if len(found) >= cap:
                    return

    if first <= limit:
        search(0)
    return found


_PICKS_HEAD = {
    "en": "A {n}x{n} grid of numbers, row by row (rows 1 to {n} from the top, columns 1 to {n} fro"
    "m the left):\n{grid}\nChoose {k} cells, one holding each number from 1 to {k}, so that the ch"
    "osen numbers in every row add up to at most {limit}, and so do those in every column. The {fi"
    "rst} at {start} is chosen first. Choose the other cells one per move, for the numbers in asce"
    "nding order; the solution is unique. Write a move as the chosen cell, like (2,3) (row 2, colu"
    "mn 3), and a state as every cell chosen so far, the first one included, in ascending order of"
    " their numbers, like (1,2),(2,3).",
    "zh": "一个 {n}x{n} 的数字网格，按行书写（行从上到下编号 1 到 {n}，列从左到右编号 1 到 {n}）："
    "\n{grid}\n选出 {k} 个格子，分别含有 1 到 {k} 的每个数字各一次，使每一行中选中的数字之和不超过"
    " {limit}，每一列也是如此。位于 {start} 的 {first} 最先被选中。其余格子每步选一个，按数字从小"
    "到大的顺序选；答案唯一。移动写成所选格子，例如 (2,3)（第 2 行第 3 列），状态写成到目前为止选"
    "中的所有格子（包括最先选的那个），按其数字从小到大排列，例如 (1,2),(2,3)。",
}


def _show_cell(cell: Cell) -> str:
    return f"({cell[0] + 1},{cell[1] + 1})"


@register
class Picks(OrderedFill):
    family, name, version = "placement", "picks", 2
    SIDE = (2, 3, 4, 5)
    #: The most moves per level (LogicGame's largest, 5x5 with 8 numbers, is 7 moves).
    MOST_MOVES = (1, 3, 6, 8)

    def generate(self, rng: random.Random, level: int) -> Puzzle:
        """Numbers at random (each of 1..k at least once), a random choice of one cell per
        number, the limit its largest row or column sum. While another choice also fits, one of
        its cells outside the intended choice gets another number (which removes that choice
        and never the intended one); kept once the intended choice is the only one."""
        n = self.SIDE[level]
        lo, hi = PLAN_LENGTHS[level]
        while True:  # (a k x k grid has room for 1..k: k <= n * n at every level)
            k = rng.randint(lo, min(hi, self.MOST_MOVES[level])) + 1
            cells = [(r, c) for r in range(n) for c in range(n)]
            spots = rng.sample(cells, len(cells))
            grid = [[0] * n for _ in range(n)]
            for v, (r, c) in enumerate(spots[:k], 1):
                grid[r][c] = v
            for r, c in spots[k:]:
                grid[r][c] = rng.randint(1, k)
            chosen = {v: spots[v - 1] for v in range(1, k + 1)}
            limit = max(
                max(sum(v for v, (r, _) in chosen.items() if r == i) for i in range(n)),
                max(sum(v for v, (_, c) in chosen.items() if c == i) for i in range(n)),
            )
            start = chosen[rng.randint(1, k)]
            for _ in range(4 * k):
                found = pick_solutions(grid, k, limit, start)
                if len(found) == 1:
                    state = {"grid": grid, "k": k, "limit": limit, "start": list(start)}
                    return self.puzzle(state, self.plan(state))
                other = next(f for f in found if f != chosen)
                v = rng.choice([v for v in sorted(other) if other[v] != chosen[v]])
                r, c = other[v]
                # A number too large for the cell's row or column, where there is one.
                room = limit - min(
                    sum(w for w, (r2, _) in chosen.items() if r2 == r),
                    sum(w for w, (_, c2) in chosen.items() if c2 == c),
                )
                big = [w for w in range(1, k + 1) if w != v and w > room]
                grid[r][c] = rng.choice(big or [w for w in range(1, k + 1) if w != v])

    def _start(self, state: State) -> Cell:
        return (state["start"][0], state["start"][1])

    def slots(self, state: State) -> list[int]:
        r, c = self._start(state)
        first = state["grid"][r][c]
        return [v for v in range(1, state["k"] + 1) if v != first]

    def solve(self, state: State) -> list[Cell]:
        (found,) = pick_solutions(state["grid"], state["k"], state["limit"], self._start(state), 1)
        return [found[v] for v in self.slots(state)]

    def move(self, state: State, slot: Any, value: Any) -> str:
        return _show_cell(value)

    def candidates(self, state: State, node: Any) -> Iterator[Cell]:
        """Cells holding the next number that keep its row and column within the limit."""
        grid, limit = state["grid"], state["limit"]
        chosen = [self._start(state), *node]
        v = self.slots(state)[len(node)]
        for r, row in enumerate(grid):
            for c, x in enumerate(row):
                if x != v:
                    continue
                in_row = sum(grid[r2][c2] for r2, c2 in chosen if r2 == r)
                in_col = sum(grid[r2][c2] for r2, c2 in chosen if c2 == c)
                if max(in_row, in_col) + v <= limit:
                    yield (r, c)

    def show(self, state: State, node: Any) -> str:
        r, c = self._start(state)
        chosen = {state["grid"][r][c]: (r, c), **dict(zip(self.slots(state), node, strict=False))}
        return ",".join(_show_cell(chosen[v]) for v in sorted(chosen))

    def describe(self, state: State, lang: str) -> str:
        grid = state["grid"]
        r, c = self._start(state)
        return _PICKS_HEAD[lang].format(
            n=len(grid),
            grid="\n".join(",".join(str(x) for x in row) for row in grid),
            k=state["k"],
            limit=state["limit"],
            first=grid[r][c],
            start=_show_cell((r, c)),
        )
