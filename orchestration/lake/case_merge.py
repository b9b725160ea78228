"""Merge what an older prweekly kept under a second spelling of a repository into one identity.

Before repository names were case-folded, `prweekly build --repo ACME/Rocket` beside
`acme/rocket` made a second repository: its own lake folder, reports folder, registry entry and
Dagster partition, and its own rows in the warehouse. The next build merges them: week files,
history records (`raw/history/`) and report files move to the lower-case folder (where both
spellings hold the same file, the newer wins, as a rerun of that week would have), registry
entries are joined under the registry's lock (the first entry's spelling and settings first),
and partitions are renamed. The warehouse is then rebuilt from the merged lake (see
`warehouse_needs_rebuild`). Every merge is said once, naming both spellings.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

import dagster as dg
import duckdb
import pyarrow.fs as pafs

from orchestration.config import Settings, UsageError, canonical_repo, repo_of_slug, repo_slug
from orchestration.lake.layout import COMPACTED_DIR, HISTORY_DIR, WEEKS_DIR
from orchestration.repositories.registry import merge_spellings
from orchestration.storage import Location, filesystem_of, join

Say = Callable[[str], None]


def _variant_folders(filesystem: pafs.FileSystem, root: str, prefix: str) -> dict[str, str]:
    """{folder: its repository's slug} for the repository folders under `root` that are not
    spelt in lower case."""
    found = {}
    for info in filesystem.get_file_info(pafs.FileSelector(root, allow_not_found=True)):
        name = info.base_name
        if info.type != pafs.FileType.Directory or not name.startswith(prefix):
            continue
        slug = name.removeprefix(prefix)
        if slug != slug.lower():
            try:
                found[name] = repo_slug(repo_of_slug(slug.lower()))
            except UsageError:  # not a repository's folder at all: the lake reader names it
                continue
    return found


def _merge_folder(filesystem: pafs.FileSystem, source: str, target: str) -> int:
    """Move every file of `source` into `target`, keeping the newer of two files of one name."""
    moved = 0
    for info in filesystem.get_file_info(pafs.FileSelector(source, recursive=True)):
        if info.type != pafs.FileType.File:
            continue
        destination = target + info.path[len(source) :]
        existing = filesystem.get_file_info(destination)
        if existing.type == pafs.FileType.File and (existing.mtime_ns or 0) >= (info.mtime_ns or 0):
            filesystem.delete_file(info.path)
            continue
        filesystem.create_dir(destination.rsplit("/", 1)[0], recursive=True)
        filesystem.move(info.path, destination)
        moved += 1
    filesystem.delete_dir(source)
    return moved


def _spelling(slug: str) -> str:
    owner, _, name = slug.partition("__")
    return f"{owner}/{name}"


class _Merges:
    """What was merged into each repository, from which spellings."""

    def __init__(self) -> None:
        self.spellings: dict[str, set[str]] = defaultdict(set)
        self.what: dict[str, list[str]] = defaultdict(list)

    def add(self, repo: str, spelling: str, what: str) -> None:
        self.spellings[repo].add(spelling)
        self.what[repo].append(what)

    def messages(self) -> list[str]:
        return [
            f"merged {', '.join(sorted(self.spellings[repo]))} into {repo} "
            f"(one repository on GitHub): {', '.join(self.what[repo])}"
            for repo in sorted(self.spellings)
        ]


def _merge_tree(base: Location, prefix: str, kind: str, merges: _Merges) -> None:
    filesystem, root, _ = filesystem_of(base)
    for name, slug in _variant_folders(filesystem, root, prefix).items():
        try:
            count = _merge_folder(filesystem, f"{root}/{name}", f"{root}/{prefix}{slug}")
        except FileNotFoundError:  # another build merged it meanwhile
            continue
        merges.add(repo_of_slug(slug), _spelling(name.removeprefix(prefix)), f"{count} {kind}")


def _drop_variant_copies(lake_dir: Location) -> None:
    """Compacted copies are a cache: those of a second spelling are simply removed."""
    filesystem, root, _ = filesystem_of(join(lake_dir, *COMPACTED_DIR))
    for info in filesystem.get_file_info(pafs.FileSelector(root, allow_not_found=True)):
        stem = info.base_name.split(".", 1)[0]
        if stem == stem.lower():
            continue
        if info.type == pafs.FileType.Directory:
            filesystem.delete_dir(info.path)
        else:
            filesystem.delete_file(info.path)


def _merge_partitions(instance: dg.DagsterInstance, merges: _Merges) -> None:
    from orchestration.assets import repo_partitions

    keys = instance.get_dynamic_partitions(repo_partitions.name)
    for key in keys:
        try:
            canonical = canonical_repo(key)
        except UsageError:
            continue
        if key != canonical:
            if canonical not in keys:
                instance.add_dynamic_partitions(repo_partitions.name, [canonical])
            instance.delete_dynamic_partition(repo_partitions.name, key)
            merges.add(canonical, key, "its Dagster partition")


def merge_case_variants(
    settings: Settings, instance: dg.DagsterInstance | None, say: Say
) -> list[str]:
    """Merge every second spelling in the home into its repository; say and return what."""
    merges = _Merges()
    _merge_tree(join(settings.lake_dir, *WEEKS_DIR), "repo=", "week file(s)", merges)
    _merge_tree(join(settings.lake_dir, *HISTORY_DIR), "repo=", "history record(s)", merges)
    _merge_tree(settings.reports_dir, "", "report file(s)", merges)
    _drop_variant_copies(settings.lake_dir)
    for repo, names in merge_spellings(settings.home).items():
        for name in names:
            merges.add(repo, name, "its entry in repositories.yml")
    if instance is not None:
        _merge_partitions(instance, merges)
    messages = merges.messages()
    for message in messages:
        say(message)
    return messages


def warehouse_needs_rebuild(conn: duckdb.DuckDBPyConnection) -> bool:
    """True when the warehouse still holds rows under a second spelling of a repository:
    its models are then rebuilt in full from the merged lake."""
    try:
        (count,) = conn.execute(
            "select count(*) from staging.stg_weekly_partitions where repo <> lower(repo)"
        ).fetchone()
    except duckdb.CatalogException:  # no warehouse yet
        return False
    return count > 0
