"""Small hand-written SVG charts: deterministic text, no fonts or scripts to load."""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from xml.sax.saxutils import escape

from orchestration.report.text import clean_text

# Paul Tol's "muted" scheme (told apart with colour-blindness), then pale grey for the rest
PALETTE = (
    "#332288",
    "#DDCC77",
    "#44AA99",
    "#CC6677",
    "#88CCEE",
    "#117733",
    "#882255",
    "#999933",
    "#AA4499",
)
OTHER_COLOUR = "#EEEEEE"  # the rest reads as the unnamed remainder of the bar, not a slice
BAR_OUTLINE = "#BBBBBB"
MAX_RISING = 3  # at most this many colours go to the week's rising areas before the busiest

# The chart is drawn 560 units wide with 18-unit text: on a 390 px phone (366 px of page)
# that text is still 11.8 px, and on a desktop it stands at its natural size.
WIDTH, LEFT, RIGHT, TOP, PLOT_H = 560, 44, 8, 24, 240
FONT, ROW, SWATCH, LABEL_CHARS = 18, 28, 14, 18


@dataclass(frozen=True)
class ChartText:
    """The chart's words in the report's language."""

    title: str
    other: Callable[[int], str]  # the legend's label for the areas drawn together in grey
    rising_mark: str = " ↑"


def _attr(text: str) -> str:
    return escape(text, {'"': "&quot;"})


def _nice_step(top: int) -> int:
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if top / step <= 5:
            return step
    return 10 ** len(str(top))


def _text_width(text: str) -> float:
    """Roughly how wide `text` sets at FONT: CJK and other wide characters a full em."""
    wide = sum(unicodedata.east_asian_width(c) in "WF" for c in text)
    return FONT * (wide + 0.6 * (len(text) - wide))


def chart_areas(
    history: list[tuple[date, int, dict[str, int]]], rising: list[str] = ()
) -> list[str]:
    """The areas drawn in their own colour: the week's rising areas first (up to MAX_RISING),
    then the busiest over the chart's weeks, as many as the palette holds."""
    totals: Counter[str] = Counter()
    for _, _, areas in history:
        totals.update(areas)
    chosen = [area for area in rising if totals.get(area)][:MAX_RISING]
    for area, _ in sorted(totals.items(), key=lambda kv: (-kv[1], kv[0])):
        if len(chosen) >= len(PALETTE):
            break
        if area not in chosen:
            chosen.append(area)
    return chosen


def area_chart_svg(
    history: list[tuple[date, int, dict[str, int]]],
    current: date,
    words: ChartText,
    rising: list[str] = (),
) -> str:
    """Stacked bars of merged PRs per week, split by primary area; the current week in bold."""
    areas = chart_areas(history, rising)
    colours = dict(zip(areas, PALETTE, strict=False))
    rest = {a for _, _, by_area in history for a in by_area} - set(areas)
    highest = max([total for _, total, _ in history] + [1])
    step = _nice_step(highest)
    y_max = max(step, -(-highest // step) * step)

    legend = [(area, colours[area], clean_text(area)) for area in areas]
    if rest:
        legend.append(("", OTHER_COLOUR, words.other(len(rest))))
    placed, x, row = [], LEFT, 0
    for area, colour, label in legend:
        cut = len(label) > LABEL_CHARS
        label = (label[: LABEL_CHARS - 1] + "…" if cut else label) + (
            words.rising_mark if area in rising else ""
        )
        width = SWATCH + 6 + _text_width(label)
        if x > LEFT and x + width > WIDTH - RIGHT:
            x, row = LEFT, row + 1
        placed.append((x, row, colour, label, area if cut else ""))
        x += width + 18
    legend_top = TOP + PLOT_H + 58
    height = legend_top + ROW * (row + 1) - 6

    def y(value: float) -> float:
        return TOP + PLOT_H - PLOT_H * value / y_max

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'width="{WIDTH}" height="{height}" role="img" aria-label="{_attr(words.title)}" '
        f'font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="{FONT}">',
        f"<title>{escape(words.title)}</title>",
        f'<rect x="0" y="0" width="{WIDTH}" height="{height}" fill="#ffffff"/>',
    ]
    for tick in range(0, y_max + 1, step):
        ty = y(tick)
        out.append(
            f'<line x1="{LEFT}" y1="{ty:.1f}" x2="{WIDTH - RIGHT}" y2="{ty:.1f}" '
            f'stroke="{"#888888" if tick == 0 else "#e3e3e3"}" stroke-width="1"/>'
        )
        out.append(
            f'<text x="{LEFT - 6}" y="{ty + 6:.1f}" text-anchor="end" fill="#555555">{tick}</text>'
        )
    other = escape(words.other(len(rest)))
    bars = _bars(history, current, areas, y_max)
    out += [line if type(line) is str else f"{line[0]}{other}{line[1]}" for line in bars]
    for lx, row, colour, label, cut_name in placed:
        ly = legend_top + ROW * row
        edge = f' stroke="{BAR_OUTLINE}"' if colour == OTHER_COLOUR else ""
        out.append(
            f'<rect x="{lx:.1f}" y="{ly - SWATCH + 1}" width="{SWATCH}" height="{SWATCH}" '
            f'fill="{colour}"{edge}/>'
        )
        full = f"<title>{escape(clean_text(cut_name))}</title>" if cut_name else ""
        out.append(
            f'<text x="{lx + SWATCH + 6:.1f}" y="{ly}" fill="#333333">{full}{escape(label)}</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _bars(history: list, current: date, areas: list[str], y_max: int) -> list:
    """The bars and their labels, one line each, the same in every language but for the name
    of the areas drawn together: such a line is (before, after) that name. Drawn once for a
    week's charts (`_last_bars` keeps the last week's)."""
    key = (
        tuple((week, total, frozenset(by_area.items())) for week, total, by_area in history),
        current,
        tuple(areas),
        y_max,
    )
    last = _last_bars[0]
    if last[0] != key:
        last = _last_bars[0] = (key, _draw_bars(history, current, areas, y_max))
    return last[1]


_last_bars: list[tuple] = [((), [])]


def _draw_bars(history: list, current: date, areas: list[str], y_max: int) -> list:
    colours = dict(zip(areas, PALETTE, strict=False))
    slot = (WIDTH - LEFT - RIGHT) / (len(history) or 1)
    bar = min(44.0, slot * 0.72)

    def y(value: float) -> float:
        return TOP + PLOT_H - PLOT_H * value / y_max

    out: list[str | tuple[str, str]] = []
    current_index = next((i for i, (w, _, _) in enumerate(history) if w == current), -1)
    label_every = 1 if slot >= 50 else 2  # week labels need about 40 units each
    for index, (week, total, by_area) in enumerate(history):
        x = LEFT + slot * index + (slot - bar) / 2
        if total:
            out.append(
                f'<rect x="{x - 0.5:.1f}" y="{y(total) - 0.5:.1f}" width="{bar + 1:.1f}" '
                f'height="{y(0) - y(total) + 0.5:.1f}" fill="{OTHER_COLOUR}" '
                f'stroke="{BAR_OUTLINE}" stroke-width="1"/>'
            )
        base = 0
        segments = [(a, by_area.get(a, 0), colours[a]) for a in areas]
        segments.append(("", total - sum(by_area.get(a, 0) for a in areas), OTHER_COLOUR))
        for area, count, colour in segments:
            if count <= 0:
                continue
            y_top, y_bottom = y(base + count), y(base)
            rect = (
                f'<rect x="{x:.1f}" y="{y_top:.1f}" width="{bar:.1f}" '
                f'height="{y_bottom - y_top:.1f}" fill="{colour}"><title>'
            )
            # escaped piece by piece, as the whole (escape maps each character alone)
            if area:
                out.append(f"{rect}{escape(f'{week.isoformat()} {clean_text(area)}: {count}')}"
                           "</title></rect>")  # fmt: skip
            else:
                out.append((f"{rect}{escape(f'{week.isoformat()} ')}",
                            f"{escape(f': {count}')}</title></rect>"))  # fmt: skip
            base += count
        weight = ' font-weight="bold"' if week == current else ""
        centre = x + bar / 2
        if (current_index - index) % label_every == 0:
            out.append(
                f'<text x="{centre:.1f}" y="{TOP + PLOT_H + 24}" text-anchor="middle" '
                f'fill="#333333"{weight}>W{week.isocalendar()[1]:02d}</text>'
            )
        if total:
            out.append(
                f'<text x="{centre:.1f}" y="{y(total) - 5:.1f}" text-anchor="middle" '
                f'fill="#333333"{weight}>{total}</text>'
            )
    return out
