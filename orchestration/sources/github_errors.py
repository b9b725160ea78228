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
