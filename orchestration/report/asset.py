"""The `weekly_report` asset: one Markdown report per language, repository and week."""

import dagster as dg

from orchestration.config import repo_slug
from orchestration.partitions import scopes_of, weekly_partitions
from orchestration.report.queries import load_week
from orchestration.report.render import LANGUAGES, render_markdown, write_atomic
from orchestration.resources import PrweeklyResource
from orchestration.warehouse import connect
from orchestration.weeks import weeks_between

MART_DEPENDENCIES = [
    "fct_pull_requests",
    "fct_weekly_summary",
    "fct_weekly_area_trends",
    "fct_weekly_risks",
]


@dg.asset(
    deps=MART_DEPENDENCIES,
    partitions_def=weekly_partitions,
    backfill_policy=dg.BackfillPolicy.single_run(),
    group_name="report",
    kinds={"markdown"},
    description="The week's report in Chinese and English, under $PRWEEKLY_HOME/reports/.",
)
def weekly_report(
    context: dg.AssetExecutionContext, prweekly: PrweeklyResource
) -> dg.MaterializeResult:
    settings = prweekly.settings()
    written: list[tuple[str, int]] = []
    last_markdown: dict[str, str] = {}
    with connect(settings.warehouse_path, read_only=True, on_wait=context.log.info) as conn:
        (threshold,) = conn.execute(
            "select weight from seeds.importance_weights where factor = 'key_threshold'"
        ).fetchone()
        for scope in scopes_of(context):
            for week in weeks_between(scope.start_week, scope.end_week):
                facts = load_week(conn, scope.repo, week)
                for lang in LANGUAGES:
                    markdown = render_markdown(facts, lang, threshold)
                    path = settings.reports_dir / repo_slug(scope.repo) / f"{week}.{lang}.md"
                    written.append((str(path), write_atomic(path, markdown)))
                    last_markdown[lang] = markdown
    context.log.info(f"wrote {len(written)} report file(s)")
    return dg.MaterializeResult(
        metadata={
            "files": dg.MetadataValue.md(
                "\n".join(f"- `{path}` ({size:,} bytes)" for path, size in written)
            ),
            "report_en": dg.MetadataValue.md(last_markdown.get("en", "")),
            "report_zh": dg.MetadataValue.md(last_markdown.get("zh", "")),
            "path": dg.MetadataValue.path(written[-1][0]) if written else "",
        }
    )
