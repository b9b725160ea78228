"""The `weekly_report` asset: Markdown and HTML per language, and the area chart, per week."""

from datetime import date

import dagster as dg
import duckdb

from orchestration.config import repo_slug
from orchestration.models.checks import blocked_weeks
from orchestration.partitions import scopes_of, weekly_partitions
from orchestration.report.queries import load_week
from orchestration.report.render import chart_name, render_week, write_atomic
from orchestration.resources import PrweeklyResource
from orchestration.storage import Location, delete, join
from orchestration.warehouse import connect
from orchestration.weeks import weeks_between

MART_DEPENDENCIES = [
    "fct_pull_requests",
    "fct_weekly_summary",
    "fct_weekly_area_trends",
    "fct_weekly_risks",
    "dim_repositories",
    "published_warehouse",  # the marts as one whole build
]


def write_week(
    conn: duckdb.DuckDBPyConnection, reports_dir: Location, repo: str, week: date
) -> dict[str, tuple[Location, int, str]]:
    """Render one week and write its files; {file name: (path, bytes, text)}."""
    folder = join(reports_dir, repo_slug(repo))
    files = render_week(load_week(conn, repo, week))
    if chart_name(week) not in files:  # an empty week has no chart: drop one left from before
        delete(join(folder, chart_name(week)))
    written = {}
    for name, text in files.items():
        path = join(folder, name)
        written[name] = (path, write_atomic(path, text), text)
    return written


def _blocked_message(repo: str, week: date, failed: list[tuple[str, str, str]]) -> str:
    tests = "; ".join(f"{test} on {model}: {example}" for model, test, example in failed[:3])
    return f"{repo} week {week} ({tests})"


@dg.asset(
    deps=MART_DEPENDENCIES,
    partitions_def=weekly_partitions,
    backfill_policy=dg.BackfillPolicy.single_run(),
    group_name="report",
    kinds={"markdown", "html"},
    description="The week's report in Chinese and English, as Markdown and self-contained HTML, "
    "with an SVG chart of area activity, under $PRWEEKLY_HOME/reports/.",
)
def weekly_report(
    context: dg.AssetExecutionContext, prweekly: PrweeklyResource
) -> dg.MaterializeResult:
    settings = prweekly.settings()
    written: list[tuple[Location, int]] = []
    last: dict[str, str] = {}
    blocked: list[str] = []
    with connect(settings.warehouse_path, read_only=True, on_wait=context.log.info) as conn:
        for scope in scopes_of(context):
            for week in weeks_between(scope.start_week, scope.end_week):
                failed = blocked_weeks(conn, scope.repo, week)
                if failed:  # its facts failed a data test: keep the previous report
                    blocked.append(_blocked_message(scope.repo, week, failed))
                    continue
                week_files = write_week(conn, settings.reports_dir, scope.repo, week)
                for name, (path, size, text) in week_files.items():
                    written.append((path, size))
                    for lang in ("en", "zh"):
                        if name.endswith(f".{lang}.md"):
                            last[lang] = text
    context.log.info(f"wrote {len(written)} report file(s)")
    if blocked:
        raise dg.Failure(
            f"not reported, as their facts failed data tests: {' | '.join(blocked)}"
            + (f" (the other {len(written)} report file(s) were written)" if written else "")
        )
    table = "\n".join(
        ["| file | bytes |", "| :--- | ---: |"]
        + [f"| `{path}` | {size:,} |" for path, size in written]
    )
    html = [path for path, _ in written if str(path).endswith(".html")]
    return dg.MaterializeResult(
        metadata={
            "files": dg.MetadataValue.md(table),
            "file_count": len(written),
            "total_bytes": sum(size for _, size in written),
            "report_en": dg.MetadataValue.md(last.get("en", "")),
            "report_zh": dg.MetadataValue.md(last.get("zh", "")),
            "path": dg.MetadataValue.path(str(written[-1][0])) if written else "",
            "html": dg.MetadataValue.path(str(html[-1])) if html else "",
        }
    )
