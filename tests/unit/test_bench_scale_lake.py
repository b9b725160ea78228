"""The scale bench's generated lake: a build over it reads the compacted copies."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench import scale
from orchestration.lake.compaction import plan_full_read
from orchestration.lake.files import list_week_files


def test_copies_made_stale_by_new_time_stamps_are_remade_before_measuring(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a lake copied without its time stamps (or touched) keeps its bytes but no longer
    # matches what its copies recorded: a full build would read every week file instead
    monkeypatch.setattr(scale, "WORK_DIR", tmp_path)
    home, _, _ = scale.ensure_lake(2, 5, 2, log=lambda _: None)
    lake = home / "lake"
    week_files = sorted((lake / "raw" / "pull_requests").rglob("*.parquet"))
    assert len(week_files) == 10
    assert plan_full_read(lake, list_week_files(lake)).weekly == []
    for path in week_files:
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert len(plan_full_read(lake, list_week_files(lake)).weekly) == 10

    said: list[str] = []
    scale.ensure_lake(2, 5, 2, log=said.append)

    plan = plan_full_read(lake, list_week_files(lake))
    assert (len(plan.compacted), plan.weekly) == (2, [])
    assert said == [said[0]] and said[0].startswith("remade stale compacted copies (10 weeks")
