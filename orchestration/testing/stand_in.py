"""What both stand-ins share: the loopback server they answer on, which records what it was
asked, and the seeded plan of which requests fail and how.
"""

from __future__ import annotations

import argparse
import random
import textwrap
import threading
from collections import Counter, deque
from enum import StrEnum
from http.server import BaseHTTPRequestHandler
from typing import Generic, Self, TypeVar

from orchestration.site.serve import http_server

Kind = TypeVar("Kind", bound=StrEnum)


class FaultPlan(Generic[Kind]):
    """Thread-safe plan of faults of one `kinds` enumeration."""

    kinds: type[Kind]

    def __init__(self, seed: int = 0) -> None:
        self._lock = threading.Lock()
        self._queue: deque[Kind | None] = deque()
        self._rates: dict[Kind, float] = {}
        self._rng = random.Random(seed)
        self.injected: Counter[Kind] = Counter()

    def fail_next(self, fault: Kind | str, times: int = 1, after: int = 0) -> None:
        """Let `after` requests through, then fail the next `times` with `fault`."""
        with self._lock:
            self._queue.extend([None] * after + [self.kinds(fault)] * times)

    def fail_randomly(self, fault: Kind | str, probability: float) -> None:
        """Make each request fail with `fault` with this probability (0 switches it off)."""
        if not 0 <= probability <= 1:
            raise ValueError(f"probability {probability} is not between 0 and 1")
        with self._lock:
            self._rates[self.kinds(fault)] = probability

    def seed(self, seed: int) -> None:
        with self._lock:
            self._rng = random.Random(seed)

    def clear(self) -> None:
        with self._lock:
            self._queue.clear()
            self._rates.clear()

    def next_fault(self) -> Kind | None:
        with self._lock:
            queued = bool(self._queue)
            fault = self._queue.popleft() if queued else None
            if not queued:
                for candidate, probability in self._rates.items():
                    if self._rng.random() < probability:
                        fault = candidate
                        break
            if fault is not None:
                self.injected[fault] += 1
            return fault


def parse_fault_spec(spec: str, kinds: type[Kind]) -> tuple[Kind, float]:
    """`KIND=0.1` (a probability; 1 when left out) as the emulators' `--fault` takes it."""
    name, _, value = spec.partition("=")
    try:
        return kinds(name.strip()), float(value or 1)
    except ValueError:
        known = ", ".join(f.value for f in kinds)
        raise ValueError(
            f"bad fault {spec!r}: use KIND=PROBABILITY with KIND one of {known}"
        ) from None


class _WholeFaultNames(argparse.HelpFormatter):
    """Help wrapped between words only: a fault such as `shift-pages` is never split."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


def add_fault_arguments(parser: argparse.ArgumentParser, kinds: type[StrEnum]) -> None:
    """An emulator command's `--fault KIND=P` (repeatable) and `--seed`."""
    parser.formatter_class = _WholeFaultNames
    parser.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="KIND=P",
        help="fail each request with KIND at probability P (0 to 1); repeatable. KIND is one "
        f"of: {', '.join(fault.value for fault in kinds)}",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed for random faults")


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
