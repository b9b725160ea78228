"""The `delivered_reports` asset: after the report, each week's edition goes to its targets."""

from datetime import timedelta

import dagster as dg

from orchestration.assets import (
    PrweeklyResource,
    blocked_in_run,
    blocked_message,
    scopes_of,
    weekly_partitions,
)
from orchestration.delivery import ledger
from orchestration.delivery.send import FAILED, SENT, Outcome, deliver_week, delivery_of
from orchestration.extract.history import history_weeks
from orchestration.repositories.registry import find, load_repositories
from orchestration.text import plural
from orchestration.warehouse.session import close_session
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
    context: dg.AssetExecutionContext, prweekly: PrweeklyResource
) -> dg.MaterializeResult:
    settings = prweekly.settings()
    close_session()  # a run that built models without publishing them holds the working copy
    outcomes: list[Outcome] = []
    # weeks whose facts failed a data test have no new report: not sent, and the run fails
    # once the other repositories' weeks are out
    blocked = blocked_in_run(context.instance, context.run_id)
    held = {(repo, week) for repo, week, _ in blocked}
    registered = load_repositories(settings.home)
    for scope in scopes_of(context):
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
    failed = [o for o in outcomes if o.status == FAILED]
    for outcome in failed:
        context.log.warning(
            f"not delivered: {outcome.repo} {outcome.week} to {outcome.target} after "
            f"{plural(outcome.attempts, 'attempt')}: {outcome.detail}; the next run tries again"
        )
    sent = [o for o in outcomes if o.status == SENT]
    if sent:
        context.log.info(f"delivered {plural(len(sent), 'edition')}")
    rows = [
        "| repository | week | target | outcome | detail |",
        "| :--- | :--- | :--- | :--- | :--- |",
    ]
    rows += [
        f"| {o.repo} | {o.week} | {o.target} | {o.status} | {o.detail.replace('|', '/')} |"
        for o in outcomes
    ]
    if blocked:
        raise dg.Failure(
            blocked_message(blocked)
            + "; the other weeks' reports were written, and "
            + f"{plural(len(sent), 'edition')} delivered"
        )
    return dg.MaterializeResult(
        metadata={
            "deliveries": dg.MetadataValue.md("\n".join(rows)),
            "sent": len(sent),
            "failed": len(failed),
            "failed_targets": dg.MetadataValue.json(
                [
                    {
                        "repo": o.repo,
                        "week": str(o.week),
                        "target": o.target,
                        "error": o.detail,
                        "attempts": o.attempts,
                    }
                    for o in failed
                ]
            ),
        }
    )
