"""The `weekly_report` asset: Markdown and HTML per language, and the area chart, per week."""

import dagster as dg

from orchestration.assets import (
    BLOCKED,
    PrweeklyResource,
    blocked_message,
    scopes_of,
    weekly_partitions,
)
from orchestration.report.publisher import save_new_editions
from orchestration.report.write import write_reports_shared
from orchestration.site.build import build_site
from orchestration.text import plural

MART_DEPENDENCIES = [
    "fct_pull_requests",
    "fct_weekly_summary",
    "fct_weekly_area_trends",
    "fct_weekly_risks",
    "fct_weekly_stories",
    "fct_weekly_topics",
    "dim_repositories",
    "dim_risk_flags",
    "dim_importance_weights",
    "published_warehouse",  # the marts as one whole build
]


@dg.asset(
    deps=MART_DEPENDENCIES,
    partitions_def=weekly_partitions,
    backfill_policy=dg.BackfillPolicy.single_run(),
    group_name="report",
    kinds={"markdown", "html"},
    description="The week's report in Chinese and English, as Markdown and self-contained HTML, "
    "with an SVG chart of area activity, under $PRWEEKLY_HOME/reports/. Reports of other weeks "
    "whose facts the run changed (later trends, earlier reverts) are written again.",
)
def weekly_report(
    context: dg.AssetExecutionContext, prweekly: PrweeklyResource
) -> dg.MaterializeResult:
    settings = prweekly.settings()
    done = write_reports_shared(settings, scopes_of(context), context.log.info)
    written, last, refreshed, blocked = done.written, done.last, done.refreshed, done.blocked
    editions = save_new_editions(settings, done.editions, context.log.info, done.records)
    site = build_site(settings, context.log.info)
    context.log.info(
        f"wrote {plural(len(written), 'report file')}, {plural(editions, 'new edition')}; "
        f"the site has {plural(site.pages, 'page')} and {plural(site.feeds, 'feed')}"
    )
    if done.kept:
        context.log.info(
            f"kept {plural(len(done.kept), 'week')} whose report inputs did not change"
        )
    if refreshed:
        context.log.info(
            f"re-rendered {plural(len(refreshed), 'earlier or later report')} whose facts this "
            "build "
            f"changed: {', '.join(refreshed)}"
        )
    if blocked:  # the run fails once the others' reports are delivered (delivered_reports)
        context.log.warning(
            blocked_message(blocked)
            + f" (the other {plural(len(written), 'report file')} "
            + f"{'was' if len(written) == 1 else 'were'} written)"
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
            "refreshed_weeks": dg.MetadataValue.json(refreshed),
            "new_editions": editions,
            "site": dg.MetadataValue.path(str(site.home)),
            "total_bytes": sum(size for _, size in written),
            "report_en": dg.MetadataValue.md(last.get("en", "")),
            "report_zh": dg.MetadataValue.md(last.get("zh", "")),
            BLOCKED: dg.MetadataValue.json([list(b) for b in blocked]),
            "path": dg.MetadataValue.path(str(written[-1][0])) if written else "",
            "html": dg.MetadataValue.path(str(html[-1])) if html else "",
        }
    )
