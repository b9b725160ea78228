"""The site of a demo build, opened in Chromium: from each language's home page every report is
reachable, every link between pages resolves, no page is blank, and a Chinese page is Chinese
(`lang="zh-CN"`) and leads only to Chinese pages but for the language switch."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlparse

import pytest

from tests.e2e.test_report_browser import _chromium, _pixels, pytestmark  # noqa: F401 (skip marker)

SLUG = "acme__rocket"
WEEKS = ["2026-06-29", "2026-07-06", "2026-07-13", "2026-07-20"]


class _Page(HTMLParser):
    """The links (the switch to the other language apart), the language and the visible text
    of a DOM that Chromium dumped."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.switches: list[str] = []  # rel="alternate" hreflang=…: the other language's page
        self.text: list[str] = []
        self.lang = ""
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in ("style", "script"):
            self._skip += 1
        values = dict(attrs)
        if tag == "html":
            self.lang = values.get("lang") or ""
        href = values.get("href")
        if tag == "a" and href:
            switch = values.get("rel") == "alternate" and values.get("hreflang")
            (self.switches if switch else self.links).append(href)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip and data.strip():
            self.text.append(data.strip())


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`prweekly demo`: the sample's four weeks through the GitHub emulator."""
    from orchestration.service.cli import main

    home = tmp_path_factory.mktemp("demo") / "home"
    with pytest.MonkeyPatch.context() as mp:
        for name in ("PRWEEKLY_SOURCE", "GITHUB_TOKEN", "DAGSTER_HOME", "GITHUB_GRAPHQL_URL"):
            mp.delenv(name, raising=False)
        mp.setenv("PRWEEKLY_HOME", str(home))
        assert main(["demo"]) == 0
    return home


HOMES = {"en": "index.html", "zh": "index.zh.html"}
# collects each frame's DOM once every frame has loaded (file:// frames read one another with
# --allow-file-access-from-files)
_COLLECT = """<script>window.addEventListener("load", () => {
  const out = {};
  for (const f of document.querySelectorAll("iframe")) {
    out[f.src] = f.contentDocument.documentElement.outerHTML;
  }
  const pre = document.createElement("pre");
  pre.id = "doms";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});</script>"""


def _open_all(tmp_path: Path, urls: list[str]) -> dict[str, _Page]:
    """Each page as Chromium lays it out, all in one run (a run per page took a second each)."""
    frames = "".join(f'<iframe src="{html.escape(u, quote=True)}"></iframe>' for u in urls)
    harness = tmp_path / "crawl.html"
    harness.write_text(f"<!DOCTYPE html><html><body>{frames}{_COLLECT}</body></html>", "utf-8")
    dom = _chromium(tmp_path, "--allow-file-access-from-files", "--dump-dom", harness.as_uri())
    found = re.findall(r'<pre id="doms">(\{.*?)</pre>', dom.stdout.decode(), re.S)
    assert found, dom.stderr.decode(errors="replace")[-2000:]
    pages = {}
    for url, text in json.loads(html.unescape(found[-1])).items():
        pages[url] = page = _Page()
        page.feed(text)
    assert set(pages) == set(urls)
    return pages


def _crawl(tmp_path: Path, start: str) -> dict[str, _Page]:
    """Every page of the site `start` leads to through its links (not the language switch),
    as Chromium reads it, a level of links at a time; each link and switch resolves to a file."""
    seen: dict[str, _Page] = {}
    level = [start]
    while level:
        found = _open_all(tmp_path, level)
        seen |= found
        following = []
        for url, page in found.items():
            assert len(" ".join(page.text)) > 150, f"{url} is (nearly) blank"
            for href in page.links + page.switches:
                target = urldefrag(urljoin(url, href)).url
                if urlparse(target).scheme != "file":
                    continue  # a PR on GitHub
                assert Path(urlparse(target).path).is_file(), f"{url} links {href}: no such file"
                if target.endswith(".html") and href in page.links and target not in seen:
                    following.append(target)
        level = sorted(set(following))
    return seen


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_report_is_reachable_and_every_link_resolves(
    tmp_path: Path, demo_home: Path, lang: str
) -> None:
    reports = demo_home / "reports"
    other = "zh" if lang == "en" else "en"
    home = (reports / HOMES[lang]).as_uri()
    seen = _crawl(tmp_path, home)
    pages = {Path(urlparse(u).path).relative_to(reports).as_posix() for u in seen}
    weeks = {f"{SLUG}/{w}.{lang}.html" for w in WEEKS}
    appendices = {f"{SLUG}/{w}.{lang}.appendix.html" for w in WEEKS}
    assert pages == {HOMES[lang], f"{SLUG}/{HOMES[lang]}"} | weeks | appendices
    # every page reached from this language's home is in this language
    tag = "zh-CN" if lang == "zh" else "en"
    assert {u: p.lang for u, p in seen.items() if p.lang != tag} == {}
    home_links = {urljoin(home, h) for h in seen[home].links}
    assert {(reports / w).as_uri() for w in weeks} <= home_links  # straight from the home page
    for url, page in seen.items():  # the switch leads to the same page in the other language
        name = Path(urlparse(url).path).name
        twin = {HOMES[lang]: HOMES[other]}.get(name) or name.replace(f".{lang}.", f".{other}.")
        assert [Path(h).name for h in page.switches] == [twin], (url, page.switches)

    for i, week in enumerate(WEEKS):  # each week page's own links, read from Chromium's DOM
        links = set(seen[(reports / SLUG / f"{week}.{lang}.html").as_uri()].links)
        if i > 0:
            assert f"{WEEKS[i - 1]}.{lang}.html" in links
        if i + 1 < len(WEEKS):
            assert f"{WEEKS[i + 1]}.{lang}.html" in links
        assert f"{week}.{lang}.appendix.html" in links


def test_the_home_page_renders_and_reports_say_github_counted_them(
    tmp_path: Path, demo_home: Path
) -> None:
    shot = tmp_path / "home.png"
    home = (demo_home / "reports" / "index.html").as_uri()
    result = _chromium(tmp_path, f"--screenshot={shot}", "--window-size=390,900", home)
    assert shot.exists(), result.stderr.decode(errors="replace")[-2000:]
    width, channels, rows = _pixels(shot.read_bytes())
    blue = sum(
        1
        for row in rows
        for x in range(0, width * channels, channels)
        if row[x + 2] > 180 and row[x] < 60  # the links and the sparkline
    )
    assert blue > 200, "no link or sparkline pixels: the home page rendered blank"

    folder = demo_home / "reports" / SLUG
    en = (folder / "2026-07-20.en.md").read_text(encoding="utf-8")
    assert re.search(r"Completeness: 10 of 10 merged PRs, counted by GitHub at \d{4}-", en)
    zh = (folder / "2026-07-20.zh.html").read_text(encoding="utf-8")
    assert re.search(r'<p class="stamp">完整性：共 10 / 10 个已合并 PR，由 GitHub 于 \d{4}-', zh)
    assert re.search(r'<p class="footer">完整性：共 10 / 10 个已合并 PR，由 GitHub 于 \d{4}-', zh)
