"""`prweekly repo` and `prweekly compact`: the repositories file and the lake's compacted copies."""

from __future__ import annotations

import argparse
import sys

from orchestration.config import (
    Settings,
    UsageError,
    canonical_repo,
    load_settings,
    repo_of_slug,
    validate_repo,
)
from orchestration.service.cli_sql import print_table
from orchestration.text import plural


def manage_repositories(args: argparse.Namespace) -> None:
    from orchestration.repositories.registry import Repository, load_repositories, upsert
    from orchestration.service import dagster_run

    settings = load_settings()
    if args.repo_command == "list":
        repos = load_repositories(settings.home)
        if not repos:
            print("no repositories yet: add one with `prweekly repo add OWNER/NAME`")
        rows = [
            (
                r.name,
                r.source or f"(default: {settings.source})",
                ", ".join(r.core_paths),
                ", ".join(f"{k}={v}" for k, v in r.area_rules.items()),
            )
            for r in repos
        ]
        if rows:
            print_table(["repository", "source", "core paths", "area rules"], rows)
        return
    name = validate_repo(args.name)
    if args.repo_command == "remove":
        remove_repository(settings, name)
        return
    rules = {}
    for rule in args.area:
        prefix, sep, area = rule.partition("=")
        if not sep or not prefix.strip() or not area.strip():
            raise UsageError(f"--area {rule!r} is not PREFIX=AREA, e.g. src/rollout/=rollout")
        rules[prefix.strip()] = area.strip()
    source = args.source
    if source:  # scheduled runs start elsewhere: keep a file's path absolute
        from orchestration.extract.sources import check_dataset_file, parse_source

        spec = parse_source(source)
        if spec.path is not None:
            check_dataset_file(spec.path.resolve())
        source = spec.absolute()
    entry, created = upsert(
        settings.home, Repository(name, source, sorted(set(args.core_path)), rules)
    )
    dagster_run.register_repo(settings, entry.repo)
    print(
        f"{'added' if created else 'updated'} {entry.name} in {settings.home / 'repositories.yml'}"
    )


def remove_repository(settings: Settings, name: str) -> None:
    """Take `name` out of repositories.yml and the UI's partitions, once no run builds it."""
    from orchestration.assets import repo_partitions
    from orchestration.repositories.registry import find, load_repositories, registry_lock, remove
    from orchestration.service.build_runs import wait_for_builds
    from orchestration.service.instance import get_instance

    repo = canonical_repo(name)  # one repository whatever the case
    entry = find(load_repositories(settings.home), repo)
    instance = get_instance(settings)
    partitions = [
        p
        for p in instance.get_dynamic_partitions(repo_partitions.name)
        if p.lower() == repo  # an older prweekly's second spelling goes too
    ]
    if entry is None and not partitions:
        raise UsageError(f"{name} is not registered (see `prweekly repo list`)")
    wait_for_builds(instance, repo, say=lambda text: print(text, file=sys.stderr, flush=True))
    with registry_lock(settings.home):  # a build registering the repository waits, then sees
        remove(settings.home, repo)  # that its partition is gone
        for partition in partitions:
            instance.delete_dynamic_partition(repo_partitions.name, partition)
    print(f"removed {entry.name if entry else name}; its lake, warehouse rows and reports are kept")


def compact(repo: str | None) -> None:
    from orchestration.lake.compaction import compact_repository
    from orchestration.lake.files import list_week_files

    settings = load_settings()
    if repo:
        repos = [canonical_repo(repo)]
        if not list_week_files(settings.lake_dir, repos[0]).weeks:
            raise UsageError(
                f"{repo} has no week files in the lake at {settings.lake_dir}: "
                "build it first (see `prweekly repo list` for the repositories)"
            )
    else:
        repos = [repo_of_slug(slug) for slug in sorted(list_week_files(settings.lake_dir).weeks)]
    if not repos:
        print(f"prweekly: the lake at {settings.lake_dir} holds no week files yet")
        return
    print(
        f"prweekly: compacting {plural(len(repos), 'repository')} in {settings.lake_dir}",
        flush=True,
    )
    written = 0
    for i, name in enumerate(repos, 1):
        weeks = compact_repository(settings.lake_dir, name, min_new_weeks=1)
        written += weeks > 0
        if weeks and (len(repos) <= 20 or i % 100 == 0 or i == len(repos)):
            print(f"  [{i}/{len(repos)}] {name}: {plural(weeks, 'week')} in one file", flush=True)
    print(f"compacted {plural(written, 'repository')}; {len(repos) - written} already up to date")
