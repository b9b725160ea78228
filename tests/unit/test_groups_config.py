"""`groups:` in repositories.yml: checked as strictly as the rest of the file, one group per
owner without it, kept when the file is written back, and what a group's correction says."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from orchestration.group.editions import group_changes
from orchestration.repositories.registry import (
    Repository,
    load_groups,
    load_repositories,
    remove,
    upsert,
)
from orchestration.repositories.settings import load_repository_settings
from tests.unit.test_config_strict import refusal

REPOS = """\
repositories:
- name: acme/rocket
- name: acme/alpha
- name: Verl-Project/verl
- name: solo/one
"""


def write(home: Path, text: str) -> Path:
    home.mkdir(exist_ok=True)
    path = home / "repositories.yml"
    path.write_text(text, encoding="utf-8")
    return path


def test_without_groups_each_owner_with_several_repositories_is_one(home: Path) -> None:
    write(home, REPOS)
    (group,) = load_groups(home)
    assert (group.name, group.repositories, group.configured) == (
        "acme",
        ("acme/alpha", "acme/rocket"),
        False,
    )
    write(home, "groups: []\n" + REPOS)
    assert load_groups(home) == []  # an empty list turns groups off


def test_configured_groups_keep_their_order_and_reach_the_settings_source(home: Path) -> None:
    write(home, "groups:\n- name: ml\n  repositories: [verl-project/VERL, acme/rocket]\n" + REPOS)
    (group,) = load_groups(home)
    assert (group.name, group.repositories) == ("ml", ("verl-project/verl", "acme/rocket"))
    with duckdb.connect() as conn:
        load_repository_settings(conn, home)
        rows = conn.execute("select * from settings.groups order by position").fetchall()
    assert rows == [("ml", "verl-project/verl", 1, True), ("ml", "acme/rocket", 2, True)]


@pytest.mark.parametrize(
    ("groups", "said"),
    [
        ("- name: ml\n  repositories: [acme/rocket]\n  repository: [acme/alpha]\n",
         "group ml: unknown key repository (did you mean repositories? known: name, repositories, "
         "deliver)"),
        ("- name: ml\n  repositories: [acme/rocket]\n- name: ml\n  repositories: [acme/alpha]\n",
         "group ml (group #2) is listed twice (also group #1): keep one"),
        ("- name: ml\n  repositories: [acme/rocket, pola-rs/polars]\n",
         "group ml: pola-rs/polars is not registered: add it under repositories: (prweekly repo "
         "add pola-rs/polars) or take it out of the group"),
        ("- name: ML Infra\n  repositories: [acme/rocket]\n",
         "group name 'ML Infra' must be lower case letters"),
        ("- name: ml\n  repositories: acme/rocket\n",
         "group ml: repositories must list owner/name entries"),
        ("- name: ml\n  repositories: [acme/rocket, ACME/Rocket]\n",
         "group ml: ACME/Rocket is listed twice"),
        ("- name: ml\n  repositories: [acme/rocket, solo/one]\n  deliver:\n"
         "    github: {discussion_category: Announcements}\n",
         "group ml: deliver: github: its repositories have several owners: say where to post "
         "with repository: owner/.github"),
        ("- name: ml\n  repositories: [acme/rocket]\n  deliver:\n"
         "    github: {discussion_category: General, repositry: acme/.github}\n",
         "group ml: deliver: github: unknown key repositry (did you mean repository?"),
    ],
)  # fmt: skip
def test_a_mistake_in_groups_is_one_line_naming_the_group(
    home: Path, capsys: pytest.CaptureFixture, groups: str, said: str
) -> None:
    line = refusal(home, "groups:\n" + groups + REPOS, capsys)
    assert line.startswith(f"{home / 'repositories.yml'}: {said}"), line


def test_the_github_target_of_a_group_posts_in_the_owner_s_github_repository(home: Path) -> None:
    write(
        home,
        "groups:\n- name: acme-team\n  repositories: [acme/rocket, acme/alpha]\n  deliver:\n"
        "    github: {discussion_category: Announcements}\n" + REPOS,
    )
    (target,) = load_groups(home)[0].delivery().targets
    assert target.repository == "acme/.github"


def test_writing_the_file_back_keeps_the_groups_without_a_removed_repository(home: Path) -> None:
    write(
        home,
        "groups:\n- name: ml\n  repositories: [acme/rocket, acme/alpha]\n"
        "- name: solo\n  repositories: [solo/one]\n" + REPOS,
    )
    upsert(home, Repository("pola-rs/polars"))
    assert [g.repositories for g in load_groups(home)] == [
        ("acme/rocket", "acme/alpha"),
        ("solo/one",),
    ]
    assert remove(home, "acme/alpha") and remove(home, "solo/one")
    assert [(g.name, g.repositories) for g in load_groups(home)] == [("ml", ("acme/rocket",))]
    assert {r.repo for r in load_repositories(home)} == {
        "acme/rocket",
        "verl-project/verl",
        "pola-rs/polars",
    }


def test_a_group_correction_says_what_changed_per_repository() -> None:
    old = {
        "acme/alpha": {"merged_prs": 7, "releases": [], "lead": "#151 Ascend"},
        "acme/beta": {"merged_prs": 9, "releases": ["1.0"], "lead": "#171 stage"},
        "risks:": {"subjects": ["numpy"]},
    }
    new = {
        "acme/alpha": {"merged_prs": 8, "releases": ["2.0.0"], "lead": "#199 router"},
        "acme/beta": {"merged_prs": 9, "releases": [], "lead": "#171 stage"},
        "risks:": {"subjects": ["numpy", "ascend"]},
    }
    assert group_changes(old, new) == [
        {"repo": "acme/alpha", "kind": "merged", "old": 7, "new": 8},
        {"repo": "acme/alpha", "kind": "release_added", "version": "2.0.0"},
        {"repo": "acme/alpha", "kind": "lead", "old": "#151 Ascend", "new": "#199 router"},
        {"repo": "acme/beta", "kind": "release_removed", "version": "1.0"},
        {"kind": "risk_added", "subject": "ascend"},
    ]
    assert group_changes(new, new) == []
