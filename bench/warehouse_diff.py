"""Every model's rows before and after a change: build two warehouses and compare them.

An optimisation must keep every row of every model. `python -m bench.warehouse_diff`:

- `lake HOME`: writes a lake of every dataset at hand into `HOME/lake` (the bundled sample,
  the shared verl and polars histories, and the `PRWEEKLY_EXTRA_DATASETS` ones), as the
  extract would (`bench/facts.py`); a dataset not there is said and left out;
- `build HOME OUT`: every model from an empty warehouse `OUT` over `HOME/lake`, through the
  model runner, with its wall and CPU time; run it from a checkout of the code before the
  change (its own `orchestration` is imported) and from this one;
- `compare A B`: every model and seed of the two warehouses, row for row (a multiset
  difference both ways, `bench/dbt_check.py`); fails on any differing row or column.

A generated lake (`bench/scale.py`'s `bench/.work/lake-*`) is a HOME as well.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def datasets() -> dict[str, Path]:
    """Every dataset at hand, by repository."""
    from bench.dbt_check import SAMPLE, SAMPLE_REPO
    from bench.facts import DATASETS

    found = {SAMPLE_REPO: SAMPLE, **DATASETS}
    extra = os.environ.get("PRWEEKLY_EXTRA_DATASETS")
    if extra:
        for path in sorted(Path(extra).glob("*__*.jsonl.gz")):
            owner, name = path.name.removesuffix(".jsonl.gz").split("__", 1)
            found[f"{owner}/{name}"] = path
    return found


def write_lakes(home: Path, log=print) -> None:
    from bench.facts import write_lake

    for repo, path in datasets().items():
        if not path.exists():
            log(f"{repo}: not available ({path.name})")
            continue
        began = time.perf_counter()
        prs = write_lake(path, repo, home / "lake")
        log(f"{repo}: {prs:,} PRs in {time.perf_counter() - began:.1f} s")


def build_all(home: Path, out: Path, part_prs: int | None = None) -> dict:
    """Every model from an empty warehouse at `out`; the seconds of each. With `part_prs`,
    in parts of about that many PRs (orchestration/warehouse/parts.py), if the code has them."""
    import duckdb

    import orchestration
    from orchestration.config import SQL_DIR
    from orchestration.lake.model_sources import lake_sources
    from orchestration.models.build import build
    from orchestration.models.project import load_project

    for path in (out, out.with_name(out.name + ".wal")):
        path.unlink(missing_ok=True)
    project = load_project(SQL_DIR)
    began, cpu = time.perf_counter(), _cpu()
    conn = duckdb.connect(str(out))
    try:
        parted = {}
        if part_prs:
            from orchestration.warehouse.parts import full_build_parts

            parted = {"parts": full_build_parts(project, part_prs)}
        sources = lake_sources(home / "lake", home)
        seconds = build(conn, project, None, sources=sources, **parted).seconds
    finally:
        conn.close()
    return {
        "code": str(Path(orchestration.__file__).parent),
        "seconds": round(time.perf_counter() - began, 2),
        "cpu_seconds": round(_cpu() - cpu, 2),
        "models": seconds,
    }


def _without(path: Path, ignored: list[str], work: Path) -> Path:
    """A copy of the warehouse whose `ignored` columns (`schema.table.column`) are NULL: a
    column known to differ between two builds of the same code is left out of the comparison."""
    import shutil

    import duckdb

    if not ignored:
        return path
    copy = work / f"{path.stem}-compared.duckdb"
    shutil.copyfile(path, copy)
    conn = duckdb.connect(str(copy))
    for name in ignored:
        relation, _, column = name.rpartition(".")
        conn.execute(f"update {relation} set {column} = null")
    conn.close()
    return copy


def compare_all(a: Path, b: Path, ignored: list[str] = (), log=print) -> bool:
    """Every model and seed of both warehouses; True when every row is the same."""
    import shutil
    import tempfile

    import duckdb

    from bench.dbt_check import compare, table

    work = Path(tempfile.mkdtemp(prefix="warehouse-diff-"))
    a, b = _without(a, list(ignored), work), _without(b, list(ignored), work)

    names = set()
    for path in (a, b):
        conn = duckdb.connect(str(path), read_only=True)
        names |= {
            f"{s}.{t}"
            for s, t in conn.execute(
                "select schema_name, table_name from duckdb_tables() union "
                "select schema_name, view_name from duckdb_views() where not internal"
            ).fetchall()
            if s not in ("runs", "checks")
        }
        conn.close()
    found = compare(a, b, sorted(names))
    shutil.rmtree(work, ignore_errors=True)
    log(table(found).replace("runner rows", "   A rows  ").replace("dbt rows", "  B rows"))
    return all(c.same for c in found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.warehouse_diff", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("lake").add_argument("home", type=Path)
    built = sub.add_parser("build")
    built.add_argument("home", type=Path)
    built.add_argument("out", type=Path)
    built.add_argument("--part-prs", type=int, help="build in parts of about N PRs")
    compared = sub.add_parser("compare")
    compared.add_argument("a", type=Path)
    compared.add_argument("b", type=Path)
    compared.add_argument(
        "--ignore", action="append", default=[], help="schema.table.column left out"
    )
    args = parser.parse_args(argv)
    if args.command == "lake":
        write_lakes(args.home)
    elif args.command == "build":
        print(json.dumps(build_all(args.home, args.out, args.part_prs)))
    else:
        same = compare_all(args.a, args.b, args.ignore)
        print("every row the same" if same else "ROWS DIFFER", file=sys.stderr)
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
