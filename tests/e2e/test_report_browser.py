"""Open the HTML report in headless Chromium: it renders, reads well on every screen and prints."""

from __future__ import annotations

import html
import json
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from tests.unit.test_report_render import WEEK, build_warehouse, history, pr_row, render

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    BROWSER is None,
    reason="no chromium or chromium-browser on PATH (Debian: apt-get install -y chromium; "
    ".ci/run installs it)",
)
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]


def _pixels(png: bytes) -> tuple[int, int, list[bytes]]:
    """Decode an 8-bit RGB or RGBA PNG into rows of raw pixel bytes (enough for a screenshot)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        kind, data = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", data[:10])
            assert depth == 8 and colour in (2, 6), (depth, colour)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += data
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), width * channels, [], bytes(width * channels)
    for y in range(height):
        kind, line = (
            raw[y * (stride + 1)],
            bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)]),
        )
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, channels, rows


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [BROWSER, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *args],
        capture_output=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_html_report_renders_in_chromium(tmp_path: Path, lang: str) -> None:
    prs = [
        pr_row(n, WEEK, importance=9.0 - n / 2, primary_area=f"area{n % 4}", areas=[f"area{n % 4}"])
        for n in range(1, 13)
    ]
    files = render(build_warehouse(tmp_path / "w.duckdb", {**history(8), WEEK: prs}))
    page = tmp_path / f"{WEEK}.{lang}.html"
    page.write_text(files[page.name], encoding="utf-8")

    dom = _chromium(tmp_path, "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr.decode(errors="replace")[-2000:]
    html = dom.stdout.decode()
    assert 'id="key-prs"' in html and '<table class="glance cards">' in html
    assert "<svg" in html and "<rect" in html

    shot = tmp_path / "shot.png"
    result = _chromium(tmp_path, f"--screenshot={shot}", "--window-size=800,1400", page.as_uri())
    assert shot.exists(), result.stderr.decode(errors="replace")[-2000:]
    width, channels, rows = _pixels(shot.read_bytes())
    colours = set()
    dark = 0
    for row in rows[::4]:
        for x in range(0, width * channels, channels * 4):
            pixel = row[x : x + 3]
            colours.add(pixel)
            dark += sum(pixel) < 300
    assert len(colours) > 20, "the screenshot is (nearly) one colour: the page did not render"
    assert dark > 200, "no text-coloured pixels: the page rendered blank"


MEASURE_JS = Path(__file__).parents[1] / "fixtures" / "measure_layout.js"
# frame id suffix -> CSS width: a desktop browser, a phone, and an A4 page's printable width
# (210 mm less the report's 15 mm margins, at 96 px to the inch; the print rules switched on)
SCREENS = {"desktop": 1280, "phone": 390, "print": round((210 - 2 * 15) / 25.4 * 96)}


def _layout(tmp_path: Path, pages: dict[str, str]) -> dict[str, dict]:
    """Lay each page out at every screen width in one Chromium run; the measurements by frame."""
    frames = [
        f'<iframe id="{name}-{screen}" width="{width}" height="1000" '
        f'srcdoc="{html.escape(text, quote=True)}"></iframe>'
        for name, text in pages.items()
        for screen, width in SCREENS.items()
    ]
    page = tmp_path / "layout.html"
    page.write_text(
        "<!DOCTYPE html><html><body>"
        + "".join(frames)
        + f"<script>{MEASURE_JS.read_text(encoding='utf-8')}</script></body></html>",
        encoding="utf-8",
    )
    dom = _chromium(tmp_path, "--dump-dom", page.as_uri())
    found = re.findall(r'<pre id="layout">(\{.*?)</pre>', dom.stdout.decode(), re.S)
    assert found, dom.stderr.decode(errors="replace")[-2000:]
    return json.loads(html.unescape(found[-1]))


def assert_reads_well(results: dict[str, dict]) -> None:
    """No word broken, no column hidden or cut, a page no wider than the screen, chart text of
    11 px or more; a table may scroll sideways in its own box on a phone only."""
    problems = {}
    for frame, m in results.items():
        found = {
            "error": m.get("error"),
            "words broken inside": m.get("broken"),
            "cells hidden": m.get("hidden"),
            "cells cut off": m.get("cut"),
            "cells scrolled out of sight": not frame.endswith("phone") and m.get("scrolled"),
            "page wider than the screen": m.get("scrollWidth", 0) > m.get("width", 0),
            "chart text under 11 px": (m.get("chartText") or 11) < 11,
        }
        if any(found.values()):
            problems[frame] = {k: v for k, v in found.items() if v}
    assert not problems, json.dumps(problems, ensure_ascii=False, indent=1)[:4000]
    assert all(m["cells"] > 10 for m in results.values())


def _pages(folder: Path, week: str) -> dict[str, str]:
    return {
        f"{week}.{lang}": (folder / f"{week}.{lang}.html").read_text(encoding="utf-8")
        for lang in ("en", "zh")
    }


def test_the_sample_report_reads_well_on_every_screen(tmp_path: Path, sample_home: Path) -> None:
    folder = sample_home / "reports" / "acme__rocket"
    results = _layout(tmp_path, _pages(folder, "2026-07-20"))
    assert set(results) == {f"2026-07-20.{lang}-{s}" for lang in ("en", "zh") for s in SCREENS}
    assert_reads_well(results)


def test_verl_reports_read_well_on_every_screen(tmp_path: Path, verl_history_home: Path) -> None:
    folder = verl_history_home / "reports" / "verl-project__verl"
    # a typical week, and the one with the most PRs (the longest appendix)
    results = _layout(tmp_path, {**_pages(folder, "2026-07-20"), **_pages(folder, "2026-03-02")})
    assert_reads_well(results)


def test_the_report_prints_on_a4_pages(tmp_path: Path, sample_home: Path) -> None:
    page = sample_home / "reports" / "acme__rocket" / "2026-07-20.zh.html"
    pdf = tmp_path / "report.pdf"
    result = _chromium(tmp_path, "--no-pdf-header-footer", f"--print-to-pdf={pdf}", page.as_uri())
    assert pdf.exists(), result.stderr.decode(errors="replace")[-2000:]
    boxes = re.findall(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", pdf.read_bytes())
    assert len(boxes) >= 2  # a few pages, each A4: 210 x 297 mm is 595.3 x 841.9 points
    for width, height in boxes:
        assert abs(float(width) - 595.3) < 1.5 and abs(float(height) - 841.9) < 1.5
