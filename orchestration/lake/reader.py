"""How a model reads the lake: the files its layout allows, the compacted copies that check out,
and never a week the warehouse knows of but the lake has lost.

The files reach DuckDB as a list (a bound parameter), not a glob: a glob would also take junk
that happens to match it and fail on it (`week=latest` made every full build fail with
`invalid date field format: ""`), and would let a deleted week file vanish from a rebuild
without a word. What the layout does not allow is skipped and named in the run log.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

import duckdb

from orchestration.config import repo_of_slug
from orchestration.database import relation_exists
from orchestration.lake.compaction import ReadPlan, plan_full_read
from orchestration.lake.files import Listing, list_repository_files, list_week_files
from orchestration.storage import Location
from orchestration.text import plural

Say = Callable[[str], None]
SHOWN = 10  # at most this many paths in one message


class LakeError(RuntimeError):
    """The lake cannot give what the warehouse expects; the message says what and how to fix."""


def _say_nothing(_: str) -> None:
    return None


@dataclass
class LakeReader:
    """Lists the lake once per repository scope and says once what it skipped."""

    lake_dir: Location
    say: Say = _say_nothing
    _listings: dict[str | None, Listing] = field(default_factory=dict)
    _plans: dict[str | None, ReadPlan] = field(default_factory=dict)
    _by_repository: dict[tuple[str, str | None], list[str]] = field(default_factory=dict)

    def _say_skipped(self, skipped: list[str], layout: str) -> None:
        if skipped:
            shown = ", ".join(skipped[:SHOWN])
            more = len(skipped) - SHOWN
            self.say(
                f"skipped {plural(len(skipped), 'path')} in the lake that are not {layout}: {shown}"
                + (f" and {more} more" if more > 0 else "")
            )

    def listing(self, repo: str | None) -> Listing:
        if repo not in self._listings:
            listing = list_week_files(self.lake_dir, repo)
            self._say_skipped(
                listing.skipped, "week files (repo=<owner>__<name>/week=<monday>/data.parquet)"
            )
            self._listings[repo] = listing
        return self._listings[repo]

    def repository_files(self, folder: tuple[str, ...], repo: str | None) -> list[str]:
        """The files of a folder of one file per repository (`raw/history/`)."""
        key = ("/".join(folder), repo)
        if key not in self._by_repository:
            found, skipped = list_repository_files(self.lake_dir, folder, repo)
            self._say_skipped(skipped, f"{key[0]}/repo=<owner>__<name>/data.parquet")
            self._by_repository[key] = found
        return self._by_repository[key]

    def week_files(self, repo: str | None) -> list[str]:
        return self.listing(repo).paths()

    def plan(self, repo: str | None, use_copies: bool) -> ReadPlan:
        """The compacted copies (full reads only) and the week files a read takes."""
        if not use_copies:
            return ReadPlan([], self.week_files(repo))
        if repo not in self._plans:
            self._plans[repo] = plan_full_read(self.lake_dir, self.listing(repo), self.say)
        return self._plans[repo]

    def extracted(self, repo: str | None) -> set[tuple[str, date]]:
        listing = self.listing(repo)
        return {
            (repo_of_slug(slug), week) for slug, weeks in listing.weeks.items() for week in weeks
        }


def check_extracted_weeks(
    conn: duckdb.DuckDBPyConnection,
    relation: str,
    reader: LakeReader,
    repo: str | None,
    weeks: tuple[date, date] | None,
) -> None:
    """Fail, naming them, when weeks that `relation` (the warehouse's record of what was
    extracted) knows of have no file in the lake: a rebuild would silently drop them."""
    if not relation_exists(conn, relation):
        return
    known = conn.execute(
        f"select distinct lower(repo), week_start from {relation} "
        "where ($repo is null or repo = $repo) "
        "and ($first is null or week_start between $first and $last)",
        {"repo": repo, "first": weeks[0] if weeks else None, "last": weeks[1] if weeks else None},
    ).fetchall()
    missing = sorted(set(known) - reader.extracted(repo))
    if missing:
        shown = "; ".join(f"{r} week {w}" for r, w in missing[:SHOWN])
        repo0, week0 = missing[0]
        raise LakeError(
            f"{len(missing)} extracted week(s) have no file in the lake at {reader.lake_dir}: "
            f"{shown}{' and more' if len(missing) > SHOWN else ''}. A build would drop them "
            f"silently; extract them again, e.g. "
            f"`prweekly build --repo {repo0} --week {week0}`"
        )
