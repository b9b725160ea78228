"""`prweekly sql`: read-only SQL over the warehouse, printed as a table, CSV or JSON.

Read-only for the whole machine, not only for the warehouse: before the user's SQL runs, the
connection loses access to files, extensions and the network, and its configuration is locked
so no statement can give that back. Values are printed so that a terminal shows them and does
not obey them: control and bidi characters from PR titles appear escaped (`\\x1b`).

An error is one line: DuckDB's message, where in the SQL (line and column, not the line's
text) and what to do. SQL read with `--file` is never quoted back: a file that is not SQL
(`--file /etc/shadow` run for someone else) would otherwise show its first line.
"""

from __future__ import annotations

import csv
import json
import math
import re
import sys
from datetime import date, datetime, time
from decimal import Decimal
from pathlib import Path

import duckdb

from orchestration.config import UsageError, load_settings
from orchestration.text import escape_unsafe, escape_unsafe_json

Result = tuple[list[str], list[tuple]]
FORMATS = ("table", "csv", "json")


class QueryError(Exception):
    """DuckDB refused or failed the SQL: one line, saying where and what to do."""


def read_sql_file(path: Path) -> str:
    """The SQL in `path`; a file that cannot be SQL is refused without showing its bytes."""
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise UsageError(f"--file {path} is a folder: give a file of SQL") from None
    except FileNotFoundError:
        raise UsageError(f"--file {path} does not exist: give a file of SQL") from None
    except OSError as exc:
        raise UsageError(f"--file {path} cannot be read ({exc.strerror})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"--file {path} is not text (not UTF-8 at byte {exc.start}): give a file of SQL"
        ) from None


def run_sql(query: str, output_format: str, source: Path | None = None) -> None:
    """Run `query` and print its results; `source` is the file it was read from, if any."""
    from orchestration.database import connect

    settings = load_settings()
    with connect(settings.warehouse_path, read_only=True) as conn:
        lock_down(conn)
        statements = _statements(conn, query, source)
        if output_format != "table" and len(statements) > 1:
            raise UsageError(
                f"--format {output_format} prints one statement's result; this SQL has "
                f"{len(statements)}: run them one at a time, or use --format table"
            )
        # every result is fetched before anything is printed: all of them print, or none
        results = [r for s in statements if (r := _run(conn, s, query, source)) is not None]
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


def _statements(conn: duckdb.DuckDBPyConnection, query: str, source: Path | None) -> list:
    try:
        statements = conn.extract_statements(query)
    except duckdb.Error as error:
        raise QueryError(_message(error, query, source)) from None
    if not statements:
        raise UsageError("the SQL is empty: give a query, e.g. `select 1`")
    return statements


def _run(
    conn: duckdb.DuckDBPyConnection, statement, query: str, source: Path | None
) -> Result | None:
    try:
        cursor = conn.execute(statement)
        if cursor.description is None:
            return None
        return [d[0] for d in cursor.description], cursor.fetchall()
    except duckdb.Error as error:
        raise QueryError(_message(error, query, source)) from None


_ECHO = re.compile(r"^LINE (\d+): (.*)$")
HINTS = {
    "Parser Error": "fix the SQL there",
    "Catalog Error": 'the tables: prweekly sql "show all tables"',
    "Binder Error": 'a table\'s columns: prweekly sql "describe marts.fct_pull_requests"',
    "Conversion Error": "cast the value, e.g. try_cast(x as integer)",
}


def _message(error: duckdb.Error, query: str, source: Path | None = None) -> str:
    """One line: what prweekly refused and why, or DuckDB's message, where and what to do."""
    text = str(error).strip()
    first = text.splitlines()[0] if text else type(error).__name__
    if isinstance(error, duckdb.PermissionException) or "disabled by configuration" in text:
        detail = first.removeprefix("Permission Error: ").split(" - file system")[0]
        if source is not None:
            detail = "a file, an extension or the network"
        return (
            "prweekly sql reads only the warehouse: files, extensions and the network are "
            f"off ({detail})"
        )
    if "configuration has been locked" in text or "enable external access" in text:
        return "prweekly sql cannot change DuckDB's settings: they are locked while it runs"
    if "read-only mode" in text:
        return "prweekly sql is read-only: it cannot write the warehouse or create a database"
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines) if _ECHO.match(line)), len(lines))
    said = " ".join(" ".join(lines[:at]).split())
    kind = said.split(":", 1)[0]
    where = _position(lines[at:], query)
    if source is not None:
        # the file's own text stays out: DuckDB quotes the token it stopped at
        said = re.sub(r' at or near "[^"]*"', "", said) if kind == "Parser Error" else said
        where = f"{source}{' ' + where if where else ''}"
    hint = HINTS.get(kind)
    return f"{said}{f' ({where})' if where else ''}{f': {hint}' if hint else ''}"


def _position(echo: list[str], query: str) -> str:
    """`line L, column C` of DuckDB's caret under its echo of the line ('' when none)."""
    if len(echo) < 2 or not (match := _ECHO.match(echo[0])) or "^" not in echo[1]:
        return ""
    number, shown = int(match.group(1)), match.group(2)
    caret = echo[1].index("^") - len(f"LINE {number}: ")
    source_lines = query.splitlines()
    line = source_lines[number - 1] if 0 < number <= len(source_lines) else ""
    fragment = shown.removeprefix("...").removesuffix("...")
    offset = 3 if shown.startswith("...") else 0
    start = line.find(fragment) if fragment else -1
    if start < 0 or caret < offset:
        return f"line {number}"
    return f"line {number}, column {start + caret - offset + 1}"


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
