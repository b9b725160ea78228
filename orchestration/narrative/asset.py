"""The `pr_narratives` asset: the model's prose for each week of the run, checked and cached.

It runs after the marts and before they are published, writing the build's working copy like
the models do, so readers get the narrative together with the facts it was checked against.
Without `PRWEEKLY_LLM_URL` it does nothing. A wrong URL or key stops the narrative only: its
check `model_answered` fails saying what to fix, and the reports are written without it (a
failed step would stop the reports too). Anything else that goes wrong stays in its part
(`narrate.py`); an error of the step itself is reported the same way as a wrong URL.
"""

import dataclasses

import dagster as dg

from orchestration.assets import PrweeklyResource, scopes_of, weekly_partitions
from orchestration.database import transaction
from orchestration.models.build import WEEKS
from orchestration.models.project import Project
from orchestration.narrative.client import ChatClient, EndpointError
from orchestration.narrative.narrate import Tally, narrate_week
from orchestration.narrative.settings import load_llm_settings
from orchestration.narrative.store import TABLE, ensure_table, replace_week
from orchestration.warehouse.reads import models_read
from orchestration.warehouse.resource import WarehouseResource
from orchestration.weeks import weeks_between


def build_narrative_asset(project: Project) -> dg.AssetsDefinition:
    """The narrative's asset, depending on the models its requests read (`models_read`)."""
    return dg.asset(
        name="pr_narratives",
        deps=models_read(project, __name__),
        partitions_def=weekly_partitions,
        backfill_policy=dg.BackfillPolicy.single_run(),
        group_name="narrative",
        kinds={"duckdb"},
        description="Optional: a language model's summaries of the key PRs and of the week, in "
        "Chinese and English, each checked against the marts before it is kept, cached in "
        f"{TABLE} by the hash of its input (PRWEEKLY_LLM_URL; nothing without it).",
        check_specs=[
            dg.AssetCheckSpec(
                "model_answered",
                asset="pr_narratives",
                description="The language model at PRWEEKLY_LLM_URL answered: a wrong URL or "
                "key fails this check, and the reports are written without the model's text.",
            )
        ],
    )(pr_narratives)


def pr_narratives(
    context: dg.AssetExecutionContext, prweekly: PrweeklyResource, warehouse: WarehouseResource
) -> dg.MaterializeResult:
    llm = load_llm_settings()
    if llm is None:
        context.log.info("no language model set (PRWEEKLY_LLM_URL): nothing to ask")
        return dg.MaterializeResult(
            metadata={"model": "none"}, check_results=[_answered(None, "no model set")]
        )
    settings = prweekly.settings()
    llm = dataclasses.replace(llm, max_wait_seconds=settings.max_wait_seconds)
    session = warehouse.session(settings, context.log.info)
    conn = session.conn
    ensure_table(conn)
    client = ChatClient(llm)
    context.log.info(
        f"narrative: asking {llm.model} at {llm.shown_url} (verification pass: "
        f"{'on' if llm.verify else 'off'})"
    )
    tally, weeks, error = Tally(), 0, None
    try:
        for scope in scopes_of(context):
            session.note(TABLE, WEEKS, scope)
            for week in weeks_between(scope.start_week, scope.end_week):
                outcomes = narrate_week(client, conn, scope.repo, week)
                for note in client.notes:
                    context.log.warning(f"narrative: {note}")
                client.notes.clear()
                with transaction(conn):
                    replace_week(conn, scope.repo, week, outcomes)
                for outcome in outcomes:
                    tally.add(outcome)
                weeks += 1
                context.log.info(
                    f"narrative {scope.repo} {week}: {len(outcomes)} part(s), "
                    f"{sum(not o.cached for o in outcomes)} asked, "
                    f"{sum(o.source != 'model' for o in outcomes)} not used, "
                    f"{sum(len(o.dropped_claims) for o in outcomes if not o.cached)} claim(s) "
                    f"dropped; run so far: {tally.prompt_tokens + tally.completion_tokens:,} "
                    f"tokens, {tally.cached} cache hit(s)"
                )
    except EndpointError as failure:
        error = str(failure)
        context.log.error(
            f"narrative stopped: {error}. The reports are written without the model's text."
        )
    except Exception as failure:  # the reports must still be written
        error = f"the narrative step failed ({type(failure).__name__}: {str(failure)[:300]})"
        context.log.error(f"narrative stopped: {error}. The reports are written without it.")
    finally:
        client.close()
    for line in tally.failed[:20]:
        context.log.warning(f"narrative not used for {line}")
    parts = tally.asked + tally.cached
    tokens = tally.prompt_tokens + tally.completion_tokens
    metadata = {
        "model": llm.model,
        "endpoint": llm.shown_url,
        "weeks": weeks,
        "parts": parts,
        "asked": tally.asked,
        "requests": client.requests,
        "cache_hits": tally.cached,
        "cache_hit_rate": round(tally.cached / parts, 3) if parts else 0.0,
        "fallbacks": tally.fallbacks,
        "unavailable": tally.unavailable,
        "dropped_claims": tally.dropped_claims,
        "prompt_tokens": tally.prompt_tokens,
        "completion_tokens": tally.completion_tokens,
        "token_counts": _usage_words(client),
        "schema": "relaxed: sent without " + ", ".join(client.refused)
        if client.refused
        else "full (strict)",
        "verification": "on" if llm.verify else "off",
    }
    if llm.usd_per_million_tokens is not None:
        metadata["cost_usd"] = round(tokens * llm.usd_per_million_tokens / 1e6, 4)
    if error:
        metadata["error"] = error
    context.log.info(
        f"narrative: {weeks} week(s), {tally.asked} part(s) asked, {tally.cached} from the "
        f"cache, {tally.fallbacks} fell back, {tokens:,} tokens"
    )
    return dg.MaterializeResult(metadata=metadata, check_results=[_answered(error, llm.model)])


def _usage_words(client: ChatClient) -> str:
    """Whose token counts the figures are: the server's, or (for some) the client's estimate."""
    if not client.estimated_usage:
        return "as the server reported them"
    return (
        f"estimated by prweekly for {client.estimated_usage} of {client.requests} answer(s): "
        "the server reported no usable usage"
    )


def _answered(error: str | None, model: str) -> dg.AssetCheckResult:
    return dg.AssetCheckResult(
        check_name="model_answered",
        passed=error is None,
        severity=dg.AssetCheckSeverity.ERROR,
        description=error or f"{model}: answered",
    )
