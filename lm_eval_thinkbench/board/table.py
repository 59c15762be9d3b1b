"""The leaderboard as a table: one row per model, one column per (set, metric), sortable.

Pure functions of the figures (``collect.py``); every output format is written from
:class:`Board`, so the Markdown, CSV, JSON and HTML tables cannot disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lm_eval_thinkbench.analyze.aggregate import OVERALL
from lm_eval_thinkbench.board.collect import Figure
from lm_eval_thinkbench.math500.table import METRICS

#: Columns shown first for our sets, in this order; the others follow in the order found.
LEAD = (
    "exact_match", "accuracy", "pass_at_k", "maj_at_k", "reasoning_tokens",
    "first_correct_tokens", "reflection_tokens", "token_efficiency", "thought_num", "truncated",
)  # fmt: skip
#: Token figures, shown without decimals.
TOKENS = tuple(m.name for m in METRICS if m.format == "tokens")


@dataclass(frozen=True)
class Column:
    """``key`` (``set:metric``, what ``--sort`` names), the set, the metric's results key
    and label, its direction, and whether it is ours or a standard harness task's."""

    key: str
    set: str
    metric: str
    label: str
    higher_is_better: bool
    ours: bool

    @property
    def name(self) -> str:
        return self.metric.partition(",")[0]


@dataclass(frozen=True)
class Cell:
    value: float
    low: float | None
    high: float | None


@dataclass(frozen=True)
class Board:
    """Rows (models, in display order), columns, and the overall cells ``(model, key)``;
    ``figures`` keeps every figure, levels included, for the plots; ``sort`` the column the
    rows are sorted by, ``descending`` which way."""

    models: list[str]
    columns: list[Column]
    cells: dict[tuple[str, str], Cell]
    figures: list[Figure]
    sort: str | None = None
    descending: bool = True


def column_key(set_name: str, metric: str) -> str:
    return f"{set_name}:{metric.partition(',')[0]}"


def build(figures: Sequence[Figure], sort: str | None = None) -> Board:
    """The board of ``figures``; ``sort`` (a column key or label, optionally ``:asc`` or
    ``:desc``) orders the rows, best first by the column's direction unless told."""
    columns: dict[str, Column] = {}
    cells: dict[tuple[str, str], Cell] = {}
    for f in figures:
        if f.subset != OVERALL:
            continue
        key = column_key(f.set, f.metric)
        columns.setdefault(key, Column(key, f.set, f.metric, f.label, f.higher_is_better, f.ours))
        cells[f.model, key] = Cell(f.value, f.low, f.high)
    ordered = sorted(columns.values(), key=_column_order(list(columns)))
    models = list(dict.fromkeys(f.model for f in figures))
    board = Board(models, ordered, cells, list(figures))
    return sort_board(board, sort) if sort else board


def sort_board(board: Board, spec: str) -> Board:
    column, descending = find_column(board, spec)
    present = [m for m in board.models if (m, column.key) in board.cells]
    missing = [m for m in board.models if (m, column.key) not in board.cells]
    present.sort(key=lambda m: board.cells[m, column.key].value, reverse=descending)
    return Board(
        present + missing, board.columns, board.cells, board.figures, column.key, descending
    )


def find_column(board: Board, spec: str) -> tuple[Column, bool]:
    """The column ``spec`` names and whether to sort descending."""
    name, _, way = spec.rpartition(":") if spec.endswith((":asc", ":desc")) else (spec, "", "")
    matches = [c for c in board.columns if name in (c.key, c.label, f"{c.set}:{c.label}")]
    if not matches:
        matches = [c for c in board.columns if c.key.endswith(f":{name}")]
    if len(matches) != 1:
        known = ", ".join(c.key for c in board.columns)
        what = "matches several columns" if matches else "names no column"
        raise ValueError(f"--sort {spec!r} {what}; columns: {known}")
    column = matches[0]
    descending = column.higher_is_better if not way else way == "desc"
    return column, descending


def format_value(column: Column, value: float | None) -> str:
    if value is None:
        return ""
    if column.name in TOKENS:
        return f"{value:,.0f}"
    return f"{value:.3f}" if abs(value) < 100 else f"{value:,.1f}"


def format_cell(column: Column, cell: Cell | None) -> str:
    if cell is None:
        return "–"
    text = format_value(column, cell.value)
    if cell.low is not None and cell.high is not None:
        text += f" [{format_value(column, cell.low)}, {format_value(column, cell.high)}]"
    return text


def _column_order(found: list[str]):
    """Our sets first, then the standard tasks, analyze and compare; within a set the
    :data:`LEAD` metrics first."""

    def key(c: Column) -> tuple[int, str, int, int]:
        rank = 0 if c.set.startswith("thinkbench") else 2 if c.set in ("analyze", "compare") else 1
        lead = LEAD.index(c.name) if c.name in LEAD else len(LEAD)
        return (rank, c.set, lead, found.index(c.key))

    return key
