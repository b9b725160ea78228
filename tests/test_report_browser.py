"""Open the HTML report in headless Chromium: it renders, with the key-PR table and the chart."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from tests.test_report_render import WEEK, build_warehouse, history, pr_row, render

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
    assert 'id="key-prs"' in html and '<table class="glance">' in html
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
