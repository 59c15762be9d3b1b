"""Planning families: the model chooses the moves. Importing registers them."""

from lm_eval_thinkbench.logic.planning import (  # noqa: F401
    blocks,
    hanoi,
    jugs,
    latin,
    maze,
    placement,
    selfref,
    sudoku,
    tiles,
)
