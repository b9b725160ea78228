"""The repositories prweekly reports on: `$PRWEEKLY_HOME/repositories.yml`.

The file is the source of truth a user edits (by hand or with `prweekly repo add`); Dagster's
dynamic `repo` partitions mirror it so the UI, backfills and the schedule see every repository.
An entry's `name` keeps the spelling the user typed first; its identity is the lower case, so
`Verl-Project/VERL` and `verl-project/verl` are one entry (`Repository.repo`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from orchestration.config import UsageError, canonical_repo, unknown_key, validate_repo
from orchestration.repositories.groups import Group, groups_of, kept_groups, parse_groups
from orchestration.repositories.targets import parse_deliver
from orchestration.storage import file_lock, write_bytes

FILE_NAME = "repositories.yml"
LOCK_NAME = f"{FILE_NAME}.lock"  # held for every read-modify-write of the file
# libyaml's safe loader and dumper where PyYAML has them: the same YAML, ten times faster
_BASE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
FILE_KEYS = ("groups", "repositories")  # groups: orchestration/repositories/groups.py
ENTRY_KEYS = ("name", "source", "core_paths", "area_rules", "deliver")


class DuplicateKey(yaml.YAMLError):
    """A mapping names a key twice: YAML would keep the last one and drop the first silently."""

    def __init__(self, key: str, line: int, first: int, entry: str | None) -> None:
        where = f"{entry}: " if entry else ""
        super().__init__(f"{where}{key} appears twice (lines {first} and {line}): keep one")
        self.key, self.line = key, line


class _StrictLoader(_BASE_LOADER):  # type: ignore[misc, valid-type]
    """YAML's safe loader, refusing a key written twice in one mapping."""

    def construct_mapping(self, node, deep=False):  # PyYAML calls it for every mapping
        seen: dict[object, int] = {}
        for key_node, _value in node.value:
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            if isinstance(key, str | int | float | bool) and key in seen:
                raise DuplicateKey(str(key), line, seen[key], _name_in(node))
            if isinstance(key, str | int | float | bool):
                seen[key] = line
        return super().construct_mapping(node, deep=deep)


def _name_in(node: yaml.MappingNode) -> str | None:
    """The `name:` of a repository's entry, to say which entry a mistake is in."""
    for key_node, value_node in node.value:
        if getattr(key_node, "value", None) == "name" and isinstance(value_node, yaml.ScalarNode):
            return str(value_node.value)
    return None


HEADER = (
    "# Repositories prweekly reports on. Edit by hand or with `prweekly repo add/remove`.\n"
    "# Optional per repository: source (github or file:PATH), core_paths (path prefixes that\n"
    "# count as core) and area_rules (path prefix -> area, checked before the directory layout).\n"
    "# groups: (optional, first) lists repositories reported on together (docs/operations.md).\n"
)


@dataclass
class Repository:
    name: str
    source: str | None = None
    core_paths: list[str] = field(default_factory=list)
    area_rules: dict[str, str] = field(default_factory=dict)
    deliver: dict | None = None  # as written; checked on reading (orchestration.delivery)

    @property
    def repo(self) -> str:
        """The repository's identity: partitions, lake folders and warehouse rows use it."""
        return canonical_repo(self.name)

    def absorb(self, other: Repository) -> None:
        """Take `other`'s settings where this entry has none (this entry's own come first)."""
        self.source = self.source or other.source
        self.core_paths = sorted(set(self.core_paths) | set(other.core_paths))
        self.area_rules = {**other.area_rules, **self.area_rules}
        self.deliver = self.deliver or other.deliver

    def to_yaml(self) -> dict:
        entry: dict = {"name": self.name}
        if self.source:
            entry["source"] = self.source
        if self.core_paths:
            entry["core_paths"] = list(self.core_paths)
        if self.area_rules:
            entry["area_rules"] = dict(self.area_rules)
        if self.deliver:
            entry["deliver"] = self.deliver
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


def load_registry(home: Path) -> tuple[list[Repository], object, bool]:
    """The repositories (as `load_repositories`), the `groups:` block as written, and whether
    the file has one (orchestration.repositories.groups reads it)."""
    entries, doc = _read(home)
    return _unique(entries), doc.get("groups"), "groups" in doc


def _read_entries(home: Path) -> list[Repository]:
    return _read(home)[0]


def _read_doc(path: Path) -> dict:
    try:
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=_StrictLoader) or {}
    except DuplicateKey as exc:
        raise UsageError(f"{path}:{exc.line}: {exc}") from None
    except yaml.YAMLError as exc:
        raise UsageError(f"{path} is not valid YAML: {' '.join(str(exc).split())}") from None
    if not isinstance(doc, dict):
        raise UsageError(f"{path}: expected `repositories:` and a list of entries")
    return doc


def _read(home: Path) -> tuple[list[Repository], dict]:
    path = registry_path(home)
    if not path.exists():
        return [], {}
    doc = _read_doc(path)
    for key in doc:
        if key not in FILE_KEYS:
            raise UsageError(f"{path}: {unknown_key(key, FILE_KEYS)}")
    entries = doc.get("repositories") or []
    if not isinstance(entries, list):
        raise UsageError(f"{path}: repositories must be a list of entries (`- name: owner/name`)")
    repos: list[Repository] = []
    lines: dict[str, int] = {}
    for index, entry in enumerate(entries, start=1):
        repo = _entry(path, index, entry)
        if repo.name in lines:
            raise UsageError(
                f"{path}: {repo.name} (entry #{index}) is listed twice (also entry "
                f"#{lines[repo.name]}): keep one entry and put its settings together"
            )
        lines[repo.name] = index
        repos.append(repo)
    if "groups" in doc:  # checked whenever the file is read, like every other block
        parse_groups(path, doc["groups"] or [], [r.repo for r in repos])
    return repos, doc


def _entry(path: Path, index: int, entry: object) -> Repository:
    """One `- name: …` entry, checked; every mistake is one line naming the file and entry."""
    if isinstance(entry, str):
        entry = {"name": entry}
    if not isinstance(entry, dict) or "name" not in entry:
        raise UsageError(f"{path}: repository #{index} needs a `name: owner/name`")
    name = str(entry["name"])
    try:
        validate_repo(name)
    except UsageError as exc:
        raise UsageError(f"{path}: {exc}") from None
    where = f"{path}: {name}"
    for key in entry:
        if key not in ENTRY_KEYS:
            raise UsageError(f"{where}: {unknown_key(key, ENTRY_KEYS)}")
    source = entry.get("source")
    if source is not None and not isinstance(source, str):
        raise UsageError(f"{where}: source must be github or file:PATH, not {source!r}")
    cores = entry.get("core_paths") or []
    if isinstance(cores, str) or not isinstance(cores, list):
        raise UsageError(f"{where}: core_paths must be a list of path prefixes, e.g. [src/core/]")
    rules = entry.get("area_rules") or {}
    if not isinstance(rules, dict):
        raise UsageError(f"{where}: area_rules must map path prefixes to areas")
    parse_deliver(entry.get("deliver"), where)  # a clear error early
    return Repository(
        name=name,
        source=source,
        core_paths=[str(p) for p in cores],
        area_rules={str(k): str(v) for k, v in rules.items()},
        deliver=entry.get("deliver"),
    )


def save_repositories(home: Path, repos: list[Repository]) -> Path:
    """Write the registry atomically, sorted by name; its `groups:` block is kept, without
    the repositories no longer registered."""
    path = registry_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc: dict = {}
    if path.exists() and "groups" in (old := _read_doc(path)):
        doc["groups"] = kept_groups(old["groups"], [r.repo for r in repos])
    doc["repositories"] = [r.to_yaml() for r in sorted(repos, key=lambda r: r.name.lower())]
    body = yaml.dump(
        doc,
        Dumper=_DUMPER,
        sort_keys=False,
        allow_unicode=True,
    )
    write_bytes(path, (HEADER + body).encode("utf-8"))
    return path


_held = threading.local()  # the registries this thread holds the lock of


@contextmanager
def registry_lock(home: Path) -> Iterator[None]:
    """Hold the registry for a read-modify-write: writers in other processes wait their turn,
    so none of them saves a file that misses what another has just added or removed.

    Re-entrant within a thread (an flock taken again through another descriptor would wait for
    itself), so a caller can hold it around a check and the write it decides."""
    path = home / LOCK_NAME
    held: set[Path] = _held.__dict__.setdefault("paths", set())
    if path in held:
        yield
        return
    with file_lock(path):
        held.add(path)
        try:
            yield
        finally:
            held.discard(path)


def find(repos: list[Repository], name: str) -> Repository | None:
    return next((r for r in repos if r.repo == canonical_repo(name)), None)


def merge_spellings(home: Path) -> dict[str, list[str]]:
    """Rewrite the file with one entry per repository if some repository has entries under
    several spellings (an older prweekly kept them apart); {repo: the spellings merged}.
    The read and the write are one read-modify-write under the registry's lock, like every
    other, so an entry another process adds meanwhile is kept."""
    if not registry_path(home).exists():  # nothing to merge: no lock file in a fresh home
        return {}
    with registry_lock(home):
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
    with registry_lock(home):
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


def source_of(home: Path, name: str) -> str | None:
    """The source registered for `name`, if any."""
    entry = find(load_repositories(home), name)
    return entry.source if entry else None


def record_build(
    home: Path, name: str, source: str | None, wanted: Callable[[], bool] = lambda: True
) -> str | None:
    """After a build's extract worked: register `name`, or record the `source` the build was
    given (`build --source`), so every later run of it reads the same. Says what it did.

    `wanted` is asked under the lock: a repository removed while it built (`prweekly repo
    remove` waits for the run, then takes it out) is not brought back."""
    validate_repo(name)
    with registry_lock(home):  # the check and the write are one read-modify-write
        existing = find(load_repositories(home), name)
        if existing is not None and (not source or source == existing.source):
            return None
        if not wanted():
            return f"not registered: {name} was removed while it built"
        upsert(home, Repository(name, source))
    if existing is None:
        return f"registered {name} in {registry_path(home)}"
    return f"recorded {name}'s source {source} in {registry_path(home)}"


def remove(home: Path, name: str) -> bool:
    with registry_lock(home):
        repos = load_repositories(home)
        kept = [r for r in repos if r.repo != canonical_repo(name)]
        if len(kept) == len(repos):
            return False
        save_repositories(home, kept)
        return True


def load_groups(home: Path) -> list[Group]:
    """Every group of the registry at `home` (configured, or one per owner)."""
    repos, raw, present = load_registry(home)
    return groups_of(registry_path(home), raw, present, [r.repo for r in repos])
