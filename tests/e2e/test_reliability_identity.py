"""One identity per repository: GitHub's naming rules, case folded, folders that map back.

`Verl-Project/VERL` and `verl-project/verl` are one repository on GitHub, so they are one here:
one partition, one lake folder, one entry in repositories.yml, one `repo` value in the
warehouse. Reports keep the spelling GitHub returns. A home an older prweekly left with two
spellings is merged into one by the next build, which says so.
"""

from __future__ import annotations

import json
import random
import shutil
import string
from pathlib import Path

import duckdb
import pytest
import yaml

from orchestration.assets import repo_partitions
from orchestration.config import (
    UsageError,
    canonical_repo,
    load_settings,
    repo_of_slug,
    repo_slug,
    validate_repo,
)
from orchestration.service.instance import get_instance
from tests.conftest import SAMPLE_DATASET

W29, W30 = "2026-07-13", "2026-07-20"
EARLIER = ("2026-06-29", "2026-07-06")  # the sample's first weeks, extracted as history


@pytest.mark.parametrize(
    "repo",
    [
        "x__y/z",  # an owner with `_` made `x__y__z`, which maps back to x/y__z
        "x_y/z",
        "-acme/rocket",
        "acme-/rocket",
        "ac--me/rocket",
        "a" * 40 + "/rocket",
        "acme/.",
        "acme/" + "n" * 101,
    ],
)
def test_what_github_rejects_is_refused(repo: str) -> None:
    with pytest.raises(UsageError, match="owner/name"):
        validate_repo(repo)


def test_every_folder_name_maps_back_to_its_one_repository() -> None:
    rng = random.Random(14)
    owner_chars, name_chars = string.ascii_letters + string.digits, string.ascii_letters + "._-"
    for _ in range(2000):
        owner = "-".join(
            "".join(rng.choices(owner_chars, k=rng.randint(1, 6))) for _ in range(rng.randint(1, 3))
        )
        name = "".join(rng.choices(name_chars + "_", k=rng.randint(1, 12)))
        if name in (".", ".."):
            continue
        repo = f"{owner}/{name}"
        assert repo_of_slug(repo_slug(repo)) == canonical_repo(repo) == repo.lower()
        assert repo_slug(repo) == repo_slug(repo.swapcase())
    assert repo_of_slug("x__y__z") == "x/y__z"
    assert validate_repo("verl-project/.github") == "verl-project/.github"
    for slug in ("x_y__z", "Acme__rocket", "acme", "acme__.."):
        with pytest.raises(UsageError):
            repo_of_slug(slug)


def spelled(tmp_path: Path, spelling: str) -> Path:
    """The sample, with GitHub spelling the repository `spelling` in every PR's URL."""
    target = tmp_path / "spelled.jsonl"
    with target.open("w") as out:
        for line in SAMPLE_DATASET.read_text().splitlines():
            node = json.loads(line)
            node["url"] = node["url"].replace("acme/rocket", spelling)
            out.write(json.dumps(node) + "\n")
    return target


def build(repo: str, week: str, dataset: Path) -> int:
    from orchestration.service.cli import main

    return main(["build", "--repo", repo, "--week", week, "--source", f"file:{dataset}"])


def leave_a_second_spelling(home: Path) -> None:
    """What an older prweekly left after `build --repo ACME/Rocket --week W30`: a second lake
    folder and history record, warehouse rows, a report folder, a registry entry and a Dagster
    partition."""
    lake = home / "lake" / "raw" / "pull_requests"
    legacy = lake / "repo=ACME__Rocket" / f"week={W30}"
    legacy.mkdir(parents=True)
    with duckdb.connect() as conn:  # W30's PRs, as that build wrote them
        conn.execute(
            "copy (select * replace ('ACME/Rocket' as repo, date '2026-07-20' as week_start) "
            "from read_parquet(?)) to ? (format parquet)",
            [str(lake / "repo=acme__rocket" / f"week={W29}" / "data.parquet"),
             str(legacy / "data.parquet")],
        )  # fmt: skip
    history = home / "lake" / "raw" / "history"  # where its history began, as it recorded it
    (history / "repo=ACME__Rocket").mkdir(parents=True)
    shutil.copy(history / "repo=acme__rocket" / "data.parquet", history / "repo=ACME__Rocket")
    shutil.rmtree(home / "build")  # an older prweekly wrote the warehouse itself
    with duckdb.connect(str(home / "warehouse.duckdb")) as conn:
        conn.execute(
            "insert into staging.stg_weekly_partitions values ('ACME/Rocket', date '2026-07-20')"
        )
    (home / "reports" / "ACME__Rocket").mkdir(parents=True)
    (home / "reports" / "ACME__Rocket" / f"{W30}.en.md").write_text("# an old report\n")
    registry = home / "repositories.yml"
    doc = yaml.safe_load(registry.read_text())
    doc["repositories"].append({"name": "ACME/Rocket", "core_paths": ["engine/"]})
    registry.write_text(yaml.safe_dump(doc))
    get_instance(load_settings()).add_dynamic_partitions(repo_partitions.name, ["ACME/Rocket"])


def test_two_spellings_are_one_repository_and_an_old_home_is_merged(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    dataset = spelled(tmp_path, "Acme/Rocket")  # GitHub's own spelling of the repository
    assert build("acme/rocket", W29, dataset) == 0
    leave_a_second_spelling(home)
    capsys.readouterr()

    assert build("ACME/ROCKET", W30, dataset) == 0
    out = capsys.readouterr()
    assert "merged ACME/Rocket into acme/rocket" in out.out + out.err

    lake = home / "lake" / "raw" / "pull_requests"
    assert sorted(p.name for p in lake.iterdir()) == ["repo=acme__rocket"]
    assert sorted(p.name for p in (lake / "repo=acme__rocket").iterdir()) == [
        *(f"week={w}" for w in EARLIER),  # the history the first build extracted
        f"week={W29}",
        f"week={W30}",
    ]
    folders = [p.name for p in (home / "reports").iterdir() if p.is_dir()]  # not the site's home
    assert folders == ["acme__rocket"]
    history = home / "lake" / "raw" / "history"
    assert sorted(p.name for p in history.iterdir()) == ["repo=acme__rocket"]
    instance = get_instance(load_settings())
    assert instance.get_dynamic_partitions(repo_partitions.name) == ["acme/rocket"]
    entries = yaml.safe_load((home / "repositories.yml").read_text())["repositories"]
    source = f"file:{dataset.resolve()}"  # recorded by the first build
    assert entries == [{"name": "acme/rocket", "source": source, "core_paths": ["engine/"]}]
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        for table in ("staging.stg_weekly_partitions", "marts.fct_pull_requests"):
            assert conn.execute(f"select distinct repo from {table}").fetchall() == [
                ("acme/rocket",)
            ]
        summary = conn.execute(
            "select week_start::varchar, merged_prs from marts.fct_weekly_summary order by 1"
        ).fetchall()
        assert summary == [(EARLIER[0], 7), (EARLIER[1], 9), (W29, 8), (W30, 10)]  # not doubled
    report = (home / "reports" / "acme__rocket" / f"{W30}.en.md").read_text()
    assert report.startswith("# ") and "Acme/Rocket" in report.splitlines()[0]
