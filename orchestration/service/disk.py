"""Tell a full disk from other write failures, and name the place that is full.

A full disk surfaces as whatever the writer makes of it: SQLite's "disk I/O error" or
"database or disk is full" (Dagster's run history), DuckDB's "cannot rollback - no transaction
is active" (its transaction already aborted), `[Errno 28]` from a file write. When a build fails
with any of those, the places prweekly writes to are measured, and a full one is named.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from orchestration.config import Settings, load_settings

_SIGNS = (
    "no space left",
    "errno 28",
    "disk is full",
    "disk i/o error",
    "cannot rollback",
    "could not write",
    "could not truncate",
    "could not fsync",
)
# below this much free space a device counts as full: a build writes the warehouse's working
# copy and a copy of it to publish, so a few megabytes free do not let one finish
MIN_FREE_BYTES = 64 << 20


def _existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _places(settings: Settings) -> list[Path]:
    places = [settings.home]
    for where in (settings.lake_dir, settings.reports_dir):
        if isinstance(where, Path):
            places.append(where)
    return [*places, Path(tempfile.gettempdir())]


def full_place(settings: Settings, error: BaseException) -> str | None:
    """`no space left on <path> ...` when `error` looks like a write that found no room and one
    of prweekly's places is (nearly) full; None otherwise."""
    text = " ".join(str(e) for e in _chain(error)).lower()
    if not any(sign in text for sign in _SIGNS):
        return None
    needed = MIN_FREE_BYTES
    for name in ("warehouse.duckdb", "build/work.duckdb"):
        if (settings.home / name).exists():
            needed = max(needed, 2 * (settings.home / name).stat().st_size)
    for place in _places(settings):
        free = shutil.disk_usage(_existing(place)).free
        if free < needed:
            return (
                f"no space left on {place} ({free / (1 << 20):.1f} MB free; a build needs about "
                f"{needed / (1 << 20):.0f} MB): free some space and run again; the warehouse, "
                "the lake and the reports were left whole, as before this build"
            )
    return None


def disk_full(error: BaseException) -> str | None:
    """`full_place` for the current settings; never raises (it must not hide `error`)."""
    try:
        return full_place(load_settings(), error)
    except Exception:
        return None


def _chain(error: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen
