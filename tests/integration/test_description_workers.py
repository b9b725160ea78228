"""The description reader shared with worker processes (orchestration/descriptions/parallel.py)
gives every row the reader alone gives, in the same order."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pyarrow as pa

from orchestration.descriptions import function, parallel

VOCABULARY = "\n".join(
    [
        "breaking\tbreaking change",
        "change_verb\tadd",
        "change_verb\tfix",
        "trade_off\tat the cost of",
    ]
)
BODIES = [
    "This PR adds retry logic to the scheduler so that long runs do not stall.",
    "Fix a race in shutdown.\n\n| M | before | after |\n|---|---|---|\n| 8 | 10 ms | 5 ms |",
    "Breaking change: the `--old` flag is removed. Faster at the cost of memory.",
    None,
    "Co-authored-by: someone <someone@example.com>",
    "",
    "- [x] Tests added\n- [ ] Docs updated\n\nAdds sequence packing, 1.5x faster.",
]


def test_workers_read_every_row_as_the_reader_alone(monkeypatch) -> None:
    key = parallel.load(VOCABULARY)
    rows = BODIES * 5  # 35 rows: three workers (or fewer) and this process each read a piece
    columns = [
        pa.array([f"acme/repo-{i % 3}" for i in range(len(rows))], pa.string()),
        pa.array([f"[core] feat: change {i}" for i in range(len(rows))], pa.string()),
        pa.array([f"change {i}" for i in range(len(rows))], pa.string()),
        pa.array(rows, pa.string()),
        pa.array([key] * len(rows), pa.string()),
    ]
    alone = function.read_description(*columns)
    monkeypatch.setattr(parallel, "MIN_ROWS_SEEN", 0)
    monkeypatch.setattr(parallel, "MIN_BATCH", 1)
    monkeypatch.setattr(parallel, "_cores", lambda: 2)
    try:
        shared = parallel.read_description(*columns)
        assert len(parallel._workers) == 2  # the batch was shared
        assert shared.to_pylist() == alone.to_pylist()
        assert shared.type == alone.type
    finally:
        parallel._stop()
    assert parallel._workers == []


def test_calls_from_several_threads_at_once_share_the_workers_in_turn(monkeypatch) -> None:
    """DuckDB calls the function from several of its threads: each call gets its own rows."""
    key = parallel.load(VOCABULARY)
    monkeypatch.setattr(parallel, "MIN_ROWS_SEEN", 0)
    monkeypatch.setattr(parallel, "MIN_BATCH", 1)
    monkeypatch.setattr(parallel, "_cores", lambda: 1)

    def columns(n: int) -> list[pa.Array]:
        rows = [f"{b or ''} Call {n}." for b in BODIES] * 40
        return [
            pa.array(["acme/repo"] * len(rows), pa.string()),
            pa.array([f"feat: call {n}"] * len(rows), pa.string()),
            pa.array([f"call {n}"] * len(rows), pa.string()),
            pa.array(rows, pa.string()),
            pa.array([key] * len(rows), pa.string()),
        ]

    calls = [columns(n) for n in range(4)]
    alone = [function.read_description(*c).to_pylist() for c in calls]
    try:
        with ThreadPoolExecutor(4) as pool:
            shared = list(pool.map(lambda c: parallel.read_description(*c), calls))
        assert [s.to_pylist() for s in shared] == alone
        assert len(parallel._workers) == 1
    finally:
        parallel._stop()


def test_a_worker_that_dies_leaves_its_rows_to_this_process(monkeypatch, capsys) -> None:
    key = parallel.load(VOCABULARY)
    rows = BODIES * 5
    columns = [
        pa.array(["acme/repo"] * len(rows), pa.string()),
        pa.array(["fix: a race"] * len(rows), pa.string()),
        pa.array(["a race"] * len(rows), pa.string()),
        pa.array(rows, pa.string()),
        pa.array([key] * len(rows), pa.string()),
    ]
    alone = function.read_description(*columns).to_pylist()
    monkeypatch.setattr(parallel, "MIN_ROWS_SEEN", 0)
    monkeypatch.setattr(parallel, "MIN_BATCH", 1)
    monkeypatch.setattr(parallel, "_cores", lambda: 1)
    try:
        assert parallel.read_description(*columns).to_pylist() == alone
        parallel._workers[0].process.kill()
        parallel._workers[0].process.wait()
        assert parallel.read_description(*columns).to_pylist() == alone
        assert "reading alone" in capsys.readouterr().err
        assert parallel._workers == []
    finally:
        parallel._stop()
