"""Hostile text, hostile identifiers and source anomalies: each has one defined outcome.

- hostile text (HTML, script, Markdown that breaks tables, control characters, invalid Unicode,
  emoji, a 1 MB body, 5,000 files) is kept and every report stays valid and escaped;
- a repository name that could escape a path or a query is refused before anything is written;
- each anomaly of a source is kept, corrected, or refused with one line naming the PR.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
from datetime import UTC, date, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

import duckdb
import pyarrow.parquet as pq
import pytest

from orchestration.config import PROJECT_DIR, SQL_DIR
from orchestration.extract.sources.file import FileSource
from orchestration.extract.sources.nodes import to_row
from orchestration.lake.layout import SourceDataError, partition_dir
from orchestration.lake.model_sources import lake_sources
from orchestration.models.project import load_project
from orchestration.models.run import materialize
from orchestration.report.queries import WeekNotBuilt, load_week
from orchestration.run_scope import RunScope
from orchestration.service.cli import main

FIXTURE = Path(__file__).parents[1] / "fixtures" / "reliability" / "hostile.jsonl"
REPO = "acme/hostile"
WEEK = date(2026, 7, 20)
START = datetime(2026, 7, 20, tzinfo=UTC)
END = START + timedelta(weeks=1)


def hostile_dataset(target: Path) -> Path:
    """The fixture, plus a PR with a 1 MB description and one with 5,000 files."""
    big = {
        "number": 10,
        "title": "feat: a 1 MB description",
        "body": ("A long line with <b>markup</b> | a pipe |\n" * 30_000)[: 1 << 20],
        "url": f"https://github.com/{REPO}/pull/10",
        "mergedAt": "2026-07-23T10:00:00Z",
        "author": {"login": "big"},
        "files": {"nodes": [{"path": "a.py", "additions": 1, "deletions": 0}]},
    }
    many = {
        "number": 11,
        "title": "refactor: move 5,000 files",
        "body": "Moves everything.",
        "url": f"https://github.com/{REPO}/pull/11",
        "mergedAt": "2026-07-24T10:00:00Z",
        "author": {"login": "mover"},
        "files": {
            "totalCount": 5000,
            "nodes": [
                {"path": f"pkg/m{i % 50}/f{i}.py", "additions": 2, "deletions": 1}
                for i in range(5000)
            ],
        },
    }
    target.write_text(
        FIXTURE.read_text() + json.dumps(big) + "\n" + json.dumps(many) + "\n", encoding="utf-8"
    )
    return target


@pytest.fixture(scope="module")
def hostile_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One build of the hostile week; the tests below only read what it left."""
    root = tmp_path_factory.mktemp("hostile")
    dataset = hostile_dataset(root / "hostile.jsonl")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("PRWEEKLY_HOME", str(root / "home"))
        env.delenv("DAGSTER_HOME", raising=False)
        args = ["build", "--repo", REPO, "--week", "2026-W30", "--source", f"file:{dataset}"]
        assert main(args) == 0
    return root / "home"


def query(home: Path, sql: str, params: list | None = None) -> list[tuple]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        return conn.execute(sql, params or []).fetchall()


# --- hostile text ---------------------------------------------------------------------------


def test_hostile_text_is_kept_in_the_warehouse(hostile_build: Path) -> None:
    rows = {
        number: rest
        for number, *rest in query(
            hostile_build,
            "select number, title, additions, deletions, changed_files from "
            "marts.fct_pull_requests order by number",
        )
    }
    assert sorted(rows) == [1, 2, 3, 4, 5, 6, 7, 9, 10, 11]  # 8 merged Monday 00:00 of W31
    assert "<script>alert('title')</script>" in rows[1][0]
    assert rows[4][0] == "fix: lone surrogate \ufffd here and \ufffd there"  # replaced, kept
    assert rows[5][0] == "feat: 🚀 emoji 火箭 👩‍👩‍👧 and Ünïcødé"
    assert rows[7][1:] == [10, 1, 2]  # absent counts summed from the files
    assert rows[11][1:] == [10_000, 5_000, 5_000]
    ((body_length,),) = query(
        hostile_build, "select length(body) from staging.stg_pull_requests where number = 10"
    )
    assert body_length == 1 << 20


class _StrictHTML(HTMLParser):
    """Collects tags, attributes and nesting errors of a page."""

    VOID: ClassVar[set[str]] = {"meta", "br", "img", "hr", "link", "input", "wbr", "source"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.tags: list[tuple[str, dict]] = []
        self.errors: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:]}")
        else:
            self.stack.pop()

    def handle_data(self, data) -> None:
        self.text.append(data)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_html_reports_stay_valid_and_escaped(hostile_build: Path, lang: str) -> None:
    page = (hostile_build / "reports" / "acme__hostile" / f"{WEEK}.{lang}.html").read_text()
    parser = _StrictHTML()
    parser.feed(page)
    parser.close()
    assert parser.errors == [] and parser.stack == []
    assert [t for t, _ in parser.tags].count("script") == 0
    for tag, attrs in parser.tags:
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        if "href" in attrs:  # a PR, a section, or the site: the weeks beside it, its pages
            assert attrs["href"].startswith(
                ("https://github.com/acme/hostile/pull/", "#")
            ) or re.fullmatch(
                r"(\.\./)?index(\.zh)?\.html|\d{4}-\d\d-\d\d\.(en|zh)(\.appendix)?\.html",
                attrs["href"],
            ), attrs
    text = "".join(parser.text)
    assert "<script>alert('title')</script>" in text  # shown as text, not run
    assert "\ufffd" in text and "🚀" in text and "👩‍👩‍👧" in text
    assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202e]", page)
    assert len(page) < 200_000  # the 1 MB description is not copied into the page


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_markdown_reports_keep_their_tables_and_escape_markup(
    hostile_build: Path, lang: str
) -> None:
    text = (hostile_build / "reports" / "acme__hostile" / f"{WEEK}.{lang}.md").read_text()
    assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202e]", text)
    assert "\\<script\\>" in text  # shown as text
    assert not re.search(r"(?<!\\)<(?!https?://)", text)  # no raw HTML at all
    assert not re.search(r"(?<!\\)\]\(javascript:", text)  # a title's link stays text
    assert "\ufffd" in text and "🚀" in text
    cells = None
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            count = len(re.findall(r"(?<!\\)\|", line))  # unescaped pipes only
            cells = cells or count
            assert count == cells, line
        else:
            cells = None
    assert len(text) < 100_000


# --- hostile identifiers --------------------------------------------------------------------

BAD_REPOS = [
    "acme/rocket'; drop table marts.fct_pull_requests; --",
    'acme/"rocket"',
    "../../etc/passwd",
    "acme/..",
    "acme/rocket/../../x",
    "acme//rocket",
    "/acme/rocket",
    "acme/rocket/",
    "acme/ rocket",
    " acme/rocket",
    "acme/rocket\n",
    "acme\\rocket",
    "acme/rocket%2F..",
    "",
]


@pytest.mark.parametrize("repo", BAD_REPOS)
def test_hostile_repository_names_are_refused_before_touching_anything(
    home: Path, capsys: pytest.CaptureFixture, repo: str
) -> None:
    code = main(["build", "--repo", repo, "--week", "2026-W30", "--source", f"file:{FIXTURE}"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("prweekly: error: repository ") and err.count("\n") == 1
    assert "owner/name" in err
    assert not home.exists()  # no lake, warehouse, registry or run history
    assert main(["repo", "add", repo]) == 2


def test_every_value_reaches_sql_as_a_parameter() -> None:
    """f-strings in `execute(...)` may only splice identifiers prweekly itself defines."""
    allowed = {
        "relation",
        "model.layer",
        "model.relation",
        "seed.relation",
        "sql",
        "key",
        "value",
        "table",
        "sql_string(str(seed.path))",
        "cond",
        "keys",
        "rel",
        "cols[0]",
        "parent",
        "field",
        "SCHEMA",
        # the build's working copy and publishing: prweekly's own tables, catalogs, schemas
        # and filter; the published file's path, quoted, as ATTACH takes no parameter
        "PENDING",
        "target",
        "source",
        "schema",
        "WEEKS_FILTER",
        "quoted_path",
        # data tests: the test's own query and the run's partition filter, built from
        # identifiers (values are parameters), and the registry of failures
        "FAILURES",
        # the weeks each model has built (orchestration/warehouse/modelled_weeks.py)
        "LEDGER",
        "LAYOUT",
        "failing",
        "picked",
        "named",
        "scoped",
        "partition_keys",
        # editions and the narrative cache: their table's name and columns, a row's "?" marks
        "TABLE",
        "COLUMNS",
        "marks",
        # the rebuild's reach: the link columns' names, a constant expression
        "NAMED",
        # a full build in parts: the staging models' relations, the part's statement head,
        # and the build's own memory limit constant
        "prs",
        "weeks",
        "into.format(relation)",
        "BUILD_MEMORY_LIMIT",
    }
    spliced = []
    for path in sorted((PROJECT_DIR / "orchestration").rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for call in ast.walk(tree):
            if not (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr in ("execute", "executemany", "sql", "query")
                and call.args
            ):
                continue
            for part in ast.walk(call.args[0]):
                if isinstance(part, ast.FormattedValue):
                    spliced.append((path.name, ast.unparse(part.value)))
    unknown = [item for item in spliced if item[1] not in allowed]
    assert spliced and unknown == [], f"values spliced into SQL: {unknown}"


def test_a_quote_in_a_value_cannot_change_a_query(hostile_build: Path, tmp_path: Path) -> None:
    """Even unvalidated, a repo-like value goes through DuckDB as a bound parameter."""
    copy = tmp_path / "warehouse.duckdb"
    shutil.copy(hostile_build / "warehouse.duckdb", copy)
    evil = "x' or '1'='1"
    project = load_project(SQL_DIR)
    with duckdb.connect(str(copy)) as conn:
        with pytest.raises(WeekNotBuilt):  # the quote matched no repository's week
            load_week(conn, evil, WEEK)
        before = conn.execute("select count(*) from marts.fct_pull_requests").fetchone()
        built = materialize(
            conn,
            project,
            project.models["fct_pull_requests"],
            sources=lake_sources(hostile_build / "lake", hostile_build),
            scope=RunScope(evil, WEEK, WEEK).partitions(),
        )
        assert built == "incremental"
        after = conn.execute("select count(*) from marts.fct_pull_requests").fetchone()
    assert before == after == (10,)  # the delete matched no repo called x' or '1'='1


# --- source anomalies -----------------------------------------------------------------------

NODE = {
    "number": 42,
    "title": "fix: something",
    "url": f"https://github.com/{REPO}/pull/42",
    "mergedAt": "2026-07-22T10:00:00Z",
    "author": {"login": "dev"},
    "additions": 3,
    "deletions": 1,
    "changedFiles": 1,
    "files": {"nodes": [{"path": "a.py", "additions": 3, "deletions": 1}]},
    "labels": {"nodes": [{"name": "bug"}]},
}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"mergedAt": None}, "PR #42 has no mergedAt"),
        ({"additions": -3}, "PR #42: additions -3 is negative"),
        ({"files": {"nodes": [{"path": "a.py", "deletions": -1}]}}, "files.deletions -1 is neg"),
        ({"additions": "3"}, "PR #42: additions '3' is not an integer"),
        ({"additions": 2**64}, "PR #42: additions .* is too large"),
        ({"labels": ["bug"]}, "PR #42: labels should be a connection object .* got a list"),
        ({"labels": {"nodes": ["bug"]}}, "PR #42: labels.nodes should hold objects, got text"),
        ({"author": "dev"}, "PR #42: author should be an object with a login, got text"),
        ({"title": ["fix"]}, "PR #42: title should be text, got a list"),
        ({"isDraft": "no"}, "PR #42: isDraft should be true or false"),
        ({"number": -1}, "no valid number"),
    ],
)
def test_changed_types_and_bad_values_are_refused_naming_pr_and_field(
    change: dict, message: str
) -> None:
    with pytest.raises(SourceDataError, match=message):
        to_row({**NODE, **change}, REPO)


def test_unknown_fields_are_ignored_and_missing_ones_are_null() -> None:
    row = to_row({**NODE, "someNewField": {"x": [1]}, "reactions": 5}, REPO)
    assert row == to_row(NODE, REPO)
    sparse = to_row({"number": 42, "mergedAt": "2026-07-22T10:00:00Z"}, REPO)
    assert {k for k, v in sparse.items() if v is not None} == {
        "repo",
        "week_start",
        "number",
        "merged_at",
    }
    derived = to_row(
        {k: v for k, v in NODE.items() if k not in ("additions", "changedFiles")}, REPO
    )
    assert (derived["additions"], derived["changed_files"]) == (3, 1)
    partial = {"totalCount": 9, "nodes": NODE["files"]["nodes"]}  # not every file present
    assert to_row({**NODE, "additions": None, "files": partial}, REPO)["additions"] is None


def test_lone_surrogates_become_replacement_characters_everywhere() -> None:
    row = to_row(
        {
            **NODE,
            "title": "a \ud800 b",
            "body": "\udfff",
            "labels": {"nodes": [{"name": "x\udc00"}]},
            "files": {"nodes": [{"path": "\ud83d.py"}]},
        },
        REPO,
    )
    assert (row["title"], row["body"], row["labels"], row["files"][0]["path"]) == (
        "a \ufffd b",
        "\ufffd",
        ["x\ufffd"],
        "\ufffd.py",
    )


def test_monday_midnight_belongs_to_the_new_week_in_every_source(tmp_path: Path) -> None:
    from github_fakes import FakeClock, make_pr, source_for

    from orchestration.testing.github_emulator import Emulator

    edge = [
        make_pr(1, START - timedelta(seconds=1), repo=REPO),
        make_pr(2, START, repo=REPO),
        make_pr(3, END - timedelta(seconds=1), repo=REPO),
        make_pr(4, END, repo=REPO),
    ]
    assert [to_row(n, REPO)["week_start"] for n in edge] == [
        WEEK - timedelta(weeks=1),
        WEEK,
        WEEK,
        WEEK + timedelta(weeks=1),
    ]
    dataset = tmp_path / "edge.jsonl"
    dataset.write_text("".join(json.dumps(n) + "\n" for n in edge))
    assert [n["number"] for n in FileSource(dataset).fetch(REPO, START, END)] == [2, 3]
    clock = FakeClock()
    with Emulator(edge, clock=clock.time) as emulator:
        source = source_for(emulator, clock, token=None)
        assert [n["number"] for n in source.fetch(REPO, START, END)] == [2, 3]
        assert [n["number"] for n in source.fetch(REPO, END, END + timedelta(weeks=1))] == [4]


def test_duplicate_numbers_read_once_if_identical_else_refused(tmp_path: Path) -> None:
    line = json.dumps(NODE)
    same = tmp_path / "same.jsonl"
    same.write_text(f"{line}\n{line}\n")
    assert len(list(FileSource(same).fetch(REPO, START, END))) == 1
    differ = tmp_path / "differ.jsonl"
    other = json.dumps({**NODE, "mergedAt": "2026-08-22T10:00:00Z"})  # even outside the week
    differ.write_text(f"{line}\n\n{other}\n")
    with pytest.raises(SourceDataError, match=r"differ.jsonl:3: PR #42 appears again .* line 1"):
        list(FileSource(differ).fetch(REPO, START, END))


def test_invalid_utf8_bytes_in_a_file_become_replacement_characters(tmp_path: Path) -> None:
    dataset = tmp_path / "latin.jsonl"
    dataset.write_bytes(
        json.dumps({**NODE, "title": "caf\u00e9"}, ensure_ascii=False)
        .encode()
        .replace(b"\xc3", b"\xff")
    )
    (node,) = FileSource(dataset).fetch(REPO, START, END)
    assert to_row(node, REPO)["title"].startswith("caf\ufffd")


@pytest.fixture(scope="module")
def good_week_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Week 30 built once from a good one-PR file; each bad file below starts from a copy."""
    root = tmp_path_factory.mktemp("good-week")
    good = root / "good.jsonl"
    good.write_text(json.dumps(NODE) + "\n")
    with pytest.MonkeyPatch.context() as mp:
        for name in ("PRWEEKLY_SOURCE", "GITHUB_TOKEN", "DAGSTER_HOME", "GITHUB_GRAPHQL_URL"):
            mp.delenv(name, raising=False)
        mp.setenv("PRWEEKLY_HOME", str(root / "home"))
        args = ["build", "--repo", REPO, "--week", "2026-W30", "--source", f"file:{good}"]
        assert main(args) == 0
    return root / "home"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"additions": -3}, "PR #42: additions -3 is negative"),
        ({"labels": ["bug"]}, "PR #42: labels should be a connection object"),
        ({"mergedAt": None}, "bad.jsonl:2: PR #42 has no mergedAt"),
        ({"title": "changed"}, "bad.jsonl:2: PR #42 appears again with different data"),
    ],
)
def test_the_cli_prints_one_error_line_and_keeps_the_old_partition(
    good_week_home: Path,
    home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture,
    change: dict,
    message: str,
) -> None:
    shutil.copytree(good_week_home, home)  # week 30 built from a good file
    args = ["build", "--repo", REPO, "--week", "2026-W30", "--source"]
    partition = partition_dir(home / "lake", REPO, WEEK) / "data.parquet"
    before = partition.read_bytes()
    bad = tmp_path / "bad.jsonl"
    first = json.dumps({**NODE, "number": 41} if "appears" not in message else NODE)
    bad.write_text(first + "\n" + json.dumps({**NODE, **change}) + "\n")
    capsys.readouterr()
    assert main([*args, f"file:{bad}"]) == 1
    err = capsys.readouterr().err.splitlines()
    errors = [line for line in err if line.startswith("prweekly: error:")]
    assert len(errors) == 1 and re.search(message, errors[0]), err[-5:]
    assert "raw_pull_requests" in errors[0]
    assert not re.search(r"\b(orchestration|dagster)\.\w", errors[0])  # no Python class path
    assert partition.read_bytes() == before and pq.read_table(partition).num_rows == 1
    assert [p.name for p in partition.parent.iterdir()] == ["data.parquet"]
