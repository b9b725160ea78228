"""The `prweekly` command line: every subcommand's arguments, help and examples."""

from __future__ import annotations

import argparse
import difflib
import re
import textwrap
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import NoReturn

from orchestration.config import ENVIRONMENT

EXAMPLES = """\
examples:
  prweekly demo                                    the bundled sample, offline
  prweekly build --repo verl-project/verl --week 2026-W30
  prweekly build --repo verl-project/verl --week 2026-01-05 --to 2026-07-20
  prweekly build --repo acme/rocket --week 2026-W30 --source file:prs.jsonl.gz
  prweekly build --all --week 2026-W30
  prweekly repo add verl-project/verl --core-path verl/trainer/
  prweekly compact                                 one file per repository for full builds
  prweekly sql "select week_start, merged_prs, theme from marts.fct_weekly_summary"
  prweekly ui                                      the Dagster UI, with the weekly schedule
  prweekly serve --port 8000                       the static site of the reports, on loopback
"""

BUILD_EPILOG = """\
examples:
  prweekly build --repo verl-project/verl --week 2026-W30
  prweekly build --repo verl-project/verl --week 2026-01-05 --to 2026-07-20
  prweekly build --repo acme/rocket --week 2026-W30 --source file:prs.jsonl.gz

The environment variables it reads are listed by `prweekly --help`.
"""


def environment_help(width: int = 94) -> str:
    """The `environment:` block of `prweekly --help`, from the one list in config.py."""
    column = max(len(v.name) for v in ENVIRONMENT) + 4
    lines = ["environment:"]
    for variable in ENVIRONMENT:
        text = variable.meaning
        if variable.default != "none":
            text += f"; default: {variable.default}"
        text = text.replace("`", "")
        wrapped = textwrap.wrap(text, width - column)
        lines.append(f"  {variable.name.ljust(column - 2)}{wrapped[0]}")
        lines.extend(" " * column + line for line in wrapped[1:])
    return "\n".join(lines) + "\n"


SQL_EPILOG = """\
marts:
  marts.fct_pull_requests       one row per merged PR: type, areas, importance, risk flags
  marts.fct_weekly_summary      one row per repository and week: volume, authors, theme
  marts.fct_weekly_area_trends  one row per repository, week and area: PRs against the trend
  marts.fct_weekly_risks        one row per week, risk flag and PR, with the reason
  marts.fct_weekly_topics       one row per repository, week and topic: PRs, importance, trend

examples:
  prweekly sql "select number, title, importance from marts.fct_pull_requests limit 5"
  prweekly sql --format csv "select * from marts.fct_weekly_risks" > risks.csv
  prweekly sql --format json --file question.sql
"""


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Wraps a one-paragraph description to the terminal; keeps laid-out text as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text.strip():
            return super()._fill_text(text, width, indent)
        return argparse.HelpFormatter._fill_text(self, text, width, indent)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors name the nearest command or option (`biuld`: build)."""

    def error(self, message: str) -> NoReturn:
        super().error(message + _suggestion(self, message))


def _options(parser: argparse.ArgumentParser) -> list[str]:
    """Every option string of the parser and its subcommands."""
    found: list[str] = []
    for action in parser._actions:
        found += action.option_strings
        if isinstance(action.choices, dict):  # the subcommands' parsers
            found += [o for sub in action.choices.values() for o in _options(sub)]
    return found


def _suggestion(parser: argparse.ArgumentParser, message: str) -> str:
    if found := re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message):
        typo, words = found[1], [w.strip(" '") for w in found[2].split(",")]
    elif found := re.match(r"unrecognized arguments: (-[^\s=]+)", message):
        typo, words = found[1], _options(parser)
    else:
        return ""
    close = difflib.get_close_matches(typo, words, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="prweekly",
        description="Weekly reports of a GitHub repository's merged pull requests, "
        "with every fact kept in a DuckDB warehouse.",
        epilog=environment_help() + "\n" + EXAMPLES,
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"prweekly {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    build = commands.add_parser(
        "build",
        help="extract, model and report one or more weeks of a repository",
        description="Materialise every asset of the repository's weeks through Dagster "
        "(extract, SQL models, report) and print the report paths. Rerunning a week "
        "replaces it.",
        epilog=BUILD_EPILOG,
        formatter_class=HelpFormatter,
    )
    which = build.add_mutually_exclusive_group(required=True)
    which.add_argument("--repo", help="repository as OWNER/NAME")
    which.add_argument(
        "--all",
        action="store_true",
        help="every repository in repositories.yml, in one run: each model runs once for all",
    )
    build.add_argument(
        "--week",
        required=True,
        help="a date inside the week (2026-07-22) or an ISO week (2026-W30)",
    )
    build.add_argument("--to", help="last week of a range, same forms as --week (inclusive)")
    build.add_argument(
        "--source",
        help="github, or file:PATH for JSON lines of PullRequest nodes; recorded for the "
        "repository (default: its recorded source, else $PRWEEKLY_SOURCE or github)",
    )
    build.add_argument(
        "--verbose",
        action="store_true",
        help="also print Dagster's own lines, such as the steps a failure left unrun",
    )

    sql = commands.add_parser(
        "sql",
        help="run read-only SQL over the warehouse",
        description="Run a read-only query over $PRWEEKLY_HOME/warehouse.duckdb. Tables live in "
        "the schemas marts, intermediate, staging and seeds. Waits if a build is writing.",
        epilog=SQL_EPILOG,
        formatter_class=HelpFormatter,
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
    llm_emulator = commands.add_parser(
        "llm-emulator",
        help="serve an OpenAI-compatible chat completions endpoint on loopback (for tests)",
        add_help=False,
    )
    llm_emulator.add_argument("args", nargs=argparse.REMAINDER)

    repo = commands.add_parser(
        "repo",
        help="add, list or remove the repositories the weekly schedule reports on",
        description="Manage $PRWEEKLY_HOME/repositories.yml, which the Monday schedule reads. "
        "`prweekly build` registers a new repository by itself.",
    )
    repo_commands = repo.add_subparsers(dest="repo_command", metavar="ACTION", required=True)
    add = repo_commands.add_parser(
        "add",
        help="register a repository (or update its settings)",
        description="Add a repository to repositories.yml, or merge these settings into its "
        "entry, and offer it as a partition in the UI. Its source, core paths and area rules "
        "apply to every later build of it.",
    )
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
    repo_commands.add_parser(
        "list",
        help="show the registered repositories",
        description="Show each repository of repositories.yml with its source, core paths "
        "and area rules.",
    )
    rm = repo_commands.add_parser(
        "remove",
        help="stop reporting on a repository (data is kept)",
        description="Take a repository out of repositories.yml and the UI's partitions, so the "
        "schedule stops building it. A build of it that is running is waited for. Its lake, "
        "warehouse rows and reports are kept.",
    )
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
        description="Start the GitHub emulator on loopback with acme/rocket, an invented "
        "repository that ships with prweekly, build its four weeks through the github source "
        "into $PRWEEKLY_HOME, and print the report paths. Nothing leaves the machine.",
    )
    commands.add_parser(
        "site",
        help="rebuild the static site over the reports (every build also does)",
        description="Write index.html, a page and Atom feeds (English, Chinese) per repository "
        "and the links between weeks into the reports location, from the warehouse and the "
        "report files. Every build keeps the site current; this rebuilds it by hand.",
    )
    serve = commands.add_parser(
        "serve",
        help="serve the static site on loopback for a quick look",
        description="Serve the reports location (the site's home is index.html) over HTTP on "
        "127.0.0.1. Stop it with Ctrl-C.",
    )
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free)")
    ui = commands.add_parser(
        "ui",
        help="start the Dagster UI (dagster dev) on this project",
        description="Run `dagster dev` on prweekly's code location, with run history kept in "
        "$PRWEEKLY_HOME/dagster and the weekly schedule running. Stop it with Ctrl-C.",
    )
    ui.add_argument("--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1)")
    ui.add_argument("--port", type=int, default=3000, help="port to serve on (default 3000)")
    _add_publish(commands)
    return parser


def _add_publish(commands) -> None:
    publish = commands.add_parser(
        "publish",
        help="send a week's report to the repository's (or group's) delivery targets by hand",
        description="Send the week's current edition to the Slack, email and GitHub targets of "
        "the repository's (or group's) `deliver:` block in repositories.yml. A target that "
        "already has this edition gets nothing; a corrected edition is sent even with "
        "send_corrections: false.",
    )
    which = publish.add_mutually_exclusive_group(required=True)
    which.add_argument("--repo", help="repository as OWNER/NAME")
    which.add_argument("--group", help="a group of repositories.yml's groups: (its report)")
    publish.add_argument("--week", required=True, help="a date inside the week or an ISO week")
    publish.add_argument("--target", choices=("slack", "email", "github"), help="only this one")
    publish.add_argument(
        "--dry-run", action="store_true", help="say what would be sent, send nothing"
    )


def _version() -> str:
    try:
        return version("prweekly")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"
