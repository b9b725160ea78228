"""Compaction: each repository's finished weeks, also kept as one Parquet file.

The lake's unit of truth stays one file per repository and week: an extract replaces a week
atomically and a one-week build reads that one file. A build of every model, though, would
open every file, and DuckDB spends about a millisecond of CPU on each however few rows it
holds: 100,000 ten-row files cost a minute before any model runs. So the extract also keeps,
per repository, a compacted copy of its finished weeks, and a full build reads those copies
plus the week files they do not cover.

A copy is a cache, never the truth, and is read only when it is provably what it says:

- it is named by the SHA-256 of its bytes (`<slug>/<time>-<sha256>.parquet`) and a build
  hashes it before reading, so a flipped bit anywhere, footer included, makes the build read
  the week files instead (DuckDB does not check Parquet's page checksums; the copy carries
  them anyway, for other readers). A copy is never rewritten: a new one gets a new name and
  the old one is removed an hour later, so a build that chose it can still read it;
- its manifest lists the size, time stamp and SHA-256 of each week file it was made from, and
  a build uses it only while every one is unchanged. Time stamps alone cannot tell two writes
  apart within one tick of the storage's clock (a second on object stores), so the copy also
  records the storage's time just before it read the weeks: a week stamped at or after that
  time may have been rewritten within the same tick, and its content is hashed to be sure.
  Every other week, if rewritten, got a later stamp. Local disks keep the fast path. On S3
  the listing gives each object's ETag, which changes with its content, and the copy records
  it: a week whose ETag differs is changed, whatever its time stamp says.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from orchestration.config import repo_slug
from orchestration.database import apply_duckdb_init
from orchestration.lake.files import Listing, WeekFile, list_week_files
from orchestration.lake.layout import COMPACTED_DIR, WEEKS
from orchestration.storage import Location, filesystem_of, join, write_bytes
from orchestration.weeks import monday_of

MANIFEST_KEY = "prweekly.compacted_from"  # the footer entry that lists a copy's week files
# A copy is remade once this many finished weeks are missing from it: a weekly run then
# rewrites a repository's copy every fourth week, and a full build reads at most three week
# files per repository beside it.
MIN_NEW_WEEKS = 4
SUPERSEDED_SECONDS = 3600  # an older copy is removed once a newer one is this old
# The week files as a full build reads them: their folder keys as columns (typed as the
# lake's layout types them), after the rows kept from the previous copy.
READ_WEEKS = f"select * from read_parquet($files, {WEEKS.hive_options()}) order by week, number"
READ_WEEKS_AFTER_KEPT = (
    "select * from kept union all by name select * from read_parquet($files, "
    f"{WEEKS.hive_options()}) order by week, number"
)
_COPY_NAME = re.compile(r"(\d{8}T\d{12})Z-([0-9a-f]{64})\.parquet")
_CHUNK = 1 << 20


@dataclass(frozen=True)
class Manifest:
    """What a copy was made from: {week: [size, mtime_ns, sha256(, etag)]} and the storage's
    time (the ETag where the store lists one)."""

    weeks: dict[date, list]
    clock_ns: int


@dataclass(frozen=True)
class ReadPlan:
    """What a full build reads: valid compacted copies, and the week files they leave out."""

    compacted: list[str]
    weekly: list[str]


def copies_dir(lake_dir: Location, slug: str) -> Location:
    return join(lake_dir, *COMPACTED_DIR, slug)


def _copies(filesystem: pafs.FileSystem, folder: str) -> list[pafs.FileInfo]:
    """The repository's copies, newest first (their names start with the time made)."""
    found = [
        info
        for info in filesystem.get_file_info(pafs.FileSelector(folder, allow_not_found=True))
        if info.type == pafs.FileType.File and _COPY_NAME.fullmatch(info.base_name)
    ]
    return sorted(found, key=lambda info: info.base_name, reverse=True)


def _sha256(filesystem: pafs.FileSystem, path: str) -> str:
    digest = hashlib.sha256()
    with filesystem.open_input_stream(path) as stream:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _manifest(source: str | pa.Buffer, filesystem: pafs.FileSystem | None = None) -> Manifest:
    if isinstance(source, pa.Buffer):
        metadata = pq.read_metadata(pa.BufferReader(source)).metadata or {}
    else:
        metadata = pq.read_metadata(source, filesystem=filesystem).metadata or {}
    entry = json.loads(metadata[MANIFEST_KEY.encode()])
    weeks = {date.fromisoformat(week): stamp for week, stamp in entry["weeks"].items()}
    return Manifest(weeks, int(entry["clock_ns"]))


def _stale_weeks(
    filesystem: pafs.FileSystem, manifest: Manifest, weeks: dict[date, WeekFile]
) -> dict[date, str]:
    """The copy's weeks that no longer match their week files, and why."""
    stale = {}
    for week, (size, mtime_ns, sha256, *etag) in sorted(manifest.weeks.items()):
        current = weeks.get(week)
        if current is None:
            stale[week] = f"week {week} is no longer in the lake"
        elif current.etag is not None:  # the store names each version of an object
            if [current.size, current.etag] != [size, *etag[:1]]:
                stale[week] = f"week {week} changed since the copy was made (its ETag differs)"
        elif [current.size, current.mtime_ns] != [size, mtime_ns]:
            stale[week] = f"week {week} changed since the copy was made"
        elif (current.mtime_ns is None or current.mtime_ns >= manifest.clock_ns) and _sha256(
            filesystem, filesystem_of(current.path)[1]
        ) != sha256:
            stale[week] = f"week {week} changed since the copy was made (same size and time stamp)"
    return stale


def _stale_week(
    filesystem: pafs.FileSystem, manifest: Manifest, weeks: dict[date, WeekFile]
) -> str | None:
    """Why the copy no longer matches its week files, or None when it does."""
    return next(iter(_stale_weeks(filesystem, manifest, weeks).values()), None)


def check_copy(
    filesystem: pafs.FileSystem, path: str, weeks: dict[date, WeekFile]
) -> tuple[Manifest | None, str | None]:
    """The copy's manifest if it is intact and current, else (None, why not)."""
    match = _COPY_NAME.fullmatch(path.rsplit("/", 1)[-1])
    if match is None or _sha256(filesystem, path) != match.group(2):
        return None, "damaged: its content does not match its SHA-256"
    try:
        manifest = _manifest(path, filesystem)
    except (OSError, KeyError, ValueError, TypeError):
        return None, "not a copy this prweekly can read"
    stale = _stale_week(filesystem, manifest, weeks)
    return (None, stale) if stale else (manifest, None)


def plan_full_read(lake_dir: Location, listing: Listing, say=None) -> ReadPlan:
    """The files a build of the whole lake reads: each repository's newest copy that checks
    out (saying why any newer one does not), plus the week files no copy covers."""
    compacted: list[str] = []
    weekly: list[str] = []
    for slug, weeks in sorted(listing.weeks.items()):
        filesystem, folder, prefix = filesystem_of(copies_dir(lake_dir, slug))
        manifest = None
        for info in _copies(filesystem, folder):
            manifest, why = check_copy(filesystem, info.path, weeks)
            if manifest is not None:
                compacted.append(prefix + info.path)
                break
            if say:
                say(f"compacted copy {prefix + info.path} not read ({why}); "
                    f"reading the week files of {slug} instead")  # fmt: skip
        if manifest is None:
            weekly += [f.path for _, f in sorted(weeks.items())]
        else:
            weekly += [f.path for week, f in sorted(weeks.items()) if week not in manifest.weeks]
    return ReadPlan(compacted, weekly)


def _storage_clock_ns(filesystem: pafs.FileSystem, folder: str) -> int:
    """The storage's own time now, as it stamps files: a probe file's modification time."""
    probe = f"{folder}/.clock-{uuid.uuid4().hex}.tmp"
    filesystem.create_dir(folder, recursive=True)
    with filesystem.open_output_stream(probe):
        pass
    try:
        return filesystem.get_file_info(probe).mtime_ns or 0
    finally:
        filesystem.delete_file(probe)


def _read_weeks(
    filesystem: pafs.FileSystem, weeks: dict[date, WeekFile], kept: pa.Table | None
) -> tuple[pa.Table, dict[date, str]]:
    """The weeks as a full build reads them (folder keys as columns) after the rows `kept`
    from the previous copy, sorted; and each week file's SHA-256, taken before and after
    DuckDB read it, so that it is the hash of what was read."""
    paths = {week: filesystem_of(f.path)[1] for week, f in weeks.items()}
    before = {week: _sha256(filesystem, path) for week, path in paths.items()}
    conn = duckdb.connect()
    try:
        apply_duckdb_init(conn)  # credentials for a lake on object storage
        if kept is not None:
            conn.register("kept", kept)
        query = READ_WEEKS_AFTER_KEPT if kept is not None else READ_WEEKS
        files = [f.path for f in weeks.values()]
        table = conn.sql(query, params={"files": files}).to_arrow_table()
    finally:
        conn.close()
    changed = [week for week, path in paths.items() if _sha256(filesystem, path) != before[week]]
    if changed:
        raise RuntimeError(f"week file(s) {changed} changed while being compacted; try again")
    return table, before


def _remove_superseded(filesystem: pafs.FileSystem, folder: str, legacy: str) -> None:
    """Remove copies older than the newest by an hour, and the single-file copy older
    prweeklys kept at `<slug>.parquet`."""
    copies = _copies(filesystem, folder)
    if copies:
        newest = copies[0].mtime_ns or 0
        for info in copies[1:]:
            if newest - (info.mtime_ns or 0) > SUPERSEDED_SECONDS * 10**9:
                filesystem.delete_file(info.path)
    if filesystem.get_file_info(legacy).type == pafs.FileType.File:
        filesystem.delete_file(legacy)


def _newest_intact(
    filesystem: pafs.FileSystem, folder: str, weeks: dict[date, WeekFile]
) -> tuple[Manifest | None, pa.Table | None, bool]:
    """The newest intact copy, read once, with only the rows of its weeks that still match
    their week files (the manifest lists those), and whether any did not; copies that are
    damaged or not prweekly's are removed on the way (nothing ever reads them)."""
    for info in _copies(filesystem, folder):
        data = filesystem.open_input_file(info.path).read_buffer()
        try:
            if hashlib.sha256(data).hexdigest() != _COPY_NAME.fullmatch(info.base_name)[2]:
                raise ValueError("damaged")
            manifest = _manifest(data)
        except (OSError, KeyError, ValueError, TypeError):
            filesystem.delete_file(info.path)
            continue
        table = pq.read_table(pa.BufferReader(data)).replace_schema_metadata(None)
        stale = _stale_weeks(filesystem, manifest, weeks)
        if stale:  # a week read again and changed, or removed: its rows go
            gone = pa.array(sorted(stale), type=table.schema.field("week").type)
            table = table.filter(pc.invert(pc.is_in(table["week"], value_set=gone)))
            manifest = Manifest(
                {w: e for w, e in manifest.weeks.items() if w not in stale}, manifest.clock_ns
            )
        return manifest, table, bool(stale)
    return None, None, False


def compact_repository(
    lake_dir: Location,
    repo: str,
    *,
    today: date | None = None,
    min_new_weeks: int = MIN_NEW_WEEKS,
) -> int:
    """Write a new copy of `repo` when `min_new_weeks` finished weeks are missing from its
    copy, when any week it holds has changed, or when there is none yet and some week has
    finished. Returns the number of weeks in the new copy, 0 if untouched. The current week
    is left out: it may still be extracted again."""
    slug = repo_slug(repo)
    filesystem, folder, _ = filesystem_of(copies_dir(lake_dir, slug))
    clock_ns = _storage_clock_ns(filesystem, folder)  # before any week is read
    current_week = monday_of(today or datetime.now(UTC).date())
    weeks = list_week_files(lake_dir, repo).weeks.get(slug, {})
    finished = {w: f for w, f in weeks.items() if w < current_week}
    manifest, kept, stale = _newest_intact(filesystem, folder, weeks)
    new = sorted(w for w in finished if manifest is None or w not in manifest.weeks)
    # a copy with a changed week is not read at all: it is remade at once, reading only the
    # changed and the new weeks beside the rows it keeps
    if not stale and (not new or (manifest is not None and len(new) < min_new_weeks)):
        return 0
    entries = {w.isoformat(): stamp for w, stamp in (manifest.weeks if manifest else {}).items()}
    if new:
        table, hashes = _read_weeks(filesystem, {w: finished[w] for w in new}, kept)
    else:  # only removed or unfinished weeks changed: the rows kept, in their order
        table, hashes = kept, {}
    for week in new:
        written = finished[week]
        entries[week.isoformat()] = [written.size, written.mtime_ns, hashes[week]] + (
            [written.etag] if written.etag else []
        )
    manifest_json = json.dumps({"clock_ns": clock_ns, "weeks": dict(sorted(entries.items()))})
    table = table.replace_schema_metadata({MANIFEST_KEY: manifest_json})
    buffer = pa.BufferOutputStream()
    pq.write_table(table, buffer, compression="zstd", write_page_checksum=True)
    data = buffer.getvalue().to_pybytes()
    name = f"{datetime.now(UTC):%Y%m%dT%H%M%S%f}Z-{hashlib.sha256(data).hexdigest()}.parquet"
    write_bytes(join(copies_dir(lake_dir, slug), name), data)
    _remove_superseded(filesystem, folder, f"{folder}.parquet")
    return len(entries)
