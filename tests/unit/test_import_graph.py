"""Imports run one way, in orchestration/ and bench/: no module imports itself back through
others, and inside every folder its files and sub-folders stand in layers, each importing only
the ones below it (a folder counts as one, whatever its files import). Read with `ast`, lazy
imports inside functions included."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

from orchestration.config import PROJECT_DIR

PACKAGES = ("orchestration", "bench")
# imported by the service (the demo, `prweekly emulator`) and by tests and benches alone
TESTING = "orchestration.testing"


def modules(root: Path = PROJECT_DIR) -> dict[str, Path]:
    """{dotted name: file} for every module of the packages (a package by its __init__)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The module `name` lands in: itself, or the nearest package above a symbol."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of the packages that module `name` imports, anywhere in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        found.update(t for t in (_resolve(target, known) for target in targets) if t)
    found.discard(name)
    return found


def import_graph(root: Path = PROJECT_DIR) -> dict[str, set[str]]:
    known = modules(root)
    return {name: imports_of(name, path, known) for name, path in known.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as error:
        return list(error.args[1])
    return None


def rooms(graph: dict[str, set[str]], folder: str) -> dict[str, set[str]]:
    """The graph between the entries of `folder` (a dotted package, or "" for the top): each
    module or sub-folder one node, an edge where any module of one imports one of the other."""
    depth = len(folder.split(".")) if folder else 0

    def room(name: str) -> str | None:
        parts = name.split(".")
        inside = not folder or name.startswith(folder + ".")
        return ".".join(parts[: depth + 1]) if inside and len(parts) > depth else None

    between: dict[str, set[str]] = {}
    for name, targets in graph.items():
        if (source := room(name)) is None:
            continue
        between.setdefault(source, set())
        between[source].update(t for t in map(room, targets) if t and t != source)
    return between


def folders(graph: Iterable[str]) -> list[str]:
    """Every package with entries of its own, the top ("") included."""
    names = set(graph)
    return ["", *sorted(n for n in names if any(m.startswith(n + ".") for m in names))]


GRAPH = import_graph()


def test_every_module_is_read() -> None:
    assert {"orchestration.service.cli", "orchestration.models.run", "bench.scale"} <= set(GRAPH)
    assert "orchestration.database" in GRAPH["orchestration.models.run"]


def test_no_module_imports_itself_back() -> None:
    assert _cycle(GRAPH) is None, f"a circle of imports: {' -> '.join(_cycle(GRAPH) or [])}"


@pytest.mark.parametrize("folder", folders(GRAPH), ids=lambda f: f or "(top)")
def test_the_rooms_of_a_folder_stand_in_layers(folder: str) -> None:
    """An import from a folder's lower room back up to a higher one makes a circle here."""
    circle = _cycle(rooms(GRAPH, folder))
    assert circle is None, f"in {folder or 'the top'}: {' -> '.join(circle or [])}"


def test_only_the_service_imports_the_stand_ins() -> None:
    users = {
        name
        for name, targets in GRAPH.items()
        if name.startswith("orchestration.")
        and not name.startswith((TESTING, "orchestration.service."))
        and any(t.startswith(TESTING) for t in targets)
    }
    assert not users, f"{sorted(users)} import {TESTING}"


def test_a_circle_between_folders_is_caught() -> None:
    """Two folders whose files import each other, though no file imports itself back."""
    graph = {"p.a.x": {"p.b.y"}, "p.b.y": set(), "p.b.z": {"p.a.w"}, "p.a.w": set()}
    assert _cycle(graph) is None
    assert _cycle(rooms(graph, "p")) is not None
    assert _cycle(rooms(graph, "p.a")) is None


def test_a_lazy_and_a_relative_import_are_read(tmp_path: Path) -> None:
    package = tmp_path / "orchestration" / "lake"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "files.py").write_text("X = 1\n")
    (package / "reader.py").write_text("def f():\n    from .files import X\n    import bench\n")
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "__init__.py").write_text("")
    graph = import_graph(tmp_path)
    assert graph["orchestration.lake.reader"] == {"orchestration.lake.files", "bench"}


def symbols(path: Path) -> list[str]:
    """The names a module defines at its top: functions, classes and assigned names."""
    names = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return names


def test_no_module_holds_one_symbol() -> None:
    """A module of one function or class is a file name standing in for a folder's part: it
    belongs beside the code it serves (a package's __init__ may only re-export)."""
    lone = {
        name: names
        for name, path in modules().items()
        if path.name != "__init__.py" and len(names := symbols(path)) <= 1
    }
    assert not lone, f"modules of one symbol: {lone}"


def test_the_warehouse_reads_imports_as_the_graph_does() -> None:
    """`warehouse.reads` reads a stage's imports from the text (which models it reads follows
    them); it finds what `ast` finds, in every module of orchestration/."""
    from orchestration.warehouse.reads import imported, package_modules

    known = package_modules()
    assert set(known) == {n for n in modules() if n.startswith("orchestration")}
    for name, path in known.items():
        ours = {n for n in GRAPH[name] if n.startswith("orchestration")}
        assert imported(path.read_text(encoding="utf-8"), known) - {name} == ours, name
