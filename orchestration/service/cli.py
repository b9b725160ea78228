"""`prweekly`: build weekly reports, query the warehouse, run the GitHub emulator or the UI."""

from __future__ import annotations

import os
import signal
import sys
from datetime import date
from functools import partial
from pathlib import Path

from orchestration.config import (
    LANGUAGES,
    PACKAGE_DIR,
    PROJECT_DIR,
    Settings,
    UsageError,
    canonical_repo,
    load_settings,
    repo_slug,
    validate_repo,
)
from orchestration.service.disk import disk_full
from orchestration.storage import join
from orchestration.text import plural
from orchestration.weeks import check_week_ended, iso_label, parse_week, weeks_between

SAMPLE_DATASET = PACKAGE_DIR / "sample" / "acme__rocket.jsonl"
SAMPLE_REPO = "acme/rocket"
FILES_PER_WEEK = 4  # Markdown and HTML, in Chinese and English
LISTED_WEEKS = 4  # a longer build prints a summary instead of every path


def _report_paths(repo: str, weeks: list[date]) -> list:
    reports = join(load_settings().reports_dir, repo_slug(repo))
    return [
        join(reports, f"{week}.{lang}.{ext}")
        for week in weeks
        for lang in LANGUAGES
        for ext in ("md", "html")
    ]


def build(
    repo: str,
    first: date,
    last: date,
    source: str | None,
    verbose: bool = False,
    recorded: str | None = None,
) -> list[Path]:
    """Materialise the weekly job for `repo` and weeks `first..last` in one Dagster run.

    The repository is registered (with `recorded`, else `source`, when given) only once its
    extract worked, so a misspelt name does not join the Monday schedule."""
    from orchestration.extract.sources import parse_source
    from orchestration.repositories.registry import source_of
    from orchestration.service import dagster_run

    typed, repo = validate_repo(repo), canonical_repo(repo)  # one repository whatever the case
    weeks = weeks_between(first, last)
    for week in (first, last):
        check_week_ended(week)
    settings = load_settings()
    source = parse_source(source).absolute() if source else None
    effective = source or source_of(settings.home, repo) or settings.source
    _check_source(effective, settings)
    label = iso_label(first) if first == last else f"{iso_label(first)}..{iso_label(last)}"
    print(
        f"prweekly: building {repo} {label} ({plural(len(weeks), 'week')}) from {effective}",
        flush=True,
    )
    print(f"  home: {settings.home}", flush=True)
    dagster_run.merge_spellings_of_home(settings, lambda line: print(f"  {line}", flush=True))
    try:
        dagster_run.run_weekly_job(settings, repo, first, last, source, verbose)
    except dagster_run.BuildFailed as failed:
        if failed.extracted:
            register_built(settings, typed, recorded or source)
        raise
    register_built(settings, typed, recorded or source)
    return _report_paths(repo, weeks)


def build_all(first: date, last: date, source: str | None, verbose: bool = False) -> list[Path]:
    """Materialise weeks `first..last` of every repository in repositories.yml in one Dagster
    run, each from its own recorded source."""
    from orchestration.repositories.registry import load_repositories
    from orchestration.service import dagster_run

    if source:
        raise UsageError("--all builds each repository from its own source: drop --source")
    for week in (first, last):
        check_week_ended(week)
    settings = load_settings()
    repos = sorted(r.repo for r in load_repositories(settings.home))
    if not repos:
        raise UsageError(f"no repository in {settings.home}/repositories.yml: add one first")
    weeks = weeks_between(first, last)
    label = iso_label(first) if first == last else f"{iso_label(first)}..{iso_label(last)}"
    print(f"prweekly: building {plural(len(repos), 'repository')} {label} in one run", flush=True)
    print(f"  home: {settings.home}", flush=True)
    dagster_run.merge_spellings_of_home(settings, lambda line: print(f"  {line}", flush=True))
    dagster_run.run_all_job(settings, repos, first, last, verbose)
    return [path for repo in repos for path in _report_paths(repo, weeks)]


def register_built(settings: Settings, name: str, source: str | None) -> None:
    """Register `name` (as typed: the file keeps the first spelling), with the `source` it was
    built from, once its extract worked; not if `prweekly repo remove` took its partition (the
    lower-case identity) away while it built."""
    from orchestration.repositories.registry import record_build
    from orchestration.service.dagster_run import is_registered

    wanted = partial(is_registered, settings, canonical_repo(name))
    if note := record_build(settings.home, name, source, wanted):
        print(f"  {note}", flush=True)


def _check_source(source: str, settings: Settings) -> None:
    """Fail before Dagster starts when the source cannot work at all (no file, no token)."""
    from orchestration.extract.sources import check_dataset_file, open_source, parse_source

    if (path := parse_source(source).path) is not None:
        check_dataset_file(path)
    opened = open_source(source, settings)  # the github source checks its URL and token here
    close = getattr(opened, "close", None)
    if close:
        close()


def demo() -> list[Path]:
    """Build every week of the sample repository offline, through the GitHub emulator.

    The sample is registered with its file as its source: the emulator is gone after the demo,
    and `build --all` or the Monday schedule would otherwise ask GitHub's real API for a
    repository that does not exist."""
    from orchestration.testing.github_emulator import Emulator

    first, last = date(2026, 6, 29), date(2026, 7, 20)
    with Emulator(SAMPLE_DATASET) as emulator:
        print(f"prweekly: GitHub emulator serving {SAMPLE_DATASET.name} at {emulator.url}")
        os.environ["GITHUB_GRAPHQL_URL"] = emulator.url
        return build(SAMPLE_REPO, first, last, "github", recorded=f"file:{SAMPLE_DATASET}")


def ui(host: str, port: int) -> int:
    from orchestration.service.instance import prepare_dagster_home
    from orchestration.site.serve import check_port_free

    check_port_free(host, port)  # Dagster's own message for it is a traceback
    settings = load_settings()
    os.environ["PRWEEKLY_HOME"] = str(settings.home)  # the UI's processes run from elsewhere
    home = prepare_dagster_home(settings)
    print(f"prweekly: Dagster UI with run history in {home}", flush=True)
    dagster = Path(sys.executable).with_name("dagster")
    os.chdir(PROJECT_DIR)
    workspace = str(PROJECT_DIR / "workspace.yaml")
    os.execv(str(dagster), [str(dagster), "dev", "-w", workspace, "-h", host, "-p", str(port)])
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["emulator"]:
        from orchestration.testing.github_emulator.server import main as emulator_main

        return emulator_main(argv[1:])
    if argv[:1] == ["llm-emulator"]:
        from orchestration.testing.llm_emulator.server import main as llm_emulator_main

        return llm_emulator_main(argv[1:])
    from orchestration.service.cli_parser import parser

    args = parser().parse_args(argv)
    try:
        if args.command == "build":
            first = parse_week(args.week)
            last = parse_week(args.to) if args.to else first
            if args.all:
                paths = build_all(first, last, args.source, args.verbose)
            else:
                paths = build(args.repo, first, last, args.source, args.verbose)
            _print_reports(paths)
            _print_site()
        elif args.command == "sql":
            from orchestration.service.cli_sql import read_sql_file, run_sql

            if args.query is None and args.file is None:
                raise UsageError(
                    'give the SQL to run: as an argument (prweekly sql "select 1") or with '
                    "--file PATH"
                )
            if args.query is not None and args.file is not None:
                raise UsageError("give the SQL as an argument or with --file, not both")
            query = read_sql_file(args.file) if args.file else args.query
            run_sql(query, args.format, args.file)
            sys.stdout.flush()  # a reader that left shows here, not at exit
        elif args.command == "repo":
            from orchestration.service.cli_repos import manage_repositories

            manage_repositories(args)
        elif args.command == "compact":
            from orchestration.service.cli_repos import compact

            compact(args.repo)
        elif args.command == "demo":
            _print_reports(demo())
            _print_site()
        elif args.command == "ui":
            return ui(args.host, args.port)
        elif args.command == "publish" and args.group:
            from orchestration.group.deliver import publish_group

            return publish_group(args.group, parse_week(args.week), args.target, args.dry_run)
        elif args.command == "publish":
            from orchestration.delivery.send import publish

            return publish(args.repo, parse_week(args.week), args.target, args.dry_run)
        elif args.command == "site":
            from orchestration.site.build import build_site

            site = build_site(load_settings(), lambda line: print(line, file=sys.stderr))
            print(f"site: {site.home} ({site.pages} pages, {site.feeds} feeds)")
        elif args.command == "serve":
            from orchestration.site.serve import serve

            serve(load_settings().reports_dir, args.port)
    except KeyboardInterrupt:  # what the run did stays; a rerun does the rest
        print("prweekly: interrupted: run the same command again to finish", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader left (`prweekly sql ... | head`)
        _end_like_a_unix_tool()
    except Exception as exc:  # one clear line for the user; details stay in Dagster's run log
        message = str(exc) if getattr(exc, "keep_lines", False) else _one_line(exc)
        print(f"prweekly: error: {disk_full(exc) or message}", file=sys.stderr)
        return 2 if isinstance(exc, UsageError) else 1
    return 0


def _end_like_a_unix_tool() -> None:
    """Die of SIGPIPE, quietly, as `cat` or `grep` do when their reader has gone."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # nothing left to flush into the closed pipe
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGPIPE)
    os._exit(128 + signal.SIGPIPE)  # the status a shell shows, should the signal not end us


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _print_site() -> None:
    """Where the site's home page is, which every build brings up to date."""
    print(f"site: {join(load_settings().reports_dir, 'index.html')}")


def _print_reports(paths: list) -> None:
    """Every path of a short build; a summary and the latest week's files for a long one."""
    if len(paths) <= LISTED_WEEKS * FILES_PER_WEEK:
        print("reports:")
        for path in paths:
            print(f"  {path}")
        return
    folder, first = str(paths[0]).rsplit("/", 1)
    last = str(paths[-1]).rsplit("/", 1)[1]
    weeks = len(paths) // FILES_PER_WEEK
    span = f"{first.split('.')[0]} to {last.split('.')[0]}"
    print(f"reports: {len(paths)} files for {weeks} weeks ({span}) in {folder}")
    print("the latest week's:")
    for path in paths[-FILES_PER_WEEK:]:
        print(f"  {path}")


if __name__ == "__main__":
    raise SystemExit(main())
