"""One POST to GitHub that ends by a deadline, however slowly the answer arrives.

httpx's timeout bounds each read, not the whole answer: a server sending a few bytes every
second holds a request for as long as it likes. So the transfer runs in a worker thread that
the caller waits for only until the deadline. The worker also checks the deadline after every
chunk and then drops the connection, so an abandoned transfer stops within one read.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx


class DeadlinePassed(Exception):
    """The whole answer did not arrive within the deadline."""


def post(client: httpx.Client, url: str, payload: Any, deadline_seconds: float) -> httpx.Response:
    """The complete response, read within `deadline_seconds`; raises DeadlinePassed if not."""
    give_up_at = time.monotonic() + deadline_seconds
    outcome: dict[str, Any] = {}

    def transfer() -> None:
        try:
            with client.stream("POST", url, json=payload) as response:
                body = bytearray()
                for chunk in response.iter_bytes():  # decoded (gzip, ...) as it arrives
                    body += chunk
                    if time.monotonic() > give_up_at:
                        raise DeadlinePassed
                headers = [
                    (name, value)
                    for name, value in response.headers.multi_items()
                    if name.lower() not in ("content-encoding", "content-length")
                ]
                outcome["response"] = httpx.Response(
                    response.status_code,
                    headers=headers,
                    content=bytes(body),
                    request=response.request,
                )
        except BaseException as exc:  # handed to the caller, who decides what it means
            outcome["error"] = exc

    worker = threading.Thread(target=transfer, name="prweekly-github-request", daemon=True)
    worker.start()
    worker.join(max(0.0, give_up_at - time.monotonic()))
    if worker.is_alive():
        raise DeadlinePassed
    if "error" in outcome:
        raise outcome["error"]
    return outcome["response"]
