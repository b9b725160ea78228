"""The DuckDB warehouse file, shared safely between processes.

DuckDB lets one process write a file, and no other process may even read it meanwhile. Every
connection therefore takes a lock file first: writers exclusively, readers shared. A reader that
finds a build writing says so once and waits, instead of failing on DuckDB's lock.
"""

from __future__ import annotations

import fcntl
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@contextmanager
def _file_lock(path: Path, exclusive: bool, on_wait: Callable[[str], None]) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    try:
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            started = time.monotonic()
            on_wait(
                "the warehouse is busy: another prweekly process is "
                + ("using" if exclusive else "writing to")
                + " it; waiting for it to finish..."
            )
            fcntl.flock(fd, mode)
            on_wait(f"...got the warehouse after {time.monotonic() - started:.1f}s")
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


@contextmanager
def connect(
    path: Path, *, read_only: bool = False, on_wait: Callable[[str], None] = _say
) -> Iterator[duckdb.DuckDBPyConnection]:
    """Open the warehouse for the duration of a `with` block, holding the matching lock."""
    if read_only and not path.exists():
        raise FileNotFoundError(
            f"no warehouse at {path} yet: run `prweekly build` first (or set PRWEEKLY_HOME)"
        )
    lock = path.with_name(path.name + ".lock")
    with _file_lock(lock, exclusive=not read_only, on_wait=on_wait):
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = duckdb.connect(str(path), read_only=read_only)
        try:
            yield conn
        finally:
            conn.close()
