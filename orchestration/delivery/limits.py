"""Each target's size limits, and a report shortened to fit one with a link to the whole.

GitHub refuses a discussion, issue or comment body over 65,536 characters ("Body is too
long") and a title over 256; a busy week's Markdown passes that (polars 2024-W23 in English:
67,212 characters), and the refusal would repeat every run. Slack cuts a message's text at
40,000 characters and a section's at 3,000; an SMTP server refuses a message over the size it
advertises (`SIZE` in its EHLO answer). A report over a limit goes out shortened: whole
sections from the top while they fit (the summary, key changes, risks come first; the
appendix of every PR last) and whole lines of the first that does not, then one line saying
it was shortened and where the full report is.
"""

from __future__ import annotations

GITHUB_BODY_CHARS = 65_536
GITHUB_TITLE_CHARS = 256
SLACK_TEXT_CHARS = 3_000  # a section block's limit, well inside the 40,000 Slack keeps
EMAIL_BYTES = 10 * 2**20  # when the server names no SIZE: what most providers accept

_NOTE = {
    "en": "*This report was shortened to fit {where}; the full report: {link}*",
    "zh": "*本周报超出{where}的长度上限，已截短；完整周报：{link}*",
}
_WHERE = {
    "en": {"github": "one GitHub post", "email": "the mail server's size limit"},
    "zh": {"github": "GitHub 单条帖子", "email": "邮件服务器"},
}


def shortened_note(language: str, target: str, link: str) -> str:
    return _NOTE[language].format(where=_WHERE[language][target], link=link)


def fit_markdown(markdown: str, limit: int, note: str, measure=len) -> tuple[str, bool]:
    """`markdown` whole if `measure(markdown) <= limit`, else its leading sections (cut at a
    line when even the first does not fit) and `note`, within `limit`; (text, shortened)."""
    if measure(markdown) <= limit:
        return markdown, False
    tail = f"\n\n---\n\n{note}\n"
    budget = limit - measure(tail)
    if budget <= 0:
        raise ValueError(f"a limit of {limit} leaves no room for the report")
    kept = ""
    for section in _sections(markdown):
        if measure(kept + section) > budget:  # the first that does not fit: whole lines of it
            kept = _lines_within(kept, section, budget, measure)
            break
        kept += section
    return kept.rstrip("\n") + tail, True


def _sections(markdown: str) -> list[str]:
    """The text before the first `## ` heading, then each `## ` section, every line kept."""
    parts, current = [], []
    for line in markdown.splitlines(keepends=True):
        if line.startswith("## ") and current:
            parts.append("".join(current))
            current = []
        current.append(line)
    if current:
        parts.append("".join(current))
    return parts


def _lines_within(kept: str, text: str, budget: int, measure) -> str:
    for line in text.splitlines(keepends=True):
        if measure(kept + line) > budget:
            break
        kept += line
    return kept
