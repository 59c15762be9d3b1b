"""Execution families: explicit rules applied in a given order. Importing registers them."""

from lm_eval_thinkbench.logic.execution import (  # noqa: F401
    board,
    cards,
    cipher,
    deduction,
    editor,
    equations,
    games,
    grid,
    grids,
    machines,
    matrix,
    operators,
    recipes,
    scanning,
    strings,
)
