"""Do LogicGame's own items have the unique answers their scoring assumes? Measured with this
suite's solvers on the release's whole set (``en_all_304.jsonl``).

* 组合计算 (target arithmetic): the number of expression trees over the input numbers, in
  order, that reach the target (``equations.target``'s enumeration). LogicGame scores a reply
  against one reference expression, so an item with two trees can fail a correct reply; items
  whose statement restricts the operators ("without multiplication") are marked, their count
  is over all four operators.
* 模式识别 (pattern recognition), the bottom-right-corner items: the uniform 2x2 blocks of the
  grid (``matrix.squares``'s rule; exactly one means the stated answer is unique).
* 八皇后 (n-queens): the completions of the given board (queens that attack none, X cells
  barred, as many queens as the statement asks for).
* 运算规则数独 (arithmetic Sudoku): the Latin squares meeting every cage (``latin.completions``
  with the cages read off the statement's lines: the cells, the operator, the result).

    python benchmarks/logicgame_uniqueness.py [--data ../shared/data/logicgame/en_all_304.jsonl]
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from lm_eval_thinkbench.logic.execution.equations import expression_trees, show_tree
from lm_eval_thinkbench.logic.execution.grids import uniform_blocks
from lm_eval_thinkbench.logic.planning.latin import cage_value, completions

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "logicgame" / "en_all_304.jsonl"
_TARGET = re.compile(r"(?:result should be|resulting in|rounding up to) (-?\d+)")
_INPUT = re.compile(r"Input: ([\d, ]+)")
_GRID = re.compile(r"matrix is\s*\n(.*?)\n\s*\n?[Pp]lease", re.S)


def target_rows(rows: list[dict]) -> list[str]:
    out = []
    for row in rows:
        if row["category"] != "组合计算":
            continue
        text = row["contexts"][0]
        target = int(_TARGET.search(text).group(1))  # type: ignore[union-attr]
        numbers = tuple(int(x) for x in _INPUT.search(text).group(1).split(","))  # type: ignore[union-attr]
        count, tree = expression_trees(numbers).get((target, 1), (0, None))
        note = " (operators restricted)" if "without" in text or "rounding" in text else ""
        example = show_tree(tree) if tree is not None else "-"
        out.append(
            f"| {row['qid']} | {row['level']} | {numbers} -> {target} | {count} | {example}{note} |"
        )
    return out


def square_rows(rows: list[dict]) -> list[str]:
    out = []
    for row in rows:
        text = row["contexts"][0]
        if row["category"] != "模式识别" or "bottom-right" not in text:
            continue
        match = _GRID.search(text)
        if match is None:
            continue
        grid = [line.replace(" ", "") for line in match.group(1).strip().splitlines()]
        grid = [line for line in grid if line and not line.lower().startswith("please")]
        corners = [f"({i + 1},{j + 1})" for i, j in uniform_blocks(grid)]
        out.append(
            f"| {row['qid']} | {row['level']} | {len(grid)}x{len(grid[0])} | {', '.join(corners)} |"
        )
    return out


_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
_SIZE = re.compile(r"(\d+)\s*[*x]\s*(\d+)")
_CELL = re.compile(r"\((\d+),\s*(\d+)\)")


def queen_completions(board: list[str], queens: int) -> int:
    """Placements of ``queens`` in all on ``board`` (``1`` a queen, ``X`` barred, ``0`` free)
    that keep the given queens and in which no two share a row, column or diagonal."""
    placed = [(r, c) for r, row in enumerate(board) for c, x in enumerate(row) if x == "1"]

    def free(r: int, c: int, on: list[tuple[int, int]]) -> bool:
        return all(r != r2 and c != c2 and abs(r - r2) != abs(c - c2) for r2, c2 in on)

    def count(r: int, on: list[tuple[int, int]]) -> int:
        if len(on) == queens:
            return 1
        if r == len(board):
            return 0
        if "1" in board[r]:
            return count(r + 1, on)
        total = count(r + 1, on)  # (a row may stay empty when there are more rows than queens)
        for c, x in enumerate(board[r]):
            if x == "0" and free(r, c, on):
                total += count(r + 1, [*on, (r, c)])
        return total

    return count(0, placed) if all(free(r, c, placed[:i]) for i, (r, c) in enumerate(placed)) else 0


def queens_rows(rows: list[dict]) -> list[str]:
    out = []
    for row in rows:
        if row["category"] != "八皇后":
            continue
        text = row["contexts"][0]
        board = [
            line.strip() for line in text.splitlines() if re.fullmatch(r"[01X]+", line.strip())
        ]
        word = re.search(r"\b(two|three|four|five|six|seven|eight)\b queens", text)
        queens = _NUMBERS[word.group(1)] if word else len(board)
        found = queen_completions(board, queens)
        size = f"{len(board)}x{len(board[0])}"
        out.append(f"| {row['qid']} | {row['level']} | {size}, {queens} queens | {found} |")
    return out


def cage_rows(rows: list[dict]) -> list[str]:
    out = []
    for row in rows:
        if row["category"] != "运算规则数独":
            continue
        text = row["contexts"][0]
        n = int(_SIZE.search(text).group(1))  # type: ignore[union-attr]
        cages = []
        for line in text.splitlines():
            if not re.match(r"\s*\d+\.", line) or not _CELL.search(line):
                continue
            cells = [(int(r) - 1) * n + int(c) - 1 for r, c in _CELL.findall(line)]
            rest = _CELL.sub(" ", re.sub(r"^\s*\d+\.", "", line))
            op = next(ch for ch in rest if ch in "+-*/")
            target = int(re.findall(r"\d+", rest)[-1])
            cages.append(
                (cells, lambda v, op=op, t=target: cage_value(op, [int(x) for x in v]) == t)
            )
        found = completions("." * (n * n), n, "123456789"[:n], cages=cages, limit=1000)
        out.append(
            f"| {row['qid']} | {row['level']} | {n}x{n}, {len(cages)} cages | {len(found)} |"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT)
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines()]
    print("| qid | level | numbers -> target | trees | one of them |\n|---|---|---|---|---|")
    print("\n".join(target_rows(rows)))
    print("\n| qid | level | grid | uniform 2x2 blocks (bottom-right) |\n|---|---|---|---|")
    print("\n".join(square_rows(rows)))
    print("\n| qid | level | board | completions |\n|---|---|---|---|")
    print("\n".join(queens_rows(rows)))
    print("\n| qid | level | grid | solutions |\n|---|---|---|---|")
    print("\n".join(cage_rows(rows)))


if __name__ == "__main__":
    main()
