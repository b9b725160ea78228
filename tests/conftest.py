"""Shared fixtures: a fresh PRWEEKLY_HOME per test, the datasets, and homes built once per run.

How the suite is organised for speed (pytest-xdist, a RAM-backed temporary folder, homes
shared between workers) is written down in docs/testing.md.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from orchestration.storage import file_lock

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
VERL_DATASET = SHARED / "datasets" / "verl-project__verl" / "pull_requests.jsonl.gz"
SAMPLE_DATASET = ROOT / "orchestration" / "sample" / "acme__rocket.jsonl"
VERL_RANGE = ("2024-10-28", "2026-08-17")  # every week of the shared verl dataset
POLARS_DATASET = SHARED / "datasets" / "pola-rs__polars" / "pull_requests.jsonl.gz"
POLARS_RANGE = ("2020-09-28", "2026-08-17")  # every week of the shared polars dataset


@pytest.fixture(autouse=True)
def _no_dagster_state_storage_left_behind():
    """Dagster keeps the last instance's definitions-state storage in a process-wide context
    variable: after a test it would still point at that test's instance (a removed folder, a
    stopped Postgres), and a later test in the same worker would fail opening it. Likewise
    `DAGSTER_HOME`, which every prweekly command sets for its process: a test that runs one
    in-process would leave it naming its removed folder to the next test's `dagster` command."""
    from dagster._core.storage.defs_state import base

    before = base._current_storage.get()
    dagster_home = os.environ.get("DAGSTER_HOME")
    yield
    base._current_storage.set(before)
    if dagster_home is None:
        os.environ.pop("DAGSTER_HOME", None)
    else:
        os.environ["DAGSTER_HOME"] = dagster_home


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty PRWEEKLY_HOME, with nothing inherited from the caller's environment."""
    home = tmp_path / "home"
    monkeypatch.setenv("PRWEEKLY_HOME", str(home))
    monkeypatch.delenv("PRWEEKLY_SOURCE", raising=False)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    # a build points DAGSTER_HOME at its home itself: set here first, so that the test's end
    # takes it back and no later test in this worker finds this test's instance (its storage
    # may be a Postgres server that is gone by then)
    monkeypatch.setenv("DAGSTER_HOME", str(home / "dagster"))
    monkeypatch.delenv("DAGSTER_HOME")
    return home


@pytest.fixture
def verl_dataset() -> Path:
    if not VERL_DATASET.exists():
        pytest.skip(
            f"the shared verl dataset is not here ({VERL_DATASET.relative_to(ROOT.parent)})"
        )
    return VERL_DATASET


def _use_a_memory_temp_folder() -> None:
    """Put the tests' temporary folders in RAM (/dev/shm) unless TMPDIR says where.

    Every build commits Dagster's SQLite event log a few hundred times and DuckDB and Parquet
    files after that; on a disk each commit waits for fsync, which was a large part of the
    suite's wall time. The tests assert what the files hold, never that they reached a disk
    (the kill tests kill the process, not the machine), so RAM loses nothing they check.
    Set here, before the first temporary folder, so that workers and child processes inherit it.
    """
    memory = Path("/dev/shm")
    if os.environ.get("TMPDIR") or not memory.is_dir() or not os.access(memory, os.W_OK):
        return
    if shutil.disk_usage(memory).free < 4 * 2**30:
        return
    os.environ["TMPDIR"] = str(memory)
    tempfile.tempdir = None  # forget a folder chosen before


_use_a_memory_temp_folder()

# `make test` runs the modules on two xdist workers (`--dist loadfile`: a module's tests stay
# on one worker, so its module-scoped fixtures are built once). The modules that take longest
# start first, so that no worker is left with one of them at the end while the other idles
# (see docs/testing.md); the others follow in file order.
LONGEST_FIRST = (  # by --durations of `make test`; the verl readers last, once it is built
    "test_verl_history.py",
    "test_report_history.py",  # builds the polars history (and reads verl's)
    "test_ui.py",  # mostly waits for Dagster's daemon (a turn every 30 s), leaving the CPU
    "test_operations.py",
    "test_reliability_crash.py",
    "test_deploy_postgres.py",
    "test_rebuild_scope.py",
    "test_one_failure.py",
    "test_history.py",
    "test_build.py",
    "test_delivery.py",
    "test_reliability_input.py",
    "test_narrative.py",
    "test_narrative_runs.py",
    "test_packaging.py",
    "test_reliability_disk.py",
    "test_reliability_checks.py",
    "test_lookback.py",
    "test_github_build.py",
    "test_reliability_load.py",
    "test_report_pipeline.py",
    "test_site_browser.py",
    "test_reliability_identity.py",
    "test_editions.py",
    "test_deploy_object_store.py",
    "test_build_all.py",
    "test_repositories.py",
    "test_reliability_secrets.py",
    "test_deploy_manifests.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest modules first (a stable sort: each module keeps its own order)."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


def build_sample(week: str, to: str | None = None) -> int:
    """`prweekly build` of the bundled sample repository from its file, in this process."""
    from orchestration.service.cli import main

    weeks = ["--week", week, *(["--to", to] if to else [])]
    return main(["build", "--repo", "acme/rocket", *weeks, "--source", f"file:{SAMPLE_DATASET}"])


def _built_home(root: Path, repo: str, first: str, last: str, dataset: Path) -> Path:
    """`prweekly build` of a range from a file into a fresh PRWEEKLY_HOME under `root`."""
    from orchestration.service.cli import main

    home = root / "home"
    with pytest.MonkeyPatch.context() as mp:
        for name in ("PRWEEKLY_SOURCE", "GITHUB_TOKEN", "DAGSTER_HOME", "GITHUB_GRAPHQL_URL"):
            mp.delenv(name, raising=False)
        mp.setenv("PRWEEKLY_HOME", str(home))
        args = ["build", "--repo", repo, "--week", first, "--to", last]
        assert main([*args, "--source", f"file:{dataset}"]) == 0
    return home


def _modelled_home(root: Path, repo: str, first: str, last: str, dataset: Path) -> Path:
    """A range's lake, warehouse and reports, as `prweekly build` leaves them, but built by the
    model runner and the report writer directly, without Dagster's run around them (a third
    less CPU for the polars history): for the tests that read only the marts and the reports
    (no site, no run history, no editions saved)."""
    import gzip
    import json
    from datetime import date

    from orchestration.config import load_settings
    from orchestration.report.write import write_reports_shared
    from orchestration.run_scope import RunScope
    from tests.unit.test_facts_support import build_models

    home = root / "home"
    opener = gzip.open if dataset.suffix == ".gz" else open
    with opener(dataset, "rt", encoding="utf-8") as lines:
        nodes = [json.loads(line) for line in lines if line.strip()]
    weeks = (date.fromisoformat(first), date.fromisoformat(last))
    build_models(home, {repo: nodes}, weeks=weeks)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PRWEEKLY_HOME", str(home))
        write_reports_shared(load_settings(), [RunScope(repo, *weeks)], lambda _: None)
    return home


def built_once_per_run(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], Path]
) -> Path:
    """`build(root)` once per test run, however many xdist workers ask: the first builds
    under a lock in the run's shared temporary folder, the others wait and get the same
    result. For homes that tests only read; a test that writes must copy it first."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    root = shared / f"built-once-{name}"
    with file_lock(shared / f"built-once-{name}.lock"):
        done = root / ".built"
        if done.exists():
            return Path(done.read_text(encoding="utf-8"))
        if root.exists():  # a worker failed half-way: build again, from nothing
            shutil.rmtree(root)
        root.mkdir()
        result = build(root)
        done.write_text(str(result), encoding="utf-8")
    return result


@pytest.fixture(scope="session")
def verl_history_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole verl history built once from the shared file; tests only read it."""
    if not VERL_DATASET.exists():
        pytest.skip("the shared verl dataset is not beside the clone (../shared/datasets/)")
    return built_once_per_run(
        tmp_path_factory,
        "verl-history",
        lambda root: _built_home(root, "verl-project/verl", *VERL_RANGE, VERL_DATASET),
    )


@pytest.fixture(scope="session")
def polars_history_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole polars history (308 weeks) built once from the shared file; tests only read
    it."""
    if not POLARS_DATASET.exists():
        pytest.skip("the shared polars dataset is not beside the clone (../shared/datasets/)")
    return built_once_per_run(
        tmp_path_factory,
        "polars-history",
        lambda root: _modelled_home(root, "pola-rs/polars", *POLARS_RANGE, POLARS_DATASET),
    )


@pytest.fixture(scope="session")
def sample_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled sample repository's four weeks, built once; tests only read it."""
    return built_once_per_run(
        tmp_path_factory,
        "sample",
        lambda root: _built_home(root, "acme/rocket", "2026-W27", "2026-W30", SAMPLE_DATASET),
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """With CI=true a skip fails the test: a missing install step must not pass as a skip. Only a
    test marked `opt_in` (the load test's full job) may skip there."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("CI") == "true" and not item.get_closest_marker("opt_in"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped with CI=true, where every test must run: {reason}"
