"""Charts for the moderators' dashboard as plain SVG, drawn on the server.

No script, no ``style`` (a strict Content-Security-Policy allows neither inline):
only SVG presentation attributes (``fill``, ``stroke``, ``font-size``). Every text
is escaped; the caller gives translated labels. Each chart has a ``<title>`` and a
``<desc>`` for screen readers, and a legend when it has more than one series.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from django.utils.safestring import SafeString, mark_safe

WIDTH, HEIGHT = 720, 260
LEFT, RIGHT, TOP, BOTTOM = 44, 12, 16, 58
#: Colours that stay apart for the common colour-vision deficiencies (Okabe-Ito).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
AXIS = "#666666"
GRID = "#dddddd"


@dataclass(frozen=True)
class Series:
    name: str
    values: Sequence[float]


def _nice_max(value: float) -> float:
    """A round top for the value axis (1, 2, 5 x a power of ten), at least ``value``,
    and at least 4: the charts count things, and four ticks of whole numbers read best."""
    if value <= 4:
        return 4.0
    step = 1.0
    while step * 10 <= value:
        step *= 10
    for factor in (1, 2, 5, 10):
        if factor * step >= value:
            return float(factor * step)
    return float(10 * step)  # pragma: no cover - the loop always returns


def _text(x: float, y: float, text: str, *, anchor: str = "middle", size: int = 11, rotate: bool = False) -> str:
    turn = f' transform="rotate(-45 {x:.1f} {y:.1f})"' if rotate else ""
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}" fill="{AXIS}"'
        f' font-family="sans-serif"{turn}>{escape(text)}</text>'
    )


def _frame(title: str, summary: str, top: float, body: list[str], series: Sequence[Series]) -> SafeString:
    plot_h = HEIGHT - TOP - BOTTOM
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT + 24}" width="100%"'
        f' role="img" class="cf-chart">',
        f"<title>{escape(title)}</title><desc>{escape(summary)}</desc>",
    ]
    for tick in range(5):  # value axis: 0, 1/4 ... the top
        value = top * tick / 4
        y = TOP + plot_h - plot_h * tick / 4
        parts.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" stroke="{GRID}"/>')
        label = f"{value:g}" if value == int(value) else f"{value:.1f}"
        parts.append(_text(LEFT - 6, y + 4, label, anchor="end", size=10))
    parts += body
    parts.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{TOP + plot_h}" y2="{TOP + plot_h}" stroke="{AXIS}"/>')
    if len(series) > 1:  # the legend, under the axis labels
        x = LEFT
        for index, one in enumerate(series):
            colour = PALETTE[index % len(PALETTE)]
            parts.append(f'<rect x="{x}" y="{HEIGHT + 8}" width="10" height="10" fill="{colour}"/>')
            parts.append(_text(x + 14, HEIGHT + 17, one.name, anchor="start", size=10))
            x += 22 + 6 * len(one.name)
    parts.append("</svg>")
    return mark_safe("".join(parts))


def bar_chart(title: str, categories: Sequence[str], series: Sequence[Series], *, summary: str = "") -> SafeString:
    """Stacked bars, one per category (a day, a week, an age), one colour per series."""
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    totals = [sum(one.values[i] for one in series) for i in range(len(categories))]
    top = _nice_max(max(totals, default=0))
    slot = plot_w / max(1, len(categories))
    bar = max(2.0, slot * 0.7)
    every = max(1, len(categories) // 12)  # at most about a dozen labels on the axis
    body = []
    for i, category in enumerate(categories):
        x = LEFT + slot * i + (slot - bar) / 2
        base = float(TOP + plot_h)
        for index, one in enumerate(series):
            value = one.values[i]
            if value <= 0:
                continue
            height = plot_h * value / top
            base -= height
            body.append(
                f'<rect x="{x:.1f}" y="{base:.1f}" width="{bar:.1f}" height="{height:.1f}"'
                f' fill="{PALETTE[index % len(PALETTE)]}"><title>{escape(category)}: {escape(one.name)} {value:g}'
                f"</title></rect>"
            )
        if i % every == 0:
            body.append(_text(x + bar / 2, TOP + plot_h + 14, category, size=10, rotate=len(categories) > 8))
    return _frame(title, summary or title, top, body, series)


def line_chart(title: str, categories: Sequence[str], series: Sequence[Series], *, summary: str = "") -> SafeString:
    """One line per series over the categories (days)."""
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    top = _nice_max(max((v for one in series for v in one.values), default=0))
    step = plot_w / max(1, len(categories) - 1)
    every = max(1, len(categories) // 12)
    body = []
    for index, one in enumerate(series):
        colour = PALETTE[index % len(PALETTE)]
        points = " ".join(
            f"{LEFT + step * i:.1f},{TOP + plot_h - plot_h * v / top:.1f}" for i, v in enumerate(one.values)
        )
        body.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for i, v in enumerate(one.values):
            body.append(
                f'<circle cx="{LEFT + step * i:.1f}" cy="{TOP + plot_h - plot_h * v / top:.1f}" r="2.5"'
                f' fill="{colour}"><title>{escape(categories[i])}: {escape(one.name)} {v:g}</title></circle>'
            )
    for i, category in enumerate(categories):
        if i % every == 0:
            body.append(_text(LEFT + step * i, TOP + plot_h + 14, category, size=10, rotate=len(categories) > 8))
    return _frame(title, summary or title, top, body, series)
