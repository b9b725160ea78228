"""The hand-labelled PR set is well-formed and matches the seeded sample it was drawn as."""

from __future__ import annotations

import csv
import importlib.util
import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from tests.conftest import SHARED

LABELLED = Path(__file__).resolve().parents[1] / "fixtures" / "labelled"
DATASETS = SHARED / "datasets"
COLUMNS = [
    "repo",
    "number",
    "sample",
    "title",
    "change_type",
    "primary_area",
    "topics",
    "severity",
    "change_sentence",
    "headline_claim",
    "caveats",
    "story",
    "is_release",
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
CAVEATS = {"trade_off", "default", "omission", "unverified", "breaking"}
# Names the issue rules out as an area: languages, the repositories' own names, container folders.
NOT_AN_AREA = {"rust", "python", "py", "js", "ts", "go", "typescript", "javascript"}
NOT_AN_AREA |= {"verl", "polars", "fastapi", "caddy", "vite", "trl", "uv"}
NOT_AN_AREA |= {"crates", "src", "packages", "experimental", "py-polars"}
# `<figure><unit> <metric>[ at <condition>]`, e.g. `1.679x latency at FSDP=1, accumulation=8`
CLAIM = re.compile(
    r"(?P<value>[-+]?\d+(?:\.\d+)?)(?P<unit>x|%|ms|s|min|h|KB|MB|GB|MiB|GiB)"
    r" (?P<metric>\S.*?)(?: at (?P<condition>\S.*))?"
)


def _load_sample():
    spec = importlib.util.spec_from_file_location("labelled_sample", LABELLED / "sample.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SAMPLE = _load_sample()
SHARED_REPOS = set(SAMPLE.REPOS)
EXTRA_REPOS = set(SAMPLE.EXTRA_REPOS)


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    with (LABELLED / "prs.csv").open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == COLUMNS
        return list(reader)


def test_size_and_repositories(rows):
    assert len(rows) >= 300
    per_repo = Counter(r["repo"] for r in rows)
    assert set(per_repo) == SHARED_REPOS | EXTRA_REPOS
    assert all(per_repo[r] >= 80 for r in SHARED_REPOS)
    assert all(per_repo[r] >= SAMPLE.EXTRA_PER_REPO + SAMPLE.WEEK_PRS[0] for r in EXTRA_REPOS)
    weeks = {r["repo"] for r in rows if r["sample"] == "week"}
    assert weeks == EXTRA_REPOS
    assert {r["sample"] for r in rows} == {"random", "w30", "week"}


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
        caveats = [c for c in r["caveats"].split(";") if c]
        assert set(caveats) <= CAVEATS and len(set(caveats)) == len(caveats), where
        assert r["is_release"] in {"true", "false"}, where
        for claim in filter(None, r["headline_claim"].split("|")):
            assert CLAIM.fullmatch(claim), f"{where}: {claim!r}"


def test_fetched_repositories_keep_no_text_of_theirs(rows):
    """Their datasets are not ours to commit: no title, and sentences only as locators."""
    for r in rows:
        where = f"{r['repo']}#{r['number']}"
        parts = [p for p in r["change_sentence"].split(SAMPLE.ALTERNATIVES) if p]
        located = [bool(SAMPLE.LOCATOR.fullmatch(p)) for p in parts]
        if r["repo"] in EXTRA_REPOS:
            assert r["title"] == "" and all(located), where
        else:
            assert r["title"] and not any(located), where


def test_stories_join_prs_of_one_labelled_week(rows):
    members: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        if r["story"]:
            assert r["sample"] != "random", f"{r['repo']}#{r['number']}: no whole week"
            members[(r["repo"], r["story"])].append(r)
    assert members, "the whole weeks tell no story"
    for (repo, story), prs in members.items():
        assert len(prs) >= 2, f"{repo} story {story!r} has one PR"


def test_rows_are_the_seeded_sample_and_exist_in_the_datasets(rows):
    if not DATASETS.is_dir():
        pytest.skip("the shared datasets are not beside the clone (../shared/datasets/)")
    prs = {repo: list(SAMPLE.read_prs(DATASETS, repo)) for repo in sorted(SHARED_REPOS)}
    shared = [r for r in rows if r["repo"] in SHARED_REPOS]
    assert [(r["repo"], int(r["number"]), r["sample"]) for r in shared] == SAMPLE.draw_from(prs)
    by_key = {(repo, pr["number"]): pr for repo, repo_prs in prs.items() for pr in repo_prs}
    for r in shared:
        pr = by_key[(r["repo"], int(r["number"]))]
        assert pr["title"] == r["title"]
        body = SAMPLE.collapse(pr["body"] or "")
        for sentence in SAMPLE.sentences(r["change_sentence"]):
            assert sentence in body, f"{r['repo']}#{r['number']}: {sentence[:60]!r}"
