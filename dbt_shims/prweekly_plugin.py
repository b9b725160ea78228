"""A dbt-duckdb plugin: the runner's sources and Python functions on the connection dbt builds
`sql/` with, so that dbt reads the same lake and calls the same code as the runner.

dbt renders `{{ source('github', 'pull_requests') }}` as the relation `github.pull_requests`.
When dbt first opens the DuckDB file, this plugin asks the runner's own source hooks
(`orchestration/lake/model_sources.py`) what each source declared in `sql/sources.yml` reads, as a
full build reads it (the compacted copies and the week files they leave out, the history
files, the settings of `repositories.yml`), and keeps the answer as a view of that name. The
lake's layout and its guards stay written once, in Python; nothing here names a source, a
table or a model. The functions of `sql/functions.yml` (`read_description`) are registered as the
runner registers them (`orchestration/models/functions.py`).

The profile (`profiles.yml`) loads it with `module_paths: ["dbt_shims"]`, so dbt runs from the
repository's root, with `PRWEEKLY_HOME` naming the home whose lake it reads.
"""

from __future__ import annotations

import time
from typing import Any

from dbt.adapters.duckdb.plugins import BasePlugin
from duckdb import DuckDBPyConnection

from orchestration.config import SQL_DIR, load_settings
from orchestration.lake.model_sources import lake_sources
from orchestration.models.functions import declared_functions
from orchestration.models.project import Project, load_project
from orchestration.models.render import sql_string
from orchestration.models.sources import BuildContext, SourceRequest


def _spelt_out(_name: str, texts: list[str]) -> str:
    """A list of file names inside the view's SQL (a view keeps no bound parameter)."""
    return "[" + ", ".join(sql_string(t) for t in texts) + "]::varchar[]"


def _say(message: str) -> None:
    print(f"prweekly sources: {message}")


def register_functions(conn: DuckDBPyConnection, project: Project) -> None:
    """Every function the project declares, callable from SQL as in a runner's build."""
    for function in declared_functions(project.root):
        conn.create_function(
            function.name,
            function.resolve(),
            list(function.args),
            function.returns,
            type=function.kind,  # `arrow`: one call per batch of rows
            null_handling="special",  # NULL reaches the function as None
            side_effects=False,
        )


def create_sources(conn: DuckDBPyConnection, project: Project) -> list[str]:
    """A view per declared source table that a hook resolves, reading what a full build of
    the runner reads; returns the relations made. A table a hook loads into the warehouse
    itself (the settings) is left as the hook made it."""
    settings = load_settings()
    context = BuildContext(conn, _say, lambda _relation: None, project.relation_of)
    hooks = lake_sources(settings.lake_dir, settings.home)
    resolvers = {name: hook(context) for name, hook in hooks.items()}
    made = []
    for (source, table), spec in project.sources.items():
        resolve = resolvers.get(source)
        if resolve is None:  # a table already in the warehouse
            continue
        # `table`: read as a full build of a table reads it (compacted copies included)
        sql = resolve(SourceRequest(source, table, spec, None, "table", _spelt_out))
        relation = f"{source}.{table}"
        if sql != relation:
            conn.execute(f"create schema if not exists {source}")
            conn.execute(f"create or replace view {relation} as select * from {sql}")
        made.append(relation)
    return made


class Plugin(BasePlugin):
    def initialize(self, plugin_config: dict[str, Any]) -> None:
        self.project = load_project(SQL_DIR)

    def configure_connection(self, conn: DuckDBPyConnection) -> None:
        began = time.perf_counter()
        register_functions(conn, self.project)
        made = create_sources(conn, self.project)
        _say(f"{len(made)} sources ready in {time.perf_counter() - began:.3f} s")
