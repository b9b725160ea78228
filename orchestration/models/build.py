"""`build(project, scope)`: the one entry point that builds models, for the Dagster assets, the
CLI (through them) and the benches alike.

It loads the seeds that changed, then materialises the selected models in dependency order:
an incremental model replaces only the scope's partitions, every other model is built whole.
Before each write it announces what it is about to replace (`before_write`), so a caller
that publishes builds (the build session) can put those relations back if the run fails.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import duckdb

from orchestration.models.project import Project
from orchestration.models.run import materialize, written_scope
from orchestration.models.scope import Scope
from orchestration.models.seeds import CHECKSUMS, load_seeds, stale_seeds
from orchestration.models.sources import Say, SourceHooks

# what a write replaces: an incremental model's partitions (`weeks`, as the build session
# names them), a small table whole (a seed, a `table` model, a source's table), or a model
# rebuilt from its sources (a view, or an incremental model built in full)
WEEKS, WHOLE, REBUILT = "weeks", "whole", "rebuilt"
BeforeWrite = Callable[[str, str, Scope | None], None]
# what a build of all partitions may build in parts (see build): the scopes, asked once
Parts = Callable[[duckdb.DuckDBPyConnection], list[Scope]]


@dataclass
class BuildResult:
    seeds_loaded: list[str] = field(default_factory=list)
    modes: dict[str, str] = field(default_factory=dict)  # by model: view, table, full, ...
    seconds: dict[str, float] = field(default_factory=dict)  # by model: how long it took


def _nothing(*_: object) -> None:
    return None


def build(
    conn: duckdb.DuckDBPyConnection,
    project: Project,
    scope: Scope | None,
    *,
    select: Iterable[str] | None = None,
    sources: SourceHooks | None = None,
    before_write: BeforeWrite = _nothing,
    log: Say | None = None,
    lookback: bool = True,
    parts: Parts | None = None,
    with_write: Callable[[str], None] | None = None,
) -> BuildResult:
    """Build the `select`ed models (every model when None) for `scope` (all partitions
    when None); `lookback=False`: the scope already holds the earlier weeks a model's
    `lookback` could change.

    `parts`, for a build of all partitions: asked once, before the first incremental model
    that reads no `read_whole` source, for scopes that together cover every partition, each
    once; each such model is then built one part at a time (run.materialize), so a history too
    big to join in memory at once is joined a part at a time. A model reading a source whose
    YAML says `read_whole: true` (the lake, read from its compacted copies) is built whole.

    `with_write(model name)` runs with each model's write, in its transaction where it has one
    (run.materialize): what the caller records of the build commits with its rows."""
    chosen = set(project.order if select is None else select)
    models = [project.models[name] for name in project.order if name in chosen]
    result = BuildResult()
    if any(ref in project.seeds for model in models for ref in model.refs):
        stale = stale_seeds(conn, project)
        for relation in [*(s.relation for s in stale), *([CHECKSUMS] * bool(stale))]:
            before_write(relation, WHOLE, None)
        result.seeds_loaded = load_seeds(conn, project, stale)
    split: list[Scope] | None = None
    for model in models:
        model_scope = scope if model.materialized == "incremental" else None
        in_parts = None
        if (
            parts
            and scope is None
            and model.materialized == "incremental"
            and not any(project.sources[source].get("read_whole") for source in model.sources)
        ):
            split = parts(conn) if split is None else split
            in_parts = split
        written = written_scope(project, model, model_scope, lookback=lookback)
        kind = WEEKS if written else (WHOLE if model.materialized == "table" else REBUILT)
        before_write(model.relation, kind, written)
        started = time.perf_counter()
        mode = materialize(
            conn,
            project,
            model,
            scope=model_scope,
            sources=sources,
            log=log,
            lookback=lookback,
            before_write=lambda relation: before_write(relation, WHOLE, None),
            parts=in_parts,
            with_write=(lambda name=model.name: with_write(name)) if with_write else None,
        )
        if written and mode == "full":  # its columns changed: rebuilt from its sources
            before_write(model.relation, REBUILT, None)
        result.modes[model.name] = mode
        result.seconds[model.name] = round(time.perf_counter() - started, 3)
    return result
