"""A sliding-tile board game with 2048's rules (execution), applying given swipes.

No tile is ever added, so the game is deterministic; every swipe is chosen to change the board
(a swipe that does nothing would be a free step).
"""

from __future__ import annotations

import random
from typing import Any

from lm_eval_thinkbench.logic.base import OPS_PER_LEVEL, ExecutionTaskType, State
from lm_eval_thinkbench.logic.execution.matrix import show_matrix
from lm_eval_thinkbench.logic.registry import register

Board = list[list[int]]


def _slide_left(row: list[int]) -> list[int]:
    tiles = [x for x in row if x]
    out: list[int] = []
    i = 0
    while i < len(tiles):
        if i + 1 < len(tiles) and tiles[i] == tiles[i + 1]:
            out.append(2 * tiles[i])
            i += 2
        else:
            out.append(tiles[i])
            i += 1
    return out + [0] * (len(row) - len(out))


def swipe(board: Board, d: str) -> Board:
    """The board after one swipe L, R, U or D."""
    if d == "L":
        return [_slide_left(r) for r in board]
    if d == "R":
        return [_slide_left(r[::-1])[::-1] for r in board]
    cols = [list(c) for c in zip(*board, strict=True)]
    moved = [_slide_left(c) if d == "U" else _slide_left(c[::-1])[::-1] for c in cols]
    return [list(r) for r in zip(*moved, strict=True)]


_HEAD = {
    "en": "A sliding-tile game on a {n}x{n} board, written row by row (0 is an empty cell): "
    "{board}\nA swipe (L left, R right, U up, D down) slides every tile as far as it goes in "
    "that direction. Two tiles of equal value that meet merge into one tile holding their sum; "
    "a tile made by a merge does not merge again in the same swipe, and in a line of equal "
    "tiles the pair nearest the wall merges first. No new tiles appear.\nSwipes: {moves}\n"
    "Write every board row by row in the same form, e.g. [[2,0],[4,0]].",
    "zh": "一个 {n}x{n} 的滑块游戏棋盘，按行书写（0 表示空格）：{board}\n"
    "一次滑动（L 向左，R 向右，U 向上，D 向下）让所有方块沿该方向尽量移动。数值相同的两个方块相遇时"
    "合并为一个方块，数值为两者之和；同一次滑动中合并出的方块不再合并，一行（列）中有多个相同方块时，"
    "最靠近墙的一对先合并。不会出现新方块。\n滑动：{moves}\n"
    "所有棋盘都按行、用同样的形式书写，例如 [[2,0],[4,0]]。",
}


@register
class Merge(ExecutionTaskType):
    family, name = "board", "merge"

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        n = 3 if level < 3 else 4
        while True:
            board = [[rng.choice((0, 0, 2, 2, 4, 8)) for _ in range(n)] for _ in range(n)]
            start, moves = board, []
            for _ in range(OPS_PER_LEVEL[level]):
                options = [d for d in "LRUD" if swipe(board, d) != board]
                if not options:
                    break
                moves.append(rng.choice(options))
                board = swipe(board, moves[-1])
            if len(moves) == OPS_PER_LEVEL[level]:
                return {"board": start, "moves": moves}

    def run(self, state: State) -> list[str]:
        board, out = state["board"], []
        for d in state["moves"]:
            board = swipe(board, d)
            out.append(show_matrix(board))
        return out

    def describe(self, state: State, lang: str) -> str:
        return _HEAD[lang].format(
            n=len(state["board"]), board=show_matrix(state["board"]), moves=" ".join(state["moves"])
        )
