"""One Dagster asset per SQL model, with the model's YAML data tests as its asset checks."""

import time

import dagster as dg

from orchestration.assets import PrweeklyResource, scopes_of, scopes_of_run, weekly_partitions
from orchestration.lake.model_sources import lake_sources
from orchestration.models.build import WEEKS, WHOLE, build
from orchestration.models.project import Model, Project
from orchestration.models.run import written_scope
from orchestration.models.scope import Scope
from orchestration.run_scope import RunScope
from orchestration.warehouse.checks import FAILURES, CheckOutcome, record_failures, run_checks
from orchestration.warehouse.modelled_weeks import LEDGER
from orchestration.warehouse.parts import full_build_parts
from orchestration.warehouse.rebuild_plan import RebuildPlan
from orchestration.warehouse.resource import WarehouseResource

WAREHOUSE_POOL = "duckdb_warehouse"


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


def is_partitioned(model: Model) -> bool:
    """Whether the model's asset has the repository × week partitions: all but a table whose
    YAML says `meta: {dagster: {partitioned: false}}` (its rows are no repository's)."""
    declared = (model.meta.get("dagster") or {}).get("partitioned", True)
    return model.materialized == "incremental" or bool(declared)


# What an asset without partitions reads of a partitioned one: every partition, as it is now.
# Dagster's default (all partitions) makes it list every partition of the upstream asset at
# each step to version its inputs: 36,000 keys at 100 repositories since 2020, about 0.3 s of
# CPU each time. Mapped to none in particular, the step keeps its place after the upstream one
# in the run and lists nothing.
EVERY_PARTITION_AS_IT_IS = dg.SpecificPartitionsPartitionMapping([])


def unpartitioned_dep(key: dg.AssetKey) -> dg.AssetDep:
    """The dependency of an asset without partitions on a partitioned asset."""
    return dg.AssetDep(key, partition_mapping=EVERY_PARTITION_AS_IT_IS)


def build_model_asset(project: Project, model: Model) -> dg.AssetsDefinition:
    partitioned = is_partitioned(model)
    deps: list[dg.AssetKey | dg.AssetDep] = []
    for ref in model.refs:
        upstream = project.models.get(ref)
        if not partitioned and upstream is not None and is_partitioned(upstream):
            deps.append(unpartitioned_dep(_dep_key(project, ref)))
        else:
            deps.append(_dep_key(project, ref))
    for source in model.sources:
        if "asset" in project.sources[source]:
            asset = dg.AssetKey(project.sources[source]["asset"])
            deps.append(asset if partitioned else unpartitioned_dep(asset))
    key = dg.AssetKey(model.name)
    check_specs = [
        dg.AssetCheckSpec(
            name=test.name,
            asset=key,
            # prweekly blocks per partition instead: the report is not written for a week
            # whose rows fail a test, while other repositories and weeks go on
            blocking=False,
            description=f"{test.kind} on {test.columns}",
        )
        for test in model.tests
    ]

    # Every model shares the repo × week partitions, so a backfill launched from the UI is one
    # run through the whole graph. Only incremental models hold per-week rows: a view or table
    # is rebuilt whole, once per run, whatever partitions the run covers. A table whose rows
    # are not a repository's (a group's, across repositories) says so in its YAML
    # (`meta: {dagster: {partitioned: false}}`): it is one asset of the same run, materialised
    # once, not once per partition (200 events a run at 100 repositories and two weeks).
    incremental = model.materialized == "incremental"

    @dg.asset(
        name=model.name,
        deps=deps,
        partitions_def=weekly_partitions if partitioned else None,
        backfill_policy=dg.BackfillPolicy.single_run() if partitioned else None,
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
        context: dg.AssetExecutionContext, prweekly: PrweeklyResource, warehouse: WarehouseResource
    ) -> dg.MaterializeResult:
        settings = prweekly.settings()
        started = time.monotonic()
        session = warehouse.session(settings, context.log.info)
        conn = session.conn
        run_scopes = scopes_of(context) if partitioned else scopes_of_run(context)
        # the run's weeks, the history before them no model has built and the later weeks
        # that compare with them (rebuild_plan): all are noted, so all are published
        # (incremental models read the lake the run's extract has written; a view may not)
        planned = incremental and not session.rebuild_all
        plan = _plan(warehouse, conn, project, settings, run_scopes) if planned else None
        scopes = plan.scopes(conn, model) if plan else [None]
        # the weeks before a model's own that its lookback could change are in its scopes
        reaching = planned and bool(model.lookback)

        def before_write(relation: str, kind: str, written: Scope | None) -> None:
            session.note_all(relation, kind, RunScope.each_of(written) if written else [None])

        # the weeks this model has now seen (a UI selection may skip others), recorded in the
        # transaction that writes its rows when it builds one scope (a week's run)
        with_write = None
        if plan:
            session.note_all(LEDGER, WEEKS, plan.rebuilt)
            if len(scopes) == 1:
                with_write = lambda _: plan.record_within(conn, model)  # noqa: E731
        modes = []
        for scope in scopes:
            built = build(
                conn,
                project,
                scope,
                select=[model.name],
                sources=lake_sources(settings.lake_dir, settings.home),
                parts=full_build_parts(project),
                before_write=before_write,
                log=context.log.warning,
                lookback=not reaching,
                with_write=with_write,
            )
            for name in built.seeds_loaded:
                context.log.info(f"loaded seed {name}")
            modes.append(built.modes[model.name])
        if plan and with_write is None:
            plan.record(conn, model)
        (rows,) = conn.execute(f"select count(*) from {model.relation}").fetchone()
        checked = (
            None
            if modes != ["incremental"] * len(modes)
            else [written_scope(project, model, s, lookback=not reaching) for s in scopes]
        )
        outcomes = run_checks(conn, project, model, checked)
        session.note(FAILURES, WHOLE)
        record_failures(conn, model, outcomes, checked)
        return dg.MaterializeResult(
            metadata={
                "dagster/row_count": rows,
                "built_as": ", ".join(sorted(set(modes))),
                "seconds": round(time.monotonic() - started, 3),
            },
            check_results=[_check_result(o, model, run_scopes) for o in outcomes],
        )

    return _model_asset


def _plan(warehouse: WarehouseResource, conn, project: Project, settings, run_scopes):
    """The run's rebuild plan, made by its first incremental model, before any model writes."""
    return warehouse.once(
        "rebuild_plan", lambda: RebuildPlan(conn, project, settings.lake_dir, run_scopes)
    )


def _in_run(partition: tuple, scopes: list[RunScope]) -> bool:
    repo, week = partition
    return any(
        (repo is None or repo == s.repo) and (week is None or s.start_week <= week <= s.end_week)
        for s in scopes
    )


def _check_result(outcome: CheckOutcome, model: Model, scopes: list[RunScope]):
    """Fails when rows of the run's own partitions fail; the failing keys are in its text.
    Failures in other partitions (a full rebuild checks every row) are shown, not failed on."""
    here = [p for p in outcome.partitions if _in_run(p, scopes)]
    return dg.AssetCheckResult(
        check_name=outcome.test.name,
        passed=not here,
        severity=dg.AssetCheckSeverity.ERROR,
        description=outcome.describe(model)[:1000],
        metadata={
            "failing_rows": outcome.failing_rows,
            "failing_partitions": dg.MetadataValue.json(
                [f"{r or '*'} {w or '*'}" for r, w in outcome.partitions]
            ),
            "examples": dg.MetadataValue.json(outcome.examples),
            "query": dg.MetadataValue.md(f"```sql\n{outcome.sql}\n```"),
        },
    )


def build_model_assets(project: Project) -> list[dg.AssetsDefinition]:
    return [build_model_asset(project, project.models[name]) for name in project.order]
