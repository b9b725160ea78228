"""The modelled-weeks ledger (orchestration/warehouse/modelled_weeks.py): a record replaces its
scopes' weeks only, and a connection that knew the ledger records again after it went."""

from __future__ import annotations

from datetime import date

import duckdb

from orchestration.run_scope import RunScope
from orchestration.warehouse.modelled_weeks import LEDGER, record

W1, W2, W3 = date(2026, 1, 5), date(2026, 1, 12), date(2026, 1, 19)


def _rows(conn: duckdb.DuckDBPyConnection) -> list[tuple]:
    return conn.execute(f"select * from {LEDGER} order by all").fetchall()


def test_a_record_replaces_its_scopes_weeks_and_no_other() -> None:
    conn = duckdb.connect()
    stamps = {"a/x": {W1: "1", W2: "2", W3: "3"}, "b/y": {W1: "9"}}
    record(conn, "m", [RunScope("a/x", W1, W3), RunScope("b/y", W1, W1)], stamps)
    record(conn, "other", [RunScope("a/x", W1, W1)], stamps)
    # one scope: its week replaced with the file's new stamp, the other weeks kept
    record(conn, "m", [RunScope("a/x", W2, W2)], {"a/x": {W2: "2b"}})
    assert _rows(conn) == [
        ("m", "a/x", W1, "1"),
        ("m", "a/x", W2, "2b"),
        ("m", "a/x", W3, "3"),
        ("m", "b/y", W1, "9"),
        ("other", "a/x", W1, "1"),
    ]
    # several scopes: each its own weeks (b/y's W1 only, not a/x's W1)
    record(conn, "m", [RunScope("a/x", W3, W3), RunScope("b/y", W1, W1)], {"a/x": {}, "b/y": {}})
    assert _rows(conn) == [
        ("m", "a/x", W1, "1"),
        ("m", "a/x", W2, "2b"),
        ("other", "a/x", W1, "1"),
    ]


def test_a_connection_records_again_after_the_ledger_went() -> None:
    conn = duckdb.connect()
    record(conn, "m", [RunScope("a/x", W1, W1)], {"a/x": {W1: "1"}})
    conn.execute("drop schema runs cascade")  # as an undo or another writer could
    record(conn, "m", [RunScope("a/x", W2, W2)], {"a/x": {W2: "2"}})
    assert _rows(conn) == [("m", "a/x", W2, "2")]


def test_a_record_within_a_transaction_makes_the_ledger_again_after_it_went() -> None:
    """`record_within` runs in the caller's open transaction, where a missing ledger would
    abort it: a ledger that went since the connection made it is made again."""
    from orchestration.warehouse.modelled_weeks import record_within

    conn = duckdb.connect()
    conn.execute("begin")
    record_within(conn, "m", [RunScope("a/x", W1, W1)], {"a/x": {W1: "1"}})
    conn.execute("commit")
    conn.execute("drop schema runs cascade")  # as an undo could
    conn.execute("begin")
    record_within(conn, "m", [RunScope("a/x", W2, W2)], {"a/x": {W2: "2"}})
    conn.execute("commit")
    assert _rows(conn) == [("m", "a/x", W2, "2")]


def test_scopes_of_the_same_weeks_replace_those_weeks_of_each_repository() -> None:
    conn = duckdb.connect()
    stamps = {"a/x": {W1: "1", W2: "2"}, "b/y": {W1: "3", W2: "4"}, "c/z": {W1: "5"}}
    everything = [RunScope(r, date.min, date.max) for r in stamps]
    record(conn, "m", everything, stamps)
    record(conn, "m", [RunScope("a/x", W2, W2), RunScope("b/y", W2, W2)], {"a/x": {}, "b/y": {}})
    assert _rows(conn) == [("m", "a/x", W1, "1"), ("m", "b/y", W1, "3"), ("m", "c/z", W1, "5")]


def test_every_week_of_a_lake_is_recorded_for_every_incremental_model(tmp_path) -> None:
    """`record_every_week` (a warehouse built in one pass, outside Dagster) writes what
    recording each model over every week file would, and replaces the earlier records."""
    from types import SimpleNamespace

    from orchestration.lake.layout import write_partition
    from orchestration.warehouse.modelled_weeks import record_every_week, week_stamps

    lake = tmp_path / "lake"
    for repo, weeks in {"a/x": [W1, W2], "b/y": [W3]}.items():
        for week in weeks:
            write_partition(lake, repo, week, [])
    models = {
        "stg_weekly_partitions": SimpleNamespace(
            name="stg_weekly_partitions", materialized="incremental", relation="s.weeks"
        ),
        "fct": SimpleNamespace(name="fct", materialized="incremental", relation="m.fct"),
        "dim": SimpleNamespace(name="dim", materialized="table", relation="m.dim"),
    }
    conn = duckdb.connect()
    conn.execute("create schema s; create table s.weeks as select 'a/x' as repo union all "
                 "select 'b/y'")  # fmt: skip
    record(conn, "fct", [RunScope("a/x", W3, W3)], {"a/x": {W3: "gone"}})
    record_every_week(conn, SimpleNamespace(models=models), lake)
    stamps = {repo: week_stamps(lake, repo) for repo in ("a/x", "b/y")}
    assert len(stamps["a/x"]) == 2 and len(stamps["b/y"]) == 1
    assert _rows(conn) == sorted(
        (model, repo, week, stamp)
        for model in ("fct", "stg_weekly_partitions")
        for repo, weeks in stamps.items()
        for week, stamp in weeks.items()
    )
