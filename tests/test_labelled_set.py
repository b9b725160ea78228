"""The hand-labelled PR set is well-formed and matches the seeded sample it was drawn as."""

from __future__ import annotations

import csv
import importlib.util
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import SHARED

LABELLED = Path(__file__).resolve().parent / "fixtures" / "labelled"
DATASETS = SHARED / "datasets"
REPOS = {"verl-project/verl", "pola-rs/polars"}
COLUMNS = [
    "repo",
    "number",
    "sample",
    "title",
    "change_type",
    "primary_area",
    "topics",
    "severity",
    "notes",
]
CHANGE_TYPES = {"feat", "fix", "perf", "refactor", "docs", "test", "ci", "chore", "revert", "other"}
TOPICS = {
    "performance",
    "correctness",
    "model_support",
    "hardware",
    "features",
    "devex",
    "infrastructure",
    "dependencies",
}
SEVERITIES = {
    "race",
    "deadlock",
    "hang",
    "corruption",
    "data_loss",
    "crash",
    "oom",
    "nan",
    "wrong_result",
    "leak",
    "security",
    "regression",
    "minor",
}
# Names the issue rules out as an area: languages, the repositories' own names, container folders.
NOT_AN_AREA = {"rust", "python", "py", "js", "verl", "polars", "crates", "src", "packages"}
NOT_AN_AREA |= {"experimental", "py-polars"}


def _load_sample():
    spec = importlib.util.spec_from_file_location("labelled_sample", LABELLED / "sample.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    with (LABELLED / "prs.csv").open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == COLUMNS
        return list(reader)


def test_size_and_repositories(rows):
    assert len(rows) >= 150
    per_repo = Counter(r["repo"] for r in rows)
    assert set(per_repo) == REPOS
    assert min(per_repo.values()) >= 80
    assert {r["sample"] for r in rows} == {"random", "w30"}


def test_no_duplicate_pr(rows):
    keys = Counter((r["repo"], int(r["number"])) for r in rows)
    assert [k for k, n in keys.items() if n > 1] == []


def test_every_label_is_in_its_vocabulary(rows):
    for r in rows:
        where = f"{r['repo']}#{r['number']}"
        assert r["change_type"] in CHANGE_TYPES, where
        topics = r["topics"].split(";")
        assert topics and set(topics) <= TOPICS and len(set(topics)) == len(topics), where
        if r["severity"]:
            assert r["severity"] in SEVERITIES, where
            assert r["change_type"] in {"fix", "revert", "perf"}, where
        if r["change_type"] == "fix":
            assert r["severity"], f"{where}: a fix needs a severity"
        areas = [a.lower().replace("_", "-") for a in r["primary_area"].split("|")]
        assert 1 <= len(areas) <= 4 and all(areas), where
        assert not set(areas) & NOT_AN_AREA, where


def test_rows_are_the_seeded_sample_and_exist_in_the_datasets(rows):
    if not DATASETS.is_dir():
        pytest.skip("the shared datasets are not beside the clone (../shared/datasets/)")
    sample = _load_sample()
    prs = {repo: list(sample.read_prs(DATASETS, repo)) for repo in sorted(REPOS)}
    assert [(r["repo"], int(r["number"]), r["sample"]) for r in rows] == sample.draw_from(prs)
    titles = {
        (repo, pr["number"]): pr["title"] for repo, repo_prs in prs.items() for pr in repo_prs
    }
    for r in rows:
        assert titles[(r["repo"], int(r["number"]))] == r["title"]
