"""PNG figures: per model a 2x3 grid of the six EvalScope metrics across subsets, and with
several models the same grid with one line per model.

Axes are scaled to the data (with the intervals), not fixed as in EvalScope's figure, whose
hard-coded ranges (reasoning tokens 500-5,000, thought switches 0-13) cut off other models'
values. Points carry their 95% bootstrap intervals. matplotlib is imported only here, with the
non-interactive Agg backend, so no display is needed; the files depend only on the figures.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from lm_eval_thinkbench.analyze.aggregate import OVERALL, PLOTTED, Group
from lm_eval_thinkbench.analyze.report import write_atomic
from lm_eval_thinkbench.math500.table import BY_NAME

COMPARISON_FILE = "models.png"


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
        ax.set_title(BY_NAME[name].label, y=1.01)
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
