"""Crafted repositories for the group tests: three of `acme` beside the bundled sample.

`acme/alpha` and `acme/beta` both bump numpy and both add Ascend NPU support in 2026-W30,
alpha releases 2.0.0 that week and beta has a first-time contributor; `acme/gamma` merged
every week until W29 and nothing in W30 (newly quiet). With `acme/rocket` (the sample) they
make the group `acme-team`.
"""

from __future__ import annotations

from pathlib import Path

from tests.unit.test_facts_support import pr, write_dataset

WEEKS = ("2026-06-30", "2026-07-07", "2026-07-14", "2026-07-21")  # a Tuesday of W27..W30
GROUP = "acme-team"
NOUNS = (
    "parser",
    "scheduler",
    "planner",
    "cache",
    "logger",
    "loader",
    "router",
    "sampler",
    "exporter",
    "indexer",
    "profiler",
)
REPOS = ("acme/alpha", "acme/beta", "acme/gamma", "acme/rocket")


def _at(day: str, hour: int) -> str:
    return f"{day}T{hour:02d}:00:00Z"


def _code(repo: str, number: int, title: str, day: str, hour: int, author: str, **more) -> dict:
    module = repo.split("/")[1]
    files = more.pop("files", None) or [
        (f"{module}/core/part_{number}.py", 60, "MODIFIED"),
        (f"tests/test_part_{number}.py", 30, "MODIFIED"),
    ]
    return pr(number, title, _at(day, hour), files, repo=repo, author=author, **more)


def _steady(repo: str, start: int, per_week: int, weeks=WEEKS) -> list[dict]:
    """Ordinary weeks: features and fixes with tests, by the regular authors."""
    nodes, number = [], start
    for week in weeks:
        for i in range(per_week):
            verb = ("Add", "Fix", "Speed up", "Document", "Refactor", "Cache")[number % 6]
            title = f"{verb} the {NOUNS[number % len(NOUNS)]} of the {repo.split('/')[1]} engine"
            nodes.append(_code(repo, number, title, week, 8 + i, ("ana", "bo", "cy")[i % 3]))
            number += 1
    return nodes


def _bump(repo: str, number: int, day: str) -> dict:
    files = [("requirements.txt", 2, "MODIFIED"), ("uv.lock", 60, "MODIFIED")]
    return pr(number, "Bump numpy from 2.1 to 2.2", _at(day, 15), files, repo=repo, author="bo")


def _npu(repo: str, number: int, day: str) -> dict:
    module = repo.split("/")[1]
    files = [(f"{module}/kernels/ascend_attention.py", 180, "ADDED")]
    title = "[kernels] feat: support Ascend NPU for the attention kernel"
    return pr(number, title, _at(day, 16), files, repo=repo, author="cy")


def nodes_of(repo: str) -> list[dict]:
    last = WEEKS[-1]
    if repo == "acme/alpha":
        release = pr(
            160,
            "chore: release 2.0.0",
            _at(last, 18),
            [("pyproject.toml", 2, "MODIFIED"), ("CHANGELOG.md", 40, "MODIFIED")],
            repo=repo,
            author="ana",
        )
        return [*_steady(repo, 100, 4), _bump(repo, 150, last), _npu(repo, 151, last), release]
    if repo == "acme/beta":
        newcomer = _code(
            repo,
            170,
            "[docs] fix: typo in the quick start",
            last,
            19,
            "newbie",
            files=[("docs/quickstart.md", 4, "MODIFIED")],
        )
        untested = [
            _code(
                repo,
                171 + i,
                f"[core] feat: new scheduler stage {i}",
                last,
                11 + i,
                "ana",
                files=[(f"beta/sched/stage_{i}.py", 240, "ADDED")],
            )
            for i in range(3)
        ]
        return [
            *_steady(repo, 200, 3),
            _bump(repo, 250, last),
            _npu(repo, 251, last),
            newcomer,
            *untested,
        ]
    if repo == "acme/gamma":  # and one PR the week after, so the file's range holds W30
        return [*_steady(repo, 300, 3, WEEKS[:-1]), *_steady(repo, 320, 1, ("2026-07-28",))]
    raise ValueError(repo)


def write_crafted(folder: Path) -> dict[str, Path]:
    """The three crafted repositories' files, by repository."""
    folder.mkdir(parents=True, exist_ok=True)
    return {
        repo: write_dataset(folder / f"{repo.replace('/', '__')}.jsonl", nodes_of(repo))
        for repo in REPOS[:3]
    }
