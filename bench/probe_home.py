"""What the reliability probes share (`python -m bench.probe`): a throwaway `PRWEEKLY_HOME`
with the real `prweekly` run in it as a child process, a probe, and how it says it did not hold.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRWEEKLY = Path(sys.executable).parent / "prweekly"
SAMPLE = ROOT / "orchestration" / "sample" / "acme__rocket.jsonl"
DRIVER = ROOT / "tests" / "fixtures" / "reliability" / "crash_driver.py"
REPO = "acme/rocket"
FIRST, LAST = "2026-06-29", "2026-07-20"  # the sample's four weeks


class Broke(Exception):
    """A probe saw something other than what must happen; the message is what it saw."""


@dataclass
class Outcome:
    code: int
    out: str
    err: str
    seconds: float

    def error_line(self) -> str:
        lines = [ln for ln in self.err.splitlines() if ln.startswith("prweekly: error:")]
        return lines[-1] if lines else (self.err.strip().splitlines() or [""])[-1]


class Home:
    """A PRWEEKLY_HOME of its own, and `prweekly` run in it as a child process."""

    def __init__(self, root: Path, name: str, env: dict[str, str] | None = None) -> None:
        self.path = root / name
        self.path.mkdir()
        self.env = {**os.environ, "PRWEEKLY_HOME": str(self.path), **(env or {})}
        for key in ("PRWEEKLY_LAKE_URI", "PRWEEKLY_REPORTS_URI", "PRWEEKLY_SOURCE"):
            self.env.pop(key, None)

    def run(self, *args: str, timeout: float = 300, driver: str | None = None) -> Outcome:
        command = [str(PRWEEKLY), *args]
        if driver:
            command = [sys.executable, str(DRIVER), driver, *args]
        started = time.monotonic()
        try:
            done = subprocess.run(
                command, env=self.env, capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            raise Broke(f"still running after {timeout:.0f} s") from None
        return Outcome(done.returncode, done.stdout, done.stderr, time.monotonic() - started)

    def build(self, *extra: str, source: Path = SAMPLE, week: str = FIRST, to: str = LAST,
              driver: str | None = None, repo: str = REPO) -> Outcome:  # fmt: skip
        args = ["build", "--repo", repo, "--week", week, "--to", to, "--source", f"file:{source}"]
        return self.run(*args, *extra, driver=driver)

    def must_build(self, **kwargs) -> Outcome:
        done = self.build(**kwargs)
        if done.code != 0:
            raise Broke(f"a plain build failed (exit {done.code}): {done.error_line()}")
        return done

    def sql(self, query: str) -> str:
        done = self.run("sql", "--format", "csv", query)
        if done.code != 0:
            raise Broke(f"`prweekly sql` failed: {done.error_line()}")
        return done.out

    def marts(self) -> str:
        """Every mart a reader queries, as one text: equal texts mean equal facts."""
        return "".join(
            self.sql(f"select * from marts.{name} order by all")
            for name in ("fct_pull_requests", "fct_weekly_summary", "fct_weekly_risks")
        )

    def reports(self) -> dict[str, bytes]:
        """The week reports (not a kill's temporary files, which the next run sweeps, nor the
        site's pages, which list when each edition was rendered)."""
        root = self.path / "reports"
        weeks = sorted(p for p in root.rglob("*.*") if re.match(r"\d{4}-\d{2}-\d{2}\.", p.name))
        return {str(p.relative_to(root)): p.read_bytes() for p in weeks}


@dataclass
class Probe:
    group: str
    name: str
    expected: str
    run: Callable[[Path], str]  # returns what it saw; raises Broke when it did not hold
