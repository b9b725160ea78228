"""The static site over the sample's reports: pages, links between weeks, feeds, serving."""

from __future__ import annotations

import re
import threading
import urllib.request
import xml.etree.ElementTree as ET
from datetime import date
from pathlib import Path

import pytest

from orchestration.report.nav import END, START
from orchestration.service.cli import main
from orchestration.site.serve import make_server

WEEKS = ["2026-06-29", "2026-07-06", "2026-07-13", "2026-07-20"]
ATOM = "{http://www.w3.org/2005/Atom}"
SLUG = "acme__rocket"


def _hrefs(page: str) -> list[str]:
    return re.findall(r'href="([^"]+)"', page)


HOMES = {"en": "index.html", "zh": "index.zh.html"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_home_page_links_every_report_with_figures_and_a_sparkline(
    sample_home: Path, lang: str
) -> None:
    other = "zh" if lang == "en" else "en"
    page = (sample_home / "reports" / HOMES[lang]).read_text(encoding="utf-8")
    assert f'<html lang="{"zh-CN" if lang == "zh" else "en"}">' in page
    hrefs = set(_hrefs(page))
    assert {f"{SLUG}/{w}.{lang}.html" for w in WEEKS} <= hrefs
    assert {f"{SLUG}/{HOMES[lang]}", f"{SLUG}/feed.{lang}.xml"} <= hrefs
    # pages of its own language only, but for the language switch
    assert not any(f".{other}." in h for h in hrefs - {HOMES[other]})
    assert re.search(rf'<a rel="alternate" hreflang="[\w-]+" href="{HOMES[other]}">', page)
    section = page.split(f'id="{SLUG}"', 1)[1]
    if lang == "en":
        assert "Week 30 of 2026" in section and "<strong>10</strong> merged PRs" in section
    else:
        assert "2026 年第 30 周" in section and "<strong>10</strong> 个合并 PR" in section
    assert "<script" not in page and "<style>" in page
    spark = re.search(r'<svg class="spark"[^>]*aria-label="([^"]*)"', page)
    assert spark and spark.group(1).endswith("7, 9, 8, 10"), spark
    assert spark.group(1).startswith("Merged PRs" if lang == "en" else "最近 4 周合并的 PR")
    assert page.count("<polyline") == 1


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_repository_page_lists_every_week_newest_first(sample_home: Path, lang: str) -> None:
    page = (sample_home / "reports" / SLUG / HOMES[lang]).read_text(encoding="utf-8")
    order = re.findall(r'<article class="week" id="([\d-]+)">', page)
    assert order == sorted(WEEKS, reverse=True)
    latest = page.split('id="2026-07-20">', 1)[1].split("</article>", 1)[0]
    assert latest.count('<a href="https://github.com/acme/rocket/pull/') == 3  # the key PRs
    if lang == "en":
        assert "10 merged PRs · 3 key PRs" in latest
        assert "Top risks: " in latest and "Editions: 1 (" in latest
    else:
        assert "10 个合并 PR · 3 个重点 PR" in latest
        assert "主要风险：" in latest and "版本：1（" in latest
    assert f'href="../{HOMES[lang]}"' in page and f'href="feed.{lang}.xml"' in page


def test_every_week_page_links_the_weeks_beside_it_and_the_other_language(
    sample_home: Path,
) -> None:
    folder = sample_home / "reports" / SLUG
    for i, week in enumerate(WEEKS):
        for lang, other in (("en", "zh"), ("zh", "en")):
            page = (folder / f"{week}.{lang}.html").read_text(encoding="utf-8")
            nav = page.split(START, 1)[1].split(END, 1)[0]
            links = dict(re.findall(r'<a (?:rel="(\w+)"[^>]*?)?href="([^"]+)"', nav))
            assert links.get("prev") == (f"{WEEKS[i - 1]}.{lang}.html" if i else None)
            assert links.get("next") == (
                f"{WEEKS[i + 1]}.{lang}.html" if i + 1 < len(WEEKS) else None
            )
            assert links.get("alternate") == f"{week}.{other}.html"
            for href in _hrefs(nav):
                assert (folder / href).resolve().is_file(), (week, lang, href)


def test_the_feeds_are_atom_with_one_entry_per_week(sample_home: Path) -> None:
    for lang in ("en", "zh"):
        path = sample_home / "reports" / SLUG / f"feed.{lang}.xml"
        feed = ET.parse(path).getroot()
        assert feed.tag == f"{ATOM}feed"
        for tag in ("id", "title", "updated", "author"):
            assert feed.find(f"{ATOM}{tag}") is not None, tag
        entries = feed.findall(f"{ATOM}entry")
        assert [e.find(f"{ATOM}link").get("href") for e in entries] == [
            f"{w}.{lang}.html" for w in reversed(WEEKS)
        ]
        ids = [e.findtext(f"{ATOM}id") for e in entries]
        assert ids == [f"tag:prweekly,2026:acme/rocket/{w}/{lang}" for w in reversed(WEEKS)]
        for entry in entries:
            updated = entry.findtext(f"{ATOM}updated")
            assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", updated), updated
            content = entry.find(f"{ATOM}content")
            assert content.get("type") == "text" and len(content.text) > 80
        first = entries[0].find(f"{ATOM}content").text
        expected = "10 pull requests merged" if lang == "en" else "本周合并 10 个 PR"
        assert expected in first, first


def test_a_week_read_from_a_file_says_its_count_is_unknown(sample_home: Path) -> None:
    folder = sample_home / "reports" / SLUG
    en = (folder / "2026-07-20.en.md").read_text(encoding="utf-8")
    body, appendix = en.split("## Appendix")
    assert "Completeness unknown: 10 PRs listed, read from a file" in body  # the footer line
    assert "Completeness: unknown. This week was not read from GitHub's search" in appendix
    zh = (folder / "2026-07-20.zh.md").read_text(encoding="utf-8")
    assert "完整性未知：本周列出 10 个 PR" in zh.split("## 附录")[0]


def test_prweekly_site_rebuilds_the_same_site_and_serve_serves_it(
    sample_home: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.setenv("PRWEEKLY_HOME", str(sample_home))
    reports = sample_home / "reports"
    before = {p: p.read_bytes() for p in reports.rglob("*") if p.is_file()}
    assert main(["site"]) == 0
    assert f"site: {reports / 'index.html'} (4 pages, 2 feeds)" in capsys.readouterr().out
    assert {p: p.read_bytes() for p in reports.rglob("*") if p.is_file()} == before

    server = make_server(reports, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        assert host == "127.0.0.1"
        with urllib.request.urlopen(f"http://{host}:{port}/index.html", timeout=10) as answer:
            assert answer.read() == before[reports / "index.html"]
        url = f"http://{host}:{port}/{SLUG}/feed.en.xml"
        with urllib.request.urlopen(url, timeout=10) as answer:
            assert answer.read() == before[reports / SLUG / "feed.en.xml"]
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_week_labels_of_the_site_are_iso_weeks() -> None:
    from orchestration.site.build import _words

    label = _words("en")["t"].week_short
    assert label(date(2026, 12, 28)) == "2026-W53" and label(date(2027, 1, 4)) == "2027-W01"
    assert _words("zh")["t"].week_label(date(2027, 1, 4)) == "2027 年第 1 周"
