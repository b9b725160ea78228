"""Publishing a build: the asset that makes the working copy the warehouse readers see, and the
tables written after the models (`publish.*`), kept in both copies.
"""

from collections.abc import Callable

import dagster as dg
import duckdb

from orchestration.assets import PrweeklyResource, weekly_partitions
from orchestration.config import Settings
from orchestration.database import apply_duckdb_init, connect
from orchestration.storage import file_lock
from orchestration.warehouse import session as build_session
from orchestration.warehouse.session import close_session, publish, session_for


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


Write = Callable[[duckdb.DuckDBPyConnection], None]


def write_both(settings: Settings, write: Write, say: Callable[[str], None]) -> None:
    """Apply `write` to the working copy (if there is one) and to the readers' warehouse."""
    session = build_session._SESSION  # this process may still hold the copy (no publish step)
    if session is not None:
        write(session.conn)
    else:
        work = build_session.work_path(settings)
        if work.exists():
            with file_lock(
                work.with_name(work.name + ".lock"),
                on_wait=say,
                waiting_message="another build is writing the warehouse; waiting for it...",
            ):
                conn = duckdb.connect(str(work))
                try:
                    apply_duckdb_init(conn)
                    write(conn)
                finally:
                    conn.close()
    with connect(settings.warehouse_path, on_wait=say) as conn:
        write(conn)
