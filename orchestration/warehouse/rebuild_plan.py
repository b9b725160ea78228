"""The weeks each incremental model rebuilds for a run, worked out once per run, and how far
back a week's links (reverts, follow-ups) reach.
"""

from __future__ import annotations

from datetime import date

import duckdb

from orchestration.database import relation_exists
from orchestration.extract.history import history_weeks, rebuild_scope
from orchestration.lake.files import Location
from orchestration.models.functions import register_functions
from orchestration.models.project import Model, Project
from orchestration.models.render import render
from orchestration.models.scope import Scope
from orchestration.run_scope import RunScope, together
from orchestration.warehouse.modelled_weeks import (
    Stamps,
    modelled_by_all,
    record,
    record_within,
    week_stamps,
)


class RebuildPlan:
    """The rebuild scopes of a run's weeks: made before any model writes (the extract has
    written the lake by then, and every model reads it the same); listing each repository's
    week files once per run, not once per model, saves seconds at a hundred repositories."""

    def __init__(
        self,
        conn: duckdb.DuckDBPyConnection,
        project: Project,
        lake_dir: Location,
        run_scopes: list[RunScope],
    ) -> None:
        self.project = project
        repos = sorted({scope.repo for scope in run_scopes})
        self.extracted: dict[str, Stamps] = {r: week_stamps(lake_dir, r) for r in repos}
        modelled = modelled_by_all(conn, project, self.extracted)
        self.rebuilt = [
            rebuild_scope(
                scope,
                lake_dir,
                history_weeks(),
                modelled.get(scope.repo, set()),
                list(self.extracted[scope.repo]),
            )
            for scope in run_scopes
        ]
        self._reached: dict[tuple, Scope] = {}

    def scopes(self, conn: duckdb.DuckDBPyConnection, model: Model) -> list[Scope]:
        """The scopes `model` builds, one per group of repositories sharing their weeks; for a
        model with a lookback, reaching back as far as its weeks' links (worked out once, by
        the first such model: before the links model writes)."""
        grouped = together(self.rebuilt)
        if not model.lookback:
            return grouped
        for scope in grouped:
            key = (scope.values["repo"], scope.ranges["week_start"])
            if key not in self._reached:
                first, last = scope.ranges["week_start"]
                reach = link_reach(conn, self.project, scope)
                weeks = {"week_start": (min(first, reach) if reach else first, last)}
                self._reached[key] = Scope(dict(scope.values), {**scope.ranges, **weeks})
        return [self._reached[(s.values["repo"], s.ranges["week_start"])] for s in grouped]

    def record(self, conn: duckdb.DuckDBPyConnection, model: Model) -> None:
        """`model` has built the planned weeks."""
        record(conn, model.name, self.rebuilt, self.extracted)

    def record_within(self, conn: duckdb.DuckDBPyConnection, model: Model) -> None:
        """`record`, in the open transaction that writes the model's rows (build's
        `with_write`)."""
        record_within(conn, model.name, self.rebuilt, self.extracted)


LINKS = "int_pull_request_links"
# the links model's columns naming an earlier PR
NAMED = "list_concat([reverts_number], follows_up)"


def link_reach(conn: duckdb.DuckDBPyConnection, project: Project, scope: Scope) -> date | None:
    """The first week before `scope`'s that holds a PR its PRs link to (None: none does)."""
    model = project.models[LINKS]
    if not relation_exists(conn, model.relation):
        return None
    sql, params = render(project, model, scope=scope, variables=scope.variables(project.partitions))
    register_functions(conn, project.root, sql)
    first = scope.ranges["week_start"][0]
    repos = list(scope.values["repo"])
    (reach,) = conn.execute(
        f"""
        with fresh as ({sql}),
        kept as (
            select * from {model.relation}
            where repo in (select unnest($reach_repos)) and week_start >= $reach_first
        ),
        named as (
            select repo, unnest({NAMED}) as number from fresh
            union
            select repo, unnest({NAMED}) as number from kept
        )
        select min(t.week_start)
        from named n
        join {model.relation} t on t.repo = n.repo and t.number = n.number
        where t.week_start < $reach_first
        """,
        {**params, "reach_repos": repos, "reach_first": first},
    ).fetchone()
    return reach
