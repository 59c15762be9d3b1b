"""Board games played out from given moves (execution): Lights Out and a Reversi-like game.

Both follow LogicGame's categories of the same names: the moves are given, the model writes the
board after each round. The rules are stated in full and leave nothing to judgement, so every
board is a function of the start and the moves so far.
"""

from __future__ import annotations

import random
from typing import Any

from lm_eval_thinkbench.logic.base import OPS_PER_LEVEL, ExecutionTaskType, State
from lm_eval_thinkbench.logic.registry import register

Cell = tuple[int, int]


def show_rows(rows: list[str]) -> str:
    """A board as its rows joined by ``/``: ``01/11``."""
    return "/".join(rows)


def show_cell(cell: Cell) -> str:
    """``(row,column)``, 1-based."""
    return f"({cell[0] + 1},{cell[1] + 1})"


# ----- Lights Out (Lights out) -------------------------------------------------------------

BUTTONS = "ABCD"


def press(rows: list[str], cells: list[list[int]]) -> list[str]:
    """The lights after one press of a button that toggles ``cells``."""
    grid = [list(r) for r in rows]
    for r, c in cells:
        grid[r][c] = "1" if grid[r][c] == "0" else "0"
    return ["".join(r) for r in grid]


_LIGHTS_HEAD = {
    "en": "A {n}x{n} grid of lights, row by row (1 is on, 0 is off): {grid}\n{buttons}\nPressing "
    "a button switches every light it controls (on becomes off, off becomes on); buttons may "
    "share lights, and a light switched twice is back as it was.\nRounds:\n{rounds}\nAfter each "
    "round (all of its presses), write the grid row by row, rows separated by /, e.g. 01/11. "
    "Rows are numbered 1 to {n} from the top, columns 1 to {n} from the left.",
    "zh": "一个 {n}x{n} 的灯阵，按行书写（1 表示亮，0 表示灭）：{grid}\n{buttons}\n按下一个按钮会"
    "切换它控制的每一盏灯（亮变灭，灭变亮）；不同按钮可能控制同一盏灯，被切换两次的灯恢复原状。\n"
    "轮次：\n{rounds}\n每一轮（按完该轮所有按钮）之后，按行写出灯阵，行之间用 / 分隔，例如 01/11。"
    "行从上到下编号 1 到 {n}，列从左到右编号 1 到 {n}。",
}
_BUTTON = {
    "en": "Button {b} controls the lights at {cells}.",
    "zh": "按钮 {b} 控制位于 {cells} 的灯。",
}
_ROUND = {"en": "Round {i}: press {buttons}", "zh": "第 {i} 轮：按下 {buttons}"}


@register
class Lights(ExecutionTaskType):
    family, name, version = "games", "lights", 2
    #: Grid side per level; level n has n + 1 buttons.
    SIDE = (2, 3, 4, 5)

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        n = self.SIDE[level]
        cells = [(r, c) for r in range(n) for c in range(n)]
        grid = ["".join(rng.choice("01") for _ in range(n)) for _ in range(n)]
        buttons: list[list[list[int]]] = []
        while len(buttons) < level + 1:  # distinct light sets, so no two presses cancel out
            chosen = sorted(rng.sample(cells, rng.randint(2, min(5, n * n - 1))))
            if [list(x) for x in chosen] not in buttons:
                buttons.append([list(x) for x in chosen])
        names = BUTTONS[: level + 1]
        rounds = [
            sorted(rng.sample(names, rng.randint(1, min(2, len(names)))))
            for _ in range(OPS_PER_LEVEL[level])
        ]
        return {"grid": grid, "buttons": buttons, "rounds": rounds}

    def run(self, state: State) -> list[str]:
        rows, out = list(state["grid"]), []
        for presses in state["rounds"]:
            for b in presses:
                rows = press(rows, state["buttons"][BUTTONS.index(b)])
            out.append(show_rows(rows))
        return out

    def describe(self, state: State, lang: str) -> str:
        sep = ", " if lang == "en" else "、"
        buttons = "\n".join(
            _BUTTON[lang].format(b=b, cells=sep.join(show_cell((r, c)) for r, c in cells))
            for b, cells in zip(BUTTONS, state["buttons"], strict=False)
        )
        rounds = "\n".join(
            _ROUND[lang].format(i=i, buttons=sep.join(presses))
            for i, presses in enumerate(state["rounds"], 1)
        )
        return _LIGHTS_HEAD[lang].format(
            n=len(state["grid"]), grid=show_rows(state["grid"]), buttons=buttons, rounds=rounds
        )


# ----- a Reversi-like game (黑白棋) ----------------------------------------------------------

BLACK, WHITE, EMPTY = "0", "1", "*"
_DIRECTIONS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]


def flips(rows: list[str], cell: Cell, colour: str) -> list[Cell]:
    """The opponent's pieces that a piece of ``colour`` placed on ``cell`` turns over: in each
    of the eight directions, an unbroken line of them closed by a piece of ``colour``."""
    n = len(rows)
    other = WHITE if colour == BLACK else BLACK
    out: list[Cell] = []
    for dr, dc in _DIRECTIONS:
        line = []
        r, c = cell[0] + dr, cell[1] + dc
        while 0 <= r < n and 0 <= c < n and rows[r][c] == other:
            line.append((r, c))
            r, c = r + dr, c + dc
        if line and 0 <= r < n and 0 <= c < n and rows[r][c] == colour:
            out += line
    return out


def place(rows: list[str], cell: Cell, colour: str) -> list[str]:
    """The board after ``colour`` plays on ``cell``."""
    grid = [list(r) for r in rows]
    for r, c in [cell, *flips(rows, cell, colour)]:
        grid[r][c] = colour
    return ["".join(r) for r in grid]


def legal_moves(rows: list[str], colour: str) -> list[Cell]:
    n = len(rows)
    return [
        (r, c)
        for r in range(n)
        for c in range(n)
        if rows[r][c] == EMPTY and flips(rows, (r, c), colour)
    ]


def opening(n: int) -> list[str]:
    """The start: two pieces of each colour on the centre's diagonals, white top left."""
    rows = [[EMPTY] * n for _ in range(n)]
    m = n // 2
    rows[m - 1][m - 1] = rows[m][m] = WHITE
    rows[m - 1][m] = rows[m][m - 1] = BLACK
    return ["".join(r) for r in rows]


_REVERSI_HEAD = {
    "en": "A game like Reversi on a {n}x{n} board: 0 is a black piece, 1 a white piece, * an empt"
    "y cell; (a,b) is row a from the top, column b from the left. The board before the moves, row "
    "by row: {board}\nRules: the players take turns, black first; a player puts one piece of their"
    " colour on an empty cell; every unbroken line of the opponent's pieces between the new piece "
    "and another piece of the player's colour, in any of the eight directions (row, column or diag"
    "onal), is turned over to the player's colour. Every move below turns over at least one piece."
    "\nMoves:\n{moves}\nAfter each move, write the board row by row, rows separated by /, e.g. ***"
    "*/*10*/*01*/****.",
    "zh": "一个类似黑白棋的 {n}x{n} 棋盘：0 是黑子，1 是白子，* 是空格；(a,b) 表示从上数第 a 行、"
    "从左数第 b 列。落子前的棋盘按行书写：{board}\n规则：双方轮流落子，黑方先走；每次在一个空格上"
    "放一枚自己颜色的棋子；新棋子与己方另一枚棋子之间（沿行、列或对角线共八个方向）连续不断的对方"
    "棋子全部翻转为己方颜色。下面每一步都至少翻转一枚棋子。\n落子：\n{moves}\n每一步之后，按行写出"
    "棋盘，行之间用 / 分隔，例如 ****/*10*/*01*/****。",
}
_MOVE = {
    "en": "Move {i}: {who} plays {cell}",
    "zh": "第 {i} 步：{who}落在 {cell}",
}
_WHO = {"en": ("black", "white"), "zh": ("黑方", "白方")}


@register
class Reversi(ExecutionTaskType):
    family, name, version = "games", "reversi", 2
    SIDE = (4, 4, 6, 6)

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        """Random legal moves from a position an even number of random moves into the game (so
        black is to move); a game where the player to move has no legal move (so would have to
        pass) is drawn again, so the turns always alternate."""
        n = self.SIDE[level]
        while True:
            rows, moves = opening(n), []
            pre = 2 * rng.randint(0, n // 2)
            for i in range(pre + OPS_PER_LEVEL[level]):
                if i == pre:
                    board = rows
                colour = BLACK if i % 2 == 0 else WHITE
                options = legal_moves(rows, colour)
                if not options:
                    break
                cell = rng.choice(options)
                if i >= pre:
                    moves.append(list(cell))
                rows = place(rows, cell, colour)
            if len(moves) == OPS_PER_LEVEL[level]:
                return {"board": board, "moves": moves}

    def run(self, state: State) -> list[str]:
        rows, out = list(state["board"]), []
        for i, (r, c) in enumerate(state["moves"]):
            rows = place(rows, (r, c), BLACK if i % 2 == 0 else WHITE)
            out.append(show_rows(rows))
        return out

    def describe(self, state: State, lang: str) -> str:
        moves = "\n".join(
            _MOVE[lang].format(i=i, who=_WHO[lang][(i - 1) % 2], cell=show_cell((r, c)))
            for i, (r, c) in enumerate(state["moves"], 1)
        )
        return _REVERSI_HEAD[lang].format(
            n=len(state["board"]), board=show_rows(state["board"]), moves=moves
        )
