"""The escaping layer as Jinja filters, so templates name the target a value goes to.

`{{ pr.title | md }}` (Markdown text), `{{ path | md_code }}` (a code span; `md_code_cell`
inside a table row), `{{ value | xml }}` (XML character data), `{{ value | slack }}`;
in HTML templates autoescape does the escaping and `| html` drops what must not be shown.
"""

from __future__ import annotations

import jinja2

from orchestration.escaping.markdown import md_code, md_text
from orchestration.escaping.markup import html_text, xml_text
from orchestration.escaping.slack import slack_text

FILTERS = {
    "md": md_text,
    "md_code": md_code,
    "md_code_cell": lambda value: md_code(value, cell=True),
    "html": html_text,
    "xml": xml_text,
    "slack": slack_text,
}


def install(env: jinja2.Environment) -> jinja2.Environment:
    """Add the layer's filters to `env` (and returns it)."""
    env.filters.update(FILTERS)
    return env
