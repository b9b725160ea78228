"""Every sentence a Chinese report composes is Chinese: a scan of the whole verl history.

The scan takes each week's Chinese Markdown and HTML as written by the build, strips what is
data (PR titles, descriptions, authors, areas, code, links, paths, quotes, numbers) and looks
for English words in what remains: those can only come from the report's own wording.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date, timedelta
from html.parser import HTMLParser
from pathlib import Path

import duckdb

from orchestration.report.text import clean_text, short_title
from orchestration.report.translator import strings

REPO = "verl-project/verl"
# Latin words Chinese technical writing keeps as they are: the product's name, two terms, the
# service that counted the week's PRs and the time zone of its count (the completeness stamp).
ALLOWED = {"prweekly", "PR", "CI", "GitHub", "UTC"}
# the feed format's name, and the language switch, which names the other language in its own
ALLOWED |= {"Atom", "English"}
WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")
NOT_WORDS = [
    re.compile(pattern)
    for pattern in (
        r"https?://\S+",
        r"“[^”]*”|「[^」]*」|\"[^\"\n]*\"",  # quotations
        r"[\w.@+-]*[/\\][\w./\\@+-]*",  # paths
        r"\b[\w-]+\.(?:py|ya?ml|toml|txt|md|json|cfg|sh|cc|cu|h|svg|html)\b",  # file names
        r"\b\d{4}-W\d{2}\b|\bW\d{2}\b",  # ISO weeks and the chart's week labels
        # a measured figure with its unit (`130ms -> 6ms`, a headline claim's figure)
        r"\d[\d.,]*\s?(?:ms|µs|us|ns|s|sec|min|h|[KMGT]i?B)\b",
        r"\d[\d.,]*(?:x(?![A-Za-z]))?",  # numbers, and multiples as authors write them (4.36x)
    )
]


class _Text(HTMLParser):
    """The text a reader sees (and hears: alt, aria-label, title) outside <code>, <style>."""

    SKIP = frozenset({"code", "style", "script"})

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in self.SKIP:
            self.skipping += 1
        for name, value in attrs:
            if name in ("alt", "aria-label", "title", "data-label") and value:
                self.parts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skipping -= 1

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)


def html_text(page: str) -> str:
    parser = _Text()
    parser.feed(page.replace("<wbr>", ""))  # a soft break inside a long word is no boundary
    return "\n".join(parser.parts)


def markdown_text(page: str) -> str:
    page = re.sub("(?<=[@:w])\u200d", "", page)  # the joiners that keep mentions and URLs inert
    page = re.sub(r"(?<!\\)`[^`\n]*(?<!\\)`", " ", page)  # code spans
    page = re.sub(r"!?\[([^\]\n]*)\]\([^)\s]*\)", r"\1", page)  # links and images: their text
    return re.sub(r"\\(.)", r"\1", page)  # Markdown escapes


def week_data(conn: duckdb.DuckDBPyConnection) -> dict[date, Quoted]:
    """Per week, one pattern matching every string its report quotes from the data."""
    data: dict[date, set[str]] = {}

    def add(week: date, *values: object) -> None:
        for value in values:
            if value:
                text = re.sub(r"\s+", " ", clean_text(str(value))).strip()
                data.setdefault(week, set()).update({text, short_title(text)})

    rows = conn.execute(
        "select week_start, title, author, summary from marts.fct_pull_requests where repo = ?",
        [REPO],
    ).fetchall()
    for week, title, author, summary in rows:
        add(week, title, author, summary)
    # a story's distinctive name (a model family, a platform, a tag, a file) is data too
    stories = conn.execute(
        "select week_start, evidence from marts.fct_weekly_stories where repo = ?", [REPO]
    ).fetchall()
    for week, evidence in stories:
        add(week, evidence)
    # area names, also those of the eleven weeks before, which the chart shows
    areas = conn.execute(
        "select distinct week_start, unnest(areas) from marts.fct_pull_requests where repo = ? "
        "union select week_start, area from marts.fct_weekly_area_trends where repo = ?",
        [REPO, REPO],
    ).fetchall()
    for week in list(data):
        add(week, *(area for w, area in areas if week - timedelta(weeks=11) <= w <= week))
    return {week: Quoted(values) for week, values in data.items()}


class Quoted:
    """A week's quoted strings. Names that are one ASCII token (areas, logins) are taken out
    only where they stand whole, so the area "ppo" leaves "support" alone; a name cut short
    with "…" (the chart's legend) counts too. Everything else is cut out wherever it occurs."""

    TOKEN = re.compile(r"[A-Za-z0-9_.+-]+…?")

    def __init__(self, values: set[str]) -> None:
        self.tokens = {v for v in values if self.TOKEN.fullmatch(v)}
        self.phrases = sorted(values - self.tokens, key=len, reverse=True)

    def _token(self, match: re.Match) -> str:
        token = match.group()
        if token in self.tokens:
            return " "
        if token.endswith("…") and any(t.startswith(token[:-1]) for t in self.tokens):
            return " "
        return token

    def strip(self, text: str) -> str:
        for phrase in self.phrases:
            text = text.replace(phrase, " ")
        return self.TOKEN.sub(self._token, text)


def composed_english(text: str, quoted: Quoted | None) -> list[str]:
    """The English words left once the data, code, links, paths and numbers are taken out."""
    text = re.sub(r"\s+", " ", text)
    if quoted is not None:
        text = quoted.strip(text)
    for pattern in NOT_WORDS:
        text = pattern.sub(" ", text)
    return [word for word in WORD.findall(text) if word not in ALLOWED]


def test_chinese_reports_of_the_whole_verl_history_compose_no_english(
    verl_history_home: Path,
) -> None:
    folder = verl_history_home / "reports" / REPO.replace("/", "__")
    with duckdb.connect(str(verl_history_home / "warehouse.duckdb"), read_only=True) as conn:
        quoted = week_data(conn)
        weeks = conn.execute("select week_start from marts.fct_weekly_summary").fetchall()
    assert len(weeks) == 95
    found: Counter[str] = Counter()
    examples: dict[str, str] = {}
    for (week,) in weeks:
        markdown = (folder / f"{week}.zh.md").read_text(encoding="utf-8")
        pages = {
            f"{week}.zh.md": markdown_text(markdown),
            f"{week}.zh.html": html_text((folder / f"{week}.zh.html").read_text(encoding="utf-8")),
        }
        for image in re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", markdown):  # the chart file
            pages[image] = html_text((folder / image).read_text(encoding="utf-8"))
        for name, text in pages.items():
            for word in composed_english(text, quoted.get(week)):
                found[word] += 1
                examples.setdefault(word, name)
    assert not found, {word: (n, examples[word]) for word, n in found.most_common(40)}


def _strings(value: object) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [str(value)]


def test_every_chinese_string_is_chinese() -> None:
    """Also the strings no verl week uses (flags the dataset cannot raise, empty weeks)."""
    zh = dict(strings("zh"))
    zh.pop("lang_tag")
    english = {
        word
        for text in _strings(zh)
        for word in composed_english(re.sub(r"\{\w+\}", " ", text), None)
    }
    assert english == set()
