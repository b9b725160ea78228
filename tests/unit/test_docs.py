"""The README stays a short front door, and every page it leads to is there and up to date."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

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


def test_the_layout_names_every_module_of_the_package() -> None:
    """docs/architecture.md's layout is generated (`make docs`): a module added, moved or
    removed shows there, under its folder."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = text.split("<!-- generated: layout")[1].split("<!-- end: layout -->")[0]
    package = ROOT / "orchestration"
    for path in package.rglob("*.py"):
        if "__pycache__" in path.parts or path.name == "__init__.py":
            continue
        folder = path.parent.relative_to(package).parts
        assert path.name in block, f"{path.relative_to(ROOT)} is not in the layout"
        assert all(f"{part}/" in block for part in folder), path


def test_the_layout_says_what_each_module_is_for(tmp_path: Path) -> None:
    package = tmp_path / "orchestration"
    (package / "lake").mkdir(parents=True)
    (package / "__init__.py").write_text('"""The package."""\n')
    (package / "config.py").write_text('"""Settings. More words."""\n')
    (package / "lake" / "__init__.py").write_text('"""The raw lake."""\n')
    (package / "lake" / "files.py").write_text('"""Week files."""\n')
    assert generated_docs.layout(tmp_path).splitlines() == [
        "```",
        "orchestration/            The package.",
        "  config.py               Settings.",
        "  lake/                   The raw lake.",
        "                          files.py",
        "```",
    ]
    (package / "reader.py").write_text("X = 1\n")
    with pytest.raises(ValueError, match="opens with no docstring"):
        generated_docs.layout(tmp_path)
