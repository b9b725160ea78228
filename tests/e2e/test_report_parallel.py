"""A run's reports rendered by several processes, each repository in one, are byte for byte
the reports one process renders, with the same editions."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import pytest

from orchestration.config import load_settings
from orchestration.report import write
from orchestration.run_scope import RunScope
from orchestration.service.cli import main
from tests.conftest import SAMPLE_DATASET

SCOPES = [
    RunScope(repo, date(2026, 6, 29), date(2026, 7, 20)) for repo in ("acme/rocket", "acme/second")
]


def _key(edition) -> tuple:
    return (edition.repo, edition.week_start, edition.lang, edition.edition, edition.content_sha256)


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_reports_rendered_by_two_processes_are_those_of_one(
    home: Path, sample_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(sample_home, home)  # acme/rocket's weeks 27 to 30
    second = tmp_path / "acme__second.jsonl"
    second.write_text(
        SAMPLE_DATASET.read_text(encoding="utf-8").replace("acme/rocket", "acme/second"),
        encoding="utf-8",
    )
    args = ["build", "--repo", "acme/second", "--week", "2026-W27", "--to", "2026-W30"]
    assert main([*args, "--source", f"file:{second}"]) == 0
    settings = load_settings()

    monkeypatch.setenv("PRWEEKLY_REPORTS_URI", str(tmp_path / "one"))
    alone = write.write_reports(settings, SCOPES)

    pools, real_pool = [], write.ProcessPoolExecutor

    def counting_pool(workers: int, **options):
        pools.append(workers)
        return real_pool(workers, **options)

    monkeypatch.setattr(write, "ProcessPoolExecutor", counting_pool)
    monkeypatch.setattr(write, "MIN_WEEKS_PER_PROCESS", 1)
    monkeypatch.setattr(write.os, "cpu_count", lambda: 2)
    monkeypatch.setenv("PRWEEKLY_REPORTS_URI", str(tmp_path / "two"))
    shared = write.write_reports_shared(settings, SCOPES, print)

    assert pools == [1]  # one new process beside this one
    one, two = _files(tmp_path / "one"), _files(tmp_path / "two")
    assert len(one) >= 2 * 4 * 4  # two repositories, four weeks, md and html in two languages
    assert two == one
    assert [_key(e) for e in shared.editions] == [_key(e) for e in alone.editions]
    assert [str(p) for p, _ in shared.written] == [
        str(p).replace(str(tmp_path / "one"), str(tmp_path / "two")) for p, _ in alone.written
    ]


def test_a_process_that_renders_reports_imports_no_dagster() -> None:
    """Each new rendering process imports `orchestration.report.write`: Dagster's import alone
    would cost it about a second of the run."""
    import subprocess
    import sys

    check = "import sys, orchestration.report.write; print('dagster' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr
