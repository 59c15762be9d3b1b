"""The board's two figures, as inline SVG for the page and as PNG files (matplotlib).

* the accuracy-vs-reasoning-tokens scatter: one point per model and set (our sets and analyze
  outputs, which report both): up and to the left is accurate and brief, down and to the right
  over-thinks; a point low on the left under-thinks;
* per-level plots: accuracy and reasoning tokens by MATH level, one line per model, for each
  set that reports levels.

Both are drawn from the same :func:`scatter_points` / :func:`level_series`, so the page and
the PNGs show the same numbers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from html import escape
from pathlib import Path

from lm_eval_thinkbench.analyze.aggregate import OVERALL
from lm_eval_thinkbench.analyze.samples import parse_level
from lm_eval_thinkbench.board.collect import Figure
from lm_eval_thinkbench.math500.table import ACCURACY as ACCURACY_METRIC

#: Accuracy under its lm-eval key (ours and the standard math tasks') and its report name.
ACCURACY = (ACCURACY_METRIC.key, ACCURACY_METRIC.name)
TOKENS = "reasoning_tokens"
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
           "#e377c2", "#7f7f7f", "#bcbd22")  # fmt: skip
W, H, PAD = 520, 340, 48


def color(models: Sequence[str], model: str) -> str:
    return PALETTE[models.index(model) % len(PALETTE)]


def _name(f: Figure) -> str:
    return f.metric.partition(",")[0]


def scatter_points(figures: Sequence[Figure]) -> list[tuple[str, str, float, float]]:
    """(model, set, reasoning tokens, accuracy) for every model and set reporting both."""
    acc: dict[tuple[str, str], float] = {}
    tok: dict[tuple[str, str], float] = {}
    for f in figures:
        if f.subset != OVERALL or not f.ours:
            continue
        if _name(f) in ACCURACY:
            acc[f.model, f.set] = f.value
        elif _name(f) == TOKENS:
            tok[f.model, f.set] = f.value
    return [(m, s, tok[m, s], acc[m, s]) for (m, s) in acc if (m, s) in tok]


def level_series(
    figures: Sequence[Figure], metric: tuple[str, ...]
) -> dict[str, dict[str, list[tuple[int, float]]]]:
    """set -> model -> [(level, value)] for the levels each model reports."""
    out: dict[str, dict[str, list[tuple[int, float]]]] = defaultdict(lambda: defaultdict(list))
    for f in figures:
        level = parse_level(f.subset) if f.subset.startswith("Level") else None
        if level is not None and _name(f) in metric:
            out[f.set][f.model].append((level, f.value))
    return {s: {m: sorted(v) for m, v in by.items()} for s, by in out.items()}


def _scale(lo: float, hi: float, a: float, b: float):
    span = (hi - lo) or 1.0
    return lambda v: a + (v - lo) / span * (b - a)


def _axes(
    title: str,
    xlabel: str,
    ylabel: str,
    xs: tuple[float, float],
    ys: tuple[float, float],
    xticks: Sequence[float] | None = None,
):
    """Axes, labels and ticks (``xticks``: where the x ticks go; default five even ones)."""
    sx, sy = _scale(*xs, PAD, W - 16), _scale(*ys, H - PAD, 24)
    parts = [
        f'<text x="{W / 2}" y="16" text-anchor="middle" class="title">{escape(title)}</text>',
        f'<line x1="{PAD}" y1="{H - PAD}" x2="{W - 16}" y2="{H - PAD}" class="axis"/>',
        f'<line x1="{PAD}" y1="24" x2="{PAD}" y2="{H - PAD}" class="axis"/>',
        f'<text x="{W / 2}" y="{H - 10}" text-anchor="middle">{escape(xlabel)}</text>',
        f'<text x="14" y="{H / 2}" text-anchor="middle" transform="rotate(-90 14 {H / 2})">'
        f"{escape(ylabel)}</text>",
    ]
    if xticks is None:
        xticks = [xs[0] + (xs[1] - xs[0]) * i / 4 for i in range(5)]
    for xv in xticks:
        parts.append(
            f'<text x="{sx(xv):.1f}" y="{H - PAD + 14}" text-anchor="middle" class="tick">'
            f"{_tick(xv)}</text>"
        )
    for i in range(5):
        yv = ys[0] + (ys[1] - ys[0]) * i / 4
        parts.append(
            f'<text x="{PAD - 4}" y="{sy(yv) + 4:.1f}" text-anchor="end" class="tick">'
            f"{_tick(yv)}</text>"
        )
    return sx, sy, parts


def _tick(v: float) -> str:
    if v == int(v) or abs(v) >= 10:
        return f"{v:,.0f}"
    return f"{v:.2f}"


def _range(values: Sequence[float], floor: float | None = None) -> tuple[float, float]:
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.1 or max(abs(hi) * 0.1, 0.05)
    lo = lo - pad if floor is None else max(floor, lo - pad)
    return lo, hi + pad


def scatter_svg(figures: Sequence[Figure], models: Sequence[str]) -> str:
    points = scatter_points(figures)
    if not points:
        return ""
    sx, sy, parts = _axes(
        "Accuracy vs reasoning tokens", "reasoning tokens (mean)", "accuracy",
        _range([p[2] for p in points], 0.0), _range([p[3] for p in points], 0.0),
    )  # fmt: skip
    for model, set_name, x, y in points:
        tip = escape(f"{model} · {set_name}: accuracy {y:.3f}, {x:,.0f} reasoning tokens")
        parts.append(
            f'<circle class="point" data-model="{escape(model)}" cx="{sx(x):.1f}" '
            f'cy="{sy(y):.1f}" r="6" fill="{color(models, model)}"><title>{tip}</title></circle>'
            f'<text x="{sx(x) + 8:.1f}" y="{sy(y) - 6:.1f}" class="label">{escape(model)}</text>'
        )
    return _svg("scatter", parts)


def levels_svg(figures: Sequence[Figure], models: Sequence[str]) -> list[str]:
    out = []
    for metric, label in ((ACCURACY, "accuracy"), ((TOKENS,), "reasoning tokens")):
        for set_name, by_model in level_series(figures, metric).items():
            values = [v for series in by_model.values() for _, v in series]
            levels = [lv for series in by_model.values() for lv, _ in series]
            sx, sy, parts = _axes(
                f"{set_name}: {label} by level", "level", label,
                (min(levels) - 0.3, max(levels) + 0.3), _range(values, 0.0),
                sorted(set(levels)),
            )  # fmt: skip
            for model, series in by_model.items():
                c = color(models, model)
                pts = " ".join(f"{sx(lv):.1f},{sy(v):.1f}" for lv, v in series)
                parts.append(
                    f'<polyline class="series" data-model="{escape(model)}" points="{pts}" '
                    f'fill="none" stroke="{c}" stroke-width="2"/>'
                )
                parts += [
                    f'<circle cx="{sx(lv):.1f}" cy="{sy(v):.1f}" r="3" fill="{c}">'
                    f"<title>{escape(f'{model}, level {lv}: {v:,.3f}')}</title></circle>"
                    for lv, v in series
                ]
            out.append(_svg(f"levels-{label.replace(' ', '-')}", parts, set_name))
    return out


def _svg(kind: str, parts: list[str], set_name: str = "") -> str:
    data = f' data-set="{escape(set_name)}"' if set_name else ""
    return (
        f'<svg class="plot {kind}"{data} viewBox="0 0 {W} {H}" width="{W}" height="{H}" '
        f'xmlns="http://www.w3.org/2000/svg" role="img">' + "".join(parts) + "</svg>"
    )


def write_pngs(output: Path, figures: Sequence[Figure], models: Sequence[str]) -> list[Path]:
    """``board_scatter.png`` and ``board_levels.png`` (when there is something to draw)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    points = scatter_points(figures)
    if points:
        fig, ax = plt.subplots(figsize=(6, 4), dpi=100)
        for model, set_name, x, y in points:
            ax.scatter([x], [y], color=color(models, model))
            ax.annotate(f"{model} · {set_name}", (x, y), fontsize=7, xytext=(4, 4),
                        textcoords="offset points")  # fmt: skip
        ax.set(xlabel="reasoning tokens (mean)", ylabel="accuracy",
               title="Accuracy vs reasoning tokens")  # fmt: skip
        paths.append(_save(fig, output / "board_scatter.png"))
    panels = [
        (label, set_name, by_model)
        for metric, label in ((ACCURACY, "accuracy"), ((TOKENS,), "reasoning tokens"))
        for set_name, by_model in level_series(figures, metric).items()
    ]
    if panels:
        fig, axes = plt.subplots(1, len(panels), figsize=(4.5 * len(panels), 3.5), dpi=100)
        for ax, (label, set_name, by_model) in zip(
            axes if len(panels) > 1 else [axes], panels, strict=True
        ):
            for model, series in by_model.items():
                ax.plot([lv for lv, _ in series], [v for _, v in series], marker="o",
                        color=color(models, model), label=model)  # fmt: skip
            ax.set(title=f"{set_name}: {label}", xlabel="level", ylabel=label)
            ax.legend(fontsize=7)
        paths.append(_save(fig, output / "board_levels.png"))
    plt.close("all")
    return paths


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path)
    return path
