"""The `delivered_reports` asset: after the report, each week's edition goes to its targets."""

from datetime import timedelta
from typing import Any

import dagster as dg

from orchestration.assets import PrweeklyResource, blocked_message, scopes_of, weekly_partitions
from orchestration.config import Settings
from orchestration.database import connect
from orchestration.delivery import ledger
from orchestration.delivery.send import FAILED, SENT, Outcome, deliver_week, delivery_of
from orchestration.extract.history import history_weeks, rebuild_scope
from orchestration.report.write import weeks_to_refresh
from orchestration.repositories.registry import find, load_repositories
from orchestration.run_scope import RunScope
from orchestration.text import plural
from orchestration.warehouse.checks import blocked_reason, failing_weeks
from orchestration.warehouse.resource import WarehouseResource
from orchestration.weeks import weeks_between


@dg.asset(
    deps=["weekly_report"],
    partitions_def=weekly_partitions,
    backfill_policy=dg.BackfillPolicy.single_run(),
    group_name="report",
    kinds={"slack", "email", "github"},
    description="Sends each week's report to the repository's `deliver:` targets in "
    "repositories.yml (Slack, email, GitHub), once per edition: the ledger "
    "delivery.sent_editions in the warehouse says what went out. A target that fails is "
    "retried with backoff, then by the next run, without holding up the others.",
)
def delivered_reports(
    context: dg.AssetExecutionContext, prweekly: PrweeklyResource, warehouse: WarehouseResource
) -> dg.MaterializeResult:
    settings = prweekly.settings()
    warehouse.close()  # a run that built models without publishing them holds the working copy
    outcomes: list[Outcome] = []
    # weeks whose facts failed a data test have no new report: not sent, and the run fails
    # once the other repositories' weeks are out
    scopes = scopes_of(context)
    blocked = held_back(settings, scopes, context.log.info)
    held = {(repo, week) for repo, week, _ in blocked}
    registered = load_repositories(settings.home)
    for scope in scopes:
        entry = find(registered, scope.repo)
        if entry is None or not delivery_of(entry).targets:
            continue
        earliest = scope.start_week - timedelta(weeks=history_weeks())
        # weeks delivered before whose edition this run may have changed, and failed ones
        known = ledger.Ledger(settings, scope.repo, context.log.info)
        revisit = known.weeks_to_revisit(earliest, scope.end_week)
        weeks = sorted(set(weeks_between(scope.start_week, scope.end_week)) | set(revisit))
        for week in weeks:
            if (scope.repo, week.isoformat()) not in held:
                outcomes += deliver_week(settings, entry, week, say=context.log.info, known=known)
    sent, metadata = outcome_metadata(context.log, outcomes, "repository", "repo")
    if blocked:
        raise dg.Failure(
            blocked_message(blocked)
            + "; the other weeks' reports were written, and "
            + f"{plural(len(sent), 'edition')} delivered"
        )
    return dg.MaterializeResult(metadata=metadata)


def held_back(settings: Settings, scopes: list[RunScope], say) -> list[tuple[str, str, str]]:
    """The weeks the report step held back, as (repository, week, why): those of the run, and
    the reported weeks around them whose facts it changed (`weeks_to_refresh`), that fail a data
    test in the warehouse's `checks.data_test_failures`, whichever run rendered the reports."""
    if not settings.warehouse_path.exists():
        return []
    blocked = []
    with connect(settings.warehouse_path, read_only=True, on_wait=say) as conn:
        for scope in scopes:
            rebuilt = rebuild_scope(scope, settings.lake_dir, history_weeks())
            weeks = weeks_between(scope.start_week, scope.end_week)
            weeks += weeks_to_refresh(conn, settings.reports_dir, scope, rebuilt)
            failing = failing_weeks(conn, scope.repo, sorted(set(weeks)))
            blocked += [blocked_reason(scope.repo, w, failed) for w, failed in failing.items()]
    return blocked


def outcome_metadata(
    log: Any, outcomes: list[Outcome], column: str, key: str
) -> tuple[list[Outcome], dict]:
    """Each failed send warned of and the sent ones counted in the log; the asset's metadata:
    a table of every outcome (its first `column` names whose: a repository, a group) and the
    failed targets (each under `key`). Returns the sent outcomes too."""
    failed = [o for o in outcomes if o.status == FAILED]
    for o in failed:
        log.warning(
            f"not delivered: {o.repo} {o.week} to {o.target} after "
            f"{plural(o.attempts, 'attempt')}: {o.detail}; the next run tries again"
        )
    sent = [o for o in outcomes if o.status == SENT]
    if sent:
        log.info(f"delivered {plural(len(sent), 'edition')}")
    rows = [
        f"| {column} | week | target | outcome | detail |",
        "| :--- | :--- | :--- | :--- | :--- |",
    ]
    rows += [
        f"| {o.repo} | {o.week} | {o.target} | {o.status} | {o.detail.replace('|', '/')} |"
        for o in outcomes
    ]
    failed_targets = [
        {key: o.repo, "week": str(o.week), "target": o.target, "error": o.detail,
         "attempts": o.attempts}
        for o in failed
    ]  # fmt: skip
    return sent, {
        "deliveries": dg.MetadataValue.md("\n".join(rows)),
        "sent": len(sent),
        "failed": len(failed),
        "failed_targets": dg.MetadataValue.json(failed_targets),
    }
