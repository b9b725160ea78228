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


def test_scopes_of_the_same_weeks_replace_those_weeks_of_each_repository() -> None:
    conn = duckdb.connect()
    stamps = {"a/x": {W1: "1", W2: "2"}, "b/y": {W1: "3", W2: "4"}, "c/z": {W1: "5"}}
    everything = [RunScope(r, date.min, date.max) for r in stamps]
    record(conn, "m", everything, stamps)
    record(conn, "m", [RunScope("a/x", W2, W2), RunScope("b/y", W2, W2)], {"a/x": {}, "b/y": {}})
    assert _rows(conn) == [("m", "a/x", W1, "1"), ("m", "b/y", W1, "3"), ("m", "c/z", W1, "5")]
