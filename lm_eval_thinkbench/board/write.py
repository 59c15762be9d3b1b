"""The board's files: ``board.md``, ``board.csv``, ``board.json``, ``index.html`` (with its
``traces/`` chunks) and the PNGs. Each text file is a pure function of the board."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import shutil
from collections.abc import Sequence
from pathlib import Path

from lm_eval_thinkbench.analyze.report import write_atomic
from lm_eval_thinkbench.board.html import page
from lm_eval_thinkbench.board.plots import write_pngs
from lm_eval_thinkbench.board.table import Board, format_cell
from lm_eval_thinkbench.board.traces import TraceSample, write_chunks


def write_board(
    output: Path, board: Board, traces: Sequence[TraceSample], plots: bool = True
) -> list[Path]:
    output.mkdir(parents=True, exist_ok=True)
    chunks = output / "traces"
    if chunks.exists():  # a previous board's chunks would be listed by nothing
        shutil.rmtree(chunks)
    index = write_chunks(chunks, traces) if traces else []
    files = {
        "board.md": board_markdown(board),
        "board.csv": board_csv(board),
        "board.json": board_json(board),
        "index.html": page(board, index),
    }
    for name, text in files.items():
        write_atomic(output / name, text.encode("utf-8"))
    paths = [output / name for name in files]
    if plots:
        paths += write_pngs(output, board.figures, board.models)
    return paths


def board_markdown(board: Board) -> str:
    head = ["model", *(f"{c.set}: {c.label}" for c in board.columns)]
    lines = [
        "# Leaderboard",
        "",
        "Cells: mean [95% interval]; sorted by "
        + (board.sort or "input order")
        + ". Columns of standard harness tasks keep the task's own metric names.",
        "",
        "| " + " | ".join(head) + " |",
        "|---|" + "---:|" * len(board.columns),
    ]
    for m in board.models:
        cells = [format_cell(c, board.cells.get((m, c.key))) for c in board.columns]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def board_csv(board: Board) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["model", "column", "set", "metric", "label", "value", "low", "high"])
    for m in board.models:
        for c in board.columns:
            cell = board.cells.get((m, c.key))
            if cell is not None:
                writer.writerow(
                    [m, c.key, c.set, c.metric, c.label, repr(cell.value),
                     "" if cell.low is None else repr(cell.low),
                     "" if cell.high is None else repr(cell.high)]
                )  # fmt: skip
    return out.getvalue()


def board_json(board: Board) -> str:
    payload = {
        "sort": board.sort,
        "descending": board.descending,
        "models": board.models,
        "columns": [dataclasses.asdict(c) for c in board.columns],
        "rows": [
            {
                "model": m,
                "cells": {
                    c.key: dataclasses.asdict(board.cells[m, c.key])
                    for c in board.columns
                    if (m, c.key) in board.cells
                },
            }
            for m in board.models
        ],
        "figures": [dataclasses.asdict(f) for f in board.figures],
    }
    return json.dumps(payload, indent=1, ensure_ascii=False) + "\n"
