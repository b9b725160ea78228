"""Why the `github` source stopped, each as one line a user can act on.

No message carries the token or request headers; exceptions are raised `from None` so an httpx
error (which holds the request) is never chained into a traceback.
"""

from __future__ import annotations


def secs(value: float) -> str:
    """A number of seconds as a person writes it: 1800, 3599, 0.3, 0.75."""
    return f"{value:.0f}" if value >= 10 else f"{value:.2g}"


class GitHubError(RuntimeError):
    """The GitHub source could not deliver a complete, trustworthy answer."""


class GitHubAuthError(GitHubError):
    """Missing, invalid or unusable GITHUB_TOKEN; retrying cannot help."""


class GitHubNotFoundError(GitHubError):
    """The repository (or a pull request in it) does not exist or the token cannot see it."""


class GitHubMovedError(GitHubNotFoundError):
    """GitHub answers the repository's name with another one: it was renamed or transferred."""


class GitHubWaitCeilingError(GitHubError):
    """Waiting for GitHub would pass the configured ceiling for one partition."""


class GitHubResponseError(GitHubError):
    """GitHub answered with errors or something unexpected; nothing of it is kept."""


class GitHubUnavailableError(GitHubError):
    """GitHub kept failing (5xx, timeouts, resets) after every retry."""


class GitHubIncompleteError(GitHubError):
    """GitHub's count of a window and the PRs its pages gave kept disagreeing."""


class GitHubPermissionError(GitHubAuthError):
    """GITHUB_TOKEN is valid but may not read the repository; waiting cannot change that."""


class GitHubDeadlineError(GitHubError):
    """Reading from GitHub took longer than the deadline set for it."""


def check_not_moved(owner: str, name: str, data: dict) -> None:
    """GitHub follows a renamed or transferred repository's old name to it, and its search may
    find nothing under that name: every week would read as empty. Stop instead, naming both."""
    now = str((data.get("repository") or {}).get("nameWithOwner") or "")
    if now and now.lower() != f"{owner}/{name}".lower():
        raise GitHubMovedError(
            f"{owner}/{name} is {now} on GitHub now (renamed or transferred): its weeks would "
            f"be read under a name GitHub no longer uses. Follow it with `prweekly repo add "
            f"{now}` (and `prweekly repo remove {owner}/{name}`: its lake, warehouse rows and "
            "reports are kept); nothing was written"
        )
