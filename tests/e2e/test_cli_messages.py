"""What the CLI says when things go wrong: the cause in one line, and what to do.

A failed build shows its failing step and error, not a line per later step Dagster did not
run (those come with `--verbose`); Ctrl-C stops a build with one line and exit 130, and the
same command run again finishes it; a port in use names the port and the way out; counts
read as English ("1 week", "1 repository").
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from orchestration.service.cli import main
from tests.conftest import SAMPLE_DATASET

PRWEEKLY = str(Path(sys.executable).with_name("prweekly"))


@pytest.fixture
def cut_file(tmp_path: Path) -> Path:
    """The sample with its last line cut in half, as a copy interrupted mid-write leaves it."""
    lines = SAMPLE_DATASET.read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2] + "\n")
    return cut


def test_a_failed_build_shows_its_cause_not_the_steps_it_left(home, cut_file, capsys) -> None:
    args = ["build", "--repo", "acme/rocket", "--week", "2026-W27", "--source", f"file:{cut_file}"]
    assert main(args) == 1
    out, err = capsys.readouterr()
    assert "prweekly: building acme/rocket 2026-W27 (1 week) from file:" in out  # "1 week(s)"
    assert "Not executing" not in err and "were not executed" not in err  # 22 lines before
    lines = [line for line in err.splitlines() if line.strip()]
    last = len(SAMPLE_DATASET.read_text().splitlines())
    assert lines[-2].startswith("  ✗ raw_pull_requests (")  # the failing step, then its cause
    assert lines[-1].startswith(
        f"prweekly: error: raw_pull_requests: {cut_file}:{last}: malformed JSON"
    )
    assert main([*args, "--verbose"]) == 1
    err = capsys.readouterr().err
    assert err.count("Not executing") > 10  # asked for: every step the failure left unrun


def test_build_all_counts_in_english(home, cut_file, capsys) -> None:
    home.mkdir()
    (home / "repositories.yml").write_text(
        json.dumps({"repositories": [{"name": "acme/rocket", "source": f"file:{cut_file}"}]})
    )
    assert main(["build", "--all", "--week", "2026-W27"]) == 1
    assert "prweekly: building 1 repository 2026-W27 in one run" in capsys.readouterr().out


def test_ctrl_c_stops_a_build_in_one_line_and_the_same_command_finishes_it(home: Path) -> None:
    args = [PRWEEKLY, "build", "--repo", "acme/rocket", "--week", "2026-W30",
            "--source", f"file:{SAMPLE_DATASET}"]  # fmt: skip
    env = {**os.environ, "PRWEEKLY_HOME": str(home)}
    env.pop("DAGSTER_HOME", None)
    build = subprocess.Popen(args, env=env, stderr=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True, start_new_session=True)  # fmt: skip
    seen = []
    for line in build.stderr:  # Ctrl-C reaches the terminal's whole process group
        seen.append(line)
        if line.startswith("  ▸ fct_pull_requests"):
            os.killpg(build.pid, signal.SIGINT)
            break
    err = "".join(seen) + build.stderr.read()
    assert build.wait(timeout=120) == 130, err
    assert err.splitlines()[-1] == "prweekly: interrupted: run the same command again to finish"
    assert "Traceback" not in err and "DagsterExecutionInterruptedError" not in err, err
    build.stdout.close()
    again = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-500:]
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        (weeks,) = conn.execute("select count(*) from marts.fct_weekly_summary").fetchone()
    assert weeks == 4 and len(list((home / "reports" / "acme__rocket").glob("*.md"))) == 2


@pytest.mark.parametrize("command", [["serve"], ["ui"]])
def test_a_port_in_use_says_which_and_what_to_do(home: Path, capsys, command) -> None:
    (home / "reports").mkdir(parents=True)
    (home / "reports" / "index.html").write_text("<!doctype html>")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main([*command, "--port", str(port)]) == 2
    assert capsys.readouterr().err == (
        f"prweekly: error: port {port} on 127.0.0.1 is already in use (another prweekly serve, "
        "ui or emulator, or another program): stop that one, or choose another port with "
        "--port N (--port 0 takes any free one)\n"
    )  # before: [Errno 98] Address already in use


def test_the_narrative_docs_example_after_the_demo_records_no_new_source(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`make demo` registers the sample with its file; the narrative docs' offline example
    builds it with `--source file:…` from the checkout: the same file, so nothing changes (a
    demo that recorded `github` had the example quietly switch the schedule's source)."""
    import re

    from orchestration.extract.sources import parse_source
    from orchestration.repositories.registry import record_build, source_of
    from orchestration.service import cli
    from tests.conftest import ROOT

    asked: dict = {}
    monkeypatch.setattr(cli, "build", lambda *args, **kw: asked.update(kw, args=args) or [])
    monkeypatch.setenv("GITHUB_GRAPHQL_URL", "unset again after the test")  # the demo sets it
    cli.demo()  # what the demo builds (through its emulator) and what it records
    assert asked["args"][3] == "github" and asked["recorded"] == f"file:{cli.SAMPLE_DATASET}"

    example = (ROOT / "docs" / "narrative.md").read_text(encoding="utf-8")
    (given,) = re.findall(r"build --repo acme/rocket --week \S+ --source (\S+)", example)
    monkeypatch.chdir(ROOT)  # the docs' commands run from the checkout
    assert record_build(home, "acme/rocket", asked["recorded"]).startswith("registered")
    assert record_build(home, "acme/rocket", parse_source(given).absolute()) is None
    assert source_of(home, "acme/rocket") == f"file:{cli.SAMPLE_DATASET}"
