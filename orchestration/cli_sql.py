"""`prweekly sql`: read-only SQL over the warehouse, printed as a table, CSV or JSON.

Read-only for the whole machine, not only for the warehouse: before the user's SQL runs, the
connection loses access to files, extensions and the network, and its configuration is locked
so no statement can give that back. Values are printed so that a terminal shows them and does
not obey them: control and bidi characters from PR titles appear escaped (`\\x1b`).
"""

from __future__ import annotations

import csv
import json
import math
import sys
from datetime import date, datetime, time
from decimal import Decimal

import duckdb

from orchestration.config import UsageError, load_settings
from orchestration.control_chars import escape_unsafe, escape_unsafe_json

Result = tuple[list[str], list[tuple]]
FORMATS = ("table", "csv", "json")


class QueryError(Exception):
    """DuckDB refused or failed the SQL; the message keeps its lines (DuckDB's carets)."""

    keep_lines = True


def run_sql(query: str, output_format: str) -> None:
    from orchestration.warehouse import connect

    settings = load_settings()
    with connect(settings.warehouse_path, read_only=True) as conn:
        lock_down(conn)
        statements = _statements(conn, query)
        if output_format != "table" and len(statements) > 1:
            raise UsageError(
                f"--format {output_format} prints one statement's result; this SQL has "
                f"{len(statements)}: run them one at a time, or use --format table"
            )
        # every result is fetched before anything is printed: all of them print, or none
        results = [result for s in statements if (result := _run(conn, s)) is not None]
    for index, (names, rows) in enumerate(results):
        if index:
            print()
        if output_format == "csv":
            _write_csv(names, rows)
        elif output_format == "json":
            print(escape_unsafe_json(json.dumps(_json_rows(names, rows), ensure_ascii=False)))
        else:
            print_table(names, rows)


def lock_down(conn: duckdb.DuckDBPyConnection) -> None:
    """No files, extensions or network from here on, and no setting can change that."""
    conn.execute("set TimeZone = 'UTC'")  # prweekly's weeks are UTC; so are printed times
    conn.execute("set autoinstall_known_extensions = false")
    conn.execute("set autoload_known_extensions = false")
    conn.execute("set enable_external_access = false")
    conn.execute("set lock_configuration = true")


def _statements(conn: duckdb.DuckDBPyConnection, query: str) -> list:
    try:
        statements = conn.extract_statements(query)
    except duckdb.Error as error:
        raise QueryError(_message(error)) from None
    if not statements:
        raise UsageError("the SQL is empty: give a query, e.g. `select 1`")
    return statements


def _run(conn: duckdb.DuckDBPyConnection, statement) -> Result | None:
    try:
        cursor = conn.execute(statement)
        if cursor.description is None:
            return None
        return [d[0] for d in cursor.description], cursor.fetchall()
    except duckdb.Error as error:
        raise QueryError(_message(error)) from None


def _message(error: duckdb.Error) -> str:
    """DuckDB's own message, or what prweekly refused and why when the lock-down stopped it."""
    text = str(error).strip()
    first = text.splitlines()[0] if text else type(error).__name__
    if isinstance(error, duckdb.PermissionException) or "disabled by configuration" in text:
        detail = first.removeprefix("Permission Error: ").split(" - file system")[0]
        return (
            "prweekly sql reads only the warehouse: files, extensions and the network are "
            f"off ({detail})"
        )
    if "configuration has been locked" in text or "enable external access" in text:
        return "prweekly sql cannot change DuckDB's settings: they are locked while it runs"
    if "read-only mode" in text:
        return "prweekly sql is read-only: it cannot write the warehouse or create a database"
    return text


def _text(value: object, null: str) -> str:
    """A value as one line of text for a table or CSV; nested values as JSON."""
    if value is None:
        return null
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple | dict):
        return json.dumps(_jsonable(value), ensure_ascii=False)
    if isinstance(value, date | time):  # datetime too
        return value.isoformat()
    if isinstance(value, bytes):
        return "".join(chr(b) if 32 <= b < 127 and b != 92 else f"\\x{b:02x}" for b in value)
    return str(value)


def _jsonable(value: object) -> object:
    """A value JSON can hold: ISO dates and times, numbers for decimals, text for the rest."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    return _text(value, "")


def _json_rows(names: list[str], rows: list[tuple]) -> list[dict]:
    return [{n: _jsonable(v) for n, v in zip(names, row, strict=True)} for row in rows]


def _write_csv(names: list[str], rows: list[tuple]) -> None:
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow([escape_unsafe(n, keep="\n\t") for n in names])
    for row in rows:
        writer.writerow([escape_unsafe(_text(v, ""), keep="\n\t") for v in row])


def print_table(names: list[str], rows: list[tuple]) -> None:
    """Aligned columns, one line per row; a single value prints alone, for scripts."""
    if len(names) == 1 and len(rows) == 1:
        print(escape_unsafe(_text(rows[0][0], "NULL")))
        return
    names = [escape_unsafe(n) for n in names]
    cells = [[escape_unsafe(_text(v, "NULL")) for v in row] for row in rows]
    widths = [min(60, max([len(n)] + [len(r[i]) for r in cells])) for i, n in enumerate(names)]
    print("  ".join(n.ljust(w) for n, w in zip(names, widths, strict=True)).rstrip())
    print("  ".join("-" * w for w in widths))
    for row in cells:
        print("  ".join(v[:w].ljust(w) for v, w in zip(row, widths, strict=True)).rstrip())
    print(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
