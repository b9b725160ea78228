"""Per-repository settings from repositories.yml, as warehouse tables for the SQL models.

Models read them with `{{ source('settings', 'area_rules') }}`,
`{{ source('settings', 'core_paths') }}`, `{{ source('settings', 'repositories') }}` and
`{{ source('settings', 'groups') }}`, beside the seeds' rules for every repository. Repositories
appear by identity (lower case); the groups as orchestration.repositories.groups reads them (the
file's
`groups:`, else one per owner with more than one repository).
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from orchestration.database import transaction
from orchestration.repositories.groups import groups_of
from orchestration.repositories.registry import load_registry, registry_path

SCHEMA = "settings"
TABLES = ("repositories", "area_rules", "core_paths", "groups")
SETTINGS_RELATIONS = tuple(f"{SCHEMA}.{t}" for t in TABLES)


def load_repository_settings(conn: duckdb.DuckDBPyConnection, home: Path) -> None:
    """Replace the settings tables with what repositories.yml says now (values as parameters)."""
    repos, raw_groups, has_groups = load_registry(home)
    groups = groups_of(registry_path(home), raw_groups, has_groups, [r.repo for r in repos])
    members = [
        (g.name, repo, position, g.configured)
        for g in groups
        for position, repo in enumerate(g.repositories, start=1)
    ]
    names = [(r.repo, r.name) for r in repos]
    rules = [(r.repo, prefix, area) for r in repos for prefix, area in r.area_rules.items()]
    cores = [
        (r.repo, prefix, "configured in repositories.yml") for r in repos for prefix in r.core_paths
    ]
    with transaction(conn):
        conn.execute(f"create schema if not exists {SCHEMA}")
        conn.execute(f"create or replace table {SCHEMA}.repositories (repo varchar, name varchar)")
        conn.execute(
            f"create or replace table {SCHEMA}.area_rules "
            "(repo varchar, path_prefix varchar, area varchar)"
        )
        conn.execute(
            f"create or replace table {SCHEMA}.core_paths "
            "(repo varchar, path_prefix varchar, reason varchar)"
        )
        conn.execute(
            f"create or replace table {SCHEMA}.groups "
            "(group_name varchar, repo varchar, position integer, configured boolean)"
        )
        if members:  # one statement: executemany takes about a millisecond a row
            columns = [list(column) for column in zip(*members, strict=True)]
            conn.execute(
                f"insert into {SCHEMA}.groups select unnest(?::varchar[]), "
                "unnest(?::varchar[]), unnest(?::integer[]), unnest(?::boolean[])",
                columns,
            )
        if names:
            conn.executemany(f"insert into {SCHEMA}.repositories values (?, ?)", names)
        if rules:
            conn.executemany(f"insert into {SCHEMA}.area_rules values (?, ?, ?)", rules)
        if cores:
            conn.executemany(f"insert into {SCHEMA}.core_paths values (?, ?, ?)", cores)
