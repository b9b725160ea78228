"""What a Markdown report becomes on GitHub, for tests: its elements, links and live mentions.

The Markdown is rendered by a CommonMark renderer (markdown-it-py, with GitHub's tables and
strikethrough), then GitHub's own post-processing is imitated on the HTML's text: outside
code and links, `@login` and `@org/team` become mentions, and `https://…`, `www.…` and
`a@b.c` become links (GitHub's autolink extension). A test asserts that every element and
link came from prweekly's template and that no text GitHub would make live is left.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

from markdown_it import MarkdownIt

_MD = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
# GitHub's mention: an @ not after a word character, then a login (or org/team)
MENTION = re.compile(r"(?<![\w`])@[A-Za-z0-9](?:[A-Za-z0-9-]*)(?:/[\w.-]+)?")
BROADCAST = re.compile(r"(?i)(<!(here|channel|everyone)\b|<@[UW][A-Z0-9]+>|<!subteam\^)")
AUTOLINK = re.compile(r"(?i)(\b(https?|ftp)://[^\s<]|(?<![\w.])www\.[a-z0-9-]|\w@[a-z0-9-]+\.)")


@dataclass
class Rendered:
    tags: list[tuple[str, dict]] = field(default_factory=list)
    live_text: list[str] = field(default_factory=list)  # text outside code, pre and links
    code_text: list[str] = field(default_factory=list)  # each code element's text

    @property
    def hrefs(self) -> list[str]:
        return [a["href"] for tag, a in self.tags if tag == "a"]

    @property
    def srcs(self) -> list[str]:
        return [a.get("src", "") for tag, a in self.tags if tag == "img"]

    def mentions(self) -> list[str]:
        return [m for text in self.live_text for m in MENTION.findall(text)]

    def autolinks(self) -> list[str]:
        return [text for text in self.live_text if AUTOLINK.search(text)]


class _Collector(HTMLParser):
    def __init__(self, out: Rendered) -> None:
        super().__init__(convert_charrefs=True)
        self.out, self.inert = out, 0
        self.code: list[str] | None = None

    def handle_starttag(self, tag: str, attrs) -> None:
        self.out.tags.append((tag, dict(attrs)))
        if tag in ("code", "pre", "a"):
            self.inert += 1
        if tag == "code":
            self.code = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("code", "pre", "a"):
            self.inert -= 1
        if tag == "code" and self.code is not None:
            self.out.code_text.append("".join(self.code))
            self.code = None

    def handle_data(self, data: str) -> None:
        if self.code is not None:
            self.code.append(data)
        if not self.inert:
            self.out.live_text.append(data)


def render_markdown(markdown: str) -> Rendered:
    """The elements, live text and code of `markdown` rendered as GitHub would show it."""
    out = Rendered()
    collector = _Collector(out)
    collector.feed(_MD.render(markdown))
    collector.close()
    return out


def shown_text(markdown: str) -> list[str]:
    """The text of `markdown` GitHub shows outside code and links, from the parser's tokens:
    `render_markdown(markdown).live_text` without rendering HTML and parsing it back (what the
    every-week test needs, in a third less time)."""
    out: list[str] = []
    for token in _MD.parse(markdown):
        if token.type != "inline":
            continue
        inert = 0
        for child in token.children or []:
            if child.type == "link_open":
                inert += 1
            elif child.type == "link_close":
                inert -= 1
            elif child.type == "text" and not inert:
                out.append(child.content)
    return out
