"""The source-resolution hook the lake registers with the model runner.

`sql/sources.yml` names a lake folder (`lake: pull_requests`); this hook turns it into the
files a model may read: in an incremental run only its repository's folder (DuckDB would
otherwise list every file of every repository, 100,000 at scale, before any filter applies),
in a full build of a table each repository's compacted copy and the week files it leaves out
(`orchestration/lake/compaction.py`). Before a read it makes sure no week the warehouse knows of is
missing from the lake. The `settings` source is the repositories' own settings
(`repositories.yml`), loaded into the warehouse before a model reads them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orchestration.lake.compaction import ReadPlan
from orchestration.lake.layout import FOLDERS
from orchestration.lake.reader import LakeError, LakeReader, check_extracted_weeks
from orchestration.models.scope import Scope
from orchestration.models.sources import BuildContext, SourceHooks, SourceRequest
from orchestration.repositories.settings import SCHEMA, SETTINGS_RELATIONS, load_repository_settings
from orchestration.storage import Location


def lake_sources(lake_dir: Location, home: Path) -> SourceHooks:
    """The hooks a build of prweekly's SQL project resolves its sources with.

    The lake is listed (and its compacted copies checked) once for every model these hooks
    resolve: a full build's models read the same listing, which at a million PRs is 100,000
    week files and a second of CPU each time. Make new hooks for a build after the lake
    changed."""
    reader = LakeReader(lake_dir)
    return {
        "github": lambda context: _LakeResolver(lake_dir, context, reader),
        "settings": lambda context: _SettingsResolver(home, context),
    }


def _repos(scope: Scope | None) -> list[str | None]:
    """The repositories whose files a read lists one by one (None: every repository's)."""
    repos = scope.values.get("repo", ()) if scope else ()
    return list(repos) or [None]


class _LakeResolver:
    def __init__(self, lake_dir: Location, context: BuildContext, reader: LakeReader) -> None:
        self.lake_dir = lake_dir
        self.context = context
        reader.say = context.say  # what it skips is said in the log of the model that lists
        self.reader = reader

    def __call__(self, request: SourceRequest) -> str:
        spec = request.spec
        folder = FOLDERS[spec["lake"]]
        repos = _repos(request.scope)
        if len(repos) > 1:  # several repositories in one run: each one's own files
            return self._several(request, repos)
        (repo,) = repos
        self._check_extracted(spec, request.scope, repo)
        if not any(key == "week" for key, _ in folder.keys):  # one file per repository
            listed = self.reader.repository_files(folder.parts, repo)
            if not listed and spec.get("optional"):  # nothing learnt yet: no rows
                return _no_rows(spec["optional"])
            if not listed:
                raise LakeError(
                    f"the lake at {self.lake_dir} holds no {'/'.join(folder.parts)} files yet"
                )
            read = request.bind_texts(f"lake_{request.table}_files", listed)
            return f"read_parquet({read}, {folder.hive_options()})"
        if spec.get("format") == "file_list":
            listed = request.bind_texts("lake_partition_files", self.reader.week_files(repo))
            return f"(select unnest({listed}) as file)"
        # a full build of a table reads the compacted copies (a view would freeze the plan)
        compacted = spec.get("compacted") and request.scope is None
        plan = self.reader.plan(repo, bool(compacted and request.materialized != "view"))
        if not plan.compacted and not plan.weekly:
            where = f" for {repo}" if repo else ""
            raise LakeError(f"the lake at {self.lake_dir} holds no week files{where} yet")
        return _lake_read(plan, folder.hive_options(), request)

    def _several(self, request: SourceRequest, repos: list[str | None]) -> str:
        """An incremental read of several repositories: their files, listed each on its own
        (the rest of the lake is never listed); a repository without any reads no rows."""
        spec, folder = request.spec, FOLDERS[request.spec["lake"]]
        for repo in repos:
            self._check_extracted(spec, request.scope, repo)
        if not any(key == "week" for key, _ in folder.keys):
            listed = [f for r in repos for f in self.reader.repository_files(folder.parts, r)]
            if not listed and spec.get("optional"):
                return _no_rows(spec["optional"])
            if not listed:
                raise LakeError(f"the lake at {self.lake_dir} holds no history for {repos} yet")
            read = request.bind_texts(f"lake_{request.table}_files", listed)
            return f"read_parquet({read}, {folder.hive_options()})"
        weekly = [f for r in repos for f in self.reader.week_files(r)]
        if spec.get("format") == "file_list":
            return f"(select unnest({request.bind_texts('lake_partition_files', weekly)}) as file)"
        if not weekly:
            raise LakeError(f"the lake at {self.lake_dir} holds no week files for {repos} yet")
        return _lake_read(ReadPlan([], weekly), folder.hive_options(), request)

    def _check_extracted(self, spec: dict, scope: Scope | None, repo: str | None) -> None:
        """Fail when a week the warehouse knows of has no file (a read would drop it)."""
        known = spec.get("extracted_weeks")
        if not known:
            return
        try:
            relation = self.context.relation_of(known)
        except KeyError:  # a project without that model
            return
        weeks = scope.ranges.get("week_start") if scope else None
        check_extracted_weeks(self.context.conn, relation, self.reader, repo, weeks)


def _lake_read(plan: ReadPlan, hive_options: str, request: SourceRequest) -> str:
    """The compacted copies and the week files they leave out, as one relation.

    A copy holds the same columns as the week files read with their folder keys, so the two
    stack by name. The file lists are parameters: a full build may list thousands.
    """
    parts = []
    if plan.compacted:
        copies = request.bind_texts("lake_compacted_files", plan.compacted)
        parts.append(f"select * from read_parquet({copies}, hive_partitioning = false)")
    if plan.weekly:
        weeks = request.bind_texts("lake_week_files", plan.weekly)
        parts.append(f"select * from read_parquet({weeks}, {hive_options})")
    if len(parts) == 1:
        return parts[0].removeprefix("select * from ")
    return "(" + "\n    union all by name\n    ".join(parts) + ")"


def _no_rows(columns: dict[str, str]) -> str:
    """An optional source with no file yet: its declared columns and no rows."""
    typed = ", ".join(f"cast(null as {kind}) as {name}" for name, kind in columns.items())
    return f"(select {typed} where false)"


@dataclass
class _SettingsResolver:
    """Loads repositories.yml into the warehouse once per model that reads it."""

    home: Path
    context: BuildContext
    loaded: bool = field(default=False)

    def __call__(self, request: SourceRequest) -> Any:
        if not self.loaded:
            for relation in SETTINGS_RELATIONS:
                self.context.before_write(relation)
            load_repository_settings(self.context.conn, self.home)
            self.loaded = True
        return f"{SCHEMA}.{request.table}"
