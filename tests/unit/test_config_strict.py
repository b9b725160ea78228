"""Configuration is never dropped silently: repositories.yml and PRWEEKLY_HOME are checked.

A key written twice (YAML keeps the last), an entry listed twice, a misspelt key and a home
that is a file each stop every command with one line that names the file, the entry and the
key, and suggests the key that was meant.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestration.service.cli import main

DELIVER_TWICE = """\
repositories:
- name: acme/rocket
  deliver:
    slack: {webhook_url: "${SLACK}"}
  core_paths: [engine/]
  deliver:
    github: {issue_label: weekly}
"""


def refusal(home: Path, text: str, capsys: pytest.CaptureFixture) -> str:
    home.mkdir(exist_ok=True)
    (home / "repositories.yml").write_text(text, encoding="utf-8")
    capsys.readouterr()
    assert main(["repo", "list"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("prweekly: error: "), err
    return err.removeprefix("prweekly: error: ").strip()


def test_a_key_written_twice_is_refused_naming_both_lines(home, capsys) -> None:
    line = refusal(home, DELIVER_TWICE, capsys)
    assert line == (
        f"{home / 'repositories.yml'}:6: acme/rocket: deliver appears twice (lines 3 and 6): "
        "keep one"
    )


def test_a_repository_listed_twice_is_refused(home, capsys) -> None:
    text = "repositories:\n- name: acme/rocket\n  source: github\n- name: acme/rocket\n"
    line = refusal(home, text, capsys)
    assert line == (
        f"{home / 'repositories.yml'}: acme/rocket (entry #2) is listed twice (also entry #1): "
        "keep one entry and put its settings together"
    )


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("- name: acme/rocket\n  core_path: [engine/]\n",
         "acme/rocket: unknown key core_path (did you mean core_paths? known: name, source, "
         "core_paths, area_rules, deliver)"),
        ("- name: acme/rocket\n  area_rule: {engine/: engine}\n",
         "acme/rocket: unknown key area_rule (did you mean area_rules?"),
        ("- name: acme/rocket\n  deliver: {slak: {webhook_url: x}}\n",
         "acme/rocket: deliver: deliver: unknown key slak (did you mean slack?"),
        ("- name: acme/rocket\n  core_paths: engine/\n",
         "acme/rocket: core_paths must be a list of path prefixes"),
    ],
)  # fmt: skip
def test_a_misspelt_or_misshapen_key_is_refused_with_the_closest_known_one(
    home, capsys, text: str, said: str
) -> None:
    line = refusal(home, "repositories:\n" + text, capsys)
    assert line.startswith(f"{home / 'repositories.yml'}: {said}"), line


def test_an_unknown_top_level_key_is_refused(home, capsys) -> None:
    line = refusal(home, "repository:\n- name: acme/rocket\n", capsys)
    assert "unknown key repository (did you mean repositories?" in line


def test_a_home_that_is_a_file_is_refused(tmp_path: Path, monkeypatch, capsys) -> None:
    file = tmp_path / "home"
    file.write_text("not a folder")
    monkeypatch.setenv("PRWEEKLY_HOME", str(file))
    for command in (["repo", "list"], ["sql", "select 1"], ["site"]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert err == (
            f"prweekly: error: PRWEEKLY_HOME={file} is a file, not a folder: point "
            "PRWEEKLY_HOME at a folder (it is made if it does not exist)\n"
        ), command
