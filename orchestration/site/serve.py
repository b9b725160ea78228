"""`prweekly serve`: the site on loopback, for a quick look (not a production web server)."""

from __future__ import annotations

import functools
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from orchestration.config import UsageError
from orchestration.testing.loopback import http_server

HOST = "127.0.0.1"


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
