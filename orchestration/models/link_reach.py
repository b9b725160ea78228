"""How far back a run's links reach: the earlier weeks holding PRs that a revert or a follow-up
in the weeks the run rebuilds names, now or before this run.

A model configured with `lookback=N` may rebuild N weeks before a run's; the weeks that can
actually change are only those holding a PR the rebuilt weeks' PRs link to. Which PRs those are
is the links model's own rule (`sql/intermediate/int_pull_request_links.sql`), evaluated here
for the run's weeks: the links it will write, and the ones it wrote before, which a rewritten
week may have dropped.
"""

from __future__ import annotations

from datetime import date

import duckdb

from orchestration.models.functions import register_functions
from orchestration.models.project import Project
from orchestration.models.render import render
from orchestration.models.scope import Scope
from orchestration.warehouse import relation_exists

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
