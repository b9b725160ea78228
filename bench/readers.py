"""How long a reader waits while a build writes: the verl history, then one more week.

`python -m bench.readers` runs `prweekly build` of the whole verl history from the `file`
source in a child process (on a fresh `PRWEEKLY_HOME`), then a rebuild of its last week, and
meanwhile reads as each kind of reader does, in its own thread:

- `prweekly sql`, every 20 ms: open the warehouse read-only (taking the readers' lock) and ask
  whether `fct_pull_requests` and `fct_weekly_summary` agree;
- the report, every 100 ms: `warehouse.connect` read-only and load the last week's facts;
- the UI, every 100 ms: Dagster's own storage, as the UI reads it (the latest runs and the
  latest materialisation of `fct_pull_requests`).

It reports each reader's longest wait, how many reads saw marts that disagree (half a build),
how long publishing held readers, and, as the target, the longest model step of the build:
no reader may wait longer than one model's write.
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
import threading
import time
from pathlib import Path

from bench.backfill import FIRST_WEEK, LAST_WEEK, REPO
from bench.extract import DEFAULT_DATASET

AGREE = (
    "select count(*) from marts.fct_weekly_summary s where merged_prs <> "
    "(select count(*) from marts.fct_pull_requests p "
    "where p.repo = s.repo and p.week_start = s.week_start)"
)
_STEP = re.compile(r"✓ (\w+) \((\d+\.\d)s\)")


class Reader(threading.Thread):
    """Reads the published warehouse in a loop until stopped; keeps the longest lock wait."""

    def __init__(self, home: Path) -> None:
        super().__init__(daemon=True)
        self.home = home
        self.stop = threading.Event()
        self.reads = 0
        self.disagreeing = 0
        self.longest_wait = 0.0

    def run(self) -> None:
        import duckdb

        from orchestration.storage import acquire_lock, release_lock

        path = self.home / "warehouse.duckdb"
        while not self.stop.is_set():
            if path.exists():  # as orchestration.database.connect reads, the lock timed apart
                asked = time.monotonic()
                fd = acquire_lock(path.with_name(path.name + ".lock"), exclusive=False)
                waited = time.monotonic() - asked
                try:
                    with duckdb.connect(str(path), read_only=True) as conn:
                        (bad,) = conn.execute(AGREE).fetchone()
                except duckdb.Error:  # the marts may not exist yet: not a read
                    bad = None
                finally:
                    release_lock(fd)
                if bad is not None:
                    self.reads += 1
                    self.disagreeing += bad > 0
                    self.longest_wait = max(self.longest_wait, waited)
            time.sleep(0.02)


class TimedReader(threading.Thread):
    """Calls `read` every `every` seconds until stopped; keeps the longest call."""

    def __init__(self, read, every: float) -> None:
        super().__init__(daemon=True)
        self.read, self.every = read, every
        self.stop = threading.Event()
        self.reads = 0
        self.longest_wait = 0.0
        self.error: str | None = None  # the last failed read's, named if no read succeeds

    def run(self) -> None:
        while not self.stop.is_set():
            began = time.monotonic()
            try:
                waited = self.read()
            except Exception as error:  # nothing to read yet (no warehouse, no marts)
                waited, self.error = None, f"{type(error).__name__}: {error}"
            if waited is not None:
                self.reads += 1
                self.longest_wait = max(self.longest_wait, waited)
            time.sleep(max(0.0, self.every - (time.monotonic() - began)))


def report_read(home: Path, week: str):
    """The report's read: the wait to open the warehouse as the report asset does (the facts'
    load after it is the report's own work, not a wait)."""
    from datetime import date

    from orchestration.database import connect
    from orchestration.report.queries import load_week

    def read() -> float | None:
        path = home / "warehouse.duckdb"
        if not path.exists():
            return None
        asked = time.monotonic()
        with connect(path, read_only=True, on_wait=lambda _: None) as conn:
            waited = time.monotonic() - asked
            load_week(conn, REPO, date.fromisoformat(week))
        return waited

    return read


def ui_read(home: Path):
    """The UI's read of Dagster's storage: the latest runs and the latest materialisation."""
    instance = {}

    def read() -> float | None:
        import dagster as dg

        if not (home / "dagster" / ".initialised").exists():
            return None
        if not instance:  # as `prweekly ui` opens it: DAGSTER_HOME names the folder
            os.environ["DAGSTER_HOME"] = str(home / "dagster")
            instance["it"] = dg.DagsterInstance.from_config(str(home / "dagster"))
        asked = time.monotonic()
        instance["it"].get_runs(limit=20)
        instance["it"].fetch_materializations(dg.AssetKey("fct_pull_requests"), limit=1)
        return time.monotonic() - asked

    return read


def _build(home: Path, dataset: Path, first: str, last: str) -> dict:
    reader = Reader(home)
    others = {
        "report": TimedReader(report_read(home, LAST_WEEK), 0.1),
        "ui": TimedReader(ui_read(home), 0.1),
    }
    for thread in (reader, *others.values()):
        thread.start()
    env = {**os.environ, "PRWEEKLY_HOME": str(home)}
    env.pop("DAGSTER_HOME", None)
    command = [
        *(sys.executable, "-m", "orchestration.service.cli", "build", "--repo", REPO),
        *("--week", first, "--to", last, "--source", f"file:{dataset}"),
    ]
    began = time.perf_counter()
    done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    seconds = time.perf_counter() - began
    for thread in (reader, *others.values()):
        thread.stop.set()
        thread.join()
    for name, thread in others.items():  # a reader that never read measured nothing
        if not thread.reads:
            sys.exit(f"the {name} reader never read during the build: {thread.error}")
    not_models = {"raw_pull_requests", "published_warehouse", "weekly_report"}
    steps = {name: float(s) for name, s in _STEP.findall(done.stderr) if name not in not_models}
    slowest = max(steps, key=steps.get)
    held = re.search(r"readers held (\d+\.\d+)s", done.stderr)
    return {
        "seconds": round(seconds, 1),
        "reads": reader.reads,
        "reads_of_half_a_build": reader.disagreeing,
        "longest_reader_wait_ms": round(1000 * reader.longest_wait, 1),
        **{
            f"longest_{name}_wait_ms": round(1000 * thread.longest_wait, 1)
            for name, thread in others.items()
        },
        **{f"{name}_reads": thread.reads for name, thread in others.items()},
        "publish_held_readers_ms": round(1000 * float(held.group(1)), 1) if held else None,
        "longest_model_step": {"model": slowest, "seconds": steps[slowest]},
    }


def run(dataset: Path = DEFAULT_DATASET) -> dict:
    home = Path(tempfile.mkdtemp(prefix="prweekly-readers-"))
    try:
        history = _build(home, dataset, FIRST_WEEK, LAST_WEEK)
        one_week = _build(home, dataset, LAST_WEEK, LAST_WEEK)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return {"repo": REPO, "history": history, "one_week": one_week}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.readers", description=__doc__)
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    args = parser.parse_args(argv)
    if not args.dataset.is_file():
        parser.error(f"dataset {args.dataset} not found")
    print(json.dumps(run(args.dataset), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
