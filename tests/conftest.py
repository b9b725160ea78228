"""Shared fixtures: a fresh PRWEEKLY_HOME per test and the datasets the tests read."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
VERL_DATASET = SHARED / "datasets" / "verl-project__verl" / "pull_requests.jsonl.gz"
SAMPLE_DATASET = ROOT / "orchestration" / "sample" / "acme__rocket.jsonl"


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
