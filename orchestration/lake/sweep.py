"""Remove the temporary files a killed process left, once they are old enough to be orphans.

Every write goes to a temporary name first and is renamed into place, so a kill leaves at
worst a temporary file: never read, but never removed either. Each build sweeps them, leaving
any younger than an hour alone: it may belong to a build still writing it. Temporary names are
`storage.open_temporary`'s, `.<name>.<random>.tmp` (an older prweekly's `.repositories.yml.*`
had no suffix); a lock file (`repositories.yml.lock`, `*.duckdb.lock`) is never one, however
old: it is how processes take turns, and removing it would let two of them in at once.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pyarrow.fs as pafs

from orchestration.config import Settings
from orchestration.lake.layout import COMPACTED_DIR, HISTORY_DIR
from orchestration.repositories.registry import FILE_NAME, LOCK_NAME
from orchestration.storage import Location, filesystem_of, join
from orchestration.text import plural

STALE_SECONDS = 3600
# (folder, glob) of what a killed write leaves on local disk
_HOME_PATTERNS = (
    (".", f".{FILE_NAME}.*"),  # repositories.yml, written atomically
    (".", ".warehouse.duckdb.*.tmp"),  # a published warehouse being copied
    ("build", "work.copying"),  # the working copy being made
)
_SYSTEM_PATTERN = "prweekly-compact-*"  # compaction's scratch folders (older prweeklys)


def _old(mtime: float, now: float, older_than: float) -> bool:
    return now - mtime > older_than


def _sweep_store(base: Location, now: float, older_than: float) -> list[str]:
    """Hidden `.….tmp` files anywhere under `base` (reports, compacted copies, history records)."""
    filesystem, root, prefix = filesystem_of(base)
    removed = []
    for info in filesystem.get_file_info(
        pafs.FileSelector(root, recursive=True, allow_not_found=True)
    ):
        name = info.base_name
        if (
            info.type == pafs.FileType.File
            and name.startswith(".")
            and name.endswith(".tmp")
            and info.mtime is not None
            and _old(info.mtime.timestamp(), now, older_than)
        ):
            try:
                filesystem.delete_file(info.path)
            except FileNotFoundError:
                continue
            removed.append(prefix + info.path)
    return removed


def sweep_stray_files(
    settings: Settings, say: Callable[[str], None], older_than: float = STALE_SECONDS
) -> list[str]:
    """Remove the orphaned temporary files of the home, the lake's copies and the reports."""
    now = time.time()
    removed: list[str] = []
    for folder, pattern in _HOME_PATTERNS:
        for path in (settings.home / folder).glob(pattern):
            if path.name == LOCK_NAME or path.name.endswith(".lock"):  # never a leftover
                continue
            try:
                if path.is_file() and _old(path.stat().st_mtime, now, older_than):
                    path.unlink()
                    removed.append(str(path))
            except FileNotFoundError:
                continue
    for path in Path(tempfile.gettempdir()).glob(_SYSTEM_PATTERN):
        try:
            if path.is_dir() and _old(path.stat().st_mtime, now, older_than):
                shutil.rmtree(path)
                removed.append(str(path))
        except (FileNotFoundError, PermissionError):
            continue
    removed += _sweep_store(join(settings.lake_dir, *COMPACTED_DIR), now, older_than)
    removed += _sweep_store(join(settings.lake_dir, *HISTORY_DIR), now, older_than)
    removed += _sweep_store(settings.reports_dir, now, older_than)
    if removed:
        say(
            f"removed {plural(len(removed), 'temporary file')} that killed writes left: "
            f"{removed[:5]}"
        )
    return removed
