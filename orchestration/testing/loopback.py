"""A threaded HTTP server on loopback that records what it was asked: the running part the
GitHub emulator and the language-model emulator share."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler
from typing import Self

from orchestration.site.serve import http_server


class LoopbackServer:
    """Serves `handler` on `host:port` (0: a free port) in a daemon thread; a context manager
    that starts and stops it. `requests` holds what `record` was given, in order."""

    def __init__(self, handler: type[BaseHTTPRequestHandler], host: str, port: int) -> None:
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        self._server = http_server(host, port, handler)
        self._server.daemon_threads = True

    @property
    def address(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def requests_served(self) -> int:
        return len(self.requests)

    def record(self, entry: dict) -> None:
        with self._lock:
            self.requests.append(entry)

    def start(self) -> Self:
        thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def serve_forever(self) -> None:
        """Serve in this thread until interrupted (the command-line emulators)."""
        self._server.serve_forever()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *_exc) -> None:
        self.stop()
