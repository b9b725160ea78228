"""`prweekly sql`: read-only for the whole machine, safe for a terminal, and a good Unix tool.

The warehouse here is a small real DuckDB file made for the test, holding the values that are
hard to print: terminal escape sequences and bidi controls in titles, lists, structs, times.
"""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
from datetime import UTC, date, datetime
from pathlib import Path

import duckdb
import pytest

from orchestration.service.cli import main

PRWEEKLY = str(Path(sys.executable).with_name("prweekly"))
# an xterm title change, a screen clear, red text, a right-to-left override, an 8-bit CSI,
# the Arabic letter mark; then what must survive: CJK, an emoji joined by ZWJ, a Persian ZWNJ
HOSTILE_TITLE = (
    "fix: \x1b]0;pwned\x07 \x1b[2J\x1b[31mred\x1b[0m \u202egnp.exe \x9b1m \u061cok "
    "中文 👩\u200d👩\u200d👧 می\u200cخواهم"
)
DANGEROUS = ["\x1b", "\x07", "\x9b", "\u202e", "\u061c"]


@pytest.fixture
def warehouse(home: Path) -> Path:
    """A warehouse with two PRs, plus a report and a lake file that must stay untouched."""
    home.mkdir(parents=True)
    path = home / "warehouse.duckdb"
    with duckdb.connect(str(path)) as conn:
        conn.execute("create schema marts")
        conn.execute(
            "create table marts.fct_pull_requests (number integer, title varchar, "
            "risk_flags varchar[], factors struct(size double, core double), "
            "merged_at timestamptz, week_start date, is_breaking boolean, "
            "importance decimal(3, 1))"
        )
        conn.execute(
            "insert into marts.fct_pull_requests values "
            "(1, 'feat: add a rollout, with commas', ['core_path', 'large_change'], "
            "{'size': 1.5, 'core': 2}, timestamptz '2026-07-20 10:00:00+00', "
            "date '2026-07-20', true, 7.5), "
            "(2, ?, [], null, timestamptz '2026-07-21 23:30:00+00', date '2026-07-20', "
            "false, 0.5)",
            [HOSTILE_TITLE],
        )
    (home / "reports").mkdir()
    (home / "reports" / "week.en.md").write_text("# the report\n")
    lake = home / "lake" / "raw" / "pull_requests" / "repo=acme__rocket" / "week=2026-07-20"
    lake.mkdir(parents=True)
    with duckdb.connect() as conn:
        conn.execute(f"copy (select 1 as number) to '{lake / 'data.parquet'}'")
    return path


def sql(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["sql", *args])
    out, err = capsys.readouterr()
    return code, out, err


ATTACKS = {
    "copy-over-a-report": "copy (select 'pwned') to '{home}/reports/week.en.md' (header false)",
    "copy-into-the-lake": "copy (select 1) to '{lake}/week=2026-07-20/data.parquet'",
    "export-database": "export database '{home}/exported'",
    "attach-read-write": "attach '{home}/created.duckdb' as created (read_only false)",
    "attach-in-memory": "attach ':memory:' as scratch",
    "read-any-file": "select * from read_text('/etc/passwd')",
    "read-the-lake": "select * from read_parquet('{lake}/*/*.parquet')",
    "list-files": "select * from glob('/etc/*')",
    "install-extension": "install httpfs",
    "load-extension": "load httpfs",
    "reach-the-network": "select * from read_csv('https://example.invalid/x.csv')",
    "unlock-settings": "set enable_external_access = true",
    "unlock-then-read": "set lock_configuration = false; select * from read_text('/etc/passwd')",
    "write-a-table": "create table marts.pwned as select 1",
    "delete-rows": "delete from marts.fct_pull_requests",
}


@pytest.mark.parametrize("attack", ATTACKS, ids=list(ATTACKS))
def test_sql_reads_only_the_warehouse(warehouse: Path, capsys, attack: str) -> None:
    home = warehouse.parent
    lake = home / "lake" / "raw" / "pull_requests" / "repo=acme__rocket"
    assert sql(capsys, "select 1")[0] == 0  # creates the lock file beside the warehouse
    before = sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file())
    code, out, err = sql(capsys, ATTACKS[attack].format(home=home, lake=lake))
    assert code == 1, (out, err)
    assert out == "" and "root:" not in err
    assert err.startswith("prweekly: error: prweekly sql ")
    assert "Traceback" not in err and "duckdb." not in err and "Exception" not in err
    assert (home / "reports" / "week.en.md").read_text() == "# the report\n"
    after = sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file())
    assert after == before
    # the connection that refused still answers plain reads
    assert sql(capsys, "select count(*) from marts.fct_pull_requests")[:2] == (0, "2\n")


@pytest.mark.parametrize("output_format", ["table", "csv", "json"])
def test_terminal_escapes_from_titles_are_shown_escaped(
    warehouse: Path, capsys, output_format: str
) -> None:
    query = "select title from marts.fct_pull_requests where number = 2"
    code, out, err = sql(capsys, "--format", output_format, query)
    assert code == 0, err
    for char in DANGEROUS:
        assert char not in out, repr(char)
    assert "\\x1b]0;pwned\\x07" in out.replace("\\u001b", "\\x1b").replace("\\u0007", "\\x07")
    assert "\\u202egnp.exe" in out or "\\u202Egnp.exe" in out
    assert "中文" in out and "👩\u200d👩\u200d👧" in out and "می\u200cخواهم" in out
    if output_format == "json":
        assert json.loads(out) == [{"title": HOSTILE_TITLE}]  # JSON escapes lose nothing
    code, out, err = sql(capsys, "select number, left(title, 12) as t from marts.fct_pull_requests")
    assert code == 0 and "\x1b" not in out and "fix: \\x1b]0;p" in out  # in an aligned table too


def test_csv_and_json_write_nested_values_and_times_a_reader_parses(warehouse, capsys) -> None:
    query = (
        "select number, risk_flags, factors, merged_at, week_start, is_breaking, importance "
        "from marts.fct_pull_requests order by number"
    )
    code, out, err = sql(capsys, "--format", "csv", query)
    assert code == 0, err
    header, first, second = list(csv.reader(io.StringIO(out)))
    assert header[1:3] == ["risk_flags", "factors"]
    assert json.loads(first[1]) == ["core_path", "large_change"]
    assert json.loads(first[2]) == {"size": 1.5, "core": 2.0}
    assert json.loads(second[1]) == [] and second[2] == ""
    assert datetime.fromisoformat(first[3]) == datetime(2026, 7, 20, 10, tzinfo=UTC)
    assert first[3:] == ["2026-07-20T10:00:00+00:00", "2026-07-20", "true", "7.5"]

    code, out, err = sql(capsys, "--format", "json", query)
    assert code == 0, err
    rows = json.loads(out)
    assert rows[0] == {
        "number": 1,
        "risk_flags": ["core_path", "large_change"],
        "factors": {"size": 1.5, "core": 2.0},
        "merged_at": "2026-07-20T10:00:00+00:00",
        "week_start": "2026-07-20",
        "is_breaking": True,
        "importance": 7.5,
    }
    assert date.fromisoformat(rows[1]["week_start"]) == date(2026, 7, 20)
    assert datetime.fromisoformat(rows[1]["merged_at"]) == datetime(2026, 7, 21, 23, 30, tzinfo=UTC)


def test_several_statements_all_print_or_none_do(warehouse: Path, capsys) -> None:
    code, out, err = sql(capsys, "select 1 as a; select 'x' as b, 2 as c;")
    assert code == 0, err
    assert out.splitlines()[0] == "1"
    assert out.splitlines()[2].split() == ["b", "c"] and "(1 row)" in out

    code, out, err = sql(capsys, "select 1 as a; select * from nowhere")
    assert code == 1 and out == ""  # the first result is not printed when the second fails
    assert "nowhere" in err

    for output_format in ("csv", "json"):
        code, out, err = sql(capsys, "--format", output_format, "select 1; select 2")
        assert code == 2 and out == ""
        assert f"--format {output_format} prints one statement's result; this SQL has 2" in err


def test_empty_sql_and_duckdb_errors_are_one_line_saying_where_and_what_to_do(
    warehouse: Path, tmp_path: Path, capsys
) -> None:
    for empty in ("", "   ", "-- only a comment\n"):
        code, out, err = sql(capsys, empty)
        assert (code, out) == (2, ""), err
        assert err == "prweekly: error: the SQL is empty: give a query, e.g. `select 1`\n"
    query = tmp_path / "q.sql"
    query.write_text("select 1")
    code, _, err = sql(capsys, "select 2", "--file", str(query))
    assert code == 2 and "give the SQL as an argument or with --file, not both" in err
    code, _, err = sql(capsys)  # said "..., not both" before
    assert (code, err) == (
        2,
        'prweekly: error: give the SQL to run: as an argument (prweekly sql "select 1") or '
        "with --file PATH\n",
    )

    code, out, err = sql(capsys, "select 1,\n  numbr from marts.fct_pull_requests")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err.startswith('prweekly: error: Binder Error: Referenced column "numbr" not found')
    assert err.endswith(
        '(line 2, column 3): a table\'s columns: prweekly sql "describe marts.fct_pull_requests"\n'
    )
    code, _, err = sql(capsys, "select * from marts.nowhere")
    assert err.count("\n") == 1 and err.endswith(': the tables: prweekly sql "show all tables"\n')


def test_a_file_is_never_quoted_back(warehouse: Path, tmp_path: Path, capsys) -> None:
    """`--file` on a file that is not SQL says where DuckDB stopped, never what is there."""
    secret = tmp_path / "shadow"
    secret.write_text("root:$6$SECRETHASH:19000:0:99999:7:::\nselect 1\n")
    code, out, err = sql(capsys, "--file", str(secret))
    assert (code, out) == (1, "")
    assert err == (
        f"prweekly: error: Parser Error: syntax error ({secret} line 1, column 1): "
        "fix the SQL there\n"
    )  # before: `... at or near "root"` and `LINE 1: root:$6$SECRETHASH:...`
    binary = tmp_path / "image.sql"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    for path, said in [
        (binary, "is not text (not UTF-8 at byte 0): give a file of SQL"),
        (tmp_path, "is a folder: give a file of SQL"),  # before: [Errno 21] Is a directory
        (tmp_path / "missing.sql", "does not exist: give a file of SQL"),
    ]:
        code, _, err = sql(capsys, "--file", str(path))
        assert (code, err) == (2, f"prweekly: error: --file {path} {said}\n")
    reader = tmp_path / "read.sql"
    reader.write_text("select * from read_text('/etc/hostname')")
    code, _, err = sql(capsys, "--file", str(reader))
    assert code == 1 and "/etc/hostname" not in err and "reads only the warehouse" in err


def test_sql_piped_into_head_exits_quietly(warehouse: Path) -> None:
    env = {**os.environ, "PRWEEKLY_HOME": str(warehouse.parent)}
    reader = subprocess.Popen(
        [PRWEEKLY, "sql", "--format", "csv", "select range as n from range(200000)"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert reader.stdout.readline() == b"n\n"
    reader.stdout.close()  # what `head -1` does once it has its line
    err = reader.stderr.read().decode()
    assert reader.wait(timeout=60) == -signal.SIGPIPE, err  # as `cat` and `grep` end
    assert err == ""
