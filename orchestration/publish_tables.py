"""Tables written after a build's models (`publish.*`: editions, the delivery ledger), kept in
both copies of the warehouse.

A build publishes its working copy either week by week or, after rebuilding whole models, by
renaming the copy over the readers' file. A table the models do not write must therefore be in
both files, or the next whole-file publish would drop it: `write_both` writes the working copy
first (under the build lock), then the readers' file. Writes must be idempotent, so that one
interrupted between the two is completed by the next.
"""

from __future__ import annotations

from collections.abc import Callable

import duckdb

from orchestration import build_session
from orchestration.config import Settings
from orchestration.locks import file_lock
from orchestration.warehouse import apply_duckdb_init, connect

Write = Callable[[duckdb.DuckDBPyConnection], None]


def write_both(settings: Settings, write: Write, say: Callable[[str], None]) -> None:
    """Apply `write` to the working copy (if there is one) and to the readers' warehouse."""
    session = build_session._SESSION  # this process may still hold the copy (no publish step)
    if session is not None:
        write(session.conn)
    else:
        work = build_session.work_path(settings)
        if work.exists():
            with file_lock(
                work.with_name(work.name + ".lock"),
                on_wait=say,
                waiting_message="another build is writing the warehouse; waiting for it...",
            ):
                conn = duckdb.connect(str(work))
                try:
                    apply_duckdb_init(conn)
                    write(conn)
                finally:
                    conn.close()
    with connect(settings.warehouse_path, on_wait=say) as conn:
        write(conn)
