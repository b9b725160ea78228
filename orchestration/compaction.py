"""Compaction: each repository's finished weeks, also kept as one Parquet file.

The lake's unit of truth stays one file per repository and week: an extract replaces a week
atomically and a one-week build reads that one file. A build of every model, though, would
open every file, and DuckDB spends about a millisecond of CPU on each however few rows it
holds: 100,000 ten-row files cost a minute before any model runs. So the extract also keeps,
per repository, a compacted copy of its finished weeks, and a full build reads those copies
plus the week files they do not cover.

A copy is a cache, never the truth. Its footer records the size and modification time of
every week file it was made from, and a build uses it only while all of them are unchanged;
otherwise the build reads that repository's week files, and the next extract (or `prweekly
compact`) makes the copy again. Copies are written atomically, like the week files.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

import duckdb
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from orchestration.config import repo_slug
from orchestration.lake import WEEKS_DIR
from orchestration.storage import Location, filesystem_of, join, write_bytes
from orchestration.warehouse import apply_duckdb_init
from orchestration.weeks import monday_of

COMPACTED_DIR = ("raw", "pull_requests_compacted")
# the footer entry that lists a copy's week files (spelt out again in compact_repository's COPY,
# where DuckDB takes no parameter for a key)
MANIFEST_KEY = "prweekly.compacted_from"
# A copy is remade once this many finished weeks are missing from it: a weekly run then
# rewrites a repository's copy every fourth week, and a full build reads at most three week
# files per repository beside it.
MIN_NEW_WEEKS = 4
# The folder keys of the week files, typed as `sql/sources.yml` types them for the source.
HIVE_TYPES = "{'repo': 'varchar', 'week': 'date'}"
_WEEK_FILE = re.compile(r"repo=([^/]+)/week=(\d{4}-\d{2}-\d{2})/data\.parquet$")


@dataclass(frozen=True)
class WeekFile:
    """One week file as listed: its path for DuckDB, and what identifies this version of it."""

    path: str
    size: int
    mtime_ns: int | None

    @property
    def stamp(self) -> list[int] | None:
        return None if self.mtime_ns is None else [self.size, self.mtime_ns]


@dataclass(frozen=True)
class ReadPlan:
    """What a full build reads: valid compacted copies, and the week files they leave out."""

    compacted: list[str]
    weekly: list[str]


def week_files(lake_dir: Location, repo: str | None = None) -> dict[str, dict[date, WeekFile]]:
    """Every week file of the lake (or of one repository), by repository slug and week."""
    base = join(lake_dir, *WEEKS_DIR)
    if repo is not None:
        base = join(base, f"repo={repo_slug(repo)}")
    filesystem, root, prefix = filesystem_of(base)
    selector = pafs.FileSelector(root, recursive=True, allow_not_found=True)
    found: dict[str, dict[date, WeekFile]] = {}
    for info in filesystem.get_file_info(selector):
        match = _WEEK_FILE.search(info.path.replace("\\", "/"))
        if info.type != pafs.FileType.File or match is None:
            continue
        slug, week = match.group(1), date.fromisoformat(match.group(2))
        found.setdefault(slug, {})[week] = WeekFile(prefix + info.path, info.size, info.mtime_ns)
    return found


def compacted_path(lake_dir: Location, slug: str) -> Location:
    return join(lake_dir, *COMPACTED_DIR, f"{slug}.parquet")


def _manifest(path: Location) -> dict[date, list[int]] | None:
    """The week files a copy was made from, or None if there is no readable copy."""
    filesystem, inner, _ = filesystem_of(path)
    try:
        metadata = pq.read_metadata(inner, filesystem=filesystem).metadata or {}
        entries = json.loads(metadata[MANIFEST_KEY.encode()])
        return {date.fromisoformat(week): stamp for week, stamp in entries.items()}
    except (OSError, KeyError, ValueError):  # missing, half-written by hand, or not ours
        return None


def _is_valid(manifest: dict[date, list[int]] | None, weeks: dict[date, WeekFile]) -> bool:
    """True when every week file the copy was made from is still there, unchanged."""
    if not manifest:
        return False
    return all(
        (current := weeks.get(week)) is not None and current.stamp == stamp
        for week, stamp in manifest.items()
    )


def plan_full_read(lake_dir: Location) -> ReadPlan | None:
    """The files a build of the whole lake reads, or None when no repository has a copy."""
    filesystem, root, prefix = filesystem_of(join(lake_dir, *COMPACTED_DIR))
    copies = {
        Path(info.path).stem: prefix + info.path
        for info in filesystem.get_file_info(pafs.FileSelector(root, allow_not_found=True))
        if info.type == pafs.FileType.File and info.path.endswith(".parquet")
    }
    if not copies:
        return None
    compacted: list[str] = []
    weekly: list[str] = []
    for slug, weeks in sorted(week_files(lake_dir).items()):
        copy = copies.get(slug)
        manifest = _manifest(copy) if copy else None
        if copy and _is_valid(manifest, weeks):
            compacted.append(copy)
            weekly += [f.path for week, f in sorted(weeks.items()) if week not in manifest]
        else:
            weekly += [f.path for _, f in sorted(weeks.items())]
    return ReadPlan(compacted, weekly)


def compact_repository(
    lake_dir: Location,
    repo: str,
    *,
    today: date | None = None,
    min_new_weeks: int = MIN_NEW_WEEKS,
) -> int:
    """Remake `repo`'s copy when `min_new_weeks` finished weeks are missing from it, when any
    week it holds has changed, or when there is none yet and some week has finished. Returns
    the number of weeks in the new copy, 0 if untouched. The current week is left out: it may
    still be extracted again.

    Week files are listed before they are read: a week rewritten meanwhile then no longer
    matches the copy's manifest, and builds skip the copy instead of reading stale rows.
    """
    slug = repo_slug(repo)
    current_week = monday_of(today or datetime.now(UTC).date())
    weeks = week_files(lake_dir, repo).get(slug, {})
    finished = {w: f for w, f in weeks.items() if w < current_week and f.stamp is not None}
    target = compacted_path(lake_dir, slug)
    manifest = _manifest(target)
    valid = _is_valid(manifest, weeks)
    new = sorted(w for w in finished if not valid or w not in manifest)
    if not new or (valid and len(new) < min_new_weeks):
        return 0
    kept = sorted(manifest) if valid else []
    stamps = {w.isoformat(): weeks[w].stamp for w in sorted([*kept, *new])}
    parts = [
        f"select * from read_parquet($weeks, hive_partitioning = true, hive_types = {HIVE_TYPES})"
    ]
    if kept:
        parts.insert(0, "select * from read_parquet($copy, hive_partitioning = false)")
    params = {"weeks": [finished[w].path for w in new], **({"copy": str(target)} if kept else {})}
    with tempfile.TemporaryDirectory(prefix="prweekly-compact-") as scratch:
        out = os.path.join(scratch, "compacted.parquet")
        conn = duckdb.connect()
        try:
            apply_duckdb_init(conn)  # credentials for a lake on object storage
            union_sql = " union all by name ".join(parts)  # prweekly's own SQL, no values
            conn.execute(
                f"copy ({union_sql} order by week, number) to $out (format parquet, "
                "compression zstd, kv_metadata {'prweekly.compacted_from': $manifest})",
                {**params, "out": out, "manifest": json.dumps(stamps, separators=(",", ":"))},
            )
        finally:
            conn.close()
        write_bytes(target, Path(out).read_bytes())
    return len(stamps)
