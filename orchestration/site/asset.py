"""The `weekly_report` asset: Markdown and HTML per language, and the area chart, per week."""

import dagster as dg

from orchestration.assets import (
    BLOCKED,
    PrweeklyResource,
    blocked_message,
    scopes_of,
    weekly_partitions,
)
from orchestration.models.project import Project
from orchestration.report.publisher import save_new_editions
from orchestration.report.write import write_reports_shared
from orchestration.site.build import build_site
from orchestration.text import plural
from orchestration.warehouse.reads import models_read
from orchestration.warehouse.resource import WarehouseResource


def build_report_asset(project: Project) -> dg.AssetsDefinition:
    """The report's asset, depending on the models its queries read (the report's, the site's
    and the narrative's it shows: `models_read`) and on their publishing as one whole build."""
    return dg.asset(
        name="weekly_report",
        deps=[*models_read(project, __name__), "published_warehouse"],
        partitions_def=weekly_partitions,
        backfill_policy=dg.BackfillPolicy.single_run(),
        group_name="report",
        kinds={"markdown", "html"},
        description="The week's report in Chinese and English, as Markdown and self-contained "
        "HTML, with an SVG chart of area activity, under $PRWEEKLY_HOME/reports/. Reports of "
        "other weeks whose facts the run changed (later trends, earlier reverts) are written "
        "again.",
    )(weekly_report)


def weekly_report(
    context: dg.AssetExecutionContext, prweekly: PrweeklyResource, warehouse: WarehouseResource
) -> dg.MaterializeResult:
    settings = prweekly.settings()
    done = write_reports_shared(settings, scopes_of(context), context.log.info)
    written, last, refreshed, blocked = done.written, done.last, done.refreshed, done.blocked
    editions = save_new_editions(
        settings, done.editions, context.log.info, done.records, held=warehouse.held
    )
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
