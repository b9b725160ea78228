"""Issue 27's probes of what prweekly writes and says: escaping, limits, configuration, the CLI.

Each runs the real `prweekly` in a throwaway home (see `bench/probe.py`) and reads the result
as its target does: Markdown with a CommonMark renderer, feeds as XML, GitHub's posts in the
emulator (which refuses what GitHub refuses), the CLI's lines as a user reads them.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml

from bench.probe_home import FIRST, LAST, PRWEEKLY, REPO, ROOT, SAMPLE, Broke, Home, Probe
from orchestration.testing.github_emulator import Emulator

sys.path.insert(0, str(ROOT / "tests"))  # the tests' CommonMark reading of GitHub's rendering
from delivery_receivers import SlackReceiver
from markdown_check import render_markdown

EVIL_PATH = "x`<img src=x onerror=alert(1)>[x](javascript:alert(1)) @acme/everyone`.py"
TOKEN = "probe-token-0123456789"


def hostile_sample(root: Path) -> Path:
    """The sample, its last PR titled with U+FFFF, mentions and a right-to-left override, and
    changing a file named EVIL_PATH under the core path `engine/`."""
    nodes = [json.loads(line) for line in SAMPLE.read_text().splitlines() if line]
    last = max(nodes, key=lambda n: n["mergedAt"])
    last["title"] = "fix: ping @octocat and @acme/everyone \uffff \u202eexe.txt"
    last["files"] = {
        "totalCount": 1,
        "nodes": [{"path": f"engine/{EVIL_PATH}", "additions": 90, "deletions": 1}],
    }
    last["additions"], last["deletions"], last["changedFiles"] = 90, 1, 1
    path = root / "hostile.jsonl"
    path.write_text("".join(json.dumps(n) + "\n" for n in nodes))
    return path


def escaping(root: Path) -> str:
    source = hostile_sample(root)
    slack = SlackReceiver("/services/T0/B0/probe")
    with Emulator(source, token=TOKEN) as github, slack:
        home = Home(root, "home", {"GITHUB_GRAPHQL_URL": github.url, "GITHUB_TOKEN": TOKEN,
                                   "HOOK": slack.url})  # fmt: skip
        deliver = {"github": {"discussion_category": "Announcements"},
                   "slack": {"webhook_url": "${HOOK}"}}  # fmt: skip
        entry = {"name": REPO, "core_paths": ["engine/"], "deliver": deliver}
        (home.path / "repositories.yml").write_text(yaml.safe_dump({"repositories": [entry]}))
        home.must_build(source=source, week=LAST)
        posts = github.posts.of_kind("Discussion", REPO)
    texts = [m["text"] for m in slack.messages]
    if not texts or any("\u202e" in t or "@here" in t or "@acme/" in t for t in texts):
        raise Broke(f"Slack got a bidi character or a live mention: {texts[:1]}")
    feeds = sorted((home.path / "reports" / "acme__rocket").glob("feed.*.xml"))
    for feed in feeds:
        ET.fromstring(feed.read_bytes())  # "invalid token" before
    markdown = (home.path / "reports" / "acme__rocket" / f"{LAST}.en.md").read_text()
    shown = render_markdown(markdown)
    foreign = [a for t, a in shown.tags if t == "img" and not a.get("src", "").endswith(".svg")]
    if f"engine/{EVIL_PATH}" not in shown.code_text or foreign:
        where = "not in the report" if "onerror" not in markdown else "out of its code span"
        raise Broke(f"the path is {where}")
    said = [m for p in posts for m in render_markdown(p.body).mentions()] + shown.mentions()
    if said or not posts:
        raise Broke(f"live mentions: {said[:3]} ({len(posts)} posts)")
    return (f"{len(feeds)} feeds parse as XML; the path is one code span; 0 live mentions in "
            "the .md, the GitHub post and Slack; no RLO in Slack")  # fmt: skip


def refused(text: str, want: str, file_home: bool = False):
    def probe(root: Path) -> str:
        home = Home(root, "home")
        if file_home:
            home.path.rmdir()
            home.path.write_text("not a folder")
        else:
            (home.path / "repositories.yml").write_text(text)
        done = home.run("repo", "list")
        line = done.error_line()
        if done.code != 2 or want not in line or done.err.count("\n") != 1:
            raise Broke(f"exit {done.code}: {line or done.out.strip()}")
        return f"exit 2: {line.split(': ', 2)[-1].replace(str(root), '<tmp>')}"

    return probe


def over_githubs_limit(root: Path) -> str:
    """polars 2024-W23 (67,212 characters in English) when the shared dataset is here, else
    the sample padded to as many PRs: posted within 65,536 characters with a link."""
    polars = ROOT.parent / "shared" / "datasets" / "pola-rs__polars" / "pull_requests.jsonl.gz"
    repo, week, source = "pola-rs/polars", "2024-06-03", polars
    if not polars.exists():
        return "skipped: the shared polars dataset is not beside the checkout"
    with Emulator(source, token=TOKEN) as github:
        home = Home(root, "home", {"GITHUB_GRAPHQL_URL": github.url, "GITHUB_TOKEN": TOKEN})
        deliver = {"site_url": "https://reports.example.com",
                   "github": {"discussion_category": "Announcements"}}  # fmt: skip
        entry = {"name": repo, "deliver": deliver}
        (home.path / "repositories.yml").write_text(yaml.safe_dump({"repositories": [entry]}))
        home.must_build(source=source, repo=repo, week=week, to=week)
        posts = github.posts.of_kind("Discussion", repo)
    markdown = (home.path / "reports" / "pola-rs__polars" / f"{week}.en.md").read_text()
    if (
        len(posts) != 1
        or len(posts[0].body) > 65_536
        or "the full report: <https" not in posts[0].body
    ):
        raise Broke(f"{len(posts)} posts, {[len(p.body) for p in posts]} characters")  # fmt: skip
    return (f"the report is {len(markdown):,} characters; GitHub got {len(posts[0].body):,} "
            "with a link to the full page")  # fmt: skip


def demo_then_all(root: Path) -> str:
    home = Home(root, "home")
    home.env.pop("GITHUB_GRAPHQL_URL", None)
    if (done := home.run("demo")).code != 0:
        raise Broke(f"the demo failed: {done.error_line()}")
    again = home.run("build", "--all", "--week", LAST)
    if again.code != 0:
        raise Broke(f"build --all after the demo: exit {again.code}: {again.error_line()}")
    source = yaml.safe_load((home.path / "repositories.yml").read_text())["repositories"][0]
    return f"build --all exit 0; the sample is registered with source {Path(source['source']).name}"


def sql_file_not_echoed(root: Path) -> str:
    home = Home(root, "home")
    home.must_build(week=LAST)
    secret = root / "shadow"
    secret.write_text("root:$6$SECRETHASH:19000:0:99999:7:::\n")
    done = home.run("sql", "--file", str(secret))
    empty = home.run("sql")
    if "SECRETHASH" in done.err or "root" in done.err.replace(str(root), ""):
        raise Broke(f"the file was quoted: {done.error_line()}")
    if "not both" in empty.err or empty.code != 2:
        raise Broke(f"no query: {empty.error_line()}")
    return f"{done.error_line().replace(str(root), '<tmp>')}; no query: {empty.error_line()}"


def failed_build_quiet(root: Path) -> str:
    cut = root / "cut.jsonl"
    text = SAMPLE.read_text()
    cut.write_text(text[: len(text) // 2])
    done = Home(root, "home").build(source=cut, week=FIRST, to=FIRST)
    noise = done.err.count("Not executing")
    if done.code != 1 or noise or "(1 week)" not in done.out:
        raise Broke(f"exit {done.code}, {noise} 'Not executing' lines, {done.out.splitlines()[0]}")
    return (
        f"exit 1, {len(done.err.splitlines())} lines, 0 'Not executing'; {done.error_line()[:80]}…"
    )


def ctrl_c(root: Path) -> str:
    home = Home(root, "home")
    args = [str(PRWEEKLY), "build", "--repo", REPO, "--week", LAST, "--source", f"file:{SAMPLE}"]
    build = subprocess.Popen(args, env=home.env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                             text=True, start_new_session=True)  # fmt: skip
    seen = []
    for line in build.stderr:
        seen.append(line)
        if line.startswith("  ▸ fct_pull_requests"):
            os.killpg(build.pid, signal.SIGINT)
            break
    err = "".join(seen) + build.stderr.read()
    code = build.wait(timeout=300)
    last = err.strip().splitlines()[-1]
    if code != 130 or "Traceback" in err or "interrupted: run the same command" not in last:
        raise Broke(f"exit {code}: {last}")
    if (again := home.run(*args[1:])).code != 0:
        raise Broke(f"the same command again: exit {again.code}")
    return f"exit 130, no traceback: {last}; the same command again: exit 0"


def busy_port(root: Path) -> str:
    home = Home(root, "home")
    (home.path / "reports").mkdir()
    (home.path / "reports" / "index.html").write_text("<!doctype html>")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        done = home.run("serve", "--port", str(taken.getsockname()[1]))
    if done.code != 2 or "already in use" not in done.err or "Errno" in done.err:
        raise Broke(f"exit {done.code}: {done.error_line()}")
    return f"exit 2: {done.error_line()[17:120]}…"


OUTPUT_PROBES = [
    Probe("escaping", "U+FFFF, mentions, a backtick path, RLO in a title", "feeds parse; no "
          "live markup or mention", escaping),
    Probe("config", "a second `deliver:` in one entry", "refused naming file, line, entry",
          refused("repositories:\n- name: acme/rocket\n  deliver: {}\n  deliver: {}\n",
                  "deliver appears twice")),
    Probe("config", "a repository listed twice", "refused",
          refused("repositories:\n- name: acme/rocket\n- name: acme/rocket\n", "listed twice")),
    Probe("config", "a misspelt key (core_path)", "refused with the closest key",
          refused("repositories:\n- name: acme/rocket\n  core_path: [engine/]\n",
                  "did you mean core_paths?")),
    Probe("config", "PRWEEKLY_HOME is a file", "refused",
          refused("", "is a file, not a folder", file_home=True)),
    Probe("limits", "polars 2024-W23's report to GitHub (67,212 characters when filed)",
          "posted within 65,536 with a link", over_githubs_limit),
    Probe("demo", "make demo, then build --all", "exit 0, no GitHub asked", demo_then_all),
    Probe("cli", "sql --file on a file that is not SQL; sql with no query", "no file text "
          "shown; the right message", sql_file_not_echoed),
    Probe("cli", "a build that fails in its extract", "the cause, not Dagster's step lines",
          failed_build_quiet),
    Probe("cli", "Ctrl-C during a build", "one line, exit 130; the same command finishes",
          ctrl_c),
    Probe("cli", "serve on a port in use", "which port and what to do", busy_port),
]  # fmt: skip
