"""`prweekly`: build weekly reports, query the warehouse, run the GitHub emulator or the UI."""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from datetime import date
from pathlib import Path

from orchestration.config import (
    PROJECT_DIR,
    Settings,
    UsageError,
    canonical_repo,
    load_settings,
    repo_of_slug,
    repo_slug,
    validate_repo,
)
from orchestration.disk import disk_full
from orchestration.storage import join
from orchestration.weeks import check_week_ended, iso_label, parse_week, weeks_between

SAMPLE_DATASET = PROJECT_DIR / "orchestration" / "sample" / "acme__rocket.jsonl"
SAMPLE_REPO = "acme/rocket"

EPILOG = """\
environment:
  PRWEEKLY_HOME              where the warehouse, repositories.yml, run history and (by default)
                             the lake and reports live (default ./data)
  PRWEEKLY_SOURCE            default source: github or file:PATH (default github)
  GITHUB_TOKEN               token for the github source (read access to pull requests)
  GITHUB_GRAPHQL_URL         GraphQL endpoint, for GitHub Enterprise (default api.github.com)
  PRWEEKLY_MAX_WAIT_SECONDS  most time to wait on rate limits, per week fetched (default 900)
  PRWEEKLY_LAKE_URI, PRWEEKLY_REPORTS_URI
                             the lake and reports elsewhere (a folder, s3://..., gs://...)

examples:
  prweekly demo                                    the bundled sample, offline
  prweekly build --repo verl-project/verl --week 2026-W30
  prweekly build --repo verl-project/verl --week 2026-01-05 --to 2026-07-20
  prweekly build --repo acme/rocket --week 2026-W30 --source file:prs.jsonl.gz
  prweekly repo add verl-project/verl --core-path verl/trainer/
  prweekly compact                                 one file per repository for full builds
  prweekly sql "select week_start, merged_prs, theme from marts.fct_weekly_summary"
  prweekly ui                                      the Dagster UI, with the weekly schedule
"""

SQL_EPILOG = """\
marts:
  marts.fct_pull_requests       one row per merged PR: type, areas, importance, risk flags
  marts.fct_weekly_summary      one row per repository and week: volume, authors, theme
  marts.fct_weekly_area_trends  one row per repository, week and area: PRs against the trend
  marts.fct_weekly_risks        one row per week, risk flag and PR, with the reason

examples:
  prweekly sql "select number, title, importance from marts.fct_pull_requests limit 5"
  prweekly sql --format csv "select * from marts.fct_weekly_risks" > risks.csv
  prweekly sql --format json --file question.sql
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="prweekly",
        description="Weekly reports of a GitHub repository's merged pull requests, "
        "with every fact kept in a DuckDB warehouse.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    build = commands.add_parser(
        "build",
        help="extract, model and report one or more weeks of a repository",
        description="Materialise every asset of the repository's weeks through Dagster "
        "(extract, SQL models, report) and print the report paths. Rerunning a week "
        "replaces it.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    build.add_argument("--repo", required=True, help="repository as OWNER/NAME")
    build.add_argument(
        "--week",
        required=True,
        help="a date inside the week (2026-07-22) or an ISO week (2026-W30)",
    )
    build.add_argument("--to", help="last week of a range, same forms as --week (inclusive)")
    build.add_argument(
        "--source",
        help="github, or file:PATH for JSON lines of PullRequest nodes "
        "(default: $PRWEEKLY_SOURCE or github)",
    )

    sql = commands.add_parser(
        "sql",
        help="run read-only SQL over the warehouse",
        description="Run a read-only query over $PRWEEKLY_HOME/warehouse.duckdb. Tables live in "
        "the schemas marts, intermediate, staging and seeds. Waits if a build is writing.",
        epilog=SQL_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sql.add_argument("query", nargs="?", help="the SQL to run (or use --file)")
    sql.add_argument("--file", type=Path, help="read the SQL from this file")
    sql.add_argument(
        "--format",
        choices=("table", "csv", "json"),
        default="table",
        help="aligned table (default), CSV with a header, or a JSON array of objects",
    )

    emulator = commands.add_parser(
        "emulator",
        help="serve GitHub's GraphQL API on loopback from a dataset of PRs",
        add_help=False,
    )
    emulator.add_argument("args", nargs=argparse.REMAINDER)

    repo = commands.add_parser(
        "repo",
        help="add, list or remove the repositories the weekly schedule reports on",
        description="Manage $PRWEEKLY_HOME/repositories.yml, which the Monday schedule reads. "
        "`prweekly build` registers a new repository by itself.",
    )
    repo_commands = repo.add_subparsers(dest="repo_command", metavar="ACTION", required=True)
    add = repo_commands.add_parser("add", help="register a repository (or update its settings)")
    add.add_argument("name", help="repository as OWNER/NAME")
    add.add_argument("--source", help="github or file:PATH for this repository's scheduled runs")
    add.add_argument(
        "--core-path",
        action="append",
        default=[],
        metavar="PREFIX",
        help="a path prefix whose changes count as core (repeatable)",
    )
    add.add_argument(
        "--area",
        action="append",
        default=[],
        metavar="PREFIX=AREA",
        help="files under PREFIX belong to AREA (repeatable), e.g. src/rollout/=rollout",
    )
    repo_commands.add_parser("list", help="show the registered repositories")
    rm = repo_commands.add_parser("remove", help="stop reporting on a repository (data is kept)")
    rm.add_argument("name", help="repository as OWNER/NAME")

    compact = commands.add_parser(
        "compact",
        help="compact each repository's finished weeks in the lake into one file",
        description="Write, per repository, one Parquet file of its finished weeks beside the "
        "week files, so that a build of every model opens one file per repository instead of "
        "one per week. The extract does this by itself every few weeks; run it once on a lake "
        "written by an older prweekly, or after editing week files by hand. The week files "
        "stay the truth: a copy is used only while none of them has changed.",
    )
    compact.add_argument("--repo", help="only this repository (OWNER/NAME); default: all")

    commands.add_parser(
        "demo",
        help="build the bundled sample repository offline and print its report paths",
    )
    commands.add_parser("ui", help="start the Dagster UI (dagster dev) on this project")
    return parser


def _report_paths(repo: str, weeks: list[date]) -> list:
    reports = join(load_settings().reports_dir, repo_slug(repo))
    return [
        join(reports, f"{week}.{lang}.{ext}")
        for week in weeks
        for lang in ("zh", "en")
        for ext in ("md", "html")
    ]


def build(repo: str, first: date, last: date, source: str | None) -> list[Path]:
    """Materialise the weekly job for `repo` and weeks `first..last` in one Dagster run."""
    from orchestration import dagster_run
    from orchestration.repositories import Repository, upsert

    typed, repo = validate_repo(repo), canonical_repo(repo)  # one repository whatever the case
    weeks = weeks_between(first, last)
    for week in (first, last):
        check_week_ended(week)
    settings = load_settings()
    source = source or settings.source
    _check_source(source, settings)
    label = iso_label(first) if first == last else f"{iso_label(first)}..{iso_label(last)}"
    print(f"prweekly: building {repo} {label} ({len(weeks)} week(s)) from {source}", flush=True)
    print(f"  home: {settings.home}", flush=True)
    dagster_run.merge_spellings_of_home(settings, lambda line: print(f"  {line}", flush=True))
    _, created = upsert(settings.home, Repository(typed))
    if created:
        print(f"  registered {typed} in {settings.home / 'repositories.yml'}", flush=True)
    dagster_run.run_weekly_job(settings, repo, first, last, source)
    return _report_paths(repo, weeks)


def _check_source(source: str, settings: Settings) -> None:
    """Fail before Dagster starts when the source cannot work at all (no file, no token)."""
    from orchestration.sources import open_source

    if source.startswith("file:") and not Path(source.removeprefix("file:")).is_file():
        raise UsageError(f"dataset file {source.removeprefix('file:')} does not exist")
    opened = open_source(source, settings)  # the github source checks its URL and token here
    close = getattr(opened, "close", None)
    if close:
        close()


def run_sql(query: str, output_format: str) -> None:
    from orchestration.warehouse import connect

    settings = load_settings()
    with connect(settings.warehouse_path, read_only=True) as conn:
        cursor = conn.execute(query)
        if cursor.description is None:
            return
        names = [d[0] for d in cursor.description]
        rows = cursor.fetchall()
    if output_format == "csv":
        writer = csv.writer(sys.stdout)
        writer.writerow(names)
        writer.writerows(rows)
    elif output_format == "json":
        print(json.dumps([dict(zip(names, r, strict=True)) for r in rows], default=str))
    else:
        _print_table(names, rows)


def _print_table(names: list[str], rows: list[tuple]) -> None:
    if len(names) == 1 and len(rows) == 1:
        print(rows[0][0])
        return
    cells = [[("NULL" if v is None else str(v)) for v in row] for row in rows]
    widths = [min(60, max([len(n)] + [len(r[i]) for r in cells])) for i, n in enumerate(names)]
    print("  ".join(n.ljust(w) for n, w in zip(names, widths, strict=True)).rstrip())
    print("  ".join("-" * w for w in widths))
    for row in cells:
        print("  ".join(v[:w].ljust(w) for v, w in zip(row, widths, strict=True)).rstrip())
    print(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")


def manage_repositories(args: argparse.Namespace) -> None:
    from orchestration import dagster_run
    from orchestration.repositories import Repository, load_repositories, remove, upsert

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
            _print_table(["repository", "source", "core paths", "area rules"], rows)
        return
    name = validate_repo(args.name)
    if args.repo_command == "remove":
        if not remove(settings.home, name):
            raise UsageError(f"{name} is not registered (see `prweekly repo list`)")
        dagster_run.forget_repo(settings, canonical_repo(name))
        print(f"removed {name}; its lake, warehouse rows and reports are kept")
        return
    rules = {}
    for rule in args.area:
        prefix, sep, area = rule.partition("=")
        if not sep or not prefix.strip() or not area.strip():
            raise UsageError(f"--area {rule!r} is not PREFIX=AREA, e.g. src/rollout/=rollout")
        rules[prefix.strip()] = area.strip()
    source = args.source
    if source and source.startswith("file:"):  # scheduled runs start elsewhere: keep it absolute
        path = Path(source.removeprefix("file:")).expanduser().resolve()
        if not path.is_file():
            raise UsageError(f"dataset file {path} does not exist")
        source = f"file:{path}"
    elif source and source != "github":
        raise UsageError(f"unknown source {source!r}: use 'github' or 'file:PATH'")
    entry, created = upsert(
        settings.home, Repository(name, source, sorted(set(args.core_path)), rules)
    )
    dagster_run.register_repo(settings, entry.repo)
    print(
        f"{'added' if created else 'updated'} {entry.name} in {settings.home / 'repositories.yml'}"
    )


def compact(repo: str | None) -> None:
    from orchestration.compaction import compact_repository
    from orchestration.lake_files import list_week_files

    settings = load_settings()
    if repo:
        repos = [validate_repo(repo)]
    else:
        repos = [repo_of_slug(slug) for slug in sorted(list_week_files(settings.lake_dir).weeks)]
    if not repos:
        print(f"prweekly: the lake at {settings.lake_dir} holds no week files yet")
        return
    print(
        f"prweekly: compacting {len(repos)} repositor{'y' if len(repos) == 1 else 'ies'} "
        f"in {settings.lake_dir}",
        flush=True,
    )
    written = 0
    for i, name in enumerate(repos, 1):
        weeks = compact_repository(settings.lake_dir, name, min_new_weeks=1)
        written += weeks > 0
        if weeks and (len(repos) <= 20 or i % 100 == 0 or i == len(repos)):
            print(f"  [{i}/{len(repos)}] {name}: {weeks} week(s) in one file", flush=True)
    print(
        f"compacted {written} repositor{'y' if written == 1 else 'ies'}; "
        f"{len(repos) - written} already up to date"
    )


def demo() -> list[Path]:
    """Build every week of the sample repository offline, through the GitHub emulator."""
    from orchestration.emulator import Emulator

    first, last = date(2026, 6, 29), date(2026, 7, 20)
    with Emulator(SAMPLE_DATASET) as emulator:
        print(f"prweekly: GitHub emulator serving {SAMPLE_DATASET.name} at {emulator.url}")
        os.environ["GITHUB_GRAPHQL_URL"] = emulator.url
        return build(SAMPLE_REPO, first, last, "github")


def ui() -> int:
    from orchestration.instance import prepare_dagster_home

    settings = load_settings()
    os.environ["PRWEEKLY_HOME"] = str(settings.home)  # the UI's processes run from elsewhere
    home = prepare_dagster_home(settings)
    print(f"prweekly: Dagster UI with run history in {home}", flush=True)
    dagster = Path(sys.executable).with_name("dagster")
    os.chdir(PROJECT_DIR)
    os.execv(str(dagster), [str(dagster), "dev", "-w", str(PROJECT_DIR / "workspace.yaml")])
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["emulator"]:
        from orchestration.emulator.server import main as emulator_main

        return emulator_main(argv[1:])
    args = _parser().parse_args(argv)
    try:
        if args.command == "build":
            first = parse_week(args.week)
            last = parse_week(args.to) if args.to else first
            paths = build(args.repo, first, last, args.source)
            _print_reports(paths)
        elif args.command == "sql":
            if bool(args.query) == bool(args.file):
                raise UsageError("give the SQL as an argument or with --file, not both")
            query = args.file.read_text(encoding="utf-8") if args.file else args.query
            run_sql(query, args.format)
        elif args.command == "repo":
            manage_repositories(args)
        elif args.command == "compact":
            compact(args.repo)
        elif args.command == "demo":
            _print_reports(demo())
        elif args.command == "ui":
            return ui()
    except KeyboardInterrupt:
        print("prweekly: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # one clear line for the user; details stay in Dagster's run log
        print(f"prweekly: error: {disk_full(exc) or _one_line(exc)}", file=sys.stderr)
        return 2 if isinstance(exc, UsageError) else 1
    return 0


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _print_reports(paths: list[Path]) -> None:
    print("reports:")
    for path in paths:
        print(f"  {path}")


if __name__ == "__main__":
    raise SystemExit(main())
