"""Settings read from the environment, so tests and deployments only change variables."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from orchestration.storage import Location, location

PROJECT_DIR = Path(__file__).resolve().parent.parent
SQL_DIR = PROJECT_DIR / "sql"
TEMPLATES_DIR = PROJECT_DIR / "reports" / "templates"
DEFAULT_GRAPHQL_URL = "https://api.github.com/graphql"

# What GitHub accepts: an owner is letters, digits and single hyphens inside (no `_`, at most
# 39 characters); a repository name is letters, digits, `-`, `_` and `.` (at most 100), but not
# `.` or `..`. An owner without `_` makes `owner__name` reversible: the first `__` splits it.
_OWNER = r"[A-Za-z0-9](?:-?[A-Za-z0-9]){0,38}"
_NAME = r"[A-Za-z0-9._-]{1,100}"
_REPO_RE = re.compile(rf"({_OWNER})/({_NAME})")


class UsageError(ValueError):
    """Bad input from the user: printed as one line, never as a traceback."""


def validate_repo(repo: str) -> str:
    """Return `repo` as given if GitHub could name a repository so; refuse anything else,
    in particular anything that could escape a path (the name is never `.` or `..`)."""
    match = _REPO_RE.fullmatch(repo or "")
    if not match or len(match.group(1)) > 39 or match.group(2) in (".", ".."):
        raise UsageError(
            f"repository {repo!r} is not in owner/name form as GitHub allows it (owner: "
            "letters, digits and single hyphens; name: letters, digits, '.', '-' and '_'), "
            "e.g. verl-project/verl"
        )
    return repo


def canonical_repo(repo: str) -> str:
    """The repository's identity: GitHub treats `Verl-Project/VERL` and `verl-project/verl`
    as one repository, so partitions, lake folders and warehouse rows use the lower case."""
    return validate_repo(repo).lower()


def repo_slug(repo: str) -> str:
    """`owner/name` as one path segment, `owner__name`, in the identity's lower case."""
    return canonical_repo(repo).replace("/", "__", 1)


def repo_of_slug(slug: str) -> str:
    """`owner__name` back to `owner/name`: the owner holds no `_`, so the first `__` splits.
    Refuses a slug no repository makes (e.g. an owner with `_`, or upper case)."""
    owner, sep, name = slug.partition("__")
    repo = f"{owner}/{name}" if sep else slug
    if repo_slug(repo) != slug:
        raise UsageError(f"{slug!r} is not the folder name of any repository")
    return repo


@dataclass(frozen=True)
class Settings:
    home: Path
    source: str
    github_token: str | None
    graphql_url: str
    max_wait_seconds: float = 900.0

    @property
    def warehouse_path(self) -> Path:
        return self.home / "warehouse.duckdb"

    @property
    def lake_dir(self) -> Location:
        """`$PRWEEKLY_LAKE_URI` (a folder or an object store URI), else `$PRWEEKLY_HOME/lake`."""
        return location(os.environ.get("PRWEEKLY_LAKE_URI") or self.home / "lake")

    @property
    def reports_dir(self) -> Location:
        """`$PRWEEKLY_REPORTS_URI`, else `$PRWEEKLY_HOME/reports`."""
        return location(os.environ.get("PRWEEKLY_REPORTS_URI") or self.home / "reports")

    @property
    def dagster_home(self) -> Path:
        return self.home / "dagster"


def load_settings() -> Settings:
    """Read the contract's environment variables, with their documented defaults."""
    home = Path(os.environ.get("PRWEEKLY_HOME") or "data").resolve()
    return Settings(
        home=home,
        source=os.environ.get("PRWEEKLY_SOURCE") or "github",
        github_token=os.environ.get("GITHUB_TOKEN") or None,
        graphql_url=os.environ.get("GITHUB_GRAPHQL_URL") or DEFAULT_GRAPHQL_URL,
        max_wait_seconds=_float_env("PRWEEKLY_MAX_WAIT_SECONDS", 900.0),
    )


def _float_env(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        return float(raw)
    except ValueError:
        raise UsageError(f"{name}={raw!r} is not a number of seconds") from None
