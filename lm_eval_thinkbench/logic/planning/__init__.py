"""Planning families: the model chooses the moves. Importing registers them."""

from lm_eval_thinkbench.logic.planning import blocks, hanoi, jugs, maze, sudoku, tiles  # noqa: F401
