"""A robot following commands on a grid (execution); each level adds a rule.

Level 0: plain moves on an open grid. Level 1: walls and the edge block a move. Level 2: ice
makes the robot slide one more cell. Level 3: two portals swap the robot to the other one.
"""

from __future__ import annotations

import random
from typing import Any

from lm_eval_thinkbench.logic.base import OPS_PER_LEVEL, ExecutionTaskType, State
from lm_eval_thinkbench.logic.registry import register

DIRS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
WALL, ICE, PORTAL, OPEN, START = "#", "~", "O", ".", "S"


def show_pos(pos: tuple[int, int]) -> str:
    """``(row,column)``, 1-based."""
    return f"({pos[0] + 1},{pos[1] + 1})"


def _move(grid: list[str], pos: tuple[int, int], d: str) -> tuple[int, int]:
    def free(r: int, c: int) -> bool:
        return 0 <= r < len(grid) and 0 <= c < len(grid[0]) and grid[r][c] != WALL

    dr, dc = DIRS[d]
    r, c = pos
    if not free(r + dr, c + dc):
        return pos
    r, c = r + dr, c + dc
    if grid[r][c] == ICE and free(r + dr, c + dc):
        r, c = r + dr, c + dc
    if grid[r][c] == PORTAL:
        portals = [(i, j) for i, row in enumerate(grid) for j, x in enumerate(row) if x == PORTAL]
        r, c = next(p for p in portals if p != (r, c))
    return (r, c)


_HEAD = {
    "en": "A robot walks on this grid (rows 1 to {n} from the top, columns 1 to {n} from the "
    "left); it starts at S, position {start}:\n{grid}\nRules:\n{rules}\nCommands: {cmds}\n"
    "Write positions as (row,column), e.g. (2,3).",
    "zh": "机器人在下面的网格上行走（行从上到下编号 1 到 {n}，列从左到右编号 1 到 {n}），"
    "起点是 S，位置 {start}：\n{grid}\n规则：\n{rules}\n指令：{cmds}\n"
    "位置写成 (行,列)，例如 (2,3)。",
}


@register
class Walk(ExecutionTaskType):
    family, name = "grid", "walk"
    RULES = (
        {
            "en": "Each command moves the robot one cell: U up, D down, L left, R right.",
            "zh": "每条指令让机器人走一格：U 向上，D 向下，L 向左，R 向右。",
        },
        {
            "en": "A move into a wall (#) or off the grid does nothing: the robot stays put.",
            "zh": "走向墙（#）或走出网格的指令无效，机器人原地不动。",
        },
        {
            "en": "Ice (~): after entering an ice cell the robot slides exactly one more cell in "
            "the same direction, unless a wall or the edge is in the way.",
            "zh": "冰面（~）：机器人进入冰面格后，会沿同一方向再滑一格，除非前方是墙或边界。",
        },
        {
            "en": "Portals (O): a robot that moves onto a portal (also by sliding) jumps at once "
            "to the other portal.",
            "zh": "传送门（O）：机器人走到（或滑到）一个传送门上时，立刻跳到另一个传送门。",
        },
    )

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        """A grid and commands; at least half of the commands move the robot (a walk that
        mostly bumps into walls would test little)."""
        n = 4 if level < 2 else 5
        while True:
            cells = [[OPEN] * n for _ in range(n)]
            spots = rng.sample([(r, c) for r in range(n) for c in range(n)], n * n)
            start = spots.pop()
            features = [WALL] * (n if level >= 1 else 0) + [ICE] * (3 if level >= 2 else 0)
            features += [PORTAL, PORTAL] if level >= 3 else []
            for feature in features:
                r, c = spots.pop()
                cells[r][c] = feature
            cells[start[0]][start[1]] = START
            grid = ["".join(row) for row in cells]
            cmds = [rng.choice("UDLR") for _ in range(OPS_PER_LEVEL[level])]
            pos, moved = start, 0
            for d in cmds:
                nxt = _move(grid, pos, d)
                moved += nxt != pos
                pos = nxt
            if 2 * moved >= len(cmds):  # (so level 0's one move stays on the grid)
                return {"grid": grid, "start": list(start), "cmds": cmds, "rules": level + 1}

    def run(self, state: State) -> list[str]:
        pos, out = tuple(state["start"]), []
        for d in state["cmds"]:
            pos = _move(state["grid"], pos, d)
            out.append(show_pos(pos))
        return out

    def describe(self, state: State, lang: str) -> str:
        rules = "\n".join(f"- {r[lang]}" for r in self.RULES[: state["rules"]])
        return _HEAD[lang].format(
            n=len(state["grid"]),
            start=show_pos(tuple(state["start"])),
            grid="\n".join(" ".join(row) for row in state["grid"]),
            rules=rules,
            cmds=" ".join(state["cmds"]),
        )
