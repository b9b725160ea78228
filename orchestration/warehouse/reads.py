"""Which models a stage reads: the relations its SQL names (`marts.fct_pull_requests`), in the
source of the modules it runs, resolved against the project; so an asset that reads the
warehouse (the report, the narrative) depends on the models it reads, not on a list kept by hand.

The modules a stage runs are its asset's module and what that imports, in `orchestration/`, up
to the warehouse's own machinery (`STOP`). Imports are read from the text, lazy ones inside
functions included: 20-30 ms for the report's 78 modules and the narrative's at every start,
where parsing them with `ast` takes 0.17 s; `tests/unit/test_import_graph.py` reads the same
with `ast` and checks this reading against it."""

from __future__ import annotations

import re
from pathlib import Path

from orchestration.config import PACKAGE_DIR
from orchestration.models.project import Project

ROOT = PACKAGE_DIR  # the orchestration package, in a checkout and in a wheel alike
# the warehouse's writers: the session, the model runner; what they name is no read of a stage
STOP = ("orchestration.warehouse", "orchestration.models")
_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(orchestration(?:\.\w+)*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]+)"
    r"|import[ \t]+(orchestration(?:\.\w+)*))",
    re.MULTILINE,
)


def package_modules(root: Path = ROOT) -> dict[str, Path]:
    """{dotted name: file} for every module of the package (a package by its __init__)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imported(source: str, known: dict[str, Path]) -> set[str]:
    """The package's modules that `source` imports: a name imported from a package counts as
    its module where it is one, else as the package."""
    found = set()
    for match in _IMPORT.finditer(source):
        base, names, plain = match.groups()
        if plain:
            found.add(plain)
            continue
        for name in names.strip("()").split(","):
            word = name.split("#")[0].split()
            module = f"{base}.{word[0]}" if word else base
            found.add(module if module in known else base)
    return {name for name in found if name in known}


def reached(start: str, stop: tuple[str, ...] = STOP) -> dict[str, str]:
    """{module: source} of `start` and every module it imports, directly or not, short of the
    modules under `stop`."""
    known = package_modules()
    sources: dict[str, str] = {}
    todo = [start]
    while todo:
        name = todo.pop()
        if name in sources or name.startswith(stop):
            continue
        sources[name] = known[name].read_text(encoding="utf-8")
        todo += sorted(imported(sources[name], known) - set(sources))
    return sources


def relations_named(project: Project, text: str) -> set[str]:
    """The project's models whose relation `text` names."""
    models = {model.relation: name for name, model in project.models.items()}
    schemas = sorted({relation.split(".")[0] for relation in models})
    named = re.findall(rf"\b((?:{'|'.join(schemas)})\.\w+)\b", text)
    return {models[relation] for relation in named if relation in models}


def models_read(project: Project, start: str, stop: tuple[str, ...] = STOP) -> list[str]:
    """The models that the modules `start` runs name, in the project's build order."""
    named = set().union(*(relations_named(project, s) for s in reached(start, stop).values()))
    return [name for name in project.order if name in named]
