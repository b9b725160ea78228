"""`prweekly serve`: the site on loopback, for a quick look (not a production web server); and
the HTTP server on loopback every server of prweekly's stands on (the emulators' too)."""

from __future__ import annotations

import errno
import functools
import socket
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from orchestration.config import UsageError

HOST = "127.0.0.1"


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


class _Quiet(SimpleHTTPRequestHandler):
    """Serves the folder; one short line per request instead of the default's verbose log."""

    def log_message(self, format: str, *args: object) -> None:
        print(f"  {self.command} {self.path} {args[1] if len(args) > 1 else ''}", flush=True)


def make_server(folder: Path, port: int) -> ThreadingHTTPServer:
    """A server of `folder` on loopback (port 0: any free port)."""
    if not isinstance(folder, Path):
        raise UsageError(
            f"the reports are on object storage ({folder}): serve that bucket instead, or set "
            "PRWEEKLY_REPORTS_URI to a local folder"
        )
    if not (folder / "index.html").is_file():
        raise UsageError(f"no site in {folder} yet: run `prweekly build` or `prweekly site`")
    handler = functools.partial(_Quiet, directory=str(folder))
    return http_server(HOST, port, handler)


def serve(folder: Path, port: int) -> None:
    server = make_server(folder, port)
    host, bound = server.server_address[:2]
    print(f"prweekly: serving {folder} at http://{host}:{bound}/ (Ctrl-C stops it)", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
