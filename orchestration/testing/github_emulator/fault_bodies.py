"""What GitHub sends for each fault: refusals before a query runs, and answers spoilt after.

The messages, statuses and headers follow what GitHub documents and really sends, so the
client's reading of them (rate limit or permission? retry or stop?) is tested against them.
"""

from __future__ import annotations

from typing import Any

from orchestration.testing.github_emulator.faults import Fault

DOCS = "https://docs.github.com/graphql"
PRIMARY_403 = "API rate limit exceeded for user ID 1."
SECONDARY = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
)
WENT_WRONG = (
    "Something went wrong while executing your query. This may be the result of a timeout, "
    "or it could be a GitHub bug."
)
NOT_ACCESSIBLE_BY_INTEGRATION = "Resource not accessible by integration"
NOT_ACCESSIBLE_BY_TOKEN = "Resource not accessible by personal access token"
SAML = (
    "Resource protected by organization SAML enforcement. "
    "You must grant your Personal Access token access to this organization."
)
SCOPES = (
    "Your token has not been granted the required scopes to execute this query. The 'id' "
    "field requires one of the following scopes: ['repo'], but your token has only been "
    "granted the: ['read:org'] scopes. Please modify your token's granted scopes at: "
    "https://github.com/settings/tokens."
)
HTML_502 = b"<html><body><h1>502 Bad Gateway</h1>Unicorn! Server Error.</body></html>"
HTML_504 = b"<html><body><h1>504 Gateway Time-out</h1></body></html>"


def refusal(
    fault: Fault | None, retry_after: int, budget: dict[str, str], owner: str
) -> tuple[int, dict, Any] | None:
    """The answer for a fault GitHub produces before running the query, else None.

    `budget` is the `x-ratelimit-*` headers: GitHub sends them on permission refusals too,
    which is how a client tells those from a spent budget.
    """
    secondary = {"message": SECONDARY, "documentation_url": f"{DOCS}/overview/rate-limits"}
    sso = f"required; url=https://github.com/orgs/{owner}/sso?authorization_request=A1B2C3"
    return {
        Fault.BAD_GATEWAY_JSON: (502, {}, {"message": "Server Error", "documentation_url": DOCS}),
        Fault.BAD_GATEWAY_HTML: (502, {}, HTML_502),
        Fault.GATEWAY_TIMEOUT: (504, {}, HTML_504),
        Fault.SECONDARY_403: (403, {}, secondary),
        Fault.SECONDARY_403_RETRY_AFTER: (403, {"retry-after": str(retry_after)}, secondary),
        Fault.SECONDARY_429: (429, {"retry-after": str(retry_after)}, secondary),
        Fault.WENT_WRONG: (200, {}, {"data": None, "errors": [{"message": WENT_WRONG}]}),
        Fault.INSUFFICIENT_SCOPES: (
            200,
            {**budget, "x-oauth-scopes": "read:org"},
            {"errors": [{"type": "INSUFFICIENT_SCOPES", "message": SCOPES}]},
        ),
        Fault.WENT_WRONG_502: (502, {}, {"data": None, "errors": [{"message": WENT_WRONG}]}),
        Fault.FORBIDDEN_403: (
            403,
            budget,
            {"message": NOT_ACCESSIBLE_BY_TOKEN, "documentation_url": DOCS},
        ),
        Fault.SAML_403: (
            403,
            {**budget, "x-github-sso": sso},
            {"message": SAML, "documentation_url": f"{DOCS}/guides/forming-calls-with-graphql"},
        ),
    }.get(fault)


def spoil(payload: dict, fault: Fault | None) -> None:
    """Change an executed answer the way the fault would have it."""
    if fault is Fault.PARTIAL:
        _break_partially(payload)
    elif fault is Fault.FORBIDDEN:
        data = payload.get("data") or {}
        path = ["repository"] if "repository" in data else []
        if path:
            data["repository"] = None
        payload.setdefault("errors", []).append(
            {
                "type": "FORBIDDEN",
                "path": path,
                "extensions": {"saml_failure": False},
                "message": NOT_ACCESSIBLE_BY_INTEGRATION,
            }
        )
    elif fault is Fault.NULL_MERGED_AT:
        nodes = ((payload.get("data") or {}).get("search") or {}).get("nodes") or []
        if nodes and isinstance(nodes[0], dict) and "mergedAt" in nodes[0]:
            nodes[0]["mergedAt"] = None


def _break_partially(payload: dict) -> None:
    """Null the first nested field we can find and report it, as GitHub does on a timeout."""
    data = payload.get("data") or {}
    path: list = []
    for key, value in data.items():
        if isinstance(value, dict) and key != "rateLimit":
            nodes = value.get("nodes")
            if nodes and isinstance(nodes[0], dict) and nodes[0].get("files") is not None:
                nodes[0]["files"] = None
                path = [key, "nodes", 0, "files"]
            elif key in data:
                data[key] = None
                path = [key]
            break
    payload.setdefault("errors", []).append({"message": WENT_WRONG, "path": path})
