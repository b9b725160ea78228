"""How a model's `source()` becomes SQL: the runner asks the hook its project registered for
that source; a source with none is a table already in the warehouse (`<source>.<table>`).

The runner knows nothing of where a source's rows live. The lake registers a hook that lists
its files (`orchestration/lake/model_sources.py`); a hook may also load a small table before a model
reads it, announcing the write first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import duckdb

from orchestration.models.scope import Scope

Say = Callable[[str], None]


@dataclass(frozen=True)
class BuildContext:
    """What a hook may use while one model is built."""

    conn: duckdb.DuckDBPyConnection
    say: Say  # warnings for the run's log
    before_write: Callable[[str], None]  # announce a relation the hook is about to replace
    relation_of: Callable[[str], str]  # the relation of a model or seed, by name


@dataclass(frozen=True)
class SourceRequest:
    """One `source(name, table)` of a model being rendered."""

    source: str
    table: str
    spec: dict[str, Any]  # the table's entry in the project's YAML
    scope: Scope | None  # an incremental run's partitions; None when the model is built whole
    materialized: str
    bind_texts: Callable[[str, list[str]], str]  # a list of text as SQL (a parameter if it can)


Resolve = Callable[[SourceRequest], str]
SourceHook = Callable[[BuildContext], Resolve]  # called once per model build
SourceHooks = Mapping[str, SourceHook]  # by source name


def warehouse_table(request: SourceRequest) -> str:
    """A source no hook resolves: a table of that name already in the warehouse."""
    return f"{request.source}.{request.table}"
