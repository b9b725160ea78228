"""The weeks each incremental model rebuilds for a run, worked out once per run.

For a run's weeks a model rebuilds (history.rebuild_scope): the history weeks before them that
some model has not built yet (modelled_weeks), the run's weeks, and the later weeks that compare
with them. A model with a `lookback` (its rows for an earlier PR change with a later revert or
follow-up) reaches further back only to the first week holding a PR those weeks link to
(link_reach). Repositories whose weeks reach as far are built together, in one pass.

Dagster's assets and the benches plan the same way through this module.
"""

from __future__ import annotations

import duckdb

from orchestration.history import history_weeks, rebuild_scope
from orchestration.lake_files import Location
from orchestration.modelled_weeks import Stamps, modelled_by_all, record, week_stamps
from orchestration.models.link_reach import link_reach
from orchestration.models.project import Model, Project
from orchestration.models.scope import Scope
from orchestration.run_scope import RunScope, together


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
