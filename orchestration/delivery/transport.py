"""What the HTTP targets share: one client (building one loads the CA bundle, which is slow)
and the error a target raises when it refuses or cannot be reached."""

from __future__ import annotations

from functools import cache

import httpx

TIMEOUT_SECONDS = 60.0


class DeliveryError(RuntimeError):
    """A target refused or could not be reached; the message names no secret."""


@cache
def http() -> httpx.Client:
    return httpx.Client(timeout=TIMEOUT_SECONDS)
