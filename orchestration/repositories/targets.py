"""The `deliver:` block of a repository in repositories.yml, read and checked.

```yaml
deliver:
  language: en                 # en (default) or zh; a target may set its own
  send_corrections: false      # send a changed edition of a week already delivered
  slack: {webhook_url: ${SLACK_WEBHOOK_URL}}
  email: {to: [team@example.com], smtp_url: smtps://bot@smtp.example.com,
          password_env: SMTP_PASSWORD, from: bot@example.com}
  github: {discussion_category: Announcements}   # or {issue_label: weekly-report}
```

Secrets come from the environment: `${NAME}` in `webhook_url` or `smtp_url` is replaced by the
variable when a report is sent (never when the file is read or written back), and the SMTP
password of a URL with a user is read from the variable `password_env` names. A password
written into `smtp_url` is refused: repositories.yml is readable by everyone on the machine.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from orchestration.config import LANGUAGES, UsageError, unknown_key, validate_repo

KINDS = ("slack", "email", "github")
VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_ADDRESS = re.compile(r"[^@\s<>,]+@[^@\s<>,]+")


class MissingSecret(RuntimeError):
    """A variable a target needs is not set: sending cannot work, so it is not retried."""


@dataclass(frozen=True)
class SlackTarget:
    webhook_url: str  # may hold ${NAME}
    language: str
    kind: str = "slack"

    def describe(self) -> str:
        where = "the environment" if VARIABLE.search(self.webhook_url) else "repositories.yml"
        return f"slack (webhook from {where})"


@dataclass(frozen=True)
class EmailTarget:
    to: tuple[str, ...]
    smtp_url: str  # may hold ${NAME}; never a password
    sender: str
    password_env: str  # "" when the server takes no login
    language: str
    kind: str = "email"

    def describe(self) -> str:
        return f"email to {', '.join(self.to)}"


@dataclass(frozen=True)
class GitHubTarget:
    discussion_category: str | None
    issue_label: str | None
    language: str
    kind: str = "github"
    repository: str | None = None  # where to post; a repository's own reports: itself

    def describe(self) -> str:
        where = f" of {self.repository}" if self.repository else ""
        if self.discussion_category:
            return f"github discussion in {self.discussion_category!r}{where}"
        return f"github issue labelled {self.issue_label!r}{where}"


Target = SlackTarget | EmailTarget | GitHubTarget


@dataclass(frozen=True)
class DeliverySettings:
    targets: tuple[Target, ...] = ()
    send_corrections: bool = False
    site_url: str | None = None  # where the reports are served: messages link to it

    def target(self, kind: str) -> Target | None:
        return next((t for t in self.targets if t.kind == kind), None)


@dataclass
class _Reader:
    """Reads one repository's block, naming where a mistake is in every message."""

    where: str

    def fail(self, message: str) -> None:
        raise UsageError(f"{self.where}: deliver: {message}")

    def mapping(self, value: object, name: str) -> dict:
        if not isinstance(value, dict):
            self.fail(f"{name} must be a mapping, e.g. {name}: {{...}}")
        return value

    def unknown(self, block: dict, allowed: tuple[str, ...], name: str) -> None:
        extra = sorted(set(map(str, block)) - set(allowed))
        if extra:
            self.fail(f"{name}: {unknown_key(extra[0], allowed)}")

    def language(self, block: dict, default: str, name: str) -> str:
        value = str(block.get("language", default))
        if value not in LANGUAGES:
            self.fail(f"{name}: language must be one of {', '.join(LANGUAGES)}, not {value!r}")
        return value

    def text(self, block: dict, key: str, name: str) -> str:
        value = block.get(key)
        if not isinstance(value, str) or not value.strip():
            self.fail(f"{name}: needs {key}")
        return value.strip()


def parse_deliver(raw: object, where: str, group: bool = False) -> DeliverySettings:
    """Check a `deliver:` block; every mistake is a UsageError naming the repository (or, with
    `group`, the group, whose github target may name the `repository` it posts to)."""
    if raw is None:
        return DeliverySettings()
    reader = _Reader(where)
    block = reader.mapping(raw, "deliver")
    reader.unknown(block, ("language", "send_corrections", "site_url", *KINDS), "deliver")
    corrections = block.get("send_corrections", False)
    if not isinstance(corrections, bool):
        reader.fail(f"send_corrections must be true or false, not {corrections!r}")
    language = reader.language(block, "en", "deliver")
    site_url = block.get("site_url")
    if site_url is not None and (
        not isinstance(site_url, str) or urlsplit(site_url).scheme not in ("http", "https")
    ):
        reader.fail(f"site_url must be an http(s) URL, not {site_url!r}")
    targets: list[Target] = []
    if "slack" in block:
        slack = reader.mapping(block["slack"], "slack")
        reader.unknown(slack, ("webhook_url", "language"), "slack")
        url = reader.text(slack, "webhook_url", "slack")
        if not VARIABLE.search(url) and urlsplit(url).scheme not in ("http", "https"):
            reader.fail("slack: webhook_url must be an http(s) URL or ${VARIABLE}")
        targets.append(SlackTarget(url, reader.language(slack, language, "slack")))
    if "email" in block:
        targets.append(_email(reader, reader.mapping(block["email"], "email"), language))
    if "github" in block:
        github = reader.mapping(block["github"], "github")
        keys = ("discussion_category", "issue_label", "language", *(("repository",) * group))
        reader.unknown(github, keys, "github")
        category, label = github.get("discussion_category"), github.get("issue_label")
        if (category is None) == (label is None):
            reader.fail("github: give either discussion_category or issue_label")
        chosen = reader.text(github, "discussion_category" if category else "issue_label", "github")
        repository = github.get("repository")
        if repository is not None:
            try:
                validate_repo(str(repository))
            except UsageError as exc:
                reader.fail(f"github: repository: {exc}")
        targets.append(
            GitHubTarget(
                chosen if category else None,
                None if category else chosen,
                reader.language(github, language, "github"),
                repository=None if repository is None else str(repository),
            )
        )
    return DeliverySettings(tuple(targets), corrections, site_url)


def _email(reader: _Reader, block: dict, language: str) -> EmailTarget:
    reader.unknown(block, ("to", "smtp_url", "from", "password_env", "language"), "email")
    to = block.get("to")
    if isinstance(to, str):
        to = [to]
    if not isinstance(to, list) or not to or not all(isinstance(a, str) for a in to):
        reader.fail("email: to must list at least one address")
    bad = [a for a in to if not _ADDRESS.fullmatch(a.strip())]
    if bad:
        reader.fail(f"email: not an address: {', '.join(bad)}")
    url = reader.text(block, "smtp_url", "email")
    if not VARIABLE.search(url):
        check_smtp_url(url, reader.fail)
    sender = str(block.get("from") or "prweekly@localhost")
    if not _ADDRESS.fullmatch(sender):
        reader.fail(f"email: from is not an address: {sender}")
    password_env = str(block.get("password_env") or "")
    if password_env and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", password_env):
        reader.fail(f"email: password_env must name an environment variable, not {password_env!r}")
    if not password_env and not VARIABLE.search(url) and urlsplit(url).username:
        reader.fail(
            "email: smtp_url names a user: say in password_env which variable holds the password"
        )
    return EmailTarget(
        tuple(a.strip() for a in to),
        url,
        sender,
        password_env,
        reader.language(block, language, "email"),
    )


def check_smtp_url(url: str, fail) -> None:
    """`smtp://host[:port]` or `smtps://[user@]host[:port]`, never with a password in it."""
    parts = urlsplit(url)
    if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
        fail("email: smtp_url must look like smtp://host:port or smtps://user@host")
    if parts.password is not None:
        fail(
            "email: smtp_url must not hold a password (repositories.yml is readable by "
            "everyone); put it in the environment and name the variable in password_env"
        )
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        fail("email: smtp_url has a port that is not a number")


def expand(value: str) -> str:
    """`value` with each `${NAME}` replaced by the environment's; a missing one is an error."""

    def replace(match: re.Match) -> str:
        name = match.group(1)
        found = os.environ.get(name)
        if not found:
            raise MissingSecret(f"the environment variable {name} is not set")
        return found

    return VARIABLE.sub(replace, value)
