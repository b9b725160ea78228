"""`make dbt-check`: `sql/` built by dbt-duckdb and by the runner from the same lake, compared
row for row, model by model (docs/runner.md, "sql/ under dbt").

`python -m bench.dbt_check [--home DIR]` builds the bundled sample repository with
`prweekly build` in a throwaway home (or reads the home given, built already), builds the same
lake with `dbt build` (seeds, models and data tests) into a DuckDB file of its own, and
compares every model's rows: for each, the rows each side holds and the rows found on one side
only (a multiset difference, so a duplicated row counts). It fails on any difference, on a
model one side lacks and on columns that differ.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "orchestration" / "sample" / "acme__rocket.jsonl"
SAMPLE_REPO, SAMPLE_WEEKS = "acme/rocket", ("2026-W27", "2026-W30")


@dataclass(frozen=True)
class Comparison:
    relation: str
    runner_rows: int | None  # None: the relation is missing on that side
    dbt_rows: int | None
    differing: int  # rows on one side only, both ways
    columns: str = ""  # how the columns differ, if they do

    @property
    def same(self) -> bool:
        return self.differing == 0 and not self.columns and None not in self.rows

    @property
    def rows(self) -> tuple[int | None, int | None]:
        return self.runner_rows, self.dbt_rows


def dbt_executable() -> str:
    """The `dbt` beside this interpreter (the project's virtualenv), else on PATH."""
    beside = Path(sys.executable).with_name("dbt")
    found = str(beside) if beside.exists() else shutil.which("dbt")
    if not found:
        raise SystemExit(
            "dbt is not installed: `pip install -e '.[dbt]'` (make dbt-check installs it)"
        )
    return found


def dbt_env(home: Path, database: Path, work: Path) -> dict[str, str]:
    """The environment `profiles.yml` reads, with dbt's files kept out of the tree."""
    return {
        **os.environ,
        "PRWEEKLY_HOME": str(home),
        "PRWEEKLY_DBT_DATABASE": str(database),
        "DBT_TARGET_PATH": str(work / "target"),
        "DBT_LOG_PATH": str(work / "logs"),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }


def dbt_build(
    home: Path,
    database: Path,
    work: Path,
    *,
    tests: bool = True,
    select: str | None = None,
) -> dict:
    """`dbt build` of the lake in `home` into `database` (every node, from an empty file; or
    only `select`, into the file as it is); dbt's own timings too."""
    if not select:
        for stale in (database, database.with_name(database.name + ".wal")):
            stale.unlink(missing_ok=True)
    command = [dbt_executable(), "build", "--project-dir", str(ROOT), "--profiles-dir", str(ROOT)]
    if not tests:
        command += ["--exclude", "resource_type:test"]
    if select:
        command += ["--select", select]
    began = time.perf_counter()
    done = subprocess.run(
        command,
        cwd=ROOT,
        env=dbt_env(home, database, work),
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise RuntimeError(f"dbt build failed ({done.returncode}):\n{done.stdout[-6000:]}")
    results = json.loads((work / "target" / "run_results.json").read_text(encoding="utf-8"))
    nodes = {
        r["unique_id"].split(".")[-1]: r["execution_time"]
        for r in results["results"]
        if r["unique_id"].startswith("model.")
    }
    ready = re.search(r"prweekly sources: \d+ sources ready in ([\d.]+) s", done.stdout)
    return {
        "seconds": round(seconds, 3),
        "dbt_elapsed_seconds": round(results["elapsed_time"], 3),
        "sources_seconds": float(ready.group(1)) if ready else None,
        "nodes": len(results["results"]),
        "models": {name: round(t, 3) for name, t in nodes.items()},
    }


def relations(root: Path = ROOT / "sql") -> list[str]:
    """Every model's relation, in the runner's build order, and every seed's."""
    from orchestration.models.project import load_project

    project = load_project(root)
    models = [project.models[name].relation for name in project.order]
    return models + sorted(seed.relation for seed in project.seeds.values())


def _columns(conn: duckdb.DuckDBPyConnection, database: str, relation: str) -> list[tuple]:
    schema, name = relation.split(".")
    return conn.execute(
        "select column_name, data_type from duckdb_columns() "
        "where database_name = ? and schema_name = ? and table_name = ? order by column_index",
        [database, schema, name],
    ).fetchall()


def compare(runner_db: Path, dbt_db: Path, names: list[str]) -> list[Comparison]:
    """Each relation of `names` in the two warehouses, row for row."""
    conn = duckdb.connect()
    conn.execute(f"attach '{runner_db}' as runner (read_only)")
    conn.execute(f"attach '{dbt_db}' as dbt (read_only)")
    found = []
    for relation in names:
        runner, dbt = _columns(conn, "runner", relation), _columns(conn, "dbt", relation)
        counts = [
            conn.execute(f"select count(*) from {db}.{relation}").fetchone()[0] if cols else None
            for db, cols in (("runner", runner), ("dbt", dbt))
        ]
        if not runner or not dbt:
            found.append(Comparison(relation, *counts, differing=max(c or 0 for c in counts)))
            continue
        columns = "" if runner == dbt else f"runner {runner} / dbt {dbt}"
        names = {c for c, _ in dbt}
        shared = ", ".join(f'"{c}"' for c, _ in runner if c in names)
        if not shared:  # no column in common: every row differs
            found.append(Comparison(relation, *counts, sum(counts), columns))
            continue
        one_way = "select {c} from {a}.{r} except all select {c} from {b}.{r}"
        differing = sum(
            conn.execute(
                f"select count(*) from ({one_way.format(c=shared, a=a, b=b, r=relation)})"
            ).fetchone()[0]
            for a, b in (("runner", "dbt"), ("dbt", "runner"))
        )
        found.append(Comparison(relation, *counts, differing=differing, columns=columns))
    conn.close()
    return found


def table(comparisons: list[Comparison]) -> str:
    width = max(len(c.relation) for c in comparisons)
    lines = [f"{'relation':<{width}}  {'runner rows':>11}  {'dbt rows':>8}  {'differing':>9}"]
    for c in comparisons:
        runner, dbt = ("missing" if n is None else f"{n:,}" for n in c.rows)
        lines.append(f"{c.relation:<{width}}  {runner:>11}  {dbt:>8}  {c.differing:>9,}")
        if c.columns:
            lines.append(f"  columns differ: {c.columns}")
    return "\n".join(lines)


def build_sample(home: Path) -> float:
    """`prweekly build` of the bundled sample's weeks into `home` (a child process)."""
    env = {**os.environ, "PRWEEKLY_HOME": str(home)}
    for name in ("PRWEEKLY_SOURCE", "GITHUB_TOKEN", "DAGSTER_HOME", "PRWEEKLY_LAKE_URI"):
        env.pop(name, None)
    first, last = SAMPLE_WEEKS
    command = [sys.executable, "-m", "orchestration.service.cli", "build", "--repo", SAMPLE_REPO]
    command += ["--week", first, "--to", last, "--source", f"file:{SAMPLE}"]
    began = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"prweekly build failed:\n{done.stderr[-4000:]}")
    return time.perf_counter() - began


def check(home: Path, work: Path, log=print) -> list[Comparison]:
    """dbt's build of `home`'s lake against the runner's warehouse in `home`."""
    database = work / "dbt.duckdb"
    built = dbt_build(home, database, work)
    log(f"dbt build: {built['nodes']} nodes in {built['seconds']:.1f} s")
    return compare(home / "warehouse.duckdb", database, relations())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.dbt_check", description=__doc__)
    parser.add_argument("--home", type=Path, help="a home built already (default: the sample)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="prweekly-dbt-check-") as tmp:
        work = Path(tmp)
        home = args.home
        if home is None:
            home = work / "home"
            seconds = build_sample(home)
            print(f"runner: prweekly build of {SAMPLE_REPO} {'..'.join(SAMPLE_WEEKS)}", end="")
            print(f" in {seconds:.1f} s")
        comparisons = check(home.resolve(), work)
    print(table(comparisons))
    differing = [c for c in comparisons if not c.same]
    rows = sum(c.runner_rows or 0 for c in comparisons)
    print(f"{len(comparisons)} relations, {rows:,} rows compared, {len(differing)} differ")
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main())
