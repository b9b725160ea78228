"""The part of GitHub's search syntax prweekly sends: `repo:`, `is:`/`type:` and `merged:`.

Anything else (free text, other qualifiers) is refused with an error instead of being silently
ignored, so a client change that the emulator cannot honour shows up in the tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta


class SearchSyntaxError(ValueError):
    pass


@dataclass(frozen=True)
class PullSearch:
    repo: str
    merged_from: float = -math.inf  # inclusive, epoch seconds
    merged_to: float = math.inf  # inclusive


def _moment(text: str, upper: bool) -> float:
    """A date or a timestamp; a bare date as an upper bound means the end of that day."""
    try:
        if "T" not in text:
            day = date.fromisoformat(text)
            start = datetime(day.year, day.month, day.day, tzinfo=UTC)
            return (start + timedelta(days=1)).timestamp() - 1e-6 if upper else start.timestamp()
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise SearchSyntaxError(f"invalid date in merged: qualifier: {text!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def _range(text: str) -> tuple[float, float]:
    for op in (">=", "<=", ">", "<"):
        if text.startswith(op):
            value = text[len(op) :]
            if op == ">=":
                return _moment(value, False), math.inf
            if op == ">":
                return _moment(value, True) + 1e-6, math.inf
            if op == "<=":
                return -math.inf, _moment(value, True)
            return -math.inf, _moment(value, False) - 1e-6
    if ".." in text:
        low, high = text.split("..", 1)
        return (
            -math.inf if low == "*" else _moment(low, False),
            math.inf if high == "*" else _moment(high, True),
        )
    return _moment(text, False), _moment(text, True)


def parse_search(query: str) -> PullSearch:
    repo = None
    low, high = -math.inf, math.inf
    for term in query.split():
        key, sep, value = term.partition(":")
        key = key.lower()
        if sep and key == "repo" and value:
            if repo is not None:
                raise SearchSyntaxError("the emulator serves one repo: qualifier per search")
            repo = value
        elif sep and key in ("is", "type") and value.lower() in ("pr", "pull-request", "merged"):
            continue
        elif sep and key == "merged" and value:
            low, high = _range(value)
        else:
            raise SearchSyntaxError(f"the emulator does not support the search term {term!r}")
    if repo is None:
        raise SearchSyntaxError("the emulator needs a repo:OWNER/NAME qualifier")
    return PullSearch(repo, low, high)
