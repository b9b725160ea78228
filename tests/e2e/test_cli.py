"""The `prweekly` command as a user meets it: help, version, errors that say what is wrong."""

from __future__ import annotations

import re
import subprocess
from datetime import date
from importlib.metadata import version
from pathlib import Path

import pytest

from orchestration.service import cli
from orchestration.service.cli import main
from orchestration.testing.github_emulator.faults import Fault
from orchestration.weeks import weeks_between
from tests.conftest import ROOT

COMMANDS = [
    ["build"],
    ["sql"],
    ["emulator"],
    ["repo"],
    ["repo", "add"],
    ["repo", "list"],
    ["repo", "remove"],
    ["compact"],
    ["demo"],
    ["ui"],
    ["site"],
    ["serve"],
]


def help_of(capsys, *args: str) -> str:
    with pytest.raises(SystemExit) as exit_:
        main([*args, "--help"])
    assert exit_.value.code == 0
    return capsys.readouterr().out


def test_version(capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"prweekly {version('prweekly')}\n"


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_explains_itself_without_the_top_level_block(capsys, command) -> None:
    text = help_of(capsys, *command)
    usage, description = text.split("\n\n")[:2]
    assert usage.startswith(f"usage: prweekly {' '.join(command)}")
    assert len(description.split()) >= 5 and not description.startswith(("options", "positional"))
    assert "environment:" not in text and "the bundled sample, offline" not in text


def test_ui_takes_a_host_and_a_port(capsys) -> None:
    text = help_of(capsys, "ui")
    assert "--host HOST" in text and "--port PORT" in text


def test_every_environment_variable_is_listed_once(capsys) -> None:
    """`--help` prints the one list in config.py; the README's table is generated from the
    same list (tests/unit/test_docs.py holds it to it)."""
    from orchestration.config import ENVIRONMENT

    text = help_of(capsys)
    names = [v.name for v in ENVIRONMENT]
    for name in names:
        assert len(re.findall(rf"^  {name}\b", text, re.MULTILINE)) == 1, name
    read_in_code = {
        name
        for path in (ROOT / "orchestration").rglob("*.py")
        for name in re.findall(r"[\"']((?:PRWEEKLY|GITHUB)_[A-Z_]+)[\"']", path.read_text())
    }
    assert read_in_code <= set(names), read_in_code - set(names)


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["biuld"], "(did you mean 'build'?)"),
        (["repo", "lsit"], "(did you mean 'list'?)"),
        (["sql", "--fromat", "csv", "select 1"], "(did you mean '--format'?)"),
        (["build", "--repo", "a/b", "--week", "2026-W30", "--sorce", "github"],
         "(did you mean '--source'?)"),
    ],
)  # fmt: skip
def test_a_misspelt_command_or_option_names_the_nearest_one(capsys, argv, hint) -> None:
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 2
    (line,) = [ln for ln in capsys.readouterr().err.splitlines() if "error:" in ln]
    assert line.endswith(hint), line


def test_a_word_near_nothing_gets_no_guess(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["zzzzzz"])
    assert "did you mean" not in capsys.readouterr().err


def test_the_emulator_lists_its_fault_kinds(capsys) -> None:
    text = " ".join(help_of(capsys, "emulator").split())
    for fault in Fault:
        assert fault.value in text, fault


def test_a_directory_given_as_a_dataset_says_so(home: Path, tmp_path: Path, capsys) -> None:
    folder = tmp_path / "datasets"
    folder.mkdir()
    expected = f"{folder} is a folder, not a dataset file"
    build = ["build", "--repo", "acme/rocket", "--week", "2026-W30", "--source", f"file:{folder}"]
    for args in (build, ["repo", "add", "acme/rocket", "--source", f"file:{folder}"]):
        assert main(args) == 2
        assert expected in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["emulator", "--dataset", str(folder)])
    assert exit_.value.code == 2 and expected in capsys.readouterr().err
    assert not home.exists()  # refused before anything was written


def test_compact_names_a_repository_it_does_not_know(home: Path, capsys) -> None:
    assert main(["compact", "--repo", "no/such"]) == 2
    err = capsys.readouterr().err
    assert "no/such has no week files in the lake" in err


def test_a_long_build_prints_a_summary_and_a_short_one_every_path(home: Path, capsys) -> None:
    long = weeks_between(date(2024, 10, 28), date(2026, 8, 17))
    assert len(long) == 95
    cli._print_reports(cli._report_paths("acme/rocket", long))
    lines = capsys.readouterr().out.splitlines()
    folder = home / "reports" / "acme__rocket"
    assert lines == [
        f"reports: 380 files for 95 weeks (2024-10-28 to 2026-08-17) in {folder}",
        "the latest week's:",
        *(f"  {folder}/2026-08-17.{lang}.{ext}" for lang in ("zh", "en") for ext in ("md", "html")),
    ]
    cli._print_reports(cli._report_paths("acme/rocket", long[:4]))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "reports:" and len(lines) == 17


def test_make_clean_keeps_the_warehouse() -> None:
    dry_run = subprocess.run(
        ["make", "-n", "clean"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert "rm " in dry_run and ".venv" in dry_run
    assert "data" not in dry_run and "PRWEEKLY_HOME" not in dry_run
