"""Matrix transforms (execution): rotations, mirrors, transposition and digit-wise addition."""

from __future__ import annotations

import random
from typing import Any

from lm_eval_thinkbench.logic.base import ExecutionTaskType, State, numbered, op_sequence
from lm_eval_thinkbench.logic.registry import register

Matrix = list[list[int]]


def show_matrix(m: Matrix) -> str:
    """``[[1,2],[3,4]]``: row by row, no spaces."""
    return "[" + ",".join("[" + ",".join(map(str, row)) + "]" for row in m) + "]"


def _transform(m: Matrix, op: list[Any]) -> Matrix:
    kind = op[0]
    if kind == "rotate_cw":
        return [list(row) for row in zip(*m[::-1], strict=True)]
    if kind == "rotate_ccw":
        return [list(row) for row in zip(*m, strict=True)][::-1]
    if kind == "transpose":
        return [list(row) for row in zip(*m, strict=True)]
    if kind == "flip_lr":
        return [row[::-1] for row in m]
    if kind == "flip_ud":
        return m[::-1]
    return [[(x + op[1]) % 10 for x in row] for row in m]


_TEXT = {
    "rotate_cw": {
        "en": "Rotate the matrix 90 degrees clockwise.",
        "zh": "把矩阵顺时针旋转 90 度。",
    },
    "rotate_ccw": {
        "en": "Rotate the matrix 90 degrees counterclockwise.",
        "zh": "把矩阵逆时针旋转 90 度。",
    },
    "transpose": {
        "en": "Transpose the matrix (row i becomes column i).",
        "zh": "转置矩阵（第 i 行变成第 i 列）。",
    },
    "flip_lr": {
        "en": "Mirror the matrix left to right (reverse every row).",
        "zh": "左右翻转矩阵（每一行倒序）。",
    },
    "flip_ud": {
        "en": "Mirror the matrix top to bottom (reverse the order of the rows).",
        "zh": "上下翻转矩阵（行的顺序倒过来）。",
    },
    "add": {
        "en": "Add {0} to every entry and keep only the last digit.",
        "zh": "每个元素加 {0}，只保留个位数。",
    },
}
_HEAD = {
    "en": "Start with the matrix {m} (written row by row). Apply these operations in order:\n"
    "{ops}\nWrite every matrix row by row in the same form, e.g. [[1,2],[3,4]].",
    "zh": "初始矩阵是 {m}（按行书写）。按顺序执行下列操作：\n{ops}\n"
    "所有矩阵都按行、用同样的形式书写，例如 [[1,2],[3,4]]。",
}


@register
class Transform(ExecutionTaskType):
    family, name = "matrix", "transform"
    KINDS = ("rotate_cw", "rotate_ccw", "transpose", "flip_lr", "flip_ud", "add")

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        n = 2 if level < 2 else 3
        matrix = [[rng.randint(1, 9) for _ in range(n)] for _ in range(n)]
        ops = [
            [k, rng.randint(1, 9)] if k == "add" else [k]
            for k in op_sequence(rng, level, self.KINDS)
        ]
        return {"matrix": matrix, "ops": ops}

    def run(self, state: State) -> list[str]:
        m, out = state["matrix"], []
        for op in state["ops"]:
            m = _transform(m, op)
            out.append(show_matrix(m))
        return out

    def describe(self, state: State, lang: str) -> str:
        lines = [_TEXT[op[0]][lang].format(*op[1:]) for op in state["ops"]]
        return _HEAD[lang].format(m=show_matrix(state["matrix"]), ops=numbered(lines))
