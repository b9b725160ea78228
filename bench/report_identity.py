"""Every report of the shared datasets, hashed: proof that a restructuring changed no byte.

`python -m bench.report_identity --write FILE` builds the whole history of each shared dataset
(verl and polars) with `prweekly build` from the `file` source on a fresh `PRWEEKLY_HOME` and
writes the SHA-256 of every file under `reports/` to FILE (JSON). `--compare FILE` builds the
same and lists every file that is new, gone or changed, exiting 1 if any is. Run `--write` on
the commit before a change and `--compare` on the commit after it.

The site's listings (each `index.html`, `index.zh.html` and Atom feed) say when each edition
was made, which differs between any two builds: they are compared by name only, every week
report by content.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import date, datetime
from pathlib import Path

from orchestration.weeks import monday_of

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"
DATASETS = {
    "verl-project/verl": SHARED / "verl-project__verl" / "pull_requests.jsonl.gz",
    "pola-rs/polars": SHARED / "pola-rs__polars" / "pull_requests.jsonl.gz",
}


def _week_range(dataset: Path) -> tuple[date, date]:
    """The Mondays of the first and the last merged PR of a JSON-lines dataset."""
    with gzip.open(dataset, "rt", encoding="utf-8") as lines:
        merged = [json.loads(line)["mergedAt"] for line in lines if line.strip()]
    days = [datetime.fromisoformat(m.replace("Z", "+00:00")).date() for m in merged]
    return monday_of(min(days)), monday_of(max(days))


def _build(repo: str, dataset: Path, home: Path) -> None:
    first, last = _week_range(dataset)
    env = {**os.environ, "PRWEEKLY_HOME": str(home)}
    for name in ("DAGSTER_HOME", "PRWEEKLY_SOURCE", "PRWEEKLY_LAKE_URI", "PRWEEKLY_REPORTS_URI"):
        env.pop(name, None)
    command = [
        *(sys.executable, "-m", "orchestration.service.cli", "build", "--repo", repo),
        *("--week", first.isoformat(), "--to", last.isoformat(), "--source", f"file:{dataset}"),
    ]
    began = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"build of {repo} failed:\n{done.stderr[-4000:]}")
    print(f"{repo}: {first}..{last} built in {time.perf_counter() - began:.0f} s", flush=True)


LISTED_BY_NAME = "listing: compared by name only"


def _digest(path: Path) -> str:
    listing = path.name.startswith(("index.", "feed.")) and path.suffix in (".html", ".xml")
    if listing:  # index.html, index.zh.html, feed.en.xml, ...
        return LISTED_BY_NAME
    return hashlib.sha256(path.read_bytes()).hexdigest()


def hashes() -> dict[str, str]:
    """{path under reports/: sha256} for every report file of every shared dataset."""
    missing = [str(path) for path in DATASETS.values() if not path.exists()]
    if missing:
        sys.exit(f"the shared datasets are not beside the clone: {', '.join(missing)}")
    home = Path(tempfile.mkdtemp(prefix="prweekly-identity-"))
    try:
        for repo, dataset in DATASETS.items():
            _build(repo, dataset, home)
        reports = home / "reports"
        return {
            path.relative_to(reports).as_posix(): _digest(path)
            for path in sorted(reports.rglob("*"))
            if path.is_file()
        }
    finally:
        shutil.rmtree(home, ignore_errors=True)


def compare(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """One line per file that is new, gone or changed."""
    lines = [f"gone     {p}" for p in sorted(before.keys() - after.keys())]
    lines += [f"new      {p}" for p in sorted(after.keys() - before.keys())]
    lines += [
        f"changed  {p}"
        for p in sorted(before.keys() & after.keys())
        if before[p] != after[p] and LISTED_BY_NAME not in (before[p], after[p])
    ]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.report_identity", description=__doc__)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", type=Path, help="write the reports' hashes to this JSON file")
    mode.add_argument("--compare", type=Path, help="compare the reports with this JSON file")
    args = parser.parse_args(argv)
    current = hashes()
    if args.write:
        args.write.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n")
        print(f"{len(current)} report files hashed into {args.write}")
        return 0
    differences = compare(json.loads(args.compare.read_text()), current)
    for line in differences[:50]:
        print(line)
    if len(differences) > 50:
        print(f"... and {len(differences) - 50} more")
    print(f"{len(current)} report files; {len(differences)} differ from {args.compare}")
    return 1 if differences else 0


if __name__ == "__main__":
    raise SystemExit(main())
