"""The marts are the report's only input, and the risk flags are written in one place."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb

from orchestration.report.queries import WeekReader, load_week, load_weeks
from orchestration.report.render import render_week
from orchestration.report.translator import md_inline
from tests.unit.test_facts_support import FLAGS, query

REPO = "acme/rocket"


def _weeks(home: Path) -> list:
    sql = "select week_start from marts.fct_weekly_summary where repo = ? order by 1"
    return [w for (w,) in query(home, sql, [REPO])]


def test_a_report_reads_nothing_but_the_marts(
    sample_home: Path, tmp_path: Path, monkeypatch
) -> None:
    """Without staging, seeds and intermediate models, every week renders as the build wrote it.

    The notes about the report itself are not facts of the week: its editions (the `publish`
    schema), GitHub's count kept with the week's file, and the weeks beside it on the site."""
    from orchestration.config import load_settings
    from orchestration.report.publisher import ReportPublisher

    marts_only = tmp_path / "warehouse.duckdb"
    shutil.copy(sample_home / "warehouse.duckdb", marts_only)
    with duckdb.connect(str(marts_only)) as conn:
        for (schema,) in conn.execute(
            "select distinct schema_name from information_schema.schemata "
            "where catalog_name = current_database() "
            "and schema_name not in ('marts', 'main', 'publish')"
        ).fetchall():
            conn.execute(f'drop schema "{schema}" cascade')
    folder = sample_home / "reports" / "acme__rocket"
    weeks = _weeks(sample_home)
    assert len(weeks) == 4
    monkeypatch.setenv("PRWEEKLY_HOME", str(sample_home))
    publisher = ReportPublisher(load_settings())
    with duckdb.connect(str(marts_only), read_only=True) as conn:
        for week in weeks:
            notes = publisher.notes(conn, REPO, week)
            for name, text in render_week(load_week(conn, REPO, week), notes).items():
                assert (folder / name).read_text(encoding="utf-8") == text, name


def test_the_marts_hold_what_the_report_prints(sample_home: Path) -> None:
    """Key or not, the summary it prints and the trailing figures are columns of the marts."""
    (bad_keys,) = query(
        sample_home,
        "select count(*) from marts.fct_pull_requests p join marts.fct_weekly_summary s "
        "using (repo, week_start) where p.is_key <> (p.importance >= s.key_threshold)",
    )
    assert bad_keys == (0,)
    counted = query(
        sample_home,
        "select s.key_prs, count(p.number) filter (where p.is_key) from marts.fct_weekly_summary s "
        "left join marts.fct_pull_requests p using (repo, week_start) "
        "group by s.repo, s.week_start, s.key_prs",
    )
    assert counted and all(a == b for a, b in counted)
    week = _weeks(sample_home)[-1]
    with duckdb.connect(str(sample_home / "warehouse.duckdb"), read_only=True) as conn:
        facts = load_week(conn, REPO, week)
    # the sample's history starts three weeks before: the average covers those three
    assert facts.key_threshold == 4.8 and facts.trailing_weeks == 3
    report = (sample_home / "reports" / "acme__rocket" / f"{week}.en.md").read_text()
    summaries = [pr["summary"] for pr in facts.key_prs[:5] if pr["summary"]]
    assert summaries
    body = report.split("## Appendix")[0]
    for summary in summaries:  # the English body tells each key PR's change as the mart has it
        assert md_inline(summary).rstrip(".") in body


def test_each_risk_flag_is_one_seed_row_and_one_sql_entry(sample_home: Path) -> None:
    """The seed names the flags; the SQL list, the marts' columns and the report follow it."""
    assert query(sample_home, "select risk_flag from marts.dim_risk_flags order by position") == [
        (f,) for f in FLAGS
    ]
    in_sql = query(
        sample_home,
        "select distinct r.risk_flag from intermediate.int_pull_request_flags, unnest(risks) t(r)",
    )
    assert sorted(f for (f,) in in_sql) == sorted(FLAGS)
    columns = [
        c
        for (c,) in query(
            sample_home,
            "select column_name from information_schema.columns where table_schema = 'marts' "
            "and table_name = 'fct_pull_requests' order by ordinal_position",
        )
    ]
    after = columns.index("risk_flags") + 1
    assert columns[after : after + len(FLAGS)] == FLAGS
    week = _weeks(sample_home)[-1]
    report = (sample_home / "reports" / "acme__rocket" / f"{week}.en.md").read_text()
    method = report.split("### How")[1]
    assert [method.index(f"(`{f}`)") for f in FLAGS] == sorted(
        method.index(f"(`{f}`)") for f in FLAGS
    )


def _shape(facts) -> list:
    """The facts with each row's column order, which a template or the digest may see."""
    rows = [facts.summary, *facts.prs, *facts.risks, *facts.trends, *facts.topics]
    return [facts, [list(row) for row in [*rows, *facts.stories]]]


def test_weeks_read_together_are_read_as_each_alone(sample_home: Path) -> None:
    """A run reads its weeks a few dozen at a time: every week's facts (rows, their order and
    their columns' order) are those it reads alone; a week not built is left out, or raises
    when read alone."""
    from datetime import date

    from orchestration.report.editions import week_facts, week_facts_of
    from orchestration.report.queries import WeekNotBuilt

    pairs = query(sample_home, "select repo, week_start from marts.fct_weekly_summary order by 2")
    assert len(pairs) >= 4
    missing = (REPO, date(2001, 1, 1))
    with duckdb.connect(str(sample_home / "warehouse.duckdb"), read_only=True) as conn:
        alone = {pair: load_week(conn, *pair) for pair in pairs}
        together = load_weeks(conn, [*pairs, missing])
        reader = WeekReader(conn, [*reversed(pairs), missing], chunk=3)
        read = {pair: reader(*pair) for pair in pairs}
        try:
            reader(*missing)
            raise AssertionError("a week not built was read")
        except WeekNotBuilt:
            pass
        # what an edition answers for, from the rows read or from its own query
        answered = {pair: week_facts(conn, *pair) for pair in pairs}
    assert list(together) == pairs
    for pair in pairs:
        assert _shape(together[pair]) == _shape(alone[pair]), pair
        assert _shape(read[pair]) == _shape(alone[pair]), pair
        assert week_facts_of(alone[pair].prs) == answered[pair] and answered[pair]
