"""Groups of repositories, each with a week's report across them: `groups:` in repositories.yml.

```yaml
groups:
- name: ml-infra                      # lower case letters, digits, '.', '_' and '-'
  repositories: [verl-project/verl, pola-rs/polars, acme/rocket]
  deliver: {...}                      # optional: like a repository's, at the group level
repositories:
- ...
```

Without `groups:`, each owner with more than one registered repository is a group named after
it; `groups: []` turns groups off. Every mistake (an unknown key, a group named twice, a
repository that is not registered) is one line naming the file and the group.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from orchestration.config import UsageError, canonical_repo, unknown_key, validate_repo
from orchestration.repositories.targets import DeliverySettings, GitHubTarget, parse_deliver

GROUP_KEYS = ("name", "repositories", "deliver")
_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
LEDGER_PREFIX = "group:"  # a group's rows in publish.editions and the delivery ledger


@dataclass(frozen=True)
class Group:
    name: str  # lower case; the folder reports/groups/<name>/
    repositories: tuple[str, ...]  # identities (lower case), in the order written
    deliver: dict | None = None  # as written; `delivery` is it checked
    configured: bool = True  # False: one of the default groups, one per owner

    @property
    def key(self) -> str:
        """Its name in the warehouse's editions and delivery ledger (never a repository's)."""
        return f"{LEDGER_PREFIX}{self.name}"

    @property
    def owner(self) -> str | None:
        """The owner of all its repositories, when they share one."""
        owners = {repo.split("/", 1)[0] for repo in self.repositories}
        return owners.pop() if len(owners) == 1 else None

    def delivery(self, where: str = "group") -> DeliverySettings:
        """The checked `deliver:` block; a GitHub target posts to its `repository`, by default
        the owner's `.github` repository (the organisation's own)."""
        settings = parse_deliver(self.deliver, f"{where} {self.name}", group=True)
        targets = []
        for target in settings.targets:
            if isinstance(target, GitHubTarget) and target.repository is None:
                if self.owner is None:
                    raise UsageError(
                        f"{where} {self.name}: deliver: github: its repositories have several "
                        "owners: say where to post with repository: owner/.github"
                    )
                target = replace(target, repository=f"{self.owner}/.github")
            targets.append(target)
        return replace(settings, targets=tuple(targets))


def default_groups(repos: list[str]) -> list[Group]:
    """One group per owner with more than one repository, named after the owner."""
    by_owner: dict[str, list[str]] = {}
    for repo in repos:
        by_owner.setdefault(repo.split("/", 1)[0], []).append(repo)
    return [
        Group(owner, tuple(sorted(members)), configured=False)
        for owner, members in sorted(by_owner.items())
        if len(members) > 1
    ]


def parse_groups(path: Path, raw: object, registered: list[str]) -> list[Group]:
    """The `groups:` block, checked against the registered repositories (identities)."""
    if not isinstance(raw, list):
        raise UsageError(f"{path}: groups must be a list of `- name: ...` entries")
    known = set(registered)
    groups: list[Group] = []
    seen: dict[str, int] = {}
    for index, entry in enumerate(raw, start=1):
        if not isinstance(entry, dict) or "name" not in entry:
            raise UsageError(f"{path}: group #{index} needs a `name:`")
        name = str(entry["name"])
        if not _NAME.fullmatch(name):
            raise UsageError(
                f"{path}: group name {name!r} must be lower case letters, digits, '.', '_' or "
                "'-' (at most 64, starting with a letter or digit): it names a folder"
            )
        where = f"{path}: group {name}"
        for key in entry:
            if key not in GROUP_KEYS:
                raise UsageError(f"{where}: {unknown_key(key, GROUP_KEYS)}")
        if name in seen:
            raise UsageError(
                f"{where} (group #{index}) is listed twice (also group #{seen[name]}): keep one"
            )
        seen[name] = index
        members = entry.get("repositories")
        if isinstance(members, str) or not isinstance(members, list) or not members:
            raise UsageError(f"{where}: repositories must list owner/name entries")
        repos: list[str] = []
        for member in members:
            try:
                repo = canonical_repo(validate_repo(str(member)))
            except UsageError as exc:
                raise UsageError(f"{where}: {exc}") from None
            if repo not in known:
                raise UsageError(
                    f"{where}: {member} is not registered: add it under repositories: "
                    f"(prweekly repo add {member}) or take it out of the group"
                )
            if repo in repos:
                raise UsageError(f"{where}: {member} is listed twice")
            repos.append(repo)
        group = Group(name, tuple(repos), entry.get("deliver"))
        group.delivery(where=str(path) + ": group")  # a clear error early
        groups.append(group)
    return groups


def groups_of(path: Path, raw: object, present: bool, registered: list[str]) -> list[Group]:
    """The groups the file configures (`present`: it has `groups:`), else the defaults."""
    if not present:
        return default_groups(registered)
    return parse_groups(path, raw or [], registered)


def kept_groups(raw: object, registered: list[str]) -> list[dict]:
    """The `groups:` block as written, without the repositories no longer registered (a group
    left with none is dropped), for writing the file back."""
    known = set(registered)
    kept = []
    for entry in raw if isinstance(raw, list) else []:
        members = [m for m in entry.get("repositories") or [] if _identity(m) in known]
        if members:
            kept.append({**entry, "repositories": members})
    return kept


def _identity(name: object) -> str | None:
    try:
        return canonical_repo(str(name))
    except UsageError:
        return None


def groups_with(groups: list[Group], repos: set[str]) -> list[Group]:
    """The groups holding any of `repos`."""
    return [g for g in groups if repos & set(g.repositories)]
