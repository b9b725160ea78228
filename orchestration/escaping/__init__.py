"""Outside text made safe for each target prweekly writes: one layer per target.

Every piece of text prweekly did not write itself (PR titles, bodies, file paths, logins,
labels, area names, a language model's sentences) reaches a report, a feed or a message only
through one of these functions:

- `markdown` (the `.md` reports, GitHub posts, the email's text part): no HTML, link, image,
  emphasis, heading, list or table break the text did not get from prweekly; code spans that
  hold any character; no `@mention`, e-mail address or bare URL GitHub would make live.
- `html` (the pages, the site, the email's HTML part): escaped text on one line.
- `xml` (the Atom feeds, the charts' SVG): nothing XML 1.0 forbids (C0 controls but tab, LF
  and CR, lone surrogates, U+FFFE, U+FFFF).
- `slack` (mrkdwn): `&`, `<`, `>` escaped; no live mention or broadcast; no control or bidi
  character.

All of them first drop what must not reach a reader as it is (`orchestration.text`).
`jinja.install` exposes them to the templates as filters.
"""

from orchestration.escaping.markdown import MdText, md_code, md_text
from orchestration.escaping.markup import html_text, xml_text
from orchestration.escaping.slack import slack_link, slack_text
from orchestration.escaping.text import ZWJ, neutralise, one_line

__all__ = [
    "ZWJ",
    "MdText",
    "html_text",
    "md_code",
    "md_text",
    "neutralise",
    "one_line",
    "slack_link",
    "slack_text",
    "xml_text",
]
