"""A build of every model over a big history, in parts of repositories: its peak memory bound.

Joining a million PRs' rows at once held 3 to 4 GB in DuckDB's hash tables (fct_pull_requests
joins six tables of a million rows each). Every incremental model's rows for a repository
depend on that repository's rows alone, so a full build can build each model one part of the
repositories at a time, through the model's incremental SQL over every week
(`orchestration.models.build`, `parts`): the rows are the same, and what is held at once is
one part's. A history that fits in one part is built in one statement, as before.

The parts are runs of repositories in name order (a range each, so a part's filter is one
comparison), of about `PART_PRS` merged PRs; a repository bigger than that is a part alone.
"""

from __future__ import annotations

import duckdb

from orchestration.models.build import Parts
from orchestration.models.project import Project
from orchestration.models.scope import Scope

# PRs joined at once in a full build: at a million PRs, four parts keep fct_pull_requests
# under 1.2 GB (one part: 2.9 GB) for 5% more CPU
PART_PRS = 250_000


def full_build_parts(project: Project, part_prs: int = PART_PRS) -> Parts:
    """The `parts` of a build of every model: asked once the staging models hold the lake."""

    def parts(conn: duckdb.DuckDBPyConnection) -> list[Scope]:
        prs = project.relation_of("stg_pull_requests")
        weeks = project.relation_of("stg_weekly_partitions")
        # every repository with a week or a PR, in DuckDB's own order (as `between` compares)
        counts = conn.execute(
            f"select repo, count(number) from (select repo, number from {prs} "
            f"union all select repo, null from {weeks}) group by repo order by repo"
        ).fetchall()
        first, last = conn.execute(
            f"select least(w, p), greatest(x, y) from "
            f"(select min(week_start) as w, max(week_start) as x from {weeks}), "
            f"(select min(week_start) as p, max(week_start) as y from {prs})"
        ).fetchone()
        if first is None:
            return []
        groups: list[list[str]] = []
        held = part_prs  # a new part for the first repository
        for repo, count in counts:
            if held + count > part_prs:
                groups.append([])
                held = 0
            groups[-1].append(repo)
            held += count
        return [Scope({}, {"repo": (g[0], g[-1]), "week_start": (first, last)}) for g in groups]

    return parts
