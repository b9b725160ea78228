"""`prweekly sql`: read-only SQL over the warehouse, printed as a table, CSV or JSON."""

from __future__ import annotations

import csv
import json
import sys

from orchestration.config import load_settings


def run_sql(query: str, output_format: str) -> None:
    from orchestration.warehouse import connect

    settings = load_settings()
    with connect(settings.warehouse_path, read_only=True) as conn:
        cursor = conn.execute(query)
        if cursor.description is None:
            return
        names = [d[0] for d in cursor.description]
        rows = cursor.fetchall()
    if output_format == "csv":
        writer = csv.writer(sys.stdout)
        writer.writerow(names)
        writer.writerows(rows)
    elif output_format == "json":
        print(json.dumps([dict(zip(names, r, strict=True)) for r in rows], default=str))
    else:
        print_table(names, rows)


def print_table(names: list[str], rows: list[tuple]) -> None:
    if len(names) == 1 and len(rows) == 1:
        print(rows[0][0])
        return
    cells = [[("NULL" if v is None else str(v)) for v in row] for row in rows]
    widths = [min(60, max([len(n)] + [len(r[i]) for r in cells])) for i, n in enumerate(names)]
    print("  ".join(n.ljust(w) for n, w in zip(names, widths, strict=True)).rstrip())
    print("  ".join("-" * w for w in widths))
    for row in cells:
        print("  ".join(v[:w].ljust(w) for v, w in zip(row, widths, strict=True)).rstrip())
    print(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
