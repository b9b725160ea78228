"""Advisory file locks between prweekly processes; the OS releases them if a process dies."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


def acquire_lock(
    path: Path,
    *,
    exclusive: bool = True,
    on_wait: Callable[[str], None] | None = None,
    waiting_message: str = "waiting for another prweekly process...",
) -> int:
    """Take a lock on `path` and return its descriptor (give it to `release_lock`); if the lock
    is taken, say `waiting_message` once and wait."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
    except BlockingIOError:
        started = time.monotonic()
        if on_wait:
            on_wait(waiting_message)
        try:
            fcntl.flock(fd, mode)
        except BaseException:
            os.close(fd)
            raise
        if on_wait:
            on_wait(f"...went ahead after {time.monotonic() - started:.1f}s")
    return fd


def release_lock(fd: int) -> None:
    fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)


@contextmanager
def file_lock(
    path: Path,
    *,
    exclusive: bool = True,
    on_wait: Callable[[str], None] | None = None,
    waiting_message: str = "waiting for another prweekly process...",
) -> Iterator[None]:
    """Hold a lock on `path` for a `with` block; if it is taken, say so once and wait."""
    fd = acquire_lock(path, exclusive=exclusive, on_wait=on_wait, waiting_message=waiting_message)
    try:
        yield
    finally:
        release_lock(fd)
