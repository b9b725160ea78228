"""Discover the SQL project: models, their configuration, dependencies, docs, tests, seeds,
macros and the project file (variables and partition keys).

A model is `sql/<layer>/<name>.sql`; it lands in the DuckDB schema named after its layer folder.
Dependencies come from rendering the template once with recording stand-ins for `ref`, `source`
and `config`, the way dbt parses a project. Macros (`macros/*.sql`) are Jinja macros every model
can call; `project.yml` holds the variables every run shares and the partition keys an
incremental model's rows are replaced by (see docs/runner.md). An `ephemeral` model, kept apart
(`Project.ephemerals`), is inlined as a CTE into each model that refs it, as dbt does.
"""

from __future__ import annotations

import graphlib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
import yaml

MATERIALIZATIONS = ("view", "table", "incremental", "ephemeral")
PROJECT_FILE = "project.yml"
MACROS_DIR = "macros"
_NOT_MODELS = ("seeds", MACROS_DIR)  # folders whose .sql and .csv files are not models


class ProjectError(ValueError):
    """A mistake in the SQL project; the message names the file and the model."""


@dataclass
class DataTest:
    """One YAML data test: `not_null`, `unique`, `accepted_values` or `relationships`."""

    kind: str
    columns: tuple[str, ...]
    args: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.kind}_{'_'.join(self.columns)}"


@dataclass
class Model:
    name: str
    layer: str
    path: Path
    template: str
    materialized: str = "view"
    # an incremental run also rebuilds this many steps of the ranged partition key before its
    # own (see run.materialize)
    lookback: int = 0
    refs: tuple[str, ...] = ()
    sources: tuple[tuple[str, str], ...] = ()
    # the ephemeral models inlined into this one (through each other too), each after those
    # it refs; their refs and sources are in `refs` and `sources`, their names are not
    ephemerals: tuple[str, ...] = ()
    description: str = ""
    columns: dict[str, str] = field(default_factory=dict)
    tests: list[DataTest] = field(default_factory=list)
    # the YAML's `meta:`, as dbt keeps it: the runner reads none of it (the Dagster adapter
    # reads `dagster:`, orchestration/warehouse/asset.py)
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def relation(self) -> str:
        return f"{self.layer}.{self.name}"


@dataclass
class Seed:
    name: str
    path: Path

    @property
    def relation(self) -> str:
        return f"seeds.{self.name}"


@dataclass(frozen=True)
class PartitionKey:
    """A column an incremental model's rows are replaced by, and the variables that hold a
    run's values of it: one value (`var`), or a closed range (`first`..`last`) that a model's
    `lookback` extends by `step_days` a step."""

    column: str
    type: str
    var: str | None = None
    first: str | None = None
    last: str | None = None
    step_days: int = 0


@dataclass
class Project:
    root: Path
    models: dict[str, Model]
    seeds: dict[str, Seed]
    sources: dict[tuple[str, str], dict[str, Any]]
    order: list[str]
    vars: dict[str, Any] = field(default_factory=dict)
    partitions: dict[str, PartitionKey] = field(default_factory=dict)
    macros: tuple[str, ...] = ()  # the text of each macro file
    # models with materialized='ephemeral': no relation, no build step, inlined where ref'd
    ephemerals: dict[str, Model] = field(default_factory=dict)

    def relation_of(self, name: str) -> str:
        if name in self.models:
            return self.models[name].relation
        return self.seeds[name].relation


class _Recorder:
    """Stand-ins used while parsing: they remember what a model asks for."""

    def __init__(self) -> None:
        self.refs: list[str] = []
        self.sources: list[tuple[str, str]] = []
        self.config: dict[str, Any] = {}

    def ref(self, name: str) -> str:
        self.refs.append(name)
        return name

    def source(self, source_name: str, table: str) -> str:
        self.sources.append((source_name, table))
        return f"{source_name}.{table}"

    def set_config(self, **kwargs: Any) -> str:
        self.config.update(kwargs)
        return ""


# libyaml's parser where PyYAML has it (the same documents, several times faster to read)
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(path: Path) -> Any:
    """A YAML file of the project, read as `yaml.safe_load` reads it."""
    return yaml.load(path.read_text(encoding="utf-8"), Loader=_YAML_LOADER)


_JINJA = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)


@lru_cache(maxsize=512)
def _compiled(text: str) -> jinja2.Template:
    """A template compiled once: a run renders each model and macro file for every scope it
    builds, and compiling them took more of a one-week build than DuckDB did."""
    return _JINJA.from_string(text)


def render_template(template: str, macros: tuple[str, ...], context: dict[str, Any]) -> str:
    """Render a model with `context` (ref, source, config, var, is_incremental) and every
    macro, which sees the same context."""
    names: dict[str, Any] = {}
    for text in macros:
        module = _compiled(text).make_module(vars=context)
        names.update({k: v for k, v in vars(module).items() if not k.startswith("_")})
    return _compiled(template).render(**names, **context)


def _parse_model(path: Path, root: Path, project_vars: dict, macros: tuple[str, ...]) -> Model:
    layer = path.parent.relative_to(root).parts[0] if path.parent != root else "main"
    template = path.read_text(encoding="utf-8")
    recorder = _Recorder()

    def var(name: str, default: Any = None) -> Any:
        return project_vars.get(name, f"${name}")

    context = {
        "ref": recorder.ref,
        "source": recorder.source,
        "config": recorder.set_config,
        "var": var,
        "scoped": lambda column, expr=None: "true",
        "is_incremental": lambda: False,
        # as dbt parses: nothing is executed (a model runs its queries under `if execute`)
        "execute": False,
        "run_query": lambda sql: None,
    }
    try:
        render_template(template, macros, context)
    except jinja2.TemplateError as exc:
        raise ProjectError(f"{path}: model {path.stem}: {exc}") from None
    materialized = recorder.config.get("materialized", "view")
    if materialized not in MATERIALIZATIONS:
        raise ProjectError(
            f"{path}: model {path.stem}: materialized={materialized!r}, "
            f"expected one of {', '.join(MATERIALIZATIONS)}"
        )
    lookback = recorder.config.get("lookback", 0)
    if isinstance(lookback, bool) or not isinstance(lookback, int) or lookback < 0:
        raise ProjectError(
            f"{path}: model {path.stem}: lookback={lookback!r}, expected a whole number >= 0"
        )
    if lookback and materialized != "incremental":
        raise ProjectError(f"{path}: model {path.stem}: lookback needs materialized='incremental'")
    return Model(
        name=path.stem,
        layer=layer,
        path=path,
        template=template,
        materialized=materialized,
        lookback=lookback,
        refs=tuple(dict.fromkeys(recorder.refs)),
        sources=tuple(dict.fromkeys(recorder.sources)),
    )


def _parse_tests(spec: dict, column: str | None, where: str) -> list[DataTest]:
    tests = []
    for entry in spec.get("data_tests", spec.get("tests", [])) or []:
        kind, args = (entry, {}) if isinstance(entry, str) else next(iter(entry.items()))
        args = dict(args or {})
        if kind not in ("not_null", "unique", "accepted_values", "relationships"):
            raise ProjectError(f"{where}: unknown data test {kind!r}")
        columns = tuple(args.pop("columns", None) or ([column] if column else []))
        if not columns:
            raise ProjectError(f"{where}: test {kind!r} needs a column or `columns:`")
        if kind == "accepted_values" and "values" not in args:
            raise ProjectError(f"{where}: accepted_values needs `values:`")
        if kind == "relationships" and not {"to", "field"} <= args.keys():
            raise ProjectError(f"{where}: relationships needs `to:` and `field:`")
        tests.append(DataTest(kind, columns, args))
    return tests


def _apply_yaml(path: Path, models: dict[str, Model], sources: dict) -> None:
    doc = read_yaml(path) or {}
    for spec in doc.get("models", []) or []:
        name = spec.get("name")
        if name not in models:
            raise ProjectError(f"{path}: describes model {name!r}, but there is no {name}.sql")
        model = models[name]
        where = f"{path}: model {name}"
        model.description = (spec.get("description") or "").strip()
        model.meta.update(spec.get("meta") or {})
        model.tests.extend(_parse_tests(spec, None, where))
        for column in spec.get("columns", []) or []:
            model.columns[column["name"]] = (column.get("description") or "").strip()
            model.tests.extend(_parse_tests(column, column["name"], where))
    for source in doc.get("sources", []) or []:
        for table in source.get("tables", []) or []:
            sources[(source["name"], table["name"])] = table


def _load_settings(root: Path) -> tuple[dict[str, Any], dict[str, PartitionKey]]:
    """The project file's variables and partition keys (none when there is no file)."""
    path = root / PROJECT_FILE
    doc = (read_yaml(path) or {}) if path.exists() else {}
    partitions = {}
    for column, spec in (doc.get("partitions") or {}).items():
        spec = spec or {}
        if not spec.get("type") or bool(spec.get("var")) == bool(spec.get("first")):
            raise ProjectError(
                f"{path}: partition key {column} needs a `type` and either `var` "
                "or `first` and `last`"
            )
        if spec.get("first") and not spec.get("last"):
            raise ProjectError(f"{path}: partition key {column} has `first` but no `last`")
        partitions[column] = PartitionKey(column, **spec)
    return dict(doc.get("vars") or {}), partitions


def load_project(root: Path) -> Project:
    """Read the project file, every macro, model, YAML file and seed under `root`, and order
    the models."""
    project_vars, partitions = _load_settings(root)
    macros = tuple(p.read_text(encoding="utf-8") for p in sorted((root / MACROS_DIR).glob("*.sql")))
    models: dict[str, Model] = {}
    for path in sorted(root.rglob("*.sql")):
        if set(_NOT_MODELS) & set(path.relative_to(root).parts):
            continue
        model = _parse_model(path, root, project_vars, macros)
        if model.name in models:
            raise ProjectError(
                f"{path}: model {model.name} is also defined in {models[model.name].path}"
            )
        models[model.name] = model
    seeds = {p.stem: Seed(p.stem, p) for p in sorted((root / "seeds").glob("*.csv"))}
    sources: dict[tuple[str, str], dict] = {}
    for path in sorted([*root.rglob("*.yml"), *root.rglob("*.yaml")]):
        if path != root / PROJECT_FILE:
            _apply_yaml(path, models, sources)
    for model in models.values():
        # a relationships test reads its target: build the target first, as if the SQL read it
        targets = [
            t.args["to"].removeprefix("ref('").removesuffix("')")
            for t in model.tests
            if t.kind == "relationships"
        ]
        model.refs += tuple(t for t in dict.fromkeys(targets) if t not in model.refs)
        for ref in model.refs:
            if ref not in models and ref not in seeds:
                raise ProjectError(
                    f"{model.path}: model {model.name} refers to unknown model or seed {ref!r}"
                )
        for src in model.sources:
            if src not in sources:
                raise ProjectError(
                    f"{model.path}: model {model.name} reads undeclared source {src[0]}.{src[1]}"
                )
    order = _order(models)  # of every model, ephemeral too: a cycle through one is named
    ephemerals = {n: m for n, m in models.items() if m.materialized == "ephemeral"}
    _inline_ephemerals(models, ephemerals)
    models = {n: m for n, m in models.items() if n not in ephemerals}
    order = [n for n in order if n in models]
    return Project(
        root, models, seeds, sources, order, project_vars, partitions, macros, ephemerals
    )


def _inline_ephemerals(models: dict[str, Model], ephemerals: dict[str, Model]) -> None:
    """Give each model the ephemeral models it reads, through each other too (each after the
    ones it refs), and their refs and sources in place of their names."""
    refs = {name: model.refs for name, model in models.items()}
    found: dict[str, tuple[str, ...]] = {}

    def inlined(name: str) -> tuple[str, ...]:  # the project has no cycle (see _order)
        if name not in found:
            reads = [n for r in refs[name] if r in ephemerals for n in (*inlined(r), r)]
            found[name] = tuple(dict.fromkeys(reads))
        return found[name]

    for model in models.values():
        if model.tests and model.name in ephemerals:
            raise ProjectError(
                f"{model.path}: model {model.name} is ephemeral: it has no relation to test"
            )
        model.ephemerals = inlined(model.name)
        taken = [model, *(ephemerals[n] for n in model.ephemerals)]
        model.refs = tuple(dict.fromkeys(r for m in taken for r in m.refs if r not in ephemerals))
        model.sources = tuple(dict.fromkeys(s for m in taken for s in m.sources))


def _order(models: dict[str, Model]) -> list[str]:
    graph = {name: [r for r in m.refs if r in models] for name, m in models.items()}
    try:
        return list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        cycle = exc.args[1]
        first = models[cycle[0]]
        raise ProjectError(
            f"{first.path}: model {first.name} is part of a dependency cycle: " + " -> ".join(cycle)
        ) from None
