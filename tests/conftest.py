"""Shared fixtures: a fresh PRWEEKLY_HOME per test and the datasets the tests read."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
VERL_DATASET = SHARED / "datasets" / "verl-project__verl" / "pull_requests.jsonl.gz"
SAMPLE_DATASET = ROOT / "orchestration" / "sample" / "acme__rocket.jsonl"
VERL_RANGE = ("2024-10-28", "2026-08-17")  # every week of the shared verl dataset


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty PRWEEKLY_HOME, with nothing inherited from the caller's environment."""
    home = tmp_path / "home"
    monkeypatch.setenv("PRWEEKLY_HOME", str(home))
    monkeypatch.delenv("PRWEEKLY_SOURCE", raising=False)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    return home


@pytest.fixture
def verl_dataset() -> Path:
    if not VERL_DATASET.exists():
        pytest.skip(
            f"the shared verl dataset is not here ({VERL_DATASET.relative_to(ROOT.parent)})"
        )
    return VERL_DATASET


def build_sample(week: str, to: str | None = None) -> int:
    """`prweekly build` of the bundled sample repository from its file, in this process."""
    from orchestration.cli import main

    weeks = ["--week", week, *(["--to", to] if to else [])]
    return main(["build", "--repo", "acme/rocket", *weeks, "--source", f"file:{SAMPLE_DATASET}"])


def _built_home(root: Path, repo: str, first: str, last: str, dataset: Path) -> Path:
    """`prweekly build` of a range from a file into a fresh PRWEEKLY_HOME under `root`."""
    from orchestration.cli import main

    home = root / "home"
    with pytest.MonkeyPatch.context() as mp:
        for name in ("PRWEEKLY_SOURCE", "GITHUB_TOKEN", "DAGSTER_HOME", "GITHUB_GRAPHQL_URL"):
            mp.delenv(name, raising=False)
        mp.setenv("PRWEEKLY_HOME", str(home))
        args = ["build", "--repo", repo, "--week", first, "--to", last]
        assert main([*args, "--source", f"file:{dataset}"]) == 0
    return home


@pytest.fixture(scope="session")
def verl_history_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole verl history built once from the shared file; tests only read it."""
    if not VERL_DATASET.exists():
        pytest.skip("the shared verl dataset is not beside the clone (../shared/datasets/)")
    root = tmp_path_factory.mktemp("verl-history")
    return _built_home(root, "verl-project/verl", *VERL_RANGE, VERL_DATASET)


@pytest.fixture(scope="session")
def sample_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled sample repository's four weeks, built once; tests only read it."""
    root = tmp_path_factory.mktemp("sample")
    return _built_home(root, "acme/rocket", "2026-W27", "2026-W30", SAMPLE_DATASET)
