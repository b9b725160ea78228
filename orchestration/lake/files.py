"""The lake's week files as its layout allows them, and everything else in it, named.

A week file is `raw/pull_requests/repo=<owner>__<name>/week=<monday>/data.parquet`, with the
folder names exactly as prweekly writes them (a repository's lower-case slug, an ISO date that
is a Monday). Anything else under `raw/pull_requests/` (a `week=latest` folder, a stray text
file, a copy left by hand) is not read, and is listed in `skipped` so the build can say so:
one junk file must neither break every build nor slip into one unnoticed. A write in progress
(`.data.*.tmp` beside a week file) is neither read nor reported. The same holds for the
folders of one file per repository, `raw/history/repo=<owner>__<name>/data.parquet`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache

from orchestration.config import UsageError, repo_of_slug, repo_slug
from orchestration.lake.layout import DATA_FILE, WEEKS_DIR
from orchestration.storage import Location, filesystem_of, join, list_files

_IN_FLIGHT = re.compile(r"\.data\..+\.tmp")


@dataclass(frozen=True)
class WeekFile:
    """One week file as listed: its path for DuckDB, and what identifies this version of it."""

    path: str
    size: int
    mtime_ns: int | None
    etag: str | None = None  # an object store's version of it (local files have none)

    @property
    def stamp(self) -> list[int] | None:
        return None if self.mtime_ns is None else [self.size, self.mtime_ns]


@dataclass
class Listing:
    """The week files by repository slug and week, and the paths that are not week files."""

    weeks: dict[str, dict[date, WeekFile]] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)

    def paths(self) -> list[str]:
        return [f.path for _, weeks in sorted(self.weeks.items()) for _, f in sorted(weeks.items())]


# a folder name's meaning, worked out once per name: a lake of a million PRs has 100,000
# week files in 1,000 repository folders and 100 week folders (its listing spent 40% here)
@lru_cache(maxsize=65536)
def _slug(folder: str) -> str | None:
    slug = folder.removeprefix("repo=")
    try:
        return (
            slug if folder.startswith("repo=") and repo_slug(repo_of_slug(slug)) == slug else None
        )
    except UsageError:
        return None


@lru_cache(maxsize=65536)
def _week(folder: str) -> date | None:
    try:
        week = date.fromisoformat(folder.removeprefix("week="))
    except ValueError:
        return None
    ok = folder.startswith("week=") and week.weekday() == 0 and folder == f"week={week}"
    return week if ok else None


def _walk(lake_dir: Location, folder: tuple[str, ...], repo: str | None):
    """(path parts under `folder`, file info, URI prefix) of every file there (or under the
    repository's own folder)."""
    root = join(lake_dir, *folder)
    base = root if repo is None else join(root, f"repo={repo_slug(repo)}")
    _, root_path, _ = filesystem_of(root)
    found, prefix = list_files(base)
    for info in found:
        parts = info.path.replace("\\", "/")[len(root_path) :].strip("/").split("/")
        yield parts, info, prefix


def list_week_files(lake_dir: Location, repo: str | None = None) -> Listing:
    """Every week file of the lake (or of one repository), and what the layout does not allow."""
    listing = Listing()
    for parts, info, prefix in _walk(lake_dir, WEEKS_DIR, repo):
        slug, week = (_slug(parts[0]), _week(parts[1])) if len(parts) == 3 else (None, None)
        if slug is None or week is None:
            listing.skipped.append(prefix + info.path)
        elif parts[2] == DATA_FILE:
            found = WeekFile(prefix + info.path, info.size, info.mtime_ns, info.etag)
            listing.weeks.setdefault(slug, {})[week] = found
        elif not _IN_FLIGHT.fullmatch(parts[2]):
            listing.skipped.append(prefix + info.path)
    listing.skipped.sort()
    return listing


def list_repository_files(
    lake_dir: Location, folder: tuple[str, ...], repo: str | None = None
) -> tuple[list[str], list[str]]:
    """The files of a folder that holds one file per repository (`raw/history/repo=<owner>__
    <name>/data.parquet`), and the paths there its layout does not allow."""
    found, skipped = [], []
    for parts, info, prefix in _walk(lake_dir, folder, repo):
        slug = _slug(parts[0]) if len(parts) == 2 else None
        if slug is not None and parts[1] == DATA_FILE:
            found.append(prefix + info.path)
        elif slug is None or not _IN_FLIGHT.fullmatch(parts[1]):
            skipped.append(prefix + info.path)
    return sorted(found), sorted(skipped)
