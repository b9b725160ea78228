"""The `published_warehouse` asset: a run's models reach readers at once, as one whole build."""

import dagster as dg

from orchestration.build_session import close_session, publish, session_for
from orchestration.partitions import weekly_partitions
from orchestration.resources import PrweeklyResource


def build_publish_asset(model_keys: list[dg.AssetKey]) -> dg.AssetsDefinition:
    """Runs after every model of the run: until then readers see the previous build whole."""

    @dg.asset(
        name="published_warehouse",
        deps=model_keys,
        partitions_def=weekly_partitions,
        backfill_policy=dg.BackfillPolicy.single_run(),
        group_name="publish",
        kinds={"duckdb"},
        description="Publishes the run's models to readers ($PRWEEKLY_HOME/warehouse.duckdb) "
        "in one step, so a reader sees the previous build or this one, never half of it.",
    )
    def published_warehouse(
        context: dg.AssetExecutionContext, prweekly: PrweeklyResource
    ) -> dg.MaterializeResult:
        settings = prweekly.settings()
        session = session_for(settings, context.run_id, context.instance, context.log.info)
        try:
            held = publish(session, context.log.warning)
        finally:
            close_session()
        context.log.info(f"published {settings.warehouse_path} (readers held {held:.2f}s)")
        return dg.MaterializeResult(
            metadata={
                "path": dg.MetadataValue.path(str(settings.warehouse_path)),
                "readers_held_seconds": round(held, 3),
            }
        )

    return published_warehouse
