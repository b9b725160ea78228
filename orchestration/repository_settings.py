"""Per-repository settings from repositories.yml, as warehouse tables for the SQL models.

Models read them with `{{ source('settings', 'area_rules') }}`,
`{{ source('settings', 'core_paths') }}` and `{{ source('settings', 'repositories') }}`, beside
the seeds' rules for every repository. Repositories appear by identity (lower case).
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from orchestration.repositories import load_repositories
from orchestration.warehouse import transaction

SCHEMA = "settings"
SETTINGS_RELATIONS = tuple(f"{SCHEMA}.{t}" for t in ("repositories", "area_rules", "core_paths"))


def load_repository_settings(conn: duckdb.DuckDBPyConnection, home: Path) -> None:
    """Replace the settings tables with what repositories.yml says now (values as parameters)."""
    repos = load_repositories(home)
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
        if names:
            conn.executemany(f"insert into {SCHEMA}.repositories values (?, ?)", names)
        if rules:
            conn.executemany(f"insert into {SCHEMA}.area_rules values (?, ?, ?)", rules)
        if cores:
            conn.executemany(f"insert into {SCHEMA}.core_paths values (?, ?, ?)", cores)
