"""`read_description` over a big history on every core: the SQL functions behind the reader
(sql/functions.yml) once a build has read many descriptions.

DuckDB calls a Python function from one thread at a time, batch after batch, so the reader
(pure Python, about 40 µs a description) ran on one core while the other waited: at a million
PRs, 35 to 40 s of a full build's wall time. Once a process has read `MIN_ROWS_SEEN`
descriptions (a build of a big history; never a week's run, a test or one repository's
history), each batch is split: the first piece is read here while worker processes read the
others, each description by the same code with the same vocabulary, so every row is the same.

A worker is `python -m orchestration.descriptions.parallel` reading pickled batches on its
stdin (not multiprocessing, whose workers import the parent's `__main__` again: a script
holding the warehouse's lock would wait for itself).
"""

from __future__ import annotations

import atexit
import os
import pickle
import subprocess
import sys
import threading
from contextlib import suppress
from typing import BinaryIO

import pyarrow as pa

from orchestration.descriptions import function, vocabulary

# descriptions read by this process before a batch is shared with workers: starting one costs
# about 0.2 s of CPU, a few batches' worth, and a history of one repository (polars: 12,400 PRs)
# stays below it
MIN_ROWS_SEEN = 20_000
MIN_BATCH = 256  # rows of a batch worth splitting
MAX_WORKERS = 3

_texts: dict[str, str] = {}  # vocabulary key -> its seed text, for the workers
# DuckDB may call the function from several of its threads at once (each waits for the GIL,
# which a call gives up while its workers read): one call at a time uses the workers
_one_call = threading.Lock()
_seen = 0
_workers: list[_Worker] = []
_workers_key: str | None = None


def load(text: str | None) -> str:
    """The SQL function `description_vocabulary` (vocabulary.load), keeping the text that
    workers load the same vocabulary from."""
    key = vocabulary.load(text)
    _texts[key] = text or ""
    return key


def _send(stream: BinaryIO, value: object) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(len(data).to_bytes(8, "little") + data)
    stream.flush()


def _receive(stream: BinaryIO) -> object:
    head = stream.read(8)
    if len(head) < 8:
        raise EOFError("the description worker stopped")
    return pickle.loads(stream.read(int.from_bytes(head, "little")))


class _Worker:
    """One worker process and the thread that waits for its answer."""

    def __init__(self, text: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "orchestration.descriptions.parallel"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        _send(self.process.stdin, text)

    def read(self, columns: list[list], out: list, at: int) -> threading.Thread:
        def ask() -> None:
            try:
                _send(self.process.stdin, columns)
                out[at] = _receive(self.process.stdout)
            except BaseException as exc:  # raised again by the caller
                out[at] = exc

        thread = threading.Thread(target=ask, daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        with suppress(OSError):  # a worker that died left a broken pipe
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _cores() -> int:
    return max(0, min(MAX_WORKERS, (os.cpu_count() or 1) - 1))


def _workers_for(key: str) -> list[_Worker]:
    """The workers holding vocabulary `key`, started on first use (none on one core)."""
    global _workers, _workers_key
    if _workers_key != key:
        _stop()
        if key not in _texts:
            return []
        try:
            _workers = [_Worker(_texts[key]) for _ in range(_cores())]
        except OSError as error:  # no process may be started here
            _give_up(error)
            return []
        _workers_key = key
    return _workers


def stop_workers() -> None:
    """Stop the workers (a bench does before it counts its children's CPU time)."""
    _stop()


@atexit.register
def _stop() -> None:
    global _workers, _workers_key
    for worker in _workers:
        worker.stop()
    _workers, _workers_key = [], None


def read_description(
    repo: pa.Array, title: pa.Array, title_words: pa.Array, body: pa.Array, seeds: pa.Array
) -> pa.Array:
    """The SQL function read_description (function.read_description), its batch shared with
    worker processes once this process has read MIN_ROWS_SEEN descriptions."""
    with _one_call:
        return _read(repo, title, title_words, body, seeds)


def _read(
    repo: pa.Array, title: pa.Array, title_words: pa.Array, body: pa.Array, seeds: pa.Array
) -> pa.Array:
    global _seen
    rows = len(repo)
    _seen += rows
    workers: list[_Worker] = []
    if _seen > MIN_ROWS_SEEN and rows >= MIN_BATCH and len(seeds):
        workers = _workers_for(seeds[0].as_py())
    if not workers:
        return function.read_description(repo, title, title_words, body, seeds)
    size = -(-rows // (len(workers) + 1))
    answers: list = [None] * len(workers)
    threads = [
        worker.read(
            [c.slice(at, size).to_pylist() for c in (repo, title, title_words, body)], answers, i
        )
        for i, (worker, at) in enumerate(zip(workers, range(size, rows, size), strict=False))
    ]
    first = function.read_description(
        *(c.slice(0, size) for c in (repo, title, title_words, body, seeds))
    )
    for thread in threads:
        thread.join()
    pieces = [first]
    for i, answer in enumerate(answers[: len(threads)]):
        if isinstance(answer, BaseException):  # read here, and no worker again
            _give_up(answer)
            at = size * (i + 1)
            answer = function.read_description(
                *(c.slice(at, size) for c in (repo, title, title_words, body, seeds))
            )
        pieces.append(answer)
    return pa.concat_arrays(pieces)


def _give_up(error: BaseException) -> None:
    """A worker failed or could not start: this process reads alone from now on."""
    global MIN_ROWS_SEEN
    print(f"description workers stopped, reading alone: {error}", file=sys.stderr, flush=True)
    _stop()
    MIN_ROWS_SEEN = sys.maxsize


def _serve(stdin: BinaryIO, stdout: BinaryIO) -> None:
    """A worker: the vocabulary's text, then batches of columns until stdin closes."""
    key = vocabulary.load(_receive(stdin))
    while True:
        try:
            columns = _receive(stdin)
        except EOFError:
            return
        repo, title, title_words, body = (pa.array(c, pa.string()) for c in columns)
        seeds = pa.array([key] * len(repo), pa.string())
        _send(stdout, function.read_description(repo, title, title_words, body, seeds))


if __name__ == "__main__":
    _serve(sys.stdin.buffer, sys.stdout.buffer)
