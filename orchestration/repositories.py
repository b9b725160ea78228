"""The repositories prweekly reports on: `$PRWEEKLY_HOME/repositories.yml`.

The file is the source of truth a user edits (by hand or with `prweekly repo add`); Dagster's
dynamic `repo` partitions mirror it so the UI, backfills and the schedule see every repository.
An entry's `name` keeps the spelling the user typed first; its identity is the lower case, so
`Verl-Project/VERL` and `verl-project/verl` are one entry (`Repository.repo`).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from orchestration.config import UsageError, canonical_repo, validate_repo

FILE_NAME = "repositories.yml"
HEADER = (
    "# Repositories prweekly reports on. Edit by hand or with `prweekly repo add/remove`.\n"
    "# Optional per repository: source (github or file:PATH), core_paths (path prefixes that\n"
    "# count as core) and area_rules (path prefix -> area, checked before the directory layout).\n"
)


@dataclass
class Repository:
    name: str
    source: str | None = None
    core_paths: list[str] = field(default_factory=list)
    area_rules: dict[str, str] = field(default_factory=dict)

    @property
    def repo(self) -> str:
        """The repository's identity: partitions, lake folders and warehouse rows use it."""
        return canonical_repo(self.name)

    def absorb(self, other: Repository) -> None:
        """Take `other`'s settings where this entry has none (this entry's own come first)."""
        self.source = self.source or other.source
        self.core_paths = sorted(set(self.core_paths) | set(other.core_paths))
        self.area_rules = {**other.area_rules, **self.area_rules}

    def to_yaml(self) -> dict:
        entry: dict = {"name": self.name}
        if self.source:
            entry["source"] = self.source
        if self.core_paths:
            entry["core_paths"] = list(self.core_paths)
        if self.area_rules:
            entry["area_rules"] = dict(self.area_rules)
        return entry


def registry_path(home: Path) -> Path:
    return home / FILE_NAME


def load_repositories(home: Path) -> list[Repository]:
    """Read the registry; a missing file means no repository yet. Entries that differ only in
    letter case are one repository: the first one absorbs the others' settings."""
    return _unique(_read_entries(home))


def _unique(repos: list[Repository]) -> list[Repository]:
    by_repo: dict[str, Repository] = {}
    for entry in repos:
        if entry.repo in by_repo:
            by_repo[entry.repo].absorb(entry)
        else:
            by_repo[entry.repo] = entry
    return list(by_repo.values())


def _read_entries(home: Path) -> list[Repository]:
    path = registry_path(home)
    if not path.exists():
        return []
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise UsageError(f"{path} is not valid YAML: {' '.join(str(exc).split())}") from None
    repos = []
    for index, entry in enumerate(doc.get("repositories") or [], start=1):
        if isinstance(entry, str):
            entry = {"name": entry}
        if not isinstance(entry, dict) or "name" not in entry:
            raise UsageError(f"{path}: repository #{index} needs a `name: owner/name`")
        try:
            validate_repo(str(entry["name"]))
        except UsageError as exc:
            raise UsageError(f"{path}: {exc}") from None
        rules = entry.get("area_rules") or {}
        if not isinstance(rules, dict):
            raise UsageError(f"{path}: {entry['name']}: area_rules must map path prefixes to areas")
        repos.append(
            Repository(
                name=str(entry["name"]),
                source=entry.get("source"),
                core_paths=[str(p) for p in entry.get("core_paths") or []],
                area_rules={str(k): str(v) for k, v in rules.items()},
            )
        )
    return repos


def save_repositories(home: Path, repos: list[Repository]) -> Path:
    """Write the registry atomically, sorted by name."""
    path = registry_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    body = yaml.safe_dump(
        {"repositories": [r.to_yaml() for r in sorted(repos, key=lambda r: r.name.lower())]},
        sort_keys=False,
        allow_unicode=True,
    )
    fd, tmp = tempfile.mkstemp(prefix=f".{FILE_NAME}.", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(HEADER + body)
    os.replace(tmp, path)
    return path


def find(repos: list[Repository], name: str) -> Repository | None:
    return next((r for r in repos if r.repo == canonical_repo(name)), None)


def merge_spellings(home: Path) -> dict[str, list[str]]:
    """Rewrite the file with one entry per repository if some repository has entries under
    several spellings (an older prweekly kept them apart); {repo: the spellings merged}."""
    entries = _read_entries(home)
    unique = _unique(entries)
    kept = {r.repo: r.name for r in unique}
    merged: dict[str, list[str]] = {}
    for entry in entries:
        if entry.name != kept[entry.repo]:
            merged.setdefault(entry.repo, []).append(entry.name)
    if merged:
        save_repositories(home, unique)
    return merged


def upsert(home: Path, repo: Repository) -> tuple[Repository, bool]:
    """Add `repo`, or merge its settings into an existing entry. Returns (entry, created)."""
    validate_repo(repo.name)
    repos = load_repositories(home)
    existing = find(repos, repo.name)
    if existing is None:
        repos.append(repo)
        save_repositories(home, repos)
        return repo, True
    existing.source = repo.source or existing.source
    existing.core_paths = sorted(set(existing.core_paths) | set(repo.core_paths))
    existing.area_rules = {**existing.area_rules, **repo.area_rules}
    save_repositories(home, repos)
    return existing, False


def remove(home: Path, name: str) -> bool:
    repos = load_repositories(home)
    kept = [r for r in repos if r.repo != canonical_repo(name)]
    if len(kept) == len(repos):
        return False
    save_repositories(home, kept)
    return True
