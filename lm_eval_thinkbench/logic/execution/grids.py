"""Grids of letters and numbers read by rule (execution): element operations, max pooling and
pattern recognition (LogicGame's 元素操作, 池化 and 模式识别).

A letter matrix is written row by row with ``/`` between rows (``ABBA/CDEF``); a number matrix
as in ``matrix/transform`` (``[[4,4],[3,3]]``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from lm_eval_thinkbench.logic.base import ExecutionTaskType, State, numbered, op_sequence
from lm_eval_thinkbench.logic.execution.matrix import show_matrix
from lm_eval_thinkbench.logic.registry import register

Rows = list[str]


def show_rows(rows: Sequence[str]) -> str:
    return "/".join(rows)


def _grid_text(rows: Sequence[str]) -> str:
    return "\n".join(" ".join(row) for row in rows)


# ----- element operations ---------------------------------------------------------------------


def prune(rows: Rows, op: Sequence[Any]) -> Rows:
    kind = op[0]
    if kind == "sym_rows":
        return [r for r in rows if r != r[::-1]]
    if kind == "rows_with":
        return [r for r in rows if op[1] not in r]
    if kind == "cols_with":
        keep = [j for j in range(len(rows[0])) if all(r[j] != op[1] for r in rows)]
        return ["".join(r[j] for j in keep) for r in rows]
    if kind == "same_cols":
        keep = [j for j in range(len(rows[0])) if len({r[j] for r in rows}) > 1]
        return ["".join(r[j] for j in keep) for r in rows]
    return [r.replace(op[1], op[2]) for r in rows]  # replace


_PRUNE_TEXT = {
    "sym_rows": {
        "en": "Delete every row that reads the same forwards and backwards.",
        "zh": "删除所有正读和反读相同的行（对称的行）。",
    },
    "rows_with": {
        "en": "Delete every row that contains the letter {0}.",
        "zh": "删除所有含有字母 {0} 的行。",
    },
    "cols_with": {
        "en": "Delete every column that contains the letter {0}.",
        "zh": "删除所有含有字母 {0} 的列。",
    },
    "same_cols": {
        "en": "Delete every column whose letters are all the same.",
        "zh": "删除所有字母全部相同的列。",
    },
    "replace": {"en": "Replace every {0} with {1}.", "zh": "把所有的 {0} 换成 {1}。"},
}
_PRUNE_HEAD = {
    "en": "Start with this letter matrix:\n{grid}\nApply these operations in order, each to the "
    "matrix as the previous one left it:\n{ops}\nWrite every matrix row by row, rows separated "
    "by /, without spaces (e.g. ABBA/CDEF).",
    "zh": "初始字母矩阵如下：\n{grid}\n按顺序执行下列操作，"
    "每个操作作用于上一个操作之后的矩阵：\n{ops}\n"
    "所有矩阵都按行书写，行与行之间用 / 分隔，不加空格（例如 ABBA/CDEF）。",
}
#: Element operations: (rows, columns) per level; letters drawn from the first ``PRUNE_LETTERS``.
PRUNE_SHAPE = ((3, 4), (4, 5), (5, 6), (6, 7))
PRUNE_STEPS = (1, 2, 3, 4)
PRUNE_LETTERS = "ABCDEF"


def _prune_op(rng: random.Random, kind: str, rows: Rows) -> list[Any] | None:
    """An operation of ``kind`` that changes ``rows`` and leaves a row and a column, or None."""
    letters = sorted({c for r in rows for c in r})
    if kind in ("rows_with", "cols_with"):
        candidates = [[kind, c] for c in letters]
    elif kind == "replace":
        candidates = [["replace", a, b] for a in letters for b in PRUNE_LETTERS if a != b]
    else:
        candidates = [[kind]]
    rng.shuffle(candidates)
    for op in candidates:
        after = prune(rows, op)
        if after != rows and after and after[0]:
            return op
    return None


def _prune_grid(rng: random.Random, n: int, m: int) -> Rows:
    """A random matrix with some symmetric rows and some uniform columns, so that those rules
    have something to delete."""
    rows = []
    for _ in range(n):
        row = [rng.choice(PRUNE_LETTERS) for _ in range(m)]
        if rng.random() < 0.35:
            row = row[: (m + 1) // 2] + row[: m // 2][::-1]
        rows.append(row)
    for j in range(m):
        if rng.random() < 0.2:
            for row in rows:
                row[j] = rows[0][j]
    return ["".join(r) for r in rows]


@register
class Prune(ExecutionTaskType):
    """Every operation changes the matrix and none empties it."""

    family, name = "matrix", "prune"
    version = 2
    KINDS = tuple(_PRUNE_TEXT)

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        while True:
            rows = _prune_grid(rng, *PRUNE_SHAPE[level])
            kinds = op_sequence(rng, level, self.KINDS)[: PRUNE_STEPS[level]]
            ops, current = [], rows
            for kind in kinds:
                op = _prune_op(rng, kind, current)
                if op is None:
                    break
                ops.append(op)
                current = prune(current, op)
            if len(ops) == len(kinds):
                return {"rows": rows, "ops": ops}

    def run(self, state: State) -> list[str]:
        rows, out = list(state["rows"]), []
        for op in state["ops"]:
            rows = prune(rows, op)
            out.append(show_rows(rows))
        return out

    def describe(self, state: State, lang: str) -> str:
        ops = numbered(_PRUNE_TEXT[op[0]][lang].format(*op[1:]) for op in state["ops"])
        return _PRUNE_HEAD[lang].format(grid=_grid_text(state["rows"]), ops=ops)


# ----- max pooling ----------------------------------------------------------------------------

#: Pooling: (matrix size, window size, stride) per level.
POOL_SHAPE = ((3, 2, 1), (4, 2, 1), (7, 3, 2), (6, 3, 1))

_POOL_HEAD = {
    "en": "Max pooling with a {n}x{n} window{stride_text}: the window starts at the top left "
    "corner of the matrix and moves {s} column(s) at a time to the right; after the end of a row "
    "of positions it goes back to the left edge, {s} row(s) further down. At each position, "
    "take the largest number inside the window. The results, in the same arrangement, form the "
    "new matrix. Pool this matrix:\n{grid}\nA step is the largest number of one window "
    "position, in the order above. Write the answer as the new matrix row by row, e.g. "
    "[[4,4],[3,3]].",
    "zh": "最大池化：用 {n}x{n} 的窗口{stride_text}，从矩阵左上角开始，每次向右移动 {s} 列；"
    "一行位置走完后回到最左边，并向下移动 {s} 行。在每个位置取窗口内最大的数，"
    "这些结果按同样的排列组成新矩阵。对下面的矩阵做最大池化：\n{grid}\n每一步写出一个窗口位置的最大数，"
    "按上面的顺序。答案按行写出新矩阵，例如 [[4,4],[3,3]]。",
}
_STRIDE = {"en": " and stride {s}", "zh": "，步长为 {s}"}


def pooled(matrix: list[list[int]], n: int, s: int) -> list[list[int]]:
    size = len(matrix)
    starts = range(0, size - n + 1, s)
    return [
        [max(matrix[i + a][j + b] for a in range(n) for b in range(n)) for j in starts]
        for i in starts
    ]


@register
class Pool(ExecutionTaskType):
    family, name = "matrix", "pool"
    version = 2

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        size, n, s = POOL_SHAPE[level]
        top = 9 if level == 0 else 99
        return {
            "matrix": [[rng.randint(1, top) for _ in range(size)] for _ in range(size)],
            "window": n,
            "stride": s,
        }

    def run(self, state: State) -> list[str]:
        out = pooled(state["matrix"], state["window"], state["stride"])
        return [str(v) for row in out for v in row]

    def answer_of(self, state: State, steps: Sequence[str]) -> tuple[str, ...]:
        return (show_matrix(pooled(state["matrix"], state["window"], state["stride"])),)

    def describe(self, state: State, lang: str) -> str:
        n, s = state["window"], state["stride"]
        grid = "\n".join(", ".join(map(str, row)) for row in state["matrix"])
        stride_text = _STRIDE[lang].format(s=s) if s > 1 else ""
        return _POOL_HEAD[lang].format(n=n, s=s, stride_text=stride_text, grid=grid)


# ----- pattern recognition --------------------------------------------------------------------

#: Squares: grid size and alphabet per level; near misses planted per level.
SQUARE_SHAPE = ((3, "ABCD"), (4, "ABCDE"), (5, "ABCDEF"), (6, "ABCDEFG"))
SQUARE_DECOYS = (0, 1, 2, 3)


def uniform_blocks(rows: Sequence[str]) -> list[tuple[int, int]]:
    """Bottom-right corners (0-based) of every 2x2 block of one letter, row by row."""
    return [
        (i, j)
        for i in range(1, len(rows))
        for j in range(1, len(rows[0]))
        if rows[i][j] == rows[i][j - 1] == rows[i - 1][j] == rows[i - 1][j - 1]
    ]


_SQUARE_HEAD = {
    "en": "In this letter grid (rows 1 to {n} from the top, columns 1 to {n} from the left) "
    "exactly one square of side 2 or more is made of a single letter:\n{grid}\nFind it. Scan "
    "the grid by the bottom row of a 2x2 block, from row 2 to row {n}: a step is that row "
    "number, a colon, and the columns (from the left, separated by commas) where a 2x2 block "
    "of one letter has its bottom right corner in that row, or - if there is none, e.g. 3:- or "
    "4:2. The answer is the row and the column of the square's bottom right corner, e.g. "
    '["4", "2"].',
    "zh": "在下面的字母网格中（行从上到下编号 1 到 {n}，列从左到右编号 1 到 {n}），"
    "恰好有一个边长至少为 2、由同一个字母组成的正方形：\n{grid}\n找出它。"
    "按 2x2 方块的下边所在的行扫描，从第 2 行到第 {n} 行：每一步写出行号、冒号，"
    "以及在这一行有右下角的、由同一字母组成的 2x2 方块所在的列"
    "（从左数，用逗号分隔），没有则写 -，例如 3:- 或 4:2。答案是该正方形右下角的行号和列号，"
    '例如 ["4", "2"]。',
}


@register
class Squares(ExecutionTaskType):
    """Exactly one 2x2 block of one letter (so exactly one square of side 2 or more), with
    near misses (three of four cells equal) planted as decoys."""

    family, name = "matrix", "squares"
    version = 2

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        n, alphabet = SQUARE_SHAPE[level]
        while True:
            grid = [[rng.choice(alphabet) for _ in range(n)] for _ in range(n)]
            for _ in range(SQUARE_DECOYS[level]):
                i, j, letter = rng.randint(1, n - 1), rng.randint(1, n - 1), rng.choice(alphabet)
                cells = [(i, j), (i, j - 1), (i - 1, j), (i - 1, j - 1)]
                for r, c in rng.sample(cells, 3):
                    grid[r][c] = letter
            i, j, letter = rng.randint(1, n - 1), rng.randint(1, n - 1), rng.choice(alphabet)
            for r, c in ((i, j), (i, j - 1), (i - 1, j), (i - 1, j - 1)):
                grid[r][c] = letter
            rows = ["".join(r) for r in grid]
            if uniform_blocks(rows) == [(i, j)]:
                return {"rows": rows}

    def run(self, state: State) -> list[str]:
        rows = state["rows"]
        blocks = uniform_blocks(rows)
        out = []
        for i in range(1, len(rows)):
            cols = [str(j + 1) for r, j in blocks if r == i]
            out.append(f"{i + 1}:{','.join(cols) or '-'}")
        return out

    def answer_of(self, state: State, steps: Sequence[str]) -> tuple[str, ...]:
        ((i, j),) = uniform_blocks(state["rows"])
        return (str(i + 1), str(j + 1))

    def describe(self, state: State, lang: str) -> str:
        rows = state["rows"]
        return _SQUARE_HEAD[lang].format(n=len(rows), grid=_grid_text(rows))
