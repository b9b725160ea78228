"""A threaded HTTP server on loopback that records what it was asked: the running part the
GitHub emulator and the language-model emulator share."""

from __future__ import annotations

import errno
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self

from orchestration.config import UsageError


def port_taken(host: str, port: int) -> UsageError:
    """What to say when `host:port` is in use: which port, and what to do about it."""
    return UsageError(
        f"port {port} on {host} is already in use (another prweekly serve, ui or emulator, or "
        "another program): stop that one, or choose another port with --port N (--port 0 "
        "takes any free one)"
    )


def http_server(host: str, port: int, handler) -> ThreadingHTTPServer:
    """A threaded HTTP server bound to `host:port`; a port in use is a UsageError."""
    try:
        return ThreadingHTTPServer((host, port), handler)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise port_taken(host, port) from None
        raise


def check_port_free(host: str, port: int) -> None:
    """Refuse `host:port` now if something listens there (before handing it to a server
    prweekly does not start itself, such as Dagster's UI)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise port_taken(host, port) from None
            raise


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
