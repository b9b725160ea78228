"""repositories.yml as the truth: concurrent writers, the schedule, and removal during a build."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from orchestration.repositories import Repository, load_repositories, remove, upsert
from tests.conftest import ROOT

WRITER = """\
import sys
from pathlib import Path
from orchestration.repositories import Repository, remove, upsert
home, owner, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
for i in range(count):
    upsert(home, Repository(f"{owner}/repo-{i}", core_paths=[f"src/{i}/"]))
    if i % 5 == 0:
        remove(home, f"old/repo-{owner}-{i}")
"""


def test_concurrent_writers_of_the_repositories_file_lose_nothing(home: Path) -> None:
    owners = [f"owner{n}" for n in range(4)]
    for owner in owners:  # entries the writers remove while the others add
        for i in range(0, 25, 5):
            upsert(home, Repository(f"old/repo-{owner}-{i}"))
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(home), owner, "25"], cwd=ROOT)
        for owner in owners
    ]
    assert [w.wait(timeout=120) for w in writers] == [0] * len(writers)
    repos = {r.name: r for r in load_repositories(home)}
    assert sorted(repos) == sorted(f"{o}/repo-{i}" for o in owners for i in range(25))
    assert repos["owner3/repo-24"].core_paths == ["src/24/"]
    assert not list(home.glob(".repositories.yml.*"))  # no temporary file left behind


def test_remove_and_upsert_keep_each_others_entries(home: Path) -> None:
    upsert(home, Repository("acme/rocket", source="github"))
    upsert(home, Repository("acme/lander"))
    assert remove(home, "ACME/Rocket") and not remove(home, "acme/rocket")
    assert [r.name for r in load_repositories(home)] == ["acme/lander"]
