"""A seeded generator of a raw lake: many repositories × weeks × merged PRs, written directly.

`python -m bench.generate --repos 1000 --weeks 100 --prs 10 --home DIR` writes
`DIR/lake/raw/pull_requests/repo=<o>__<n>/week=<date>/data.parquet` with the lake's own schema
(`orchestration.lake.layout.PULL_REQUEST_SCHEMA`), the way the `raw_pull_requests` asset would. The
same seed gives the same lake, whatever the number of worker processes.

The PRs look like those of real repositories, so every rule of the models has work to do:
titles follow the conventions the models parse (`[module] type: ...`, conventional commits
`type(scope)!: ...`, bracket tags such as `[Bugfix]`, plain verbs, `Revert "..."`); paths sit
under each repository's own package directory, with tests, docs, CI and dependency files; sizes
are log-normal; some PRs carry labels, reviews, review threads and `#N` references.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from orchestration.lake.layout import PULL_REQUEST_SCHEMA, partition_dir

FIRST_WEEK = date(2024, 1, 1)  # a Monday

OWNERS = ["acme", "globex", "initech", "umbrella", "hooli", "stark", "wayne", "tyrell"]
NOUNS = [
    "rocket", "engine", "atlas", "beacon", "cinder", "delta", "ember", "falcon", "garnet",
    "harbor", "ion", "juniper", "kepler", "lumen", "mosaic", "nimbus", "orbit", "prism",
    "quartz", "raven", "sierra", "tundra", "umbra", "vertex", "willow", "xenon", "yarrow",
    "zephyr",
]  # fmt: skip
MODULES = [
    "trainer", "rollout", "worker", "model", "data", "config", "utils", "api", "scheduler",
    "storage", "cache", "auth", "server", "client", "cli", "metrics", "ckpt", "reward",
    "tokenizer", "kernels", "parallel", "optim", "loader", "router", "plugin", "eval",
]  # fmt: skip
TYPES = ["feat", "fix", "fix", "refactor", "perf", "docs", "test", "ci", "chore"]
TAGS = ["Bugfix", "Feature", "Misc", "Perf", "Doc", "CI", "Model", "Core", "Hardware"]
VERBS = ["Add", "Fix", "Support", "Update", "Remove", "Refactor", "Improve", "Use", "Bump"]
OBJECTS = [
    "retry logic", "the default config", "a memory leak", "batch padding", "checkpoint loading",
    "token accounting", "log levels", "the async loop", "a race in shutdown", "dynamic batching",
    "NPU support", "CUDA graphs", "FP8 kernels", "the ROCm build", "gradient clipping",
    "request timeouts", "schema validation", "metrics export", "a flaky test", "the docs index",
    "speedup for sampling", "sequence packing", "the tokenizer cache", "error messages",
]  # fmt: skip
WHY = [
    "so that long runs do not stall",
    "to avoid a crash on empty batches",
    "which halves the time of the hot loop",
    "as discussed in the design review",
    "to match the upstream API",
    "because the old path was never tested",
]
LABELS = ["bug", "enhancement", "documentation", "performance", "ci", "dependencies"]
LOGINS = [f"dev{i:03d}" for i in range(400)]
REVIEW_STATES = ["APPROVED", "APPROVED", "COMMENTED", "CHANGES_REQUESTED"]


def repo_names(count: int) -> list[str]:
    """`count` distinct, stable `owner/name`s."""
    names = []
    for i in range(count):
        owner = OWNERS[i % len(OWNERS)]
        noun = NOUNS[(i // len(OWNERS)) % len(NOUNS)]
        names.append(f"{owner}/{noun}-{i:04d}")
    return names


def _lognormal_int(rng: random.Random, mu: float, sigma: float, cap: int) -> int:
    return max(1, min(cap, int(rng.lognormvariate(mu, sigma))))


class _Repo:
    """One repository's vocabulary and layout, and a counter of its PR numbers."""

    def __init__(self, name: str, seed: int) -> None:
        self.name = name
        self.rng = random.Random(f"{seed}:{name}")
        self.package = name.split("/")[1].split("-")[0]
        self.modules = self.rng.sample(MODULES, self.rng.randint(6, 12))
        # a few files per module that most PRs touch (they become hotspots)
        self.files = {
            m: [f"{self.package}/{m}/{f}.py" for f in self.rng.sample(WORDS, 6)]
            for m in self.modules
        }
        self.authors = self.rng.sample(LOGINS, self.rng.randint(8, 40))
        self.number = self.rng.randint(1, 500)
        self.recent: list[tuple[int, str]] = []  # (number, title) of recent PRs

    def _title(self, kind: str, module: str, scope2: str | None) -> tuple[str, str]:
        rng = self.rng
        what = f"{rng.choice(VERBS).lower()} {rng.choice(OBJECTS)}"
        style = rng.random()
        if style < 0.45:
            mods = module if scope2 is None else f"{module}, {scope2}"
            breaking = "[BREAKING]" if rng.random() < 0.02 else ""
            return f"{breaking}[{mods}] {kind}: {what}", kind
        if style < 0.7:
            bang = "!" if rng.random() < 0.02 else ""
            return f"{kind}({module}){bang}: {what}", kind
        if style < 0.85:
            tag = rng.choice(TAGS)
            return f"[{tag}] {what[0].upper()}{what[1:]}", kind
        return f"{what[0].upper()}{what[1:]} in {module}", kind

    def _paths(self, kind: str, module: str, count: int) -> list[tuple[str, str]]:
        """(path, change_type) of the files a PR of `kind` in `module` changes."""
        rng = self.rng
        out: list[tuple[str, str]] = []
        if kind == "docs":
            choices = [f"docs/{module}/{w}.md" for w in rng.sample(WORDS, 3)] + ["README.md"]
        elif kind == "ci":
            choices = [".github/workflows/tests.yml", ".github/workflows/lint.yml"]
        elif kind == "test":
            choices = [f"tests/{module}/test_{w}.py" for w in rng.sample(WORDS, 3)]
        else:
            choices = list(self.files[module])
            choices += [f"{self.package}/{module}/{w}.py" for w in rng.sample(WORDS, 4)]
            choices += [f"{self.package}/{rng.choice(self.modules)}/{rng.choice(WORDS)}.py"]
        for i in range(count):
            path = rng.choice(choices)
            out.append((path, "ADDED" if rng.random() < 0.08 else "MODIFIED"))
            if i == 0 and kind in ("feat", "fix", "perf") and rng.random() < 0.55:
                out.append((f"tests/{module}/test_{rng.choice(WORDS)}.py", "MODIFIED"))
        if kind not in ("docs", "ci", "test"):
            extra = rng.random()
            if extra < 0.05:
                out.append(("requirements.txt", "MODIFIED"))
            elif extra < 0.08:
                out.append(("pyproject.toml", "MODIFIED"))
            elif extra < 0.10:
                out.append((f"{self.package}/{module}/npu_{rng.choice(WORDS)}.py", "ADDED"))
        seen: dict[str, str] = {}
        for path, change in out:
            seen.setdefault(path, change)
        return list(seen.items())

    def pull_request(self, week: date) -> dict:
        """One merged PR of `week`, as a lake row."""
        rng = self.rng
        self.number += rng.randint(1, 3)
        number = self.number
        kind = rng.choice(TYPES)
        module = rng.choice(self.modules)
        scope2 = rng.choice(self.modules) if rng.random() < 0.15 else None
        if self.recent and rng.random() < 0.01:
            reverted, old_title = rng.choice(self.recent)
            title, kind = f'Revert "{old_title} (#{reverted})"', "revert"
        else:
            title, kind = self._title(kind, module, scope2)
        self.recent = [(number, title), *self.recent][:20]
        merged = datetime(week.year, week.month, week.day, tzinfo=UTC) + timedelta(
            seconds=rng.randrange(7 * 86400)
        )
        created = merged - timedelta(seconds=int(rng.expovariate(1 / 200_000)))
        files = []
        for path, change in self._paths(kind, module, _lognormal_int(rng, 1.0, 0.9, 120)):
            files.append(
                {
                    "path": path,
                    "additions": _lognormal_int(rng, 3.0, 1.4, 5000),
                    "deletions": int(rng.lognormvariate(1.8, 1.5)) if change != "ADDED" else 0,
                    "change_type": change,
                }
            )
        body = f"{rng.choice(OBJECTS).capitalize()}: {title.lower()} {rng.choice(WHY)}."
        if kind == "fix" and len(self.recent) > 2 and rng.random() < 0.3:
            body += f"\n\nFixes #{self.recent[rng.randint(1, len(self.recent) - 1)][0]}."
        if rng.random() < 0.3:
            body += "\n\n### Checklist\n\n- [x] Tests added\n- [ ] Docs updated"
        labels = [rng.choice(LABELS)] if rng.random() < 0.3 else []
        if rng.random() < 0.1:
            labels.append(f"area: {module}")
        reviews = [
            {
                "state": rng.choice(REVIEW_STATES),
                "author": rng.choice(self.authors),
                "submitted_at": merged - timedelta(minutes=rng.randint(5, 3000)),
            }
            for _ in range(rng.choice((0, 1, 1, 2, 2, 3)))
        ]
        threads = [
            {
                "is_resolved": rng.random() < 0.85,
                "is_outdated": rng.random() < 0.3,
                "path": files[0]["path"] if files else None,
                "author": rng.choice(self.authors),
                "body": "Could this be simpler?",
            }
            for _ in range(rng.choice((0, 0, 0, 1, 2)))
        ]
        sha = hashlib.sha1(f"{self.name}#{number}".encode()).hexdigest()
        return {
            "repo": self.name,
            "week_start": week,
            "number": number,
            "title": title,
            "body": body,
            "url": f"https://github.com/{self.name}/pull/{number}",
            "author": rng.choice(self.authors),
            "created_at": created,
            "merged_at": merged,
            "merged_by": rng.choice(self.authors),
            "additions": sum(f["additions"] for f in files),
            "deletions": sum(f["deletions"] for f in files),
            "changed_files": len(files),
            "base_ref": "main",
            "is_draft": False,
            "merge_commit": sha,
            "comments_count": rng.randint(0, 12),
            "files": files,
            "labels": labels,
            "reviews": reviews,
            "review_threads": threads,
        }


WORDS = [
    "core", "utils", "base", "engine", "runner", "manager", "loop", "state", "io", "pool",
    "worker", "queue", "batch", "buffer", "spec", "sampler", "layers", "ops", "planner",
    "registry", "hooks", "context", "session", "proto",
]  # fmt: skip


def week_of(index: int) -> date:
    return FIRST_WEEK + timedelta(weeks=index)


def write_week(lake_dir: Path, rows: list[dict], repo: str, week: date) -> Path:
    """One partition, as `orchestration.lake.layout.write_partition` lays it out (without its fsync:
    a generated lake is thrown away, not trusted)."""
    target = partition_dir(lake_dir, repo, week) / "data.parquet"
    target.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist(rows, schema=PULL_REQUEST_SCHEMA)
    pq.write_table(table, target, compression="zstd")
    return target


def generate_repo(
    lake_dir: Path, repo: str, weeks: int, prs: int, seed: int, first_week: int = 0
) -> int:
    """Write weeks `first_week`..`first_week + weeks - 1` of `repo`; returns the PRs written.

    The PRs of week i do not depend on `first_week`: a repository is always generated from its
    first week, and only the asked-for weeks are written.
    """
    state = _Repo(repo, seed)
    written = 0
    for index in range(first_week + weeks):
        rows = [state.pull_request(week_of(index)) for _ in range(prs)]
        if index >= first_week:
            write_week(lake_dir, rows, repo, week_of(index))
            written += len(rows)
    return written


def _job(args: tuple) -> int:
    return generate_repo(*args)


def generate(
    home: Path, repos: int, weeks: int, prs: int, seed: int = 8, workers: int | None = None
) -> dict:
    """Write the whole lake under `home`; returns its size and the time it took."""
    lake_dir = home / "lake"
    names = repo_names(repos)
    began = time.perf_counter()
    jobs = [(lake_dir, name, weeks, prs, seed) for name in names]
    workers = workers or os.cpu_count() or 1
    if workers == 1:
        total = sum(map(_job, jobs))
    else:
        with ProcessPoolExecutor(workers) as pool:
            total = sum(pool.map(_job, jobs, chunksize=4))
    return {
        "repos": repos,
        "weeks": weeks,
        "prs_per_week": prs,
        "prs": total,
        "files": repos * weeks,
        "seconds": round(time.perf_counter() - began, 2),
    }


def _compact_job(args: tuple) -> int:
    from orchestration.lake.compaction import compact_repository

    lake_dir, repo = args
    return compact_repository(lake_dir, repo, min_new_weeks=1)


def compact(home: Path, repos: int, workers: int | None = None) -> dict:
    """Compact every repository's weeks, as the extract does over time (`prweekly compact`)."""
    lake_dir = home / "lake"
    began = time.perf_counter()
    jobs = [(lake_dir, name) for name in repo_names(repos)]
    with ProcessPoolExecutor(workers or os.cpu_count() or 1) as pool:
        weeks = sum(pool.map(_compact_job, jobs, chunksize=8))
    return {"repos": repos, "weeks": weeks, "seconds": round(time.perf_counter() - began, 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.generate", description=__doc__)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--repos", type=int, default=1000)
    parser.add_argument("--weeks", type=int, default=100)
    parser.add_argument("--prs", type=int, default=10)
    parser.add_argument("--seed", type=int, default=8)
    args = parser.parse_args(argv)
    print(generate(args.home, args.repos, args.weeks, args.prs, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
