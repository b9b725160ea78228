"""Advisory file locks between prweekly processes; the OS releases them if a process dies."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def file_lock(
    path: Path,
    *,
    exclusive: bool = True,
    on_wait: Callable[[str], None] | None = None,
    waiting_message: str = "waiting for another prweekly process...",
) -> Iterator[None]:
    """Hold a lock on `path`; if it is taken, say `waiting_message` once and wait."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    try:
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            started = time.monotonic()
            if on_wait:
                on_wait(waiting_message)
            fcntl.flock(fd, mode)
            if on_wait:
                on_wait(f"...went ahead after {time.monotonic() - started:.1f}s")
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
