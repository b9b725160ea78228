"""Where a full build's time and memory go: per model, and per operator inside one model.

`python -m bench.profile_models --scale medium|full|small [--explain MODEL] [--ctes MODEL]`
builds every model from an empty warehouse over the scale bench's generated lake
(`bench/scale.py`) in this process, one model at a time, and prints for each its wall time, its
CPU time (user + system of every thread, and of the description reader's workers: on a shared
machine the wall time alone says little), the process's peak resident memory while it ran
(sampled) and the size of what it wrote. `--explain MODEL` then runs that model's full-build
SQL once more under DuckDB's profiler and prints its costliest operators (`--top N`) with the
CTE each computes; `--ctes MODEL` materialises each of its CTEs in turn as a temporary table,
so that each is timed alone (CPU on `--threads N`, 1 by default). `--warehouse PATH` reuses a
warehouse built before (only `--explain` and `--ctes` run).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import tempfile
import threading
import time
from pathlib import Path


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _rss_mib() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


class _Peak:
    """The highest resident memory seen since `reset`, sampled every 20 ms."""

    def __init__(self) -> None:
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, _rss_mib())

    def reset(self) -> None:
        self.peak = _rss_mib()

    def stop(self) -> None:
        self._stop.set()


def _size_mib(conn, relation: str) -> float | None:
    schema, _, table = relation.partition(".")
    row = conn.execute(
        "select estimated_size from duckdb_tables() where schema_name = ? and table_name = ?",
        [schema, table],
    ).fetchone()
    return None if row is None else row[0]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _workers_cpu() -> float:
    """The CPU time of the description reader's workers since the last call: they are stopped
    (a model that needs them starts them again) so that their time is counted."""
    from orchestration.descriptions.parallel import stop_workers

    before = _children_cpu()
    stop_workers()
    return _children_cpu() - before


def profile_build(home: Path, warehouse: Path, log=print) -> list[dict]:
    """Every model built in order from an empty warehouse; one row of figures per model."""
    from orchestration.config import SQL_DIR
    from orchestration.database import connect
    from orchestration.lake.model_sources import lake_sources
    from orchestration.models.build import build
    from orchestration.models.project import load_project
    from orchestration.warehouse.parts import full_build_parts

    project = load_project(SQL_DIR)
    for path in (warehouse, warehouse.with_name(warehouse.name + ".wal")):
        path.unlink(missing_ok=True)
    rows = []
    peak = _Peak()
    sources = lake_sources(home / "lake", home)
    parts = full_build_parts(project)  # as bench.scale builds
    with connect(warehouse) as conn:
        began, cpu0 = time.perf_counter(), _cpu()
        for name in [None, *project.order]:  # None: the seeds alone
            peak.reset()
            wall, cpu = time.perf_counter(), _cpu()
            select = [] if name is None else [name]
            build(conn, project, None, select=select, sources=sources, parts=parts)
            if name is None:
                from orchestration.models.seeds import load_seeds, stale_seeds

                load_seeds(conn, project, stale_seeds(conn, project))
            conn.execute("checkpoint")
            model = project.models.get(name) if name else None
            workers = _workers_cpu()  # the description reader's, once it has stopped them
            row = {
                "model": name or "(seeds)",
                "wall_s": round(time.perf_counter() - wall, 2),
                "cpu_s": round(_cpu() - cpu + workers, 2),
                "peak_mib": round(peak.peak),
                "rows": None,
            }
            if model is not None and model.materialized != "view":
                row["rows"] = conn.execute(f"select count(*) from {model.relation}").fetchone()[0]
            rows.append(row)
            log(json.dumps(row))
        total = {
            "model": "(all)",
            "wall_s": round(time.perf_counter() - began, 2),
            "cpu_s": round(_cpu() - cpu0 + _children_cpu(), 2),
            "peak_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            "file_mib": round(warehouse.stat().st_size / 2**20),
        }
    peak.stop()
    rows.append(total)
    log(json.dumps(total))
    return rows


def _walk(node: dict, label: str, out: list) -> None:
    """Each operator with its own timing, labelled with the materialised CTE it computes."""
    extra = node.get("extra_info") or {}
    out.append(
        (
            node.get("timing", 0.0),
            label,
            node.get("name", ""),
            node.get("intermediate_rows", 0),
            extra,
        )
    )
    children = node.get("children", [])
    for i, child in enumerate(children):
        inner = extra.get("CTE Name", label) if node.get("name") == "CTE" and i == 0 else label
        _walk(child, inner, out)


def explain(warehouse: Path, home: Path, name: str, top: int = 25, log=print) -> None:
    """The model's full-build SQL under DuckDB's profiler: its costliest operators."""
    from orchestration.config import SQL_DIR
    from orchestration.database import connect
    from orchestration.lake.model_sources import lake_sources
    from orchestration.models.functions import register_functions
    from orchestration.models.project import load_project
    from orchestration.models.render import render
    from orchestration.models.sources import BuildContext

    project = load_project(SQL_DIR)
    model = project.models[name]
    out = Path(tempfile.gettempdir()) / f"profile-{name}.json"
    with connect(warehouse) as conn:
        context = BuildContext(conn, log, lambda _: None, project.relation_of)
        resolvers = {n: hook(context) for n, hook in lake_sources(home / "lake", home).items()}
        sql, params = render(
            project, model, scope=None, variables={}, resolvers=resolvers, conn=conn
        )
        register_functions(conn, project.root, sql)
        conn.execute("set preserve_insertion_order = false")
        conn.execute("pragma enable_profiling = 'json'")
        conn.execute(f"pragma profiling_output = '{out}'")
        conn.execute("set profiling_coverage = 'ALL'")
        began, cpu = time.perf_counter(), _cpu()
        conn.execute(f"create or replace temp table _explained as\n{sql}", params)
        wall, cpu = time.perf_counter() - began, _cpu() - cpu
        conn.execute("pragma disable_profiling")
    tree = json.loads(out.read_text())
    ops: list = []
    for child in tree.get("operator", []):
        _walk(child, "(main)", ops)
    log(
        f"{name}: {wall:.2f} s wall, {cpu:.2f} s CPU, operators sum "
        f"{sum(o[0] for o in ops):.2f} s (profile in {out})"
    )
    by_cte: dict[str, float] = {}
    for timing, label, *_ in ops:
        by_cte[label] = by_cte.get(label, 0.0) + timing
    log(
        "  by CTE: "
        + ", ".join(
            f"{k} {v:.2f}" for k, v in sorted(by_cte.items(), key=lambda kv: -kv[1]) if v >= 0.01
        )
    )
    for timing, label, op, rows, extra in sorted(ops, key=lambda o: -o[0])[:top]:
        info = " ".join(
            f"{k}={str(v)[:90]!r}"
            for k, v in extra.items()
            if k
            in (
                "CTE Name",
                "Table",
                "Join Type",
                "Conditions",
                "Groups",
                "Aggregates",
                "Function",
                "Text",
                "Expressions",
                "Projections",
                "Filters",
                "Table Index",
                "Estimated Cardinality",
            )
        )
        log(f"  {timing:7.2f} s  {label[:24]:<24} {op:<22} {rows:>10,}  {info[:300]}")


def split_ctes(sql: str) -> tuple[list[tuple[str, str]], str]:
    """A rendered model's top-level `with a as (...), b as (...)` and its final select:
    [(name, body)], rest. Strings, quoted names and comments are skipped over."""
    i, n, depth = 0, len(sql), 0
    ctes: list[tuple[str, str]] = []
    start = next(  # the first line that opens the with clause (a comment may say "with")
        m.end() for m in re.finditer(r"(?im)^\s*with\s", sql)
    )
    i = start
    name_at, body_at = start, None
    while i < n:
        ch = sql[i]
        if sql.startswith("--", i):
            i = sql.find("\n", i)
            i = n if i < 0 else i
            continue
        if ch in "'\"":
            i = sql.index(ch, i + 1) + 1
            while i < n and sql[i] == ch:  # a doubled quote inside the string
                i = sql.index(ch, i + 1) + 1
            continue
        if ch == "(":
            if depth == 0:
                body_at = i + 1
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                head = " ".join(
                    line.split("--")[0] for line in sql[name_at : body_at - 1].splitlines()
                ).split()
                ctes.append((head[head[0].lower() == "recursive"], sql[body_at:i]))
                j = i + 1
                while j < n and sql[j] in " \t\n":
                    j += 1
                if j < n and sql[j] == ",":
                    name_at = j + 1
                else:
                    return ctes, sql[j:]
        i += 1
    raise ValueError("no end of the with clause")


def profile_ctes(warehouse: Path, home: Path, name: str, threads: int = 1, log=print) -> None:
    """Each CTE of the model's full-build SQL materialised in turn as a temporary table (so
    each is timed alone), CPU on `threads` threads."""
    from orchestration.config import SQL_DIR
    from orchestration.database import connect
    from orchestration.lake.model_sources import lake_sources
    from orchestration.models.functions import register_functions
    from orchestration.models.project import load_project
    from orchestration.models.render import render
    from orchestration.models.sources import BuildContext

    project = load_project(SQL_DIR)
    model = project.models[name]
    with connect(warehouse) as conn:
        context = BuildContext(conn, log, lambda _: None, project.relation_of)
        resolvers = {n: hook(context) for n, hook in lake_sources(home / "lake", home).items()}
        sql, params = render(
            project, model, scope=None, variables={}, resolvers=resolvers, conn=conn
        )
        register_functions(conn, project.root, sql)
        conn.execute(f"set threads = {threads}")
        conn.execute("set preserve_insertion_order = false")
        ctes, rest = split_ctes(sql)
        total = 0.0
        for cte, body in [*ctes, ("(final select)", rest)]:
            used = {k: v for k, v in params.items() if f"${k}" in body}
            target = "_final" if cte.startswith("(") else cte
            began, cpu = time.perf_counter(), _cpu()
            conn.execute(f"create or replace temp table {target} as {body}", used)
            cpu = _cpu() - cpu
            total += cpu
            rows = conn.execute(f"select count(*) from temp.{target}").fetchone()[0]
            log(
                f"  {cte:<32} cpu {cpu:6.2f} s  wall {time.perf_counter() - began:6.2f} s  "
                f"{rows:>10,} rows"
            )
        log(f"{name}: {total:.2f} s CPU over its CTEs, one at a time")


def main(argv: list[str] | None = None) -> int:
    from bench.scale import SCALES, ensure_lake

    parser = argparse.ArgumentParser(prog="python -m bench.profile_models", description=__doc__)
    parser.add_argument("--scale", choices=sorted(SCALES), default="medium")
    parser.add_argument("--explain", action="append", default=[])
    parser.add_argument("--ctes", action="append", default=[])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--warehouse", type=Path)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    home, _, _ = ensure_lake(*SCALES[args.scale])
    warehouse = args.warehouse or home / "profile.duckdb"
    if args.warehouse is None:
        profile_build(home, warehouse)
    for name in args.explain:
        explain(warehouse, home, name, args.top)
    for name in args.ctes:
        profile_ctes(warehouse, home, name, args.threads)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
