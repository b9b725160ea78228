"""A run renders a week's report only when its inputs changed, and keeps the others byte for
byte with their editions; changing each kind of input in turn (a mart row, the narrative, a
template, the vocabulary, the code, a file of the week) renders the week again."""

from __future__ import annotations

import dataclasses
import shutil
from datetime import date
from pathlib import Path

import duckdb
import pytest

from orchestration.config import PROJECT_DIR, Settings, load_settings
from orchestration.narrative.report import WeekNarrative
from orchestration.report import render_record, write
from orchestration.report.nav import END, START
from orchestration.report.publisher import ReportPublisher, save_new_editions
from orchestration.report.queries import load_week
from orchestration.report.render import render_week
from orchestration.report.render_record import (
    file_digest,
    inputs_digest,
    read_record,
    renderer_version,
)
from orchestration.run_scope import RunScope

REPO = "acme/rocket"
WEEKS = [date(2026, 6, 29), date(2026, 7, 6), date(2026, 7, 13), date(2026, 7, 20)]
SCOPE = RunScope(REPO, WEEKS[0], WEEKS[-1])


@pytest.fixture
def settings(home: Path, sample_home: Path) -> Settings:
    shutil.copytree(sample_home, home)  # acme/rocket's weeks 27 to 30, built and recorded
    return load_settings()


def _files(settings: Settings) -> dict[str, tuple[bytes, int]]:
    folder = Path(settings.reports_dir) / "acme__rocket"
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}


def _run(settings: Settings) -> write.Rendered:
    """The report step's writing and saving, without the site."""
    done = write.write_reports(settings, [SCOPE])
    save_new_editions(settings, done.editions, print, done.records)
    return done


def _rendered_weeks(done: write.Rendered) -> list[date]:
    return sorted({r.week_start for r in done.records})


def test_a_build_records_its_weeks_and_a_run_with_nothing_changed_keeps_them(
    settings: Settings,
) -> None:
    with duckdb.connect(str(settings.warehouse_path), read_only=True) as conn:
        stored = read_record(conn, REPO)
    assert sorted(stored) == WEEKS
    assert f"{WEEKS[-1]}.en.md" in stored[WEEKS[-1]][1]
    before = _files(settings)
    done = _run(settings)
    assert done.written == [] and done.records == [] and done.editions == []
    assert done.kept == [(REPO, week) for week in WEEKS]
    assert _files(settings) == before  # bytes and modification times


def test_a_changed_mart_row_renders_its_week_and_the_one_listing_its_correction(
    settings: Settings,
) -> None:
    before = _files(settings)
    with duckdb.connect(str(settings.warehouse_path)) as conn:
        (number,) = conn.execute(
            "select min(number) from marts.fct_pull_requests where repo = ? and week_start = ?",
            [REPO, WEEKS[2]],
        ).fetchone()
        conn.execute(
            "update marts.fct_pull_requests set title = title || ' (retitled)' where number = ?",
            [number],
        )
    done = _run(settings)
    # the week's own report, and the next week's, whose report lists the earlier weeks'
    # corrections made since the week before it went out
    assert _rendered_weeks(done) == [WEEKS[2], WEEKS[3]]
    assert {(e.week_start, e.corrected_since is not None) for e in done.editions} == {
        (WEEKS[2], True),
        (WEEKS[3], False),
    }
    after = _files(settings)
    assert "(retitled)" in after[f"{WEEKS[2]}.en.md"][0].decode()
    assert "(retitled)" in after[f"{WEEKS[3]}.en.md"][0].decode()
    kept = [name for name in before if name.startswith((str(WEEKS[0]), str(WEEKS[1])))]
    assert kept and all(after[name] == before[name] for name in kept)
    assert _run(settings).records == []  # recorded: the next run keeps it


# one cell of every relation `load_week` reads, changed in turn: (relation, change, weeks
# the change is in); each must render week 28 again. The chart's areas come from the weeks
# before it, so a PR of week 27 changes week 28's report too.
INPUTS = [
    ("fct_weekly_summary", "theme = 'a changed theme'", [WEEKS[1]]),
    ("fct_pull_requests", "primary_area = 'elsewhere'", [WEEKS[0]]),
    ("fct_weekly_risks", "reason = reason || ' (changed)'", [WEEKS[1]]),
    ("fct_weekly_area_trends", "trend = 'unknown'", [WEEKS[1]]),
    ("fct_weekly_topics", "topic_en = topic_en || ' (changed)'", [WEEKS[1]]),
    ("fct_weekly_stories", "title_en = title_en || ' (changed)'", [WEEKS[1]]),
    ("dim_importance_weights", "weight = weight + 0.5", None),
    ("dim_risk_flags", "severity_rank = severity_rank + 10", None),
    ("dim_repositories", "display_name = 'Acme/Rocket'", None),
]


@pytest.mark.parametrize(
    ("relation", "change", "weeks"), INPUTS, ids=[relation for relation, _, _ in INPUTS]
)
def test_a_change_to_any_relation_the_report_reads_renders_the_week(
    settings: Settings, relation: str, change: str, weeks: list[date] | None
) -> None:
    where = "" if weeks is None else " where repo = ? and week_start = ?"
    params = [] if weeks is None else [REPO, weeks[0]]
    with duckdb.connect(str(settings.warehouse_path)) as conn:
        (changed,) = conn.execute(f"update marts.{relation} set {change}{where}", params).fetchone()
    assert changed > 0
    assert WEEKS[1] in _rendered_weeks(_run(settings))


def test_a_changed_narrative_renders_its_week(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    narrative = WeekNarrative("a-model", dropped=1)
    loaded = write.load_narrative
    monkeypatch.setattr(
        write,
        "load_narrative",
        lambda conn, repo, week: narrative if week == WEEKS[1] else loaded(conn, repo, week),
    )
    assert _rendered_weeks(_run(settings)) == [WEEKS[1]]
    narrative.dropped = 2  # the model's accepted text changed again
    assert _rendered_weeks(_run(settings)) == [WEEKS[1]]
    assert _run(settings).records == []


def test_a_new_renderer_renders_every_week_again(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _files(settings)
    monkeypatch.setattr(render_record, "renderer_version", lambda: "templates of a new release")
    done = _run(settings)
    assert _rendered_weeks(done) == WEEKS
    assert done.editions == []  # the same text: the same editions
    assert {name: data for name, (data, _) in _files(settings).items()} == {
        name: data for name, (data, _) in before.items()
    }


@pytest.mark.parametrize(
    "changed",
    ["reports/templates/report.md.j2", "reports/i18n/zh.yml", "orchestration/report/prose.py"],
    ids=["template", "vocabulary", "code"],
)
def test_the_renderer_version_follows_templates_vocabulary_and_code(
    tmp_path: Path, changed: str
) -> None:
    for name in ("reports/templates/report.md.j2", "reports/i18n/zh.yml", "orchestration/x.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("one", encoding="utf-8")
    (tmp_path / changed).parent.mkdir(parents=True, exist_ok=True)
    version = renderer_version.__wrapped__(tmp_path)
    (tmp_path / changed).write_text("two", encoding="utf-8")
    assert renderer_version.__wrapped__(tmp_path) != version
    real = renderer_version(PROJECT_DIR)
    assert len(real) == 64 and real == renderer_version.__wrapped__(PROJECT_DIR)


def test_a_damaged_or_missing_file_renders_its_week_again(settings: Settings) -> None:
    folder = Path(settings.reports_dir) / "acme__rocket"
    good = (folder / f"{WEEKS[0]}.en.md").read_bytes()
    (folder / f"{WEEKS[0]}.en.md").write_text("edited by hand\n", encoding="utf-8")
    (folder / f"{WEEKS[3]}.zh.html").unlink()
    assert _rendered_weeks(_run(settings)) == [WEEKS[0], WEEKS[3]]
    assert (folder / f"{WEEKS[0]}.en.md").read_bytes() == good
    assert (folder / f"{WEEKS[3]}.zh.html").exists()


def test_the_weeks_beside_a_week_change_its_navigation_block_alone(settings: Settings) -> None:
    """Why the digest leaves them out: the site rewrites that block on every page."""
    publisher = ReportPublisher(settings)
    with duckdb.connect(str(settings.warehouse_path), read_only=True) as conn:
        facts = load_week(conn, REPO, WEEKS[1])
        notes = publisher.notes(conn, REPO, WEEKS[1])
    moved = dataclasses.replace(notes, previous_week=None, next_week=date(2026, 9, 7))
    assert inputs_digest(facts, notes) == inputs_digest(facts, moved)
    one, two = render_week(facts, notes), render_week(facts, moved)
    assert one.keys() == two.keys()
    for name in one:
        if one[name] != two[name]:
            assert name.endswith(".html") and START in one[name] and END in one[name]
        assert file_digest(name, one[name].encode()) == file_digest(name, two[name].encode())
    assert any(one[name] != two[name] for name in one)  # the links did change
    assert inputs_digest(facts, dataclasses.replace(notes, merged=notes.merged + 1)) != (
        inputs_digest(facts, notes)
    )
