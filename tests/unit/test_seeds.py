"""Seeds are loaded again only when their CSV changed or their table went
(orchestration/models/seeds.py)."""

from __future__ import annotations

from pathlib import Path

import duckdb

from orchestration.models.project import load_project
from orchestration.models.seeds import load_seeds, stale_seeds


def _project(root: Path):
    (root / "seeds").mkdir(parents=True)
    (root / "project.yml").write_text("vars: {}\n")
    (root / "seeds" / "colours.csv").write_text("colour\nred\n")
    (root / "seeds" / "sizes.csv").write_text("size\n1\n")
    return load_project(root)


def test_a_seed_is_stale_until_loaded_and_again_once_changed_or_dropped(tmp_path: Path) -> None:
    project = _project(tmp_path / "sql")
    conn = duckdb.connect()
    assert sorted(s.name for s in stale_seeds(conn, project)) == ["colours", "sizes"]
    assert sorted(load_seeds(conn, project)) == ["colours", "sizes"]
    assert stale_seeds(conn, project) == []
    (tmp_path / "sql" / "seeds" / "sizes.csv").write_text("size\n2\n")
    assert [s.name for s in stale_seeds(conn, project)] == ["sizes"]
    assert load_seeds(conn, project) == ["sizes"]
    assert conn.execute("select size from seeds.sizes").fetchall() == [(2,)]
    conn.execute("drop table seeds.colours")  # as an undo could leave it
    assert [s.name for s in stale_seeds(conn, project)] == ["colours"]
    assert load_seeds(conn, project) == ["colours"]
    assert stale_seeds(conn, project) == []
