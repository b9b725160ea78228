"""CSV seeds: loaded into the `seeds` schema, and again only when their content changes."""

from __future__ import annotations

import hashlib

import duckdb

from orchestration.database import transaction
from orchestration.models.project import Project, Seed
from orchestration.models.render import sql_string

CHECKSUMS = "seeds._checksums"  # each seed's SHA-256 when last loaded


def stale_seeds(conn: duckdb.DuckDBPyConnection, project: Project) -> list[Seed]:
    """The CSV seeds whose content changed since they were last loaded (or never loaded)."""
    try:
        fresh = _loaded(conn)
    except duckdb.CatalogException:  # nothing loaded yet
        conn.execute("create schema if not exists seeds")
        conn.execute(
            "create table if not exists seeds._checksums (name varchar primary key, sha256 varchar)"
        )
        fresh = _loaded(conn)
    return [seed for seed in project.seeds.values() if fresh.get(seed.name) != _digest(seed)]


def _loaded(conn: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Each seed's checksum when last loaded, for the seeds whose table is there: one query,
    as a build asks for every model it builds (four, with `information_schema`, cost 3 to
    4 ms of CPU a model)."""
    return dict(
        conn.execute(
            "select c.name, c.sha256 from seeds._checksums c "
            "semi join duckdb_tables() t on t.schema_name = 'seeds' and t.table_name = c.name"
        ).fetchall()
    )


def _digest(seed: Seed) -> str:
    return hashlib.sha256(seed.path.read_bytes()).hexdigest()


def load_seeds(
    conn: duckdb.DuckDBPyConnection, project: Project, seeds: list[Seed] | None = None
) -> list[str]:
    """(Re)load every CSV seed whose content changed since it was last loaded."""
    loaded = []
    for seed in stale_seeds(conn, project) if seeds is None else seeds:
        with transaction(conn):
            conn.execute(
                f"create or replace table {seed.relation} as select * from "
                f"read_csv({sql_string(str(seed.path))}, header = true)"
            )
            conn.execute(
                "insert or replace into seeds._checksums values (?, ?)", [seed.name, _digest(seed)]
            )
        loaded.append(seed.name)
    return loaded
