"""How to read one answer from GitHub's GraphQL API: its data, something to retry, or a stop.

GitHub's documented rules, applied in this order:

- 401: the token is bad. Stop.
- 403 or 429 with `x-ratelimit-remaining: 0`: the primary rate limit; wait for its reset.
- 403 or 429 with `retry-after`, a message about a (secondary) rate limit or abuse detection,
  and any other 429: a secondary rate limit; wait `retry-after`, else a minute and more.
- Any other 403: a refusal (no access to the repository, SAML single sign-on not authorised,
  an IP allow list). Stop at once, saying what to change; waiting cannot help.
- 5xx, a 200 that is not JSON, and GraphQL's "Something went wrong while executing your
  query" (with or without partial data): transient; retry with backoff.
- GraphQL errors: `RATE_LIMITED` waits for the reset; a secondary-limit message waits;
  `FORBIDDEN`, "Resource not accessible" and SAML stop as refusals; `NOT_FOUND` names what
  was not found; anything else stops, and partial data is never kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from orchestration.extract.sources.github_errors import (
    GitHubAuthError,
    GitHubNotFoundError,
    GitHubPermissionError,
    GitHubResponseError,
)
from orchestration.retry import retry_after
from orchestration.text import plural

RATE_LIMIT_TYPES = {"RATE_LIMITED", "RATE_LIMIT"}
RATE_LIMIT_WORDS = ("rate limit", "abuse detection")
TRANSIENT = "something went wrong while executing your query"
REFUSALS = ("resource not accessible by", "saml enforcement", "ip allow list")


@dataclass(frozen=True)
class Retry:
    """An answer worth asking again: `kind` is primary, secondary or transient."""

    kind: str
    problem: str
    wait: float | None = None


def judge(
    response: httpx.Response, redact: Callable[[str], str], until_reset: Callable[[], float]
) -> dict | Retry:
    """The answer's `data` when it is whole; a Retry; or raise what stops the extract."""
    status = response.status_code
    body = _json(response)
    message = redact(_message(body))
    if status == 401:
        raise GitHubAuthError(
            f"GitHub rejected GITHUB_TOKEN (401 {message or 'Bad credentials'}); "
            "set GITHUB_TOKEN to a valid token that can read the repository"
        )
    if status in (403, 429):
        if response.headers.get("x-ratelimit-remaining") == "0":
            return Retry("primary", f"HTTP {status} with no budget left", until_reset())
        if _retry_after(response) is not None or status == 429 or _about_limits(message):
            reason = "secondary rate limit" if "secondary" in message.lower() else f"HTTP {status}"
            return Retry("secondary", reason, _retry_after(response))
        raise refusal(f"HTTP 403 {message}".rstrip(), message, response.headers, redact)
    if status >= 500:
        said = f" ({_brief(message)})" if message else ""
        return Retry("transient", f"answered HTTP {status}{said}")
    if status != 200:
        raise GitHubResponseError(
            f"GitHub GraphQL at {response.request.url} answered HTTP {status} {message}".rstrip()
            + "; check GITHUB_GRAPHQL_URL"
        )
    if not isinstance(body, dict):
        return Retry("transient", "answered 200 without JSON")
    errors = body.get("errors") or []
    if errors:
        return _judge_errors(errors, response, redact, until_reset)
    data = body.get("data")
    if not isinstance(data, dict):
        raise GitHubResponseError("GitHub answered without data or errors")
    return data


def refusal(
    what: str, message: str, headers: httpx.Headers, redact: Callable[[str], str]
) -> GitHubPermissionError:
    """GitHub's refusal, with what to change: SSO authorisation, the app, the token's access."""
    sso = redact(headers.get("x-github-sso", ""))
    lowered = message.lower()
    if sso or "saml" in lowered:
        url = sso.partition("url=")[2].strip()
        fix = "authorise GITHUB_TOKEN for the organisation's SAML single sign-on " + (
            f"at {url} (the link expires after an hour)"
            if url
            else "(GitHub settings, Developer settings, the token, Configure SSO)"
        )
    elif "ip allow list" in lowered:
        fix = (
            "the organisation accepts GitHub API calls only from the IP addresses it lists: "
            "run prweekly from one of them, or ask an owner to add this one"
        )
    elif "by integration" in lowered:
        fix = (
            "GITHUB_TOKEN belongs to a GitHub App: install it on the repository and give it "
            "read access to 'Pull requests'"
        )
    elif "personal access token" in lowered:
        fix = (
            "GITHUB_TOKEN is a fine-grained token: add the repository to its repositories and "
            "give it read access to 'Pull requests'"
        )
    else:
        scopes = headers.get("x-oauth-scopes")
        has = f" (it has: {scopes or 'none'})" if scopes is not None else ""
        fix = (
            "give GITHUB_TOKEN read access to the repository: a classic token needs the "
            f"`repo` scope for a private repository{has}; a fine-grained token needs the "
            "repository and read access to 'Pull requests'"
        )
    return GitHubPermissionError(f"GitHub refused GITHUB_TOKEN ({what}); {fix}")


def _judge_errors(
    errors: list,
    response: httpx.Response,
    redact: Callable[[str], str],
    until_reset: Callable[[], float],
) -> Retry:
    entries = [e for e in errors if isinstance(e, dict)]
    types = {str(e.get("type")) for e in entries}
    messages = [redact(str(e.get("message", ""))) for e in entries]
    if types & RATE_LIMIT_TYPES:
        return Retry("primary", next(iter(types & RATE_LIMIT_TYPES)), until_reset())
    if any("secondary rate limit" in m.lower() for m in messages):
        return Retry("secondary", "secondary rate limit", _retry_after(response))
    refused = [
        m
        for e, m in zip(entries, messages, strict=True)
        if e.get("type") == "FORBIDDEN"
        or (e.get("extensions") or {}).get("saml_failure") is True
        or any(words in m.lower() for words in REFUSALS)
    ]
    if refused:
        raise refusal(f"FORBIDDEN: {refused[0]}", refused[0], response.headers, redact)
    if "NOT_FOUND" in types or any("cannot be searched" in m for m in messages):
        raise GitHubNotFoundError(messages[0] if messages else "not found")
    if messages and all(TRANSIENT in m.lower() for m in messages):
        return Retry("transient", f"answered '{_brief(messages[0])}'")
    first = entries[0] if entries else {}
    path = ".".join(str(p) for p in first.get("path") or [])
    raise GitHubResponseError(
        f"GitHub answered with {plural(len(errors), 'error')}, partial data discarded: "
        f"{messages[0] if messages else 'unknown error'}"
        + (f" (type {first['type']})" if first.get("type") else "")
        + (f" at {path}" if path else "")
    )


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _message(body: Any) -> str:
    """GitHub's `message`, or the first GraphQL error's (a 502 can carry one)."""
    if not isinstance(body, dict):
        return ""
    if body.get("message"):
        return str(body["message"])
    errors = body.get("errors")
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        return str(errors[0].get("message") or "")
    return ""


def _brief(message: str) -> str:
    """The first sentence of GitHub's message: enough to recognise it in a log line."""
    return message.split(". ")[0].rstrip(".")[:120]


def _about_limits(message: str) -> bool:
    return any(words in message.lower() for words in RATE_LIMIT_WORDS)


def _retry_after(response: httpx.Response) -> float | None:
    return retry_after(response.headers.get("retry-after"))
