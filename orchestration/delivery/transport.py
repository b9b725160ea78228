"""What the HTTP targets share: one client (building one loads the CA bundle, which is slow)
and the error a target raises when it refuses or cannot be reached."""

from __future__ import annotations

from functools import cache

import httpx

TIMEOUT_SECONDS = 60.0


class DeliveryError(RuntimeError):
    """A target refused or could not be reached; the message names no secret.

    `retry_after`: the seconds the target asked to wait (Slack's 429). `uncertain`: the
    request reached the target and its answer was lost (a timeout, a dropped connection), so
    it may have been carried out: sending it again now could post it twice."""

    def __init__(
        self, message: str, retry_after: float | None = None, uncertain: bool = False
    ) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.uncertain = uncertain


@cache
def http() -> httpx.Client:
    return httpx.Client(timeout=TIMEOUT_SECONDS)
