"""PNG figures: per model a 2x3 grid of the six EvalScope metrics across subsets, and with
several models the same grid with one line per model.

Axes are scaled to the data (with the intervals), not fixed as in EvalScope's figure, whose
hard-coded ranges (reasoning tokens 500-5,000, thought switches 0-13) cut off other models'
values. Points carry their 95% bootstrap intervals. matplotlib is imported only here, with the
non-interactive Agg backend, so no display is needed; the files depend only on the figures.

Importing matplotlib takes about half a second, as long as scoring 100 samples. A
:class:`Plotter` is a process forked when an analysis starts that imports it while the
samples are read and scored, and draws the figures when they are known.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import re
from collections.abc import Sequence
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path

from lm_eval_thinkbench.analyze.aggregate import METRIC_BY_NAME, OVERALL, PLOTTED, Group
from lm_eval_thinkbench.analyze.report import write_atomic

COMPARISON_FILE = "models.png"
log = logging.getLogger(__name__)


class Plotter:
    """:func:`write_plots` in a process of its own, started now and used once.

    If that process cannot be started or dies, the figures are drawn here instead: a figure is
    never lost to the optimisation. Errors of the drawing itself are raised here as they would
    be by :func:`write_plots`.
    """

    def __init__(self) -> None:
        self._asked = False
        context = multiprocessing.get_context("fork")
        self._conn, child = context.Pipe()
        self._process: BaseProcess | None = context.Process(
            target=_serve, args=(child, os.getpid()), name="thinkbench-plotter", daemon=True
        )
        try:
            self._process.start()
        except OSError as exc:  # no processes left: draw in this one
            log.warning("thinkbench: drawing the figures in this process (%s)", exc)
            self._process = None
        child.close()

    def write(self, output: Path, groups: Sequence[Group]) -> list[Path]:
        """Draw the figures of ``groups`` into ``output``; the files written."""
        if self._process is not None:
            self._asked = True
            try:
                self._conn.send((output, list(groups)))
                ok, value = self._conn.recv()
            except (EOFError, OSError) as exc:  # the process died
                log.warning("thinkbench: the plotting process failed (%s); drawing here", exc)
            else:
                if ok:
                    return value
                raise value
            finally:
                self.close()
        return write_plots(output, groups)

    def __enter__(self) -> Plotter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the process (idempotent): it has ended after :meth:`write`, and is killed when
        it was never asked to draw (the analysis failed first)."""
        if self._process is not None:
            self._conn.close()
            if not self._asked:
                self._process.kill()
            self._process.join(timeout=5)
            self._process = None


def _serve(conn: Connection, parent: int) -> None:
    """The plotting process: import matplotlib, then draw one request (or stop on EOF, or
    when the parent is gone)."""
    _import_pyplot()
    while not conn.poll(1.0):
        if os.getppid() != parent:
            return
    try:
        output, groups = conn.recv()
    except EOFError:
        return
    try:
        conn.send((True, write_plots(output, groups)))
    except Exception as exc:  # sent back and raised in the parent
        conn.send((False, exc))


def _import_pyplot() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot


def write_plots(output: Path, groups: Sequence[Group]) -> list[Path]:
    """One ``<model>.png`` per model and, with several models, ``models.png``."""
    import matplotlib

    matplotlib.use("Agg")
    models = list(dict.fromkeys(g.model for g in groups))
    paths = []
    for model in models:
        path = output / f"{slug(model)}.png"
        _grid(path, {model: [g for g in groups if g.model == model]}, title=model)
        paths.append(path)
    if len(models) > 1:
        path = output / COMPARISON_FILE
        by_model = {m: [g for g in groups if g.model == m] for m in models}
        _grid(path, by_model, title="Models side by side")
        paths.append(path)
    return paths


def slug(name: str) -> str:
    """A file-name-safe form of a model name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_") or "model"


def _grid(path: Path, by_model: dict[str, list[Group]], title: str) -> None:
    import io

    import matplotlib.pyplot as plt

    subsets = list(
        dict.fromkeys(g.subset for gs in by_model.values() for g in gs if g.subset != OVERALL)
    ) or [OVERALL]
    several = len(by_model) > 1
    fig, axes = plt.subplots(2, 3, figsize=(15, 8.5))
    # Fixed margins: matplotlib's automatic layout would double the drawing time.
    fig.subplots_adjust(
        left=0.05, right=0.98, top=0.91, bottom=0.12 if several else 0.06, wspace=0.22,
        hspace=0.3,
    )  # fmt: skip
    for ax, name in zip(axes.flat, PLOTTED, strict=True):
        for index, (model, groups) in enumerate(by_model.items()):
            stats = {g.subset: g.stats[name] for g in groups}
            xs, ys, lows, highs = [], [], [], []
            for x, subset in enumerate(subsets):
                stat = stats.get(subset)
                if stat is None or stat.mean is None or stat.low is None or stat.high is None:
                    continue  # (the three are None together: no sample)
                xs.append(x + (index - (len(by_model) - 1) / 2) * 0.08 * several)
                ys.append(stat.mean)
                lows.append(stat.mean - stat.low)
                highs.append(stat.high - stat.mean)
            if xs:
                ax.errorbar(
                    xs, ys, yerr=[lows, highs], marker="o", capsize=3, label=model,
                    color=f"C{index % 10}",
                )  # fmt: skip
        # A fixed title position: placing it automatically measures every tick label first.
        ax.set_title(METRIC_BY_NAME[name].label, y=1.01)
        ax.set_xticks(range(len(subsets)), subsets, rotation=30 if len(subsets) > 6 else 0)
        ax.margins(x=0.08, y=0.12)
        ax.grid(alpha=0.3)
    if several:
        handles, labels = axes.flat[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncols=min(len(labels), 4))
    fig.suptitle(title)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, metadata={"Software": None})
    plt.close(fig)
    write_atomic(path, buffer.getvalue())
