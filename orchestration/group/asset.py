"""The `group_report` and `delivered_group_reports` assets: a group's week across its
repositories, after theirs, and its editions sent to the group's targets.

They are assets of the same run as the repositories' (the weekly job), so the Monday run stays
one run; like the group marts they are not partitioned themselves (a group's week spans many
repositories, and an asset of the repository × week partitions would be materialised once per
partition: 200 events a run at 100 repositories). They read the run's partitions from its tags:
the groups holding a repository of the run are reported for the run's weeks (and for the weeks
whose repository reports the run wrote again). Materialised alone from the UI, `group_report`
writes every group's latest week.
"""

from datetime import timedelta

import dagster as dg

from orchestration.assets import PrweeklyResource, report_metadata, scopes_of_run
from orchestration.database import connect
from orchestration.delivery import ledger
from orchestration.delivery.asset import outcome_metadata
from orchestration.delivery.send import Outcome
from orchestration.extract.history import history_weeks
from orchestration.group.deliver import deliver_group_week
from orchestration.group.site import build_group_site, reported_group_weeks
from orchestration.group.write import GROUP_MARTS, write_group_reports
from orchestration.report.publisher import save_new_editions
from orchestration.repositories.groups import groups_with
from orchestration.repositories.registry import load_groups
from orchestration.text import plural
from orchestration.warehouse.asset import unpartitioned_dep
from orchestration.warehouse.resource import WarehouseResource
from orchestration.weeks import weeks_between


def refreshed_in_run(instance: dg.DagsterInstance, run_id: str) -> list[str]:
    """The repository weeks this run's `weekly_report` wrote again ("repo week")."""
    return list(report_metadata(instance, run_id, "refreshed_weeks") or [])


@dg.asset(
    deps=[unpartitioned_dep(dg.AssetKey("weekly_report")), *GROUP_MARTS],
    group_name="report",
    kinds={"markdown", "html"},
    description="Each group's week across its repositories (groups: in repositories.yml, else "
    "one per owner with several), in Chinese and English, Markdown and HTML, under "
    "$PRWEEKLY_HOME/reports/groups/<name>/, with the groups' pages and feeds. A run reports "
    "the groups holding its repositories, for its weeks.",
)
def group_report(
    context: dg.AssetExecutionContext, prweekly: PrweeklyResource, warehouse: WarehouseResource
) -> dg.MaterializeResult:
    settings = prweekly.settings()
    refreshed = refreshed_in_run(context.instance, context.run_id)
    done = write_group_reports(settings, scopes_of_run(context), refreshed, context.log.info)
    editions = save_new_editions(settings, done.editions, context.log.info, held=warehouse.held)
    pages = feeds = 0
    if settings.warehouse_path.exists():
        with connect(settings.warehouse_path, read_only=True, on_wait=context.log.info) as conn:
            pages, feeds, _ = build_group_site(
                conn, settings.reports_dir, load_groups(settings.home)
            )
    context.log.info(
        f"wrote {plural(len(done.written), 'group report file')} of "
        f"{plural(done.groups, 'group')}, {plural(editions, 'new edition')}; the groups have "
        f"{plural(pages, 'page')} and {plural(feeds, 'feed')}"
    )
    if done.blocked:
        context.log.warning(
            "not reported, as their facts failed data tests: " + " | ".join(done.blocked)
        )
    table = "\n".join(
        ["| file | bytes |", "| :--- | ---: |"]
        + [f"| `{path}` | {size:,} |" for path, size in done.written]
    )
    return dg.MaterializeResult(
        metadata={
            "files": dg.MetadataValue.md(table),
            "file_count": len(done.written),
            "groups": done.groups,
            "new_editions": editions,
            "report_en": dg.MetadataValue.md(done.last.get("en", "")),
            "report_zh": dg.MetadataValue.md(done.last.get("zh", "")),
            "blocked": dg.MetadataValue.json(done.blocked),
        }
    )


@dg.asset(
    deps=["group_report"],
    group_name="report",
    kinds={"slack", "email", "github"},
    description="Sends each group's week to the group's `deliver:` targets (Slack, email, a "
    "GitHub discussion or issue, by default in the owner's .github repository), once per "
    "edition, as delivered_reports does for a repository.",
)
def delivered_group_reports(
    context: dg.AssetExecutionContext, prweekly: PrweeklyResource, warehouse: WarehouseResource
) -> dg.MaterializeResult:
    settings = prweekly.settings()
    warehouse.close()  # as delivered_reports: the ledger is written to both copies
    scopes = scopes_of_run(context)
    outcomes: list[Outcome] = []
    groups = load_groups(settings.home)
    # materialised alone (no partitions): every group's latest reported week
    chosen = groups_with(groups, {s.repo for s in scopes}) if scopes else groups
    for group in chosen:
        if not group.delivery().targets:
            continue
        mine = [s for s in scopes if s.repo in group.repositories]
        reported = reported_group_weeks(settings.reports_dir, group.name)
        if not mine and not reported:
            continue
        first = min((s.start_week for s in mine), default=reported[-1] if reported else None)
        last = max((s.end_week for s in mine), default=first)
        known = ledger.Ledger(settings, group.key, context.log.info)
        revisit = known.weeks_to_revisit(first - timedelta(weeks=history_weeks()), last)
        for week in sorted(set(weeks_between(first, last)) | set(revisit)):
            outcomes += deliver_group_week(settings, group, week, say=context.log.info, known=known)
    _, metadata = outcome_metadata(context.log, outcomes, "group", "group")
    return dg.MaterializeResult(metadata=metadata)
