"""Latin-square puzzles (planning): arithmetic cage Sudoku (运算规则数独) and letter grids
(字母逻辑图).

Both fill the empty cells of an n x n grid in reading order, each symbol once per row and column;
cage Sudoku adds cages whose cells give a target under an operator, letter grids (from level 2)
the main diagonal. Cells are emptied one at a time while the solution stays unique (the solver
counts completions up to two), so the reference is the only answer.
"""

from __future__ import annotations

import math
import random
from abc import abstractmethod
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from lm_eval_thinkbench.logic.base import PLAN_LENGTHS, Puzzle, State
from lm_eval_thinkbench.logic.planning.fill import OrderedFill, fill_cells
from lm_eval_thinkbench.logic.registry import register

EMPTY = "."
#: Whether a full cage's symbols meet its clue.
CageCheck = Callable[[list[str]], bool]


def _units(n: int, diagonal: bool) -> list[list[int]]:
    """The cell groups that must hold distinct symbols: rows, columns (and the main diagonal)."""
    rows = [[r * n + c for c in range(n)] for r in range(n)]
    cols = [[r * n + c for r in range(n)] for c in range(n)]
    return rows + cols + ([[i * n + i for i in range(n)]] if diagonal else [])


def completions(
    cells: str,
    n: int,
    symbols: str,
    diagonal: bool = False,
    cages: Sequence[tuple[list[int], CageCheck]] = (),
    limit: int = 2,
) -> list[str]:
    """Up to ``limit`` completions of ``cells`` (``.`` empty) in which every unit holds distinct
    symbols and every cage, once full, meets its check (backtracking in reading order)."""
    units = _units(n, diagonal)
    peers = [sorted({j for u in units if i in u for j in u} - {i}) for i in range(n * n)]
    cage_of: dict[int, list[int]] = {}
    for k, (members, _) in enumerate(cages):
        for i in members:
            cage_of.setdefault(i, []).append(k)
    grid = list(cells)
    found: list[str] = []

    def cages_ok(i: int) -> bool:
        for k in cage_of.get(i, ()):
            members, check = cages[k]
            values = [grid[j] for j in members]
            if EMPTY not in values and not check(values):
                return False
        return True

    def search(start: int) -> None:
        blank = next((i for i in range(start, n * n) if grid[i] == EMPTY), -1)
        if blank < 0:
            found.append("".join(grid))
            return
        used = {grid[j] for j in peers[blank]}
        for s in symbols:
            if s not in used:
                grid[blank] = s
                if cages_ok(blank):
                    search(blank + 1)
                    if len(found) >= limit:
                        break
        grid[blank] = EMPTY

    search(0)
    return found


def random_latin(rng: random.Random, n: int, symbols: str, diagonal: bool = False) -> str:
    """A random full grid (rows concatenated): randomised backtracking over the units."""
    shuffled = "".join(rng.sample(symbols, len(symbols)))
    # Backtracking tries symbols in one shuffled order; rows and columns are shuffled after,
    # which keeps rows and columns Latin (and the diagonal is re-checked by rejection).
    while True:
        base = completions(EMPTY * (n * n), n, shuffled, diagonal, limit=1)[0]
        rows = rng.sample(range(n), n)
        cols = rng.sample(range(n), n)
        grid = "".join(base[r * n + c] for r in rows for c in cols)
        if not diagonal or len({grid[i * n + i] for i in range(n)}) == n:
            return grid


def show_grid(cells: str, n: int) -> str:
    """Rows separated by ``/``: ``12./.31/...``."""
    return "/".join(cells[i : i + n] for i in range(0, n * n, n))


def _cell(i: int, n: int) -> str:
    return f"r{i // n + 1}c{i % n + 1}"


def thin(
    rng: random.Random, full: str, n: int, target: int, unique: Callable[[str], bool]
) -> str | None:
    """``full`` with ``target`` cells emptied (tried in random order, each kept empty only while
    ``unique`` holds), or None if no more can be emptied first."""
    cells = full
    for i in rng.sample(range(n * n), n * n):
        if cells.count(EMPTY) == target:
            return cells
        trial = cells[:i] + EMPTY + cells[i + 1 :]
        if unique(trial):
            cells = trial
    return cells if cells.count(EMPTY) == target else None


#: The fewest choice points per level (steps of the reference plan where more than one symbol is
#: legal): with many givens most cells are forced, and a grid with none is solved by any legal fill.
MIN_CHOICES = (0, 0, 1, 2)
#: Thinnings tried per full grid (and cage layout) before drawing a new one.
THINNINGS = 4


class LatinFill(OrderedFill):
    """Empty cells in reading order; a move is ``r1c3=2``, a state the grid in one line."""

    def choice_points(self, state: State) -> int:
        """Steps of the reference plan at which more than one symbol is legal."""
        node: tuple[str, ...] = ()
        count = 0
        for value in self.solution(state):
            count += len(list(self.candidates(state, node))) > 1
            node = (*node, value)
        return count

    def finish(self, state: dict[str, Any], level: int) -> Puzzle | None:
        """The puzzle, or None when it has too few choice points for its level."""
        if self.choice_points(state) < MIN_CHOICES[level]:
            return None
        return self.puzzle(state, self.plan(state))

    def slots(self, state: State) -> list[int]:
        return [i for i, x in enumerate(state["grid"].replace("/", "")) if x == EMPTY]

    def move(self, state: State, slot: Any, value: Any) -> str:
        return f"{_cell(slot, state['n'])}={value}"

    def show(self, state: State, node: Any) -> str:
        cells = fill_cells(state["grid"].replace("/", ""), self.slots(state), node)
        return show_grid(cells, state["n"])

    @abstractmethod
    def symbols(self, state: State) -> str: ...

    def cage_checks(self, state: State) -> list[tuple[list[int], CageCheck]]:
        return []

    def candidates(self, state: State, node: Any) -> Iterator[str]:
        """Symbols not yet in the next cell's row, column (or diagonal), and that leave no
        full cage off its target."""
        n, slots = state["n"], self.slots(state)
        cells = list(fill_cells(state["grid"].replace("/", ""), slots, node))
        i = slots[len(node)]
        used = {cells[j] for unit in _units(n, state.get("diagonal", False)) if i in unit
                for j in unit}  # fmt: skip
        cages = [(members, check) for members, check in self.cage_checks(state) if i in members]
        for symbol in self.symbols(state):
            if symbol in used:
                continue
            cells[i] = symbol
            values = [[cells[j] for j in members] for members, _ in cages]
            if all(EMPTY in v or check(v) for v, (_, check) in zip(values, cages, strict=True)):
                yield symbol


# ----- arithmetic (cage) Sudoku ------------------------------------------------------------

#: Operators by the level that introduces them; - and / apply to two-cell cages only.
OPS_BY_LEVEL = ("+", "*", "-", "/")


def cage_value(op: str, values: Sequence[int]) -> int | None:
    """The cage's result under ``op`` (None: / does not divide evenly); a one-cell cage's
    result is its digit whatever the operator, as LogicGame states it."""
    if len(values) == 1:
        return values[0]
    if op == "+":
        return sum(values)
    if op == "*":
        return math.prod(values)
    hi, lo = max(values), min(values)
    if op == "-":
        return hi - lo
    return hi // lo if hi % lo == 0 else None


def _cage_check(op: str, target: int) -> CageCheck:
    return lambda values: cage_value(op, [int(v) for v in values]) == target


def _partition(rng: random.Random, n: int) -> list[list[int]]:
    """Cells split into connected cages of one to three cells (two most often)."""
    free = set(range(n * n))
    cages = []
    for i in rng.sample(range(n * n), n * n):
        if i not in free:
            continue
        cage = [i]
        free.discard(i)
        size = rng.choice((1, 2, 2, 2, 3, 3))
        while len(cage) < size:
            nbrs = sorted(
                j
                for k in cage
                for j in (k - n, k + n, k - 1 if k % n else -1, k + 1 if (k + 1) % n else -1)
                if j in free
            )
            if not nbrs:
                break
            j = rng.choice(nbrs)
            cage.append(j)
            free.discard(j)
        cages.append(sorted(cage))
    return sorted(cages)


_CAGES_HEAD = {
    "en": "Fill this {n}x{n} grid with the digits 1 to {n} so that each digit appears once in ever"
    "y row and every column (. is an empty cell; rows 1 to {n} from the top, columns 1 to {n} from"
    " the left):\n{grid}\nIn one line, rows separated by /: {line}\nThe cells are grouped into cag"
    "es; applying a cage's operator to its digits (in any order) gives its result: + adds, * multi"
    "plies, - is the larger minus the smaller, / the larger divided by the smaller; a one-cell cag"
    "e's result is its digit.\n{cages}\nFill the empty cells in reading order (top row first, each"
    " row left to right), one cell per move; the solution is unique. Write a move like r1c3=2 (row"
    " 1, column 3 gets 2) and a state as the grid in one line, like the line above.",
    "zh": "在这个 {n}x{n} 的网格中填入数字 1 到 {n}，使每个数字在每行、每列都恰好出现一次（. 表示"
    "空格；行从上到下编号 1 到 {n}，列从左到右编号 1 到 {n}）：\n{grid}\n写成一行、行之间用 / 分隔"
    "：{line}\n格子被分成若干笼子；把笼子的运算符作用于其中的数字（顺序不限）得到该笼子的结果：+ "
    "表示相加，* 表示相乘，- 表示大数减小数，/ 表示大数除以小数；只有一个格子的笼子，结果就是该格"
    "的数字。\n{cages}\n按阅读顺序（从上到下逐行，每行从左到右）填写空格，每步填一个格子；答案唯一"
    "。移动写成 r1c3=2（第 1 行第 3 列填 2），状态写成与上面那一行相同形式的整个盘面。",
}
_CAGE_LINE = {"en": "cells {cells}: {op} gives {t}", "zh": "格子 {cells}：{op} 的结果是 {t}"}


@register
class Cages(LatinFill):
    family, name, version = "latin", "cages", 2
    SIDE = (3, 3, 4, 4)

    def generate(self, rng: random.Random, level: int) -> Puzzle:
        n = self.SIDE[level]
        ops = OPS_BY_LEVEL[: level + 1]
        lo, hi = PLAN_LENGTHS[level]
        while True:
            full = random_latin(rng, n, "123456789"[:n])
            cages = []
            for members in _partition(rng, n):
                values = [int(full[i]) for i in members]
                usable = [
                    op
                    for op in ops
                    if (op in "+*" or len(members) == 2) and cage_value(op, values) is not None
                ]
                op = rng.choice(usable)
                cages.append([op, cage_value(op, values), [[i // n, i % n] for i in members]])
            checks = self._checks(cages, n)

            def unique(cells: str, n: int = n, checks: Any = checks) -> bool:
                return len(completions(cells, n, "123456789"[:n], cages=checks)) == 1

            for _ in range(THINNINGS):
                cells = thin(rng, full, n, rng.randint(lo, hi), unique)
                if cells is not None:
                    state = {"n": n, "grid": show_grid(cells, n), "cages": cages}
                    puzzle = self.finish(state, level)
                    if puzzle is not None:
                        return puzzle

    @staticmethod
    def _checks(
        cages: Sequence[Any], n: int
    ) -> list[tuple[list[int], Callable[[list[str]], bool]]]:
        return [([r * n + c for r, c in cells], _cage_check(op, t)) for op, t, cells in cages]

    def symbols(self, state: State) -> str:
        return "123456789"[: state["n"]]

    def cage_checks(self, state: State) -> list[tuple[list[int], CageCheck]]:
        return self._checks(state["cages"], state["n"])

    def solve(self, state: State) -> list[str]:
        cells = state["grid"].replace("/", "")
        (full,) = completions(
            cells, state["n"], self.symbols(state), cages=self.cage_checks(state), limit=1
        )
        return [full[i] for i in self.slots(state)]

    def describe(self, state: State, lang: str) -> str:
        n = state["n"]
        sep = ", " if lang == "en" else "、"
        cages = "\n".join(
            "- "
            + _CAGE_LINE[lang].format(
                cells=sep.join(f"({r + 1},{c + 1})" for r, c in cells), op=op, t=t
            )
            for op, t, cells in state["cages"]
        )
        rows = state["grid"].split("/")
        return _CAGES_HEAD[lang].format(
            n=n, grid="\n".join(" ".join(r) for r in rows), line=state["grid"], cages=cages
        )


# ----- letter logic grids ------------------------------------------------------------------

_LETTERS_HEAD = {
    "en": "Fill this {n}x{n} grid with the letters {letters} so that each letter appears once in "
    "every row, every column{diag} (. is an empty cell; rows 1 to {n} from the top, columns 1 to "
    "{n} from the left):\n{grid}\nIn one line, rows separated by /: {line}\nFill the empty cells "
    "in reading order (top row first, each row left to right), one cell per move; the solution is "
    "unique. Write a move like r1c3=b (row 1, column 3 gets b) and a state as the grid in one "
    "line, like the line above.",
    "zh": "在这个 {n}x{n} 的网格中填入字母 {letters}，使每个字母在每行、每列{diag}都恰好出现一次（"
    ". 表示空格；行从上到下编号 1 到 {n}，列从左到右编号 1 到 {n}）：\n{grid}\n写成一行、行之间用 "
    "/ 分隔：{line}\n按阅读顺序（从上到下逐行，每行从左到右）填写空格，每步填一个格子；答案唯一。"
    "移动写成 r1c3=b（第 1 行第 3 列填 b），状态写成与上面那一行相同形式的整个盘面。",
}
_DIAGONAL = {
    "en": " and the main diagonal (from the top left to the bottom right)",
    "zh": "以及主对角线（从左上到右下）上",
}


@register
class Letters(LatinFill):
    family, name, version = "latin", "letters", 2
    SIDE = (3, 4, 4, 5)

    def generate(self, rng: random.Random, level: int) -> Puzzle:
        n, diagonal = self.SIDE[level], level >= 2
        letters = "abcde"[:n]
        lo, hi = PLAN_LENGTHS[level]
        while True:
            full = random_latin(rng, n, letters, diagonal)

            def unique(cells: str, n: int = n) -> bool:
                return len(completions(cells, n, letters, diagonal)) == 1

            for _ in range(THINNINGS):
                cells = thin(rng, full, n, rng.randint(lo, hi), unique)
                if cells is not None:
                    state = {"n": n, "grid": show_grid(cells, n), "diagonal": diagonal}
                    puzzle = self.finish(state, level)
                    if puzzle is not None:
                        return puzzle

    def symbols(self, state: State) -> str:
        return "abcde"[: state["n"]]

    def solve(self, state: State) -> list[str]:
        cells = state["grid"].replace("/", "")
        (full,) = completions(cells, state["n"], self.symbols(state), state["diagonal"], limit=1)
        return [full[i] for i in self.slots(state)]

    def describe(self, state: State, lang: str) -> str:
        n = state["n"]
        sep = ", " if lang == "en" else "、"
        rows = state["grid"].split("/")
        return _LETTERS_HEAD[lang].format(
            n=n,
            letters=sep.join("abcde"[:n]),
            diag=_DIAGONAL[lang] if state["diagonal"] else "",
            grid="\n".join(" ".join(r) for r in rows),
            line=state["grid"],
        )
