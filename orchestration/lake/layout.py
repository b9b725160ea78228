"""The raw lake: its layout (one place), its schema and its atomic week writes.

One Parquet file per repository and week, with an explicit schema; the rows come from the
sources already checked (`orchestration/extract/sources/nodes.py`). A field a source does not hold
is
stored as NULL, never as an empty list, so the models can tell "unknown" from "none".
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import date

import pyarrow as pa
import pyarrow.parquet as pq

from orchestration.config import SourceDataError, repo_slug
from orchestration.storage import Location, join, read_bytes, write_bytes

FILE_CHANGE = pa.struct(
    [
        ("path", pa.string()),
        ("additions", pa.int64()),
        ("deletions", pa.int64()),
        ("change_type", pa.string()),
    ]
)
REVIEW = pa.struct(
    [("state", pa.string()), ("author", pa.string()), ("submitted_at", pa.timestamp("us", "UTC"))]
)
REVIEW_THREAD = pa.struct(
    [
        ("is_resolved", pa.bool_()),
        ("is_outdated", pa.bool_()),
        ("path", pa.string()),
        ("author", pa.string()),
        ("body", pa.string()),
    ]
)

PULL_REQUEST_SCHEMA = pa.schema(
    [
        ("repo", pa.string(), False),
        ("week_start", pa.date32(), False),
        ("number", pa.int64(), False),
        ("title", pa.string()),
        ("body", pa.string()),
        ("url", pa.string()),
        ("author", pa.string()),
        ("created_at", pa.timestamp("us", "UTC")),
        ("merged_at", pa.timestamp("us", "UTC"), False),
        ("merged_by", pa.string()),
        ("additions", pa.int64()),
        ("deletions", pa.int64()),
        ("changed_files", pa.int64()),
        ("base_ref", pa.string()),
        ("is_draft", pa.bool_()),
        ("merge_commit", pa.string()),
        ("comments_count", pa.int64()),
        ("files", pa.list_(FILE_CHANGE)),
        ("labels", pa.list_(pa.string())),
        ("reviews", pa.list_(REVIEW)),
        ("review_threads", pa.list_(REVIEW_THREAD)),
    ]
)


@dataclass(frozen=True)
class LakeFolder:
    """A folder of the lake, and the keys its sub-folders are named by (`repo=<owner>__<name>`,
    `week=<monday>`) with their DuckDB types: one `data.parquet` at the end of each path."""

    parts: tuple[str, ...]
    keys: tuple[tuple[str, str], ...]

    def hive_options(self) -> str:
        """How DuckDB reads the keys from each file's path (a filter on them then opens only
        the matching files; a key that is also a column takes the folder's value)."""
        types = ", ".join(f"'{key}': '{kind}'" for key, kind in self.keys)
        return f"hive_partitioning = true, hive_types = {{{types}}}"


# The lake's layout, the one place it is written (sql/sources.yml names these folders).
WEEKS = LakeFolder(("raw", "pull_requests"), (("repo", "varchar"), ("week", "date")))
HISTORY = LakeFolder(("raw", "history"), (("repo", "varchar"),))  # one file per repository
COMPACTED_DIR = ("raw", "pull_requests_compacted")  # <slug>/<time>Z-<sha256>.parquet
FOLDERS = {"pull_requests": WEEKS, "history": HISTORY}
DATA_FILE = "data.parquet"  # the one file at the end of each path
WEEKS_DIR = WEEKS.parts
HISTORY_DIR = HISTORY.parts


def history_file(lake_dir: Location, repo: str) -> Location:
    """Where the lake records where `repo`'s history begins."""
    return join(lake_dir, *HISTORY.parts, f"repo={repo_slug(repo)}", DATA_FILE)


def partition_dir(lake_dir: Location, repo: str, week_start: date) -> Location:
    return join(
        lake_dir,
        *WEEKS_DIR,
        f"repo={repo_slug(repo)}",
        f"week={week_start.isoformat()}",
    )


def write_partition(
    lake_dir: Location,
    repo: str,
    week_start: date,
    rows: Iterable[dict],
    metadata: Mapping[str, str] | None = None,
    observed_at: Collection[str] = (),
) -> Location:
    """Write one week's rows atomically: a temporary file renamed over `data.parquet`.

    Readers see either the previous file or the new one. An empty week still gets a file (with
    zero rows), so "extracted, nothing merged" differs from "never extracted". `metadata`
    (e.g. the source's own count of the week) goes into the file's footer, with the rows.
    A file that already holds these rows and this metadata, but for the `observed_at` keys
    (when the source looked), is left as it is: a week read again and found the same keeps its
    file, its compacted copy and its report's edition.
    """
    ordered = sorted(rows, key=lambda r: r["number"])
    numbers = [r["number"] for r in ordered]
    if len(numbers) != len(set(numbers)):
        dupes = sorted({n for n in numbers if numbers.count(n) > 1})
        raise SourceDataError(f"{repo} week {week_start}: duplicate PR numbers {dupes[:10]}")
    table = pa.Table.from_pylist(ordered, schema=PULL_REQUEST_SCHEMA)
    if metadata:
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), **metadata})
    target = join(partition_dir(lake_dir, repo, week_start), DATA_FILE)
    if _holds(target, table, set(observed_at)):
        return target
    buffer = pa.BufferOutputStream()
    pq.write_table(table, buffer, compression="zstd")
    write_bytes(target, buffer.getvalue().to_pybytes())
    return target


def _holds(target: Location, table: pa.Table, observed_at: set[str]) -> bool:
    """Whether the week file at `target` holds `table`'s rows and metadata, `observed_at` aside."""
    old_bytes = read_bytes(target)
    if old_bytes is None:
        return False
    try:
        old = pq.read_table(pa.BufferReader(old_bytes))
    except (pa.ArrowException, OSError):
        return False  # damaged: write it again

    def described(meta: Mapping[bytes, bytes] | None) -> dict[bytes, bytes]:
        skip = {key.encode() for key in observed_at} | {b"ARROW:schema"}
        return {k: v for k, v in (meta or {}).items() if k not in skip}

    same_meta = described(old.schema.metadata) == described(table.schema.metadata)
    return (
        same_meta
        and old.schema.remove_metadata() == table.schema.remove_metadata()
        and (old.replace_schema_metadata(None).equals(table.replace_schema_metadata(None)))
    )


def lake_glob(lake_dir: Location) -> str:
    """The glob DuckDB reads for the raw pull requests source."""
    return str(join(lake_dir, *WEEKS_DIR, "*", "*", DATA_FILE))
