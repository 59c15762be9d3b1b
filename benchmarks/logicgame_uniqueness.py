"""Do LogicGame's own items have the unique answers their scoring assumes? Measured with this
suite's solvers on the release's whole set (``en_all_304.jsonl``).

* 组合计算 (target arithmetic): the number of expression trees over the input numbers, in
  order, that reach the target (``equations.target``'s enumeration). LogicGame scores a reply
  against one reference expression, so an item with two trees can fail a correct reply; items
  whose statement restricts the operators ("without multiplication") are marked, their count
  is over all four operators.
* 模式识别 (pattern recognition), the bottom-right-corner items: the uniform 2x2 blocks of the
  grid (``matrix.squares``'s rule; exactly one means the stated answer is unique).

    python benchmarks/logicgame_uniqueness.py [--data ../shared/data/logicgame/en_all_304.jsonl]
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from lm_eval_thinkbench.logic.execution.equations import expression_trees, show_tree
from lm_eval_thinkbench.logic.execution.grids import uniform_blocks

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT)
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines()]
    print("| qid | level | numbers -> target | trees | one of them |\n|---|---|---|---|---|")
    print("\n".join(target_rows(rows)))
    print("\n| qid | level | grid | uniform 2x2 blocks (bottom-right) |\n|---|---|---|---|")
    print("\n".join(square_rows(rows)))


if __name__ == "__main__":
    main()
