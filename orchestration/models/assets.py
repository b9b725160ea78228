"""One Dagster asset per SQL model, with the model's YAML data tests as its asset checks."""

import time

import dagster as dg
import duckdb

from orchestration.case_merge import warehouse_needs_rebuild
from orchestration.models.checks import run_checks
from orchestration.models.project import Model, Project
from orchestration.models.repository_settings import load_repository_settings
from orchestration.models.run import load_seeds, materialize
from orchestration.partitions import scopes_of, weekly_partitions
from orchestration.resources import PrweeklyResource
from orchestration.warehouse import connect

WAREHOUSE_POOL = "duckdb_warehouse"


_REBUILD: dict[str, bool] = {}


def _rebuild_in_full(run_id: str, conn: duckdb.DuckDBPyConnection, log) -> bool:
    """Decided once per run, at its first model: rebuild every model from the lake when the
    warehouse holds a second spelling of a repository (merged in the lake by the extract)."""
    if run_id not in _REBUILD:
        _REBUILD[run_id] = warehouse_needs_rebuild(conn)
        if _REBUILD[run_id]:
            log("the warehouse holds a repository under two spellings: rebuilding every model")
    return _REBUILD[run_id]


def _dep_key(project: Project, name: str) -> dg.AssetKey:
    return dg.AssetKey(["seeds", name]) if name in project.seeds else dg.AssetKey(name)


def seed_specs(project: Project) -> list[dg.AssetSpec]:
    """Seeds are CSV files in the repository: shown in the lineage, loaded when they change."""
    return [
        dg.AssetSpec(
            key=dg.AssetKey(["seeds", seed.name]),
            group_name="seeds",
            kinds={"csv"},
            description=f"Analyst-tuned configuration from sql/seeds/{seed.path.name}.",
        )
        for seed in project.seeds.values()
    ]


def build_model_asset(project: Project, model: Model) -> dg.AssetsDefinition:
    deps = [_dep_key(project, ref) for ref in model.refs]
    for source in model.sources:
        if "asset" in project.sources[source]:
            deps.append(dg.AssetKey(project.sources[source]["asset"]))
    reads_settings = any(source_name == "settings" for source_name, _ in model.sources)
    key = dg.AssetKey(model.name)
    check_specs = [
        dg.AssetCheckSpec(
            name=test.name, asset=key, blocking=True, description=f"{test.kind} on {test.columns}"
        )
        for test in model.tests
    ]

    # Every model shares the repo × week partitions, so a backfill launched from the UI is one
    # run through the whole graph. Only incremental models hold per-week rows: a view or table
    # is rebuilt whole, once per run, whatever partitions the run covers.
    incremental = model.materialized == "incremental"

    @dg.asset(
        name=model.name,
        deps=deps,
        partitions_def=weekly_partitions,
        backfill_policy=dg.BackfillPolicy.single_run(),
        group_name=model.layer,
        kinds={"duckdb", "sql"},
        description=model.description or None,
        check_specs=check_specs,
        pool=WAREHOUSE_POOL,
        metadata={
            "materialized": model.materialized,
            "relation": model.relation,
            "sql_file": str(model.path.relative_to(project.root.parent)),
            "dagster/column_schema": dg.TableSchema(
                columns=[
                    dg.TableColumn(name, description=desc or None)
                    for name, desc in model.columns.items()
                ]
            ),
        },
    )
    def _model_asset(
        context: dg.AssetExecutionContext, prweekly: PrweeklyResource
    ) -> dg.MaterializeResult:
        settings = prweekly.settings()
        started = time.monotonic()
        with connect(settings.warehouse_path, on_wait=context.log.info) as conn:
            if reads_settings:
                load_repository_settings(conn, settings.home)
            if any(ref in project.seeds for ref in model.refs):
                for name in load_seeds(conn, project):
                    context.log.info(f"loaded seed {name}")
            full = incremental and _rebuild_in_full(context.run_id, conn, context.log.warning)
            scopes = scopes_of(context) if incremental and not full else [None]
            modes = [
                materialize(conn, project, model, lake_dir=settings.lake_dir, scope=scope)
                for scope in scopes
            ]
            (rows,) = conn.execute(f"select count(*) from {model.relation}").fetchone()
            outcomes = run_checks(conn, project, model)
        return dg.MaterializeResult(
            metadata={
                "dagster/row_count": rows,
                "built_as": ", ".join(sorted(set(modes))),
                "seconds": round(time.monotonic() - started, 3),
            },
            check_results=[
                dg.AssetCheckResult(
                    check_name=o.test.name,
                    passed=o.passed,
                    severity=dg.AssetCheckSeverity.ERROR,
                    metadata={
                        "failing_rows": o.failing_rows,
                        "query": dg.MetadataValue.md(f"```sql\n{o.sql}\n```"),
                    },
                )
                for o in outcomes
            ],
        )

    return _model_asset


def build_model_assets(project: Project) -> list[dg.AssetsDefinition]:
    return [build_model_asset(project, project.models[name]) for name in project.order]
