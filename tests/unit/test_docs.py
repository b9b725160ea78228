"""The README stays a short front door, and every page it leads to is there and up to date."""

from __future__ import annotations

import re
from pathlib import Path

from orchestration.service import generated_docs
from tests.conftest import ROOT

README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def test_the_readme_is_at_most_200_lines() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 200


def test_the_generated_parts_match_the_code() -> None:
    """The environment table, the list of documents and the asset graph: `make docs`."""
    assert generated_docs.outdated(ROOT) == [], "run `make docs`"


def test_the_environment_table_and_the_asset_graph_name_everything() -> None:
    from orchestration.config import ENVIRONMENT
    from orchestration.service.definitions import defs

    readme = README.read_text(encoding="utf-8")
    assert all(f"| `{v.name}` |" in readme for v in ENVIRONMENT)
    graph = generated_docs.asset_graph(ROOT)
    for key in defs.resolve_asset_graph().get_all_asset_keys():
        name = key.to_user_string()
        assert name.startswith("seeds/") or f"[{name}]" in graph, name


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {target.split("#")[0] for target in _links(README)}
    assert DOCS and {f"docs/{page.name}" for page in DOCS} <= linked


def test_every_link_between_the_pages_resolves() -> None:
    broken = []
    for page in [README, *DOCS]:
        for target in _links(page):
            if re.match(r"[a-z]+:", target):
                continue  # http(s), mailto: not checked offline
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            if not file.exists():
                broken.append(f"{page.name}: {target}")
            elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert broken == []


def test_every_test_the_reliability_table_names_exists() -> None:
    table = (ROOT / "docs" / "reliability.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`(test_\w+)`", table))
    defined = {
        name
        for path in (ROOT / "tests").rglob("test_*.py")
        for name in re.findall(r"^def (test_\w+)", path.read_text(encoding="utf-8"), re.M)
    }
    assert len(named) > 30 and named <= defined, sorted(named - defined)


def _links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    return LINK.findall(re.sub(r"`[^`\n]*`", "", text))


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors for a page's headings: lower case, punctuation dropped, `-` for spaces."""
    headings = re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}
