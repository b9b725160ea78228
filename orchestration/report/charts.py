"""Small hand-written SVG charts: deterministic text, no fonts or scripts to load."""

from __future__ import annotations

from collections import Counter
from datetime import date
from xml.sax.saxutils import escape

from orchestration.report.text import clean_text

# Okabe-Ito colours (distinguishable with colour-blindness), then grey for "other"
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00")
OTHER_COLOUR = "#A0A0A0"
OTHER = "other"
TOP_AREAS = len(PALETTE)


def _attr(text: str) -> str:
    return escape(text, {'"': "&quot;"})


def _nice_step(top: int) -> int:
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if top / step <= 5:
            return step
    return 10 ** len(str(top))


def chart_areas(history: list[tuple[date, int, dict[str, int]]]) -> list[str]:
    """The areas drawn in their own colour: the busiest over the whole window."""
    totals: Counter[str] = Counter()
    for _, _, areas in history:
        totals.update(areas)
    ranked = sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))
    return [area for area, _ in ranked[:TOP_AREAS]]


def area_chart_svg(
    history: list[tuple[date, int, dict[str, int]]], current: date, title: str
) -> str:
    """Stacked bars of merged PRs per week, split by primary area; the current week in bold."""
    areas = chart_areas(history)
    colours = dict(zip(areas, PALETTE, strict=False))
    width, left, right, top, plot_h = 720, 40, 12, 14, 200
    weeks = len(history) or 1
    slot = (width - left - right) / weeks
    bar = min(40.0, slot * 0.7)
    highest = max([total for _, total, _ in history] + [1])
    step = _nice_step(highest)
    y_max = max(step, -(-highest // step) * step)
    legend_items = (
        [*areas, OTHER]
        if any(set(by_area) - set(areas) for _, _, by_area in history)
        else list(areas)
    )
    per_row = 6
    legend_rows = -(-len(legend_items) // per_row)
    height = top + plot_h + 28 + 22 * legend_rows + 6

    def y(value: float) -> float:
        return top + plot_h - plot_h * value / y_max

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{_attr(title)}" '
        'font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="12">',
        f"<title>{escape(title)}</title>",
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
    ]
    for tick in range(0, y_max + 1, step):
        ty = y(tick)
        out.append(
            f'<line x1="{left}" y1="{ty:.1f}" x2="{width - right}" y2="{ty:.1f}" '
            f'stroke="{"#888888" if tick == 0 else "#e3e3e3"}" stroke-width="1"/>'
        )
        out.append(
            f'<text x="{left - 6}" y="{ty + 4:.1f}" text-anchor="end" fill="#555555">{tick}</text>'
        )
    for index, (week, total, by_area) in enumerate(history):
        x = left + slot * index + (slot - bar) / 2
        base = 0
        segments = [(a, by_area.get(a, 0), colours[a]) for a in areas]
        segments.append((OTHER, total - sum(by_area.get(a, 0) for a in areas), OTHER_COLOUR))
        for area, count, colour in segments:
            if count <= 0:
                continue
            y_top, y_bottom = y(base + count), y(base)
            out.append(
                f'<rect x="{x:.1f}" y="{y_top:.1f}" width="{bar:.1f}" '
                f'height="{y_bottom - y_top:.1f}" fill="{colour}">'
                f"<title>{escape(f'{week.isoformat()} {clean_text(area)}: {count}')}</title></rect>"
            )
            base += count
        is_current = week == current
        weight = ' font-weight="bold"' if is_current else ""
        centre = x + bar / 2
        out.append(
            f'<text x="{centre:.1f}" y="{top + plot_h + 16}" text-anchor="middle" '
            f'fill="#333333"{weight}>W{week.isocalendar()[1]:02d}</text>'
        )
        if total:
            out.append(
                f'<text x="{centre:.1f}" y="{y(total) - 4:.1f}" text-anchor="middle" '
                f'fill="#333333" font-size="11"{weight}>{total}</text>'
            )
    legend_top = top + plot_h + 34
    column = (width - left - right) / per_row
    for index, area in enumerate(legend_items):
        lx = left + column * (index % per_row)
        ly = legend_top + 22 * (index // per_row)
        label = clean_text(area)
        label = label if len(label) <= 16 else label[:15] + "…"
        out.append(
            f'<rect x="{lx:.1f}" y="{ly - 10}" width="12" height="12" '
            f'fill="{colours.get(area, OTHER_COLOUR)}"/>'
        )
        out.append(f'<text x="{lx + 17:.1f}" y="{ly}" fill="#333333">{escape(label)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
