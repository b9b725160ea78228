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
from orchestration.warehouse.resource import WarehouseResource
from orchestration.warehouse.session import work_path


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
        context: dg.AssetExecutionContext, prweekly: PrweeklyResource, warehouse: WarehouseResource
    ) -> dg.MaterializeResult:
        settings = prweekly.settings()
        held = warehouse.publish(settings, context.log.warning)
        context.log.info(f"published {settings.warehouse_path} (readers held {held:.2f}s)")
        return dg.MaterializeResult(
            metadata={
                "path": dg.MetadataValue.path(str(settings.warehouse_path)),
                "readers_held_seconds": round(held, 3),
            }
        )

    return published_warehouse


Write = Callable[[duckdb.DuckDBPyConnection], None]


def write_both(
    settings: Settings,
    write: Write,
    say: Callable[[str], None],
    held: duckdb.DuckDBPyConnection | None = None,
) -> None:
    """Apply `write` to the working copy (if there is one) and to the readers' warehouse.
    `held` is the working copy's connection when the caller's run holds it (a run without the
    publish step: `WarehouseResource.held`); its lock is then not taken again."""
    if held is not None:
        write(held)
    else:
        work = work_path(settings)
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
