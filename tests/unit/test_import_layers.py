"""No import points from a lower layer to a higher one: the model runner knows no domain, the
lake knows no source (nor a source its sink), and the partitions know no runner. Read from the
code with `ast`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from orchestration.config import PROJECT_DIR

PACKAGE = PROJECT_DIR / "orchestration"
# the dbt-alike runner: everything in orchestration/models/
RUNNER = sorted((PACKAGE / "models").glob("*.py"))
# below the runner: DuckDB and file helpers it may use
BELOW_RUNNER = {"orchestration.database", "orchestration.storage"}
LAKE = sorted((PACKAGE / "lake").glob("*.py"))
SOURCES = sorted((PACKAGE / "extract" / "sources").glob("*.py"))


def imports(path: Path) -> set[str]:
    """The modules `path` imports anywhere (also inside functions), as dotted names."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] == "orchestration"}


def runner_module(name: str) -> bool:
    return name.split(".")[:2] == ["orchestration", "models"]


def test_the_layers_are_found() -> None:
    assert {p.name for p in RUNNER} >= {"project.py", "render.py", "run.py", "build.py"}
    assert {p.name for p in LAKE} >= {"layout.py", "files.py", "reader.py", "compaction.py"}
    assert {p.name for p in SOURCES} >= {"github.py", "file.py"}


@pytest.mark.parametrize("path", RUNNER, ids=lambda p: p.name)
def test_the_runner_imports_no_domain(path: Path) -> None:
    upward = {
        name
        for name in imports(path)
        if not runner_module(name) and not any(name.startswith(ok) for ok in BELOW_RUNNER)
    }
    assert not upward, f"models/{path.name} imports the domain: {sorted(upward)}"


@pytest.mark.parametrize("path", LAKE, ids=lambda p: p.name)
def test_the_lake_imports_no_source(path: Path) -> None:
    upward = {m for m in imports(path) if m.startswith("orchestration.extract")}
    assert not upward, f"lake/{path.name} imports a source: {sorted(upward)}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_a_source_imports_no_sink(path: Path) -> None:
    """A source yields checked records; where they are stored is none of its business."""
    upward = {m for m in imports(path) if m.startswith("orchestration.lake")}
    assert not upward, f"sources/{path.name} imports the lake: {sorted(upward)}"


def test_the_partitions_import_no_runner() -> None:
    upward = {m for m in imports(PACKAGE / "assets.py") if m.startswith("orchestration.models")}
    assert not upward, f"assets.py imports the runner: {sorted(upward)}"


def test_a_domain_import_in_the_runner_is_caught(tmp_path: Path) -> None:
    """The check sees an import inside a function, as a lazy one would be written."""
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from orchestration.lake.compaction import ReadPlan\n")
    assert "orchestration.lake.compaction" in imports(module)
    assert not runner_module("orchestration.lake.compaction")
    assert runner_module("orchestration.models.scope")
