"""Python functions a SQL project declares (`functions:` in a YAML file of the project), made
callable from its models on the connection that builds them.

A rule that SQL cannot say well (a PR description turned into one line of prose) stays one
Python function; the model calls it by name, so its result has one home, a column of the model.
"""

from __future__ import annotations

import importlib
import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import duckdb

from orchestration.models.project import ProjectError, read_yaml


@dataclass(frozen=True)
class Function:
    name: str
    python: str  # `package.module:function`
    args: tuple[str, ...]  # DuckDB types
    returns: str
    kind: str = "native"  # `arrow`: called once per batch of rows with Arrow arrays

    def resolve(self) -> Callable:
        module, _, attr = self.python.partition(":")
        try:
            return getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise ProjectError(f"function {self.name}: cannot load {self.python}: {exc}") from None


@cache
def declared_functions(root: Path) -> tuple[Function, ...]:
    """Every function the project's YAML files declare under `functions:`."""
    found = []
    for path in sorted([*root.rglob("*.yml"), *root.rglob("*.yaml")]):
        doc = read_yaml(path) or {}
        for spec in doc.get("functions", []) or []:
            try:
                found.append(
                    Function(
                        spec["name"],
                        spec["python"],
                        tuple(spec["args"]),
                        spec["returns"],
                        spec.get("type", "native"),
                    )
                )
            except (KeyError, TypeError):
                raise ProjectError(
                    f"{path}: a function needs `name`, `python`, `args` and `returns`: {spec!r}"
                ) from None
    return tuple(found)


# the functions each open connection was given here: asking DuckDB (`duckdb_functions()`,
# every function it has) costs about 6 ms of CPU a time, once per model calling one
_REGISTERED: weakref.WeakKeyDictionary[duckdb.DuckDBPyConnection, set[str]] = (
    weakref.WeakKeyDictionary()
)


def register_functions(conn: duckdb.DuckDBPyConnection, root: Path, sql: str) -> None:
    """Make the declared functions that `sql` calls callable on `conn` (once per connection).

    A function the connection already has (given by other code) is kept: DuckDB refuses to
    create it again, which costs nothing, where asking `duckdb_functions()` first cost 20 to
    40 ms of CPU a function (it lists every function DuckDB has) in each week's run."""
    registered = _REGISTERED.setdefault(conn, set())
    for function in declared_functions(root):
        if function.name in registered:
            continue
        if not re.search(rf"\b{re.escape(function.name)}\s*\(", sql):
            continue
        try:
            conn.create_function(
                function.name,
                function.resolve(),
                list(function.args),
                function.returns,
                type=function.kind,
                null_handling="special",  # NULL reaches the function as None
                side_effects=False,
            )
        except duckdb.NotImplementedException as exc:
            if "already created" not in str(exc):
                raise
        registered.add(function.name)
