"""An HTTP server on loopback that answers GitHub GraphQL queries from a dataset of PR nodes.

Each request goes through what GitHub does, in order: authentication, parsing, validation
against the schema subset, static limits and cost, the hourly budget, then execution. Faults
from `Faults` are injected at the point where GitHub would produce them. The clock is
injectable so rate-limit windows follow a test's fake time.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import socket
import struct
import time
import uuid
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from graphql import GraphQLError, execute, parse, validate

from orchestration.extract.sources import check_dataset_file
from orchestration.testing.github_emulator.dataset import Dataset
from orchestration.testing.github_emulator.fault_bodies import (
    DOCS,
    HTML_502,
    PRIMARY_403,
    SECONDARY,
    refusal,
    spoil,
)
from orchestration.testing.github_emulator.faults import Fault, Faults, parse_fault_spec
from orchestration.testing.github_emulator.limits import QueryLimitError, analyse
from orchestration.testing.github_emulator.mutations import build
from orchestration.testing.github_emulator.posts import Posts
from orchestration.testing.github_emulator.ratelimit import RateBudget, Snapshot
from orchestration.testing.github_emulator.resolvers import Context, format_error, iso
from orchestration.testing.stand_in import LoopbackServer, add_fault_arguments

PATHS = ("/graphql", "/api/graphql")


def _load(dataset: Any) -> Dataset:
    if isinstance(dataset, Dataset):
        return dataset
    if isinstance(dataset, str | Path):
        return Dataset.from_files([Path(dataset)])
    items = list(dataset)
    if items and all(isinstance(i, dict) for i in items):
        return Dataset(items)
    return Dataset.from_files(Path(i) for i in items)


class Emulator(LoopbackServer):
    """GitHub's GraphQL endpoint on loopback; a context manager that starts and stops it."""

    def __init__(
        self,
        dataset: Dataset | str | Path | Iterable[Path] | Iterable[dict],
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        clock: Callable[[], float] = time.time,
        token: str | None = None,
        seed: int = 0,
        rate_limit: int = 5000,
    ) -> None:
        self.dataset = _load(dataset)
        self.clock = clock
        self.token = token
        self.faults = Faults(seed)
        self.budget = RateBudget(clock, limit=rate_limit)
        self.schema = build()
        self.posts = Posts()  # what clients posted (delivery's github target)
        self._indexed_at: dict[tuple[str, int], float] = {}  # PRs search finds only later
        super().__init__(_handler_for(self), host, port)

    @property
    def url(self) -> str:
        return f"{self.address}/graphql"

    def hide_from_search(self, repo: str, number: int, until: float) -> None:
        """Keep a PR out of search (results and counts) until the clock reaches `until`."""
        self._indexed_at[(repo.lower(), number)] = until

    def answer(self, body: bytes, fault: Fault | None) -> tuple[int, dict, Any]:
        """The status, headers and JSON body GitHub would send for this request body."""
        try:
            request = json.loads(body or b"null")
        except ValueError:
            return 400, {}, {"message": "Problems parsing JSON", "documentation_url": DOCS}
        if not isinstance(request, dict) or not isinstance(request.get("query"), str):
            return 200, {}, _errors("A query attribute must be specified and must be a string.")
        variables = request.get("variables") or {}
        try:
            document = parse(request["query"])
        except GraphQLError as exc:
            return 200, {}, {"errors": [format_error(exc)]}
        problems = validate(self.schema, document)
        if problems:
            return 200, {}, {"errors": [format_error(e) for e in problems]}
        try:
            cost = analyse(self.schema, document, variables, request.get("operationName"))
        except QueryLimitError as exc:
            return 200, {}, _errors(str(exc), exc.kind)
        except GraphQLError as exc:
            return 200, {}, {"errors": [format_error(exc)]}
        if fault in (Fault.RATE_LIMITED, Fault.RATE_LIMIT, Fault.RATE_LIMIT_403):
            self.budget.exhaust()
        if fault is Fault.RATE_LIMIT_403:
            body = {"message": PRIMARY_403, "documentation_url": f"{DOCS}/overview/rate-limits"}
            return 403, self.budget.peek().headers(), body
        snapshot = (
            None
            if fault in (Fault.RATE_LIMITED, Fault.RATE_LIMIT)
            else (self.budget.charge(cost.points))
        )
        if snapshot is None:
            limited = self.budget.peek()
            kind = "RATE_LIMIT" if fault is Fault.RATE_LIMIT else "RATE_LIMITED"
            return 200, limited.headers(), _errors("API rate limit exceeded for user.", kind)
        if fault is Fault.REMAINING_ZERO:
            self.budget.exhaust()
            spent = self.budget.peek()
            snapshot = Snapshot(spent.limit, spent.used, spent.reset_at, snapshot.cost)
        if fault is Fault.SECONDARY_MESSAGE:
            return 200, snapshot.headers(), _errors(SECONDARY)
        context = Context(
            Dataset([]) if fault is Fault.NOT_FOUND else self.dataset,
            hide_newest=fault is Fault.SHIFT_PAGES,
            posts=self.posts,
            unindexed=frozenset(k for k, t in self._indexed_at.items() if self.clock() < t),
        )
        root = {"rateLimit": _rate_limit(snapshot, cost.nodes)}
        result = execute(
            self.schema,
            document,
            root_value=root,
            context_value=context,
            variable_values=variables,
            operation_name=request.get("operationName"),
        )
        payload: dict[str, Any] = {"data": result.data}
        if result.errors:
            payload["errors"] = [format_error(e) for e in result.errors]
        spoil(payload, fault)
        return 200, snapshot.headers(), payload


def _errors(message: str, kind: str | None = None) -> dict:
    error: dict[str, Any] = {"message": message}
    if kind:
        error["type"] = kind
    return {"errors": [error]}


def _rate_limit(snapshot: Snapshot, nodes: int) -> dict:
    return {
        "cost": snapshot.cost,
        "limit": snapshot.limit,
        "nodeCount": nodes,
        "remaining": snapshot.remaining,
        "resetAt": iso(snapshot.reset_at),
        "used": snapshot.used,
    }


def _handler_for(emulator: Emulator) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "GitHub.com"
        sys_version = ""
        protocol_version = "HTTP/1.1"

        def log_message(self, *_args) -> None:  # keep test output quiet
            pass

        def do_GET(self) -> None:
            self._send(404, {}, {"message": "Not Found", "documentation_url": DOCS})

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length)
            entry = {"path": self.path, "body": body, "fault": None, "status": None}
            emulator.record(entry)
            if self.path.split("?")[0] not in PATHS:
                return self._send(404, {}, {"message": "Not Found", "documentation_url": DOCS})
            fault = emulator.faults.next_fault() or emulator.faults.fault_for(_repo_of(body))
            entry["fault"] = fault
            if fault is Fault.UNAUTHORIZED or not self._authorised():
                return self._send(
                    401, {}, {"message": "Bad credentials", "documentation_url": DOCS}
                )
            if fault is Fault.RESET:
                return self._reset()
            if fault is Fault.TIMEOUT:
                time.sleep(emulator.faults.delay_seconds)
            early = refusal(
                fault,
                emulator.faults.retry_after_seconds,
                emulator.budget.peek().headers(),
                _owner(body),
            )
            if early is not None:
                return self._send(*early)
            status, headers, payload = emulator.answer(
                body, None if fault is Fault.DONE_502 else fault
            )
            if fault is Fault.DONE_502:  # done, but the answer is lost on the way back
                status, headers, payload = 502, {}, HTML_502
            entry["status"] = status
            self._send(status, headers, payload, trickle=fault is Fault.TRICKLE)

        def _authorised(self) -> bool:
            given = self.headers.get("authorization") or ""
            scheme, _, token = given.partition(" ")
            if emulator.token is None:
                return not given or (scheme.lower() in ("bearer", "token") and bool(token))
            return scheme.lower() in ("bearer", "token") and token == emulator.token

        def _reset(self) -> None:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()

        def finish(self) -> None:
            with contextlib.suppress(OSError):  # after a reset there is nothing to flush
                super().finish()

        def _send(self, status: int, headers: dict, payload: Any, trickle: bool = False) -> None:
            if isinstance(payload, bytes):
                data, kind = payload, "text/html; charset=utf-8"
            else:
                data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
                kind = "application/json; charset=utf-8"
            with contextlib.suppress(OSError):  # the client may have timed out and gone
                self._write(status, headers, data, kind, trickle)

        def _write(self, status: int, headers: dict, data: bytes, kind: str, trickle: bool) -> None:
            plain = self.wfile
            if trickle:  # the status line and headers too: everything arrives a little at a time
                faults = emulator.faults
                self.wfile = _Trickle(plain, faults.trickle_bytes, faults.trickle_seconds)
            try:
                self.send_response(status)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.send_header("x-github-request-id", uuid.uuid4().hex[:16].upper())
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            finally:
                self.wfile = plain

    return Handler


class _Trickle:
    """A writer that sends `step` bytes, then pauses: each pause far shorter than a read timeout."""

    def __init__(self, raw, step: int, pause: float) -> None:
        self.raw, self.step, self.pause = raw, max(1, step), pause

    def write(self, data: bytes) -> int:
        for offset in range(0, len(data), self.step):
            self.raw.write(data[offset : offset + self.step])
            time.sleep(self.pause)
        return len(data)


def _repo_of(body: bytes) -> str | None:
    """The `owner/name` a request is about, from its variables (every query prweekly sends
    names them)."""
    try:
        variables = json.loads(body or b"null").get("variables") or {}
    except (ValueError, AttributeError):
        return None
    owner, name = variables.get("owner"), variables.get("name")
    return f"{owner}/{name}" if isinstance(owner, str) and isinstance(name, str) else None


def _owner(body: bytes) -> str:
    """The `owner` variable of a request, for messages that name the organisation."""
    try:
        variables = json.loads(body or b"null").get("variables") or {}
        return str(variables.get("owner") or "octo-org")
    except (ValueError, AttributeError):
        return "octo-org"


def main(argv: list[str] | None = None) -> int:
    """`prweekly emulator --dataset FILE [--port N]`: serve until interrupted."""
    parser = argparse.ArgumentParser(
        prog="prweekly emulator",
        description="Serve GitHub's GraphQL API on loopback from datasets of PullRequest nodes.",
    )
    parser.add_argument(
        "--dataset",
        action="append",
        required=True,
        type=Path,
        help="JSON lines (optionally gzip) of PullRequest nodes; repeatable",
    )
    parser.add_argument("--port", type=int, default=8787, help="0 picks a free port")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--token", help="accept only this token (default: any or none)")
    add_fault_arguments(parser, Fault)
    args = parser.parse_args(argv)
    try:
        for path in args.dataset:
            check_dataset_file(path)
        faults = [parse_fault_spec(spec) for spec in args.fault]
        emulator = Emulator(
            args.dataset, host=args.host, port=args.port, token=args.token, seed=args.seed
        )
    except (ValueError, OSError) as exc:
        parser.error(str(exc))
    for fault, probability in faults:
        emulator.faults.fail_randomly(fault, probability)
    repos = ", ".join(sorted(p.name_with_owner for p in emulator.dataset.repos.values()))
    print(f"GitHub GraphQL emulator: {len(emulator.dataset)} pull requests of {repos}", flush=True)
    print(f"GITHUB_GRAPHQL_URL={emulator.url}", flush=True)
    try:
        emulator.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        emulator._server.server_close()
    return 0
