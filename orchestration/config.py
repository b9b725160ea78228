"""Settings read from the environment, so tests and deployments only change variables."""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from orchestration.storage import Location, location

PACKAGE_DIR = Path(str(files("orchestration")))
PACKAGED_ROOT = PACKAGE_DIR / "_project"  # only in an installed wheel
SOURCE_ROOT = PACKAGE_DIR.parent  # a checkout, or an editable install of one


def project_root() -> Path:
    """The folder holding `sql/`, `reports/` and `workspace.yaml`: the wheel's copy when
    this package was installed from one, else the source tree it is imported from."""
    return PACKAGED_ROOT if (PACKAGED_ROOT / "sql").is_dir() else SOURCE_ROOT


def project_file(*parts: str) -> Path:
    """A path under the project root, e.g. `project_file("sql", "seeds")`."""
    return project_root().joinpath(*parts)


PROJECT_DIR = project_root()  # the source tree, or the installed wheel's copy of its files
SQL_DIR = PROJECT_DIR / "sql"
TEMPLATES_DIR = PROJECT_DIR / "reports" / "templates"
I18N_DIR = PROJECT_DIR / "reports" / "i18n"
# the report's languages (reports/i18n/<lang>.yml), in the order their files are written
# and listed
LANGUAGES = ("zh", "en")
DEFAULT_GRAPHQL_URL = "https://api.github.com/graphql"

# What GitHub accepts: an owner is letters, digits and single hyphens inside (no `_`, at most
# 39 characters); a repository name is letters, digits, `-`, `_` and `.` (at most 100), but not
# `.` or `..`. An owner without `_` makes `owner__name` reversible: the first `__` splits it.
_OWNER = r"[A-Za-z0-9](?:-?[A-Za-z0-9]){0,38}"
_NAME = r"[A-Za-z0-9._-]{1,100}"
_REPO_RE = re.compile(rf"({_OWNER})/({_NAME})")


@dataclass(frozen=True)
class EnvironmentVariable:
    """One setting read from the environment, worded as the README's table shows it."""

    name: str
    meaning: str  # Markdown
    default: str  # Markdown


# The one list of prweekly's settings: `prweekly --help` prints it and a test holds the
# README's table to it, row for row.
ENVIRONMENT = (
    EnvironmentVariable(
        "PRWEEKLY_HOME",
        "where the warehouse, `repositories.yml`, Dagster's run history and (by default) the "
        "lake and reports live",
        "`./data`",
    ),
    EnvironmentVariable("PRWEEKLY_SOURCE", "default source: `github` or `file:PATH`", "`github`"),
    EnvironmentVariable(
        "GITHUB_TOKEN", "token for the `github` source; never logged or stored", "none"
    ),
    EnvironmentVariable(
        "GITHUB_GRAPHQL_URL",
        "GraphQL endpoint, for GitHub Enterprise or the emulator",
        f"`{DEFAULT_GRAPHQL_URL}`",
    ),
    EnvironmentVariable(
        "PRWEEKLY_MAX_WAIT_SECONDS",
        "most time a build waits on GitHub's rate limits, per week fetched",
        "`900`",
    ),
    EnvironmentVariable(
        "PRWEEKLY_REQUEST_DEADLINE_SECONDS",
        "most time one GitHub request may take, its whole answer included; a slower one is "
        "dropped and asked again",
        "`120`",
    ),
    EnvironmentVariable(
        "PRWEEKLY_WEEK_DEADLINE_SECONDS",
        "most time reading from GitHub may take per week fetched, waits included; past it the "
        "build fails naming the repository and week",
        "`1800`",
    ),
    EnvironmentVariable(
        "PRWEEKLY_SCHEDULE_CRON", "when the weekly schedule runs (UTC)", "`0 6 * * 1`"
    ),
    EnvironmentVariable(
        "PRWEEKLY_LAKE_URI",
        "the lake elsewhere: a folder or `s3://…`, `gs://…`",
        "`$PRWEEKLY_HOME/lake`",
    ),
    EnvironmentVariable(
        "PRWEEKLY_REPORTS_URI",
        "the reports elsewhere: a folder or `s3://…`, `gs://…`",
        "`$PRWEEKLY_HOME/reports`",
    ),
    EnvironmentVariable(
        "PRWEEKLY_DUCKDB_INIT",
        "SQL run on each warehouse connection (e.g. `SET threads = 2`); object-store "
        "credentials come from `AWS_*`",
        "none",
    ),
    EnvironmentVariable(
        "PRWEEKLY_LLM_URL",
        "optional language model: an OpenAI-compatible base URL (e.g. "
        "`http://localhost:11434/v1`); unset, no model is asked (`docs/narrative.md`)",
        "none",
    ),
    EnvironmentVariable("PRWEEKLY_LLM_MODEL", "the model's name at that URL", "none"),
    EnvironmentVariable(
        "PRWEEKLY_LLM_API_KEY", "key for the language model; never logged or stored", "none"
    ),
    EnvironmentVariable(
        "PRWEEKLY_LLM_TOKEN_BUDGET",
        "most tokens a build may spend on the language model; past it, parts fall back",
        "`2000000`",
    ),
    EnvironmentVariable(
        "PRWEEKLY_LLM_CONCURRENCY", "requests to the language model at once", "`4`"
    ),
    EnvironmentVariable(
        "PRWEEKLY_LLM_REQUEST_DEADLINE_SECONDS",
        "most time one request to the language model may take, its whole answer included; "
        "past it that part keeps the deterministic text",
        "`120`",
    ),
    EnvironmentVariable(
        "PRWEEKLY_LLM_BUILD_DEADLINE_SECONDS",
        "most time a build spends asking the language model; the parts left keep the "
        "deterministic text and are asked next build",
        "`3600`",
    ),
    EnvironmentVariable(
        "PRWEEKLY_LLM_VERIFY",
        "`1`: a second pass asks the model whether each kept sentence's cited facts support "
        "it, and drops those it does not",
        "`0`",
    ),
    EnvironmentVariable(
        "PRWEEKLY_LLM_USD_PER_MILLION_TOKENS",
        "price of the model, to show each build's cost in the asset's metadata",
        "none",
    ),
)


class UsageError(ValueError):
    """Bad input from the user: printed as one line, never as a traceback."""


def unknown_key(key: object, known: tuple[str, ...]) -> str:
    """`unknown key x (did you mean y? known: …)`, suggesting the closest known key."""
    close = difflib.get_close_matches(str(key), known, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]}? " if close else ""
    return f"unknown key {key} ({hint}known: {', '.join(known)})"


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
    request_deadline_seconds: float = 120.0
    week_deadline_seconds: float = 1800.0

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
    if home.exists() and not home.is_dir():
        raise UsageError(
            f"PRWEEKLY_HOME={home} is a file, not a folder: point PRWEEKLY_HOME at a folder "
            "(it is made if it does not exist)"
        )
    return Settings(
        home=home,
        source=os.environ.get("PRWEEKLY_SOURCE") or "github",
        github_token=os.environ.get("GITHUB_TOKEN") or None,
        graphql_url=os.environ.get("GITHUB_GRAPHQL_URL") or DEFAULT_GRAPHQL_URL,
        max_wait_seconds=_float_env("PRWEEKLY_MAX_WAIT_SECONDS", 900.0),
        request_deadline_seconds=_float_env(
            "PRWEEKLY_REQUEST_DEADLINE_SECONDS", 120.0, positive=True
        ),
        week_deadline_seconds=_float_env("PRWEEKLY_WEEK_DEADLINE_SECONDS", 1800.0, positive=True),
    )


def _float_env(name: str, default: float, positive: bool = False) -> float:
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise UsageError(f"{name}={raw!r} is not a number of seconds") from None
    if positive and not value > 0:  # also refuses nan
        raise UsageError(f"{name}={raw!r} must be more than 0 seconds")
    return value


class SourceDataError(ValueError):
    """A record that cannot be trusted; the partition fails instead of storing a guess."""
