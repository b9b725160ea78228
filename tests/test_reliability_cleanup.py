"""What a killed build leaves behind is put right by the next one, on its own.

- killed while the very first build creates Dagster's storage: the next build notices the
  unfinished storage, sets it aside and makes a new one (it used to fail for ever with
  "requires the dynamic partitions table");
- temporary files a kill leaves (`.repositories.yml.*`, half-written report and compacted
  copies, the working copy's or the published file's temporaries, compaction folders in the
  system's temporary directory) are removed by the next build once they are an hour old, so a
  file another build is still writing is never touched.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import pytest

from orchestration.cli import main
from tests.test_reliability_crash import build_args, datasets, killed_build

HOUR = 3600


def stray(path: Path, age: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == "" and path.name.startswith("prweekly-compact-"):
        path.mkdir()
        (path / "compacted.parquet").write_bytes(b"half")
    else:
        path.write_bytes(b"half")
    stamp = time.time() - age
    os.utime(path, (stamp, stamp))
    return path


def test_a_kill_in_the_first_set_up_and_stray_files_are_put_right_by_the_next_build(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    v1, _ = datasets(tmp_path)
    killed_build(home, "dagster_setup", v1)
    assert not (home / "dagster" / ".initialised").exists()

    lake_copies = home / "lake" / "raw" / "pull_requests_compacted" / "acme__rocket"
    reports = home / "reports" / "acme__rocket"
    system = Path(tempfile.gettempdir())
    old = [
        stray(home / ".repositories.yml.k1lled", 2 * HOUR),
        stray(home / ".warehouse.duckdb.0f1e2d.tmp", 2 * HOUR),
        stray(home / "build" / "work.copying", 2 * HOUR),
        stray(lake_copies / ".20260720T000000000000Z-ab.parquet.x1.tmp", 2 * HOUR),
        stray(lake_copies / ".clock-0a1b.tmp", 2 * HOUR),
        stray(reports / ".2026-07-20.en.md.x1.tmp", 2 * HOUR),
        stray(system / f"prweekly-compact-{os.getpid()}old", 2 * HOUR),
    ]
    young = [
        stray(home / ".repositories.yml.writing", 60),
        stray(reports / ".2026-07-20.zh.md.x2.tmp", 60),
        stray(system / f"prweekly-compact-{os.getpid()}new", 60),
    ]
    capsys.readouterr()
    try:
        assert main(build_args(v1)) == 0
        out = capsys.readouterr()
        assert "unfinished" in out.out + out.err
        assert [p for p in old if p.exists()] == []
        assert all(p.exists() for p in young)
    finally:
        for path in young:
            if path.is_dir():
                (path / "compacted.parquet").unlink()
                path.rmdir()
