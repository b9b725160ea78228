"""A repository's merged PRs over its last weeks, as a small inline SVG line."""

from __future__ import annotations

from datetime import date

from markupsafe import Markup, escape

WIDTH, HEIGHT, PAD = 132, 32, 3


SPARK_LABEL = "Merged PRs, last {n} weeks ({first} to {last}): {values}"


def sparkline_svg(points: list[tuple[date, int]], label: str = SPARK_LABEL) -> Markup:
    """The line, a dot on the last week, and a text alternative listing every value (`label`,
    in the page's language)."""
    if not points:
        return Markup("")
    values = [count for _, count in points]
    top = max(values) or 1
    step = (WIDTH - 2 * PAD) / max(len(values) - 1, 1)

    def xy(i: int, v: int) -> tuple[float, float]:
        return PAD + i * step, HEIGHT - PAD - (HEIGHT - 2 * PAD) * v / top

    coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(i, v) for i, v in enumerate(values)))
    last_x, last_y = xy(len(values) - 1, values[-1])
    label = escape(
        label.format(
            n=len(values),
            first=points[0][0],
            last=points[-1][0],
            values=", ".join(str(v) for v in values),
        )
    )
    return Markup(
        f'<svg class="spark" role="img" aria-label="{label}" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" xmlns="http://www.w3.org/2000/svg"><title>{label}</title>'
        f'<polyline fill="none" stroke="#0969da" stroke-width="1.6" stroke-linejoin="round" '
        f'points="{coords}"/><circle cx="{last_x:.1f}" cy="{last_y:.1f}" r="2.4" '
        'fill="#0969da"/></svg>'
    )
