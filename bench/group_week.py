"""A group of real repositories' week: verl, polars and the bundled sample, 2026-W30.

`python -m bench.group_week [--home DIR] [--week 2026-W30]`

Registers the three in one group (`ml-infra`) of a fresh home (or reuses `--home`, built
before), builds the week with `prweekly build --all` (one run, each from its file), and checks
the group's report in both languages: each repository's line names its key story (its lead PR,
fct_weekly_group_stories.is_repo_lead), the releases and the recurring risks of the week are
the marts' (fct_weekly_group_summary, fct_weekly_group_risks), and prints them. The shared
datasets must be beside the clone (`../shared/datasets/`); without them it says so and stops.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import yaml

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT.parent / "shared" / "datasets"
SOURCES = {
    "verl-project/verl": DATASETS / "verl-project__verl" / "pull_requests.jsonl.gz",
    "pola-rs/polars": DATASETS / "pola-rs__polars" / "pull_requests.jsonl.gz",
    "acme/rocket": ROOT / "orchestration" / "sample" / "acme__rocket.jsonl",
}
GROUP = "ml-infra"


def _build(home: Path, week: str) -> dict:
    doc = {
        "groups": [{"name": GROUP, "repositories": list(SOURCES)}],
        "repositories": [{"name": r, "source": f"file:{p}"} for r, p in SOURCES.items()],
    }
    home.mkdir(parents=True, exist_ok=True)
    (home / "repositories.yml").write_text(yaml.safe_dump(doc, sort_keys=False))
    env = {**os.environ, "PRWEEKLY_HOME": str(home)}
    for name in ("PRWEEKLY_SOURCE", "GITHUB_TOKEN", "DAGSTER_HOME", "GITHUB_GRAPHQL_URL"):
        env.pop(name, None)
    before, began = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    command = [sys.executable, "-m", "orchestration.service.cli", "build", "--all", "--week", week]
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"the build failed:\n{done.stderr[-3000:]}")
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {"seconds": round(time.perf_counter() - began, 1), "cpu_seconds": round(cpu, 1)}


def check(home: Path, week_start: str) -> dict:
    """What the group's report of the week says, checked against its marts."""
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        leads = conn.execute(
            "select display_name, lead_number, case when kind = 'single' or title_en like '#%' "
            "then lead_title else title_en end "
            "from marts.fct_weekly_group_stories where group_name = ? and week_start = ? "
            "and is_repo_lead order by display_name",
            [GROUP, week_start],
        ).fetchall()
        (releases,) = conn.execute(
            "select releases from marts.fct_weekly_group_summary "
            "where group_name = ? and week_start = ?",
            [GROUP, week_start],
        ).fetchone()
        risks = conn.execute(
            "select risk_kind, subject, repos from marts.fct_weekly_group_risks "
            "where group_name = ? and week_start = ? order by rank",
            [GROUP, week_start],
        ).fetchall()
    folder = home / "reports" / "groups" / GROUP
    for lang in ("en", "zh"):
        markdown = (folder / f"{week_start}.{lang}.md").read_text(encoding="utf-8")
        for name, number, _ in leads:
            line = next(li for li in markdown.splitlines() if li.startswith(f"- [{name}]"))
            assert f"[#{number}](" in line, (lang, name, number, line)
        for release in releases:
            assert f"pull/{release['number']})" in markdown, (lang, release)
        for _kind, subject, _repos in risks:
            assert subject is None or f"**{subject}**" in markdown, (lang, subject)
        assert (folder / f"{week_start}.{lang}.html").exists()
    return {
        "key_stories": {name: f"#{number} {title}" for name, number, title in leads},
        "releases": [f"{r['repo']} {r['version']}" for r in releases],
        "recurring_risks": [f"{k}: {s or ''} in {', '.join(r)}" for k, s, r in risks],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.group_week", description=__doc__)
    parser.add_argument("--home", type=Path, help="a home built before (else a fresh one)")
    parser.add_argument("--week", default="2026-W30")
    args = parser.parse_args(argv)
    missing = [str(p) for p in SOURCES.values() if not p.exists()]
    if missing:
        print(f"not available: {', '.join(missing)}")
        return 0
    from orchestration.weeks import parse_week

    week_start = parse_week(args.week).isoformat()
    home = args.home or ROOT / "bench" / ".work" / "group-week"
    figures = {} if args.home else _build(home, args.week)
    print({**figures, **check(home, week_start)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
