"""The report through the whole pipeline: crafted PRs in a JSON lines file, built by the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from orchestration.service.cli import main
from tests.conftest import SAMPLE_DATASET

HOSTILE = "[engine] fix: <script>alert(1)</script> | pipe\nnewline `tick` \x07 🚀"


def _dataset(tmp_path: Path) -> Path:
    """The sample repository plus one hostile PR with a 1 MB body in week 30."""
    lines = SAMPLE_DATASET.read_text().splitlines()
    hostile = json.loads(lines[1])
    hostile |= {
        "number": 999,
        "title": HOSTILE,
        "body": "### What does this PR do?\n\n> template\n\nKeeps the <b>valve</b> shut.\n\n"
        + "y" * 1_000_000,
        "url": "https://github.com/acme/rocket/pull/999",
        "mergedAt": "2026-07-21T10:00:00Z",
    }
    # one PR in week 32, so that the file covers week 31 and it is a quiet week
    later = json.loads(lines[0]) | {"number": 1000, "mergedAt": "2026-08-04T10:00:00Z"}
    path = tmp_path / "prs.jsonl"
    path.write_text("\n".join([*lines, json.dumps(hostile), json.dumps(later)]) + "\n")
    return path


def _build(dataset: Path, first: str, last: str) -> int:
    return main(
        [
            "build",
            "--repo",
            "acme/rocket",
            "--week",
            first,
            "--to",
            last,
            "--source",
            f"file:{dataset}",
        ]
    )


def test_full_pipeline_writes_markdown_html_and_chart(home: Path, tmp_path: Path, capsys) -> None:
    dataset = _dataset(tmp_path)
    assert _build(dataset, "2026-W27", "2026-W31") == 0  # W31 has nothing merged
    capsys.readouterr()
    reports = home / "reports" / "acme__rocket"
    names = sorted(p.name for p in reports.iterdir())
    for week in ("2026-06-29", "2026-07-06", "2026-07-13", "2026-07-20", "2026-07-27"):
        for lang in ("en", "zh"):
            assert f"{week}.{lang}.md" in names and f"{week}.{lang}.html" in names
    for lang in ("en", "zh"):
        assert f"2026-07-20.areas.{lang}.svg" in names
        assert f"2026-07-27.areas.{lang}.svg" not in names
    assert not [n for n in names if n.startswith(".")]  # no temporary files left behind

    en = (reports / "2026-07-20.en.md").read_text()
    zh = (reports / "2026-07-20.zh.md").read_text()
    html = (reports / "2026-07-20.en.html").read_text()
    assert "11 pull requests merged this week" in en and "本周合并 11 个 PR" in zh
    assert "[#999](https://github.com/acme/rocket/pull/999)" in en
    assert "\\<script\\>alert(1)\\</script\\> \\| pipe newline \\`tick\\` 🚀" in en
    assert "Keeps the valve shut." in en  # from the body, not the 1 MB tail
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>" not in html
    assert "<svg" in html and "![Bar chart of merged PRs per area](2026-07-20.areas.en.svg)" in en
    assert len(en) < 40_000

    empty_en = (reports / "2026-07-27.en.md").read_text()
    empty_zh = (reports / "2026-07-27.zh.md").read_text()
    assert (
        "Nothing merged in acme/rocket during Week 31 of 2026 (July 27 – August 2, 2026)."
        in empty_en
    )
    assert "没有合并任何 PR" in empty_zh
    method = empty_en.split("How the figures are computed")[1]
    factors = ("size", "breadth", "type", "breaking", "core", "surface", "review", "dampener")
    for factor in factors:  # every factor the marts score, though no PR shows them this week
        assert f"| `{factor}` |" in method

    before = {p.name: p.read_bytes() for p in reports.iterdir()}
    assert _build(dataset, "2026-W30", "2026-W31") == 0
    assert {p.name: p.read_bytes() for p in reports.iterdir()} == before
