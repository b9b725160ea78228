"""A PR description as blocks under their headings: prose, list items, checkboxes, tables, code.

Read as GitHub shows it, once per description: HTML comments dropped, quotes (`> ...` and the
lines they carry on: mostly a template's instructions) kept apart, hard-wrapped lines joined
back into their paragraph, item or table row, and an unclosed fence ignored rather than hiding
the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

MAX_BODY_CHARS = 20_000  # a description longer than this is not read past this point
# a line break where the next word would have fitted on a line this wide was meant: it ends a
# sentence (a squash list of commit subjects); wrapped prose never breaks so early
WRAP = 72


def word_set(text: str) -> frozenset[str]:
    """The words of a text written as one string (`"a an the"`)."""
    return frozenset(text.split())


# a line ending in one of these words runs on into the next
_JOINING = word_set(
    "a an the of to in on at by for from with into and or but so as than that is are was be"
)

_VERSION = re.compile(r"\bv?\d+\.\d+(?:\.\d+)?\b")
_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$")
_BOLD_HEADING = re.compile(r"^(?:\*\*|__)([^*_\n]{1,80}?)(?:\*\*|__)\s*:?$")
_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])(?:\s+|$)(.*)$")
_BOX = re.compile(r"^\[([ xX])\]\s*(.*)$")
_RULE = re.compile(r"^([-*_=])(?:\s*\1){2,}$")
_SEPARATOR = re.compile(r"^\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?$")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_URL = re.compile(r"https?://[^\s)>\]]+")
_GITHUB_REF = re.compile(
    r"https?://github\.com/([\w.-]+/[\w.-]+)/(?:issues|pull|discussions)/(\d+)[^\s)\]>]*"
)
_EMPHASIS = re.compile(r"\*\*|__|~~|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")


@dataclass(slots=True)
class Section:
    title: str  # the heading in lower-case words ('' before the first heading)
    level: int  # 1-6 for `#` headings, 7 for a line in bold
    parent: int  # the enclosing section's index, -1 for none
    versioned: bool = False  # it names a version (`v1.0.42`): a changelog's, quoted by a bot


@dataclass(slots=True)
class Block:
    kind: str  # prose, item, box, table, code, quote
    section: int  # index into Doc.sections
    text: str = ""  # prose, item, box: the lines joined (a "\n" where a short line ended); code
    checked: bool = False  # a box: ticked
    loose: bool = False  # a blank line comes before it (a squash message's `* subject` list)
    rows: list[list[str]] | None = None  # a table: rows of raw cells, header first
    cache: tuple | None = None  # its sentences, once split (sentences.sentences)


@dataclass(slots=True)
class Doc:
    sections: list[Section]
    blocks: list[Block]


# every ASCII character but a letter or a digit becomes a space, and an ASCII letter its lower
# case, in a table of bytes that bytes.translate reads at C speed; UTF-8 encodes any other
# character in bytes >= 128 only, which stay as they are (other text is lowered first)
_ASCII_WORD = bytes(
    (c | 0x20 if chr(c).isalpha() else c) if chr(c).isalnum() else 32 for c in range(128)
) + bytes(range(128, 256))


def tokens(text: str) -> list[str]:
    """The lower-case words of a text (`words(text).split()`, without joining them)."""
    if text.isascii():
        return text.encode().translate(_ASCII_WORD).decode().split()
    return _lowered(text).split()


def words(text: str) -> str:
    """Lower-case words joined by one space: what vocabularies are matched against."""
    if text.isascii():
        return b" ".join(text.encode().translate(_ASCII_WORD).split()).decode()
    return " ".join(_lowered(text).split())


def _lowered(text: str) -> str:
    """Text of any characters lowered, ASCII characters but letters and digits as spaces."""
    raw = text.lower().encode("utf-8", "surrogatepass")
    return raw.translate(_ASCII_WORD).decode("utf-8", "surrogatepass")


@lru_cache(maxsize=4096)  # templates repeat their headings in every PR
def _heading(title: str) -> tuple[str, bool]:
    """A heading's words, and whether it names a version."""
    return words(plain(title)), bool(_VERSION.search(title))


def _cells(row: str) -> list[str]:
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    return [c.strip().replace("\\|", "|") for c in _CELL_SPLIT.split(row)]


def _special(s: str) -> bool:
    """Does a (stripped) line start a block of its own rather than continue one?"""
    c = s[0]
    if c in "#>|`~":
        return bool(_ATX.match(s)) if c == "#" else c in ">|" or s.startswith(("```", "~~~"))
    return (c in "-*+" or c.isdigit()) and bool(_ITEM.match(s))


class _Reader:
    def __init__(self) -> None:
        self.sections = [Section("", 0, -1)]
        self.blocks: list[Block] = []
        self.open: Block | None = None  # the prose or item still taking lines
        self.last_len = 0
        self.last_meant = True  # was the line break before the last line meant (or none)?
        self.blank = True  # did a blank line (or the start) come before this line?

    def flush(self) -> None:
        self.open = None

    def section(self, title: str, level: int) -> None:
        self.flush()
        parent = len(self.sections) - 1
        while parent > 0 and self.sections[parent].level >= level:
            parent = self.sections[parent].parent
        heading, versioned = _heading(title)
        self.sections.append(Section(heading, level, parent, versioned))

    def add(self, kind: str, text: str, checked: bool = False) -> None:
        block = Block(kind, len(self.sections) - 1, text, checked, loose=self.blank)
        self.blank = False
        # prose that a code block interrupts mid-sentence carries on after it
        prev = self.blocks[-2] if len(self.blocks) > 1 and self.blocks[-1].kind == "code" else None
        if kind == "prose" and prev and prev.kind == "prose" and text[:1].islower():
            prev.text += " " + text
            self.open = prev
            return
        self.blocks.append(block)
        self.open = block if kind != "code" else None

    def line(self, s: str) -> None:
        """A line of prose: joins the open block or starts a paragraph."""
        if self.open is not None:
            text = self.open.text
            last = text.rsplit(" ", 1)[-1].lower()
            meant = (
                self.last_meant
                and self.last_len + 1 + len(s.split(" ", 1)[0]) <= WRAP
                and not text.endswith((",", "(", "-", "/"))
                and last not in _JOINING
            )
            self.open.text += ("\n" if meant else " ") + s
            self.last_meant = meant
        else:
            self.add("prose", s)
            self.last_meant = True
        self.last_len = len(s)


def parse(body: str | None) -> Doc:
    """The description's sections and blocks, in the order they appear."""
    reader = _Reader()
    if not body:
        return Doc(reader.sections, reader.blocks)
    text = body[:MAX_BODY_CHARS].replace("\r\n", "\n").replace("\r", "\n")
    if "<!--" in text:
        text = _COMMENT.sub("", text)
    lines = text.split("\n")
    n, i = len(lines), 0
    while i < n:
        s = lines[i].strip()
        i += 1
        if not s:
            reader.flush()
            reader.blank = True
            continue
        c = s[0]
        if c in "`~" and s.startswith(("```", "~~~")):
            fence = s[: len(s) - len(s.lstrip(c))]
            end = next(
                (
                    j
                    for j in range(i, n)
                    if lines[j].strip().startswith(fence) and not lines[j].strip().strip(c)
                ),
                None,
            )
            if end is None:  # never closed: the fence is a stray, what follows is text
                continue
            reader.flush()
            reader.add("code", "\n".join(lines[i:end]))
            i = end + 1
            continue
        if c == "#" and (m := _ATX.match(s)):
            reader.section(m.group(2) or "", len(m.group(1)))
            continue
        if c in "*_" and (m := _BOLD_HEADING.match(s)):
            reader.section(m.group(1), 7)
            continue
        if c in "-*_=" and _RULE.match(s):
            reader.flush()
            continue
        if c == ">":  # a quote, with the lines it carries on
            reader.flush()
            quoted = [s.lstrip("> ")]
            while i < n and (t := lines[i].strip()) and (t[0] == ">" or not _special(t)):
                quoted.append(t.lstrip("> "))
                i += 1
            reader.add("quote", " ".join(q for q in quoted if q))
            reader.flush()
            continue
        if c == "|" or ("|" in s and i < n and _SEPARATOR.match(lines[i].strip())):
            reader.flush()
            rows = [s]
            while i < n and (t := lines[i].strip()):
                if t[0] == "|" or _SEPARATOR.match(t):
                    rows.append(t)
                elif _special(t):
                    break
                else:  # a row wrapped onto the next line
                    rows[-1] += " " + t
                i += 1
            table = Block("table", len(reader.sections) - 1)
            table.rows = [_cells(r) for r in rows if not _SEPARATOR.match(r)]
            reader.blocks.append(table)
            continue
        if (c in "-*+" or c.isdigit()) and (m := _ITEM.match(s)):
            content = m.group(2)
            box = _BOX.match(content)
            if box:
                reader.add("box", box.group(2), checked=box.group(1) != " ")
            else:
                reader.add("item", content)
            reader.last_len, reader.last_meant = len(s), True
            continue
        reader.line(s)
    return Doc(reader.sections, reader.blocks)


def plain(text: str, repo: str = "") -> str:
    """Text as a reader sees it: links, images, tags, emphasis and code marks removed, a link to
    an issue or PR as `#N` (`owner/name#N` in another repository), other bare URLs dropped."""
    if "](" in text:
        text = _LINK.sub(r"\1", _IMAGE.sub("", text))
    if "<" in text:
        text = _TAG.sub("", text)
    if "://" in text:
        text = _GITHUB_REF.sub(
            lambda m: (
                f"#{m.group(2)}" if m.group(1).lower() == repo else f"{m.group(1)}#{m.group(2)}"
            ),
            text,
        )
        text = _URL.sub("", text)
    if "`" in text:
        text = text.replace("`", "")
    if "*" in text or "_" in text or "~" in text:
        text = _EMPHASIS.sub("", text)
    if "\\" in text:
        text = _ESCAPE.sub(r"\1", text)
    return " ".join(text.split())
