"""Issue 27's probes of what nobody had tried: concurrency on one home, delivery faults, files
that are almost right, a repository renamed or moved on GitHub.

Builds and publishes run the real `prweekly` as child processes in throwaway homes; the
receivers (a Slack webhook, SMTP servers, the GitHub emulator) run in this process on loopback.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import yaml

from bench.probe_home import DRIVER, FIRST, LAST, PRWEEKLY, REPO, ROOT, SAMPLE, Broke, Home, Probe
from orchestration.testing.github_emulator import Emulator, Fault

sys.path.insert(0, str(ROOT / "tests"))
from delivery_receivers import DroppingSmtpServer, SlackReceiver

TOKEN = "probe-token-0123456789"


def as_repo(root: Path, repo: str) -> Path:
    """The sample's PRs as `repo`'s."""
    path = root / f"{repo.replace('/', '__')}.jsonl"
    path.write_text(SAMPLE.read_text().replace(f"/{REPO}/pull/", f"/{repo}/pull/"))
    return path


def two_builds_at_once(root: Path) -> str:
    other = as_repo(root, "acme/other")
    home = Home(root, "home")
    args = [[str(PRWEEKLY), "build", "--repo", repo, "--week", FIRST, "--to", LAST, "--source",
             f"file:{path}"] for repo, path in ((REPO, SAMPLE), ("acme/other", other))]  # fmt: skip
    started = time.monotonic()
    runs = [subprocess.Popen(a, env=home.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True) for a in args]  # fmt: skip
    codes = [(r.wait(timeout=600), r.stderr.read()) for r in runs]
    took = time.monotonic() - started
    if [c for c, _ in codes] != [0, 0]:
        raise Broke(f"exits {[c for c, _ in codes]}: {codes[0][1][-200:]} {codes[1][1][-200:]}")
    both = home.sql("select repo, count(*) from marts.fct_pull_requests group by all order by 1")
    alone = Home(root, "alone")
    alone.must_build()
    one = alone.sql("select count(*) from marts.fct_pull_requests")
    counts = [line.split(",")[1] for line in both.splitlines()[1:]]
    if counts != [one.splitlines()[-1]] * 2:
        raise Broke(f"PRs per repository {counts}, alone {one.splitlines()[-1]}")
    listed = home.run("repo", "list").out
    if "acme/other" not in listed or REPO not in listed:
        raise Broke("repositories.yml lost one of them")
    return f"both exit 0 in {took:.0f} s; each has its {counts[0]} PRs; both registered"


def during_a_held_build(root: Path) -> str:
    home = Home(root, "home")
    home.must_build(week=LAST)
    marker = root / "held"
    env = {**home.env, "PRWEEKLY_HOLD_MARKER": str(marker)}
    held = subprocess.Popen(
        [sys.executable, str(DRIVER), "hold:fct_pull_requests", "build", "--repo", REPO,
         "--week", LAST, "--source", f"file:{SAMPLE}"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    server = None
    try:
        deadline = time.monotonic() + 300
        while not marker.exists():
            if held.poll() is not None or time.monotonic() > deadline:
                raise Broke("the held build never reached fct_pull_requests")
            time.sleep(0.2)
        started = time.monotonic()
        added = home.run("repo", "add", "acme/lander", timeout=60)
        add_s = time.monotonic() - started
        counted = home.run("sql", "select count(*) from marts.fct_pull_requests", timeout=60)
        server = subprocess.Popen([str(PRWEEKLY), "serve", "--port", "0"], env=home.env,
                                  stdout=subprocess.PIPE, text=True)  # fmt: skip
        url = server.stdout.readline().split(" at ")[1].split(" ")[0]
        with urllib.request.urlopen(url + "index.html", timeout=30) as page:
            served = page.status
    finally:
        held.kill()
        held.wait()
        if server:
            server.terminate()
            server.wait()
    if added.code != 0 or counted.code != 0 or served != 200:
        raise Broke(f"repo add exit {added.code}, sql exit {counted.code}, serve {served}")
    if "acme/lander" not in home.run("repo", "list").out:
        raise Broke("the added repository is gone")
    return (f"repo add exit 0 in {add_s:.1f} s; sql answered {counted.out.strip()} PRs; serve "
            "gave the previous site (200)")  # fmt: skip


def publish_home(root: Path, deliver: dict, env: dict) -> Home:
    home = Home(root, "home", env)
    home.must_build(week=LAST)
    (home.path / "repositories.yml").write_text(
        yaml.safe_dump(
            {"repositories": [{"name": REPO, "source": f"file:{SAMPLE}", "deliver": deliver}]}
        )
    )
    return home


def smtp_drops_after_accepting(root: Path) -> str:
    with DroppingSmtpServer() as smtp:
        home = publish_home(
            root,
            {"email": {"to": ["t@example.com"], "smtp_url": f"smtp://127.0.0.1:{smtp.port}"}},
            {},
        )
        done = home.run("publish", "--repo", REPO, "--week", LAST)
        if done.code != 0 or len(smtp.messages) != 1:
            raise Broke(f"exit {done.code}, {len(smtp.messages)} messages: {done.out[-200:]}")
    return "sent once (exit 0); the dropped QUIT is not a failure"


def slack_answers(answers: list[tuple[int, dict, float]], runs: int, want: int, said: str):
    def probe(root: Path) -> str:
        slack = SlackReceiver("/services/T0/B0/probe")
        slack.answers = list(answers)
        with slack:
            home = publish_home(root, {"slack": {"webhook_url": "${HOOK}"}}, {"HOOK": slack.url})
            outs = [home.run("publish", "--repo", REPO, "--week", LAST).out for _ in range(runs)]
            time.sleep(max(w for _s, _h, w in answers) + 0.5)
        if len(slack.messages) != want:
            raise Broke(f"{len(slack.messages)} messages after {runs} runs: {outs[-1][-200:]}")
        return f"{len(slack.messages)} message(s) after {runs} run(s): {said}"

    return probe


def github_502_after_creating(root: Path) -> str:
    with Emulator(SAMPLE, token=TOKEN) as github:
        github.faults.fail_next(Fault.DONE_502, after=1)
        home = publish_home(
            root,
            {"github": {"discussion_category": "Announcements"}},
            {"GITHUB_GRAPHQL_URL": github.url, "GITHUB_TOKEN": TOKEN},
        )
        done = home.run("publish", "--repo", REPO, "--week", LAST)
        posts = github.posts.of_kind("Discussion", REPO)
    if done.code != 0 or len(posts) != 1:
        raise Broke(f"exit {done.code}, {len(posts)} discussions")
    return "exit 0, one discussion: the retry found it by its hidden edition line"


def kill_before_the_ledger(root: Path) -> str:
    slack = SlackReceiver("/services/T0/B0/kill")
    with Emulator(SAMPLE, token=TOKEN) as github, slack:
        home = publish_home(root, {"slack": {"webhook_url": "${HOOK}"},
                                   "github": {"discussion_category": "Announcements"}},
                            {"HOOK": slack.url, "GITHUB_GRAPHQL_URL": github.url,
                             "GITHUB_TOKEN": TOKEN})  # fmt: skip
        command = [str(PRWEEKLY), "publish", "--repo", REPO, "--week", LAST]
        runs: list[subprocess.Popen] = []
        answer = github.answer

        def kill(*_args) -> None:
            os.kill(runs[-1].pid, signal.SIGKILL)

        def answer_then_kill(body: bytes, fault):
            result = answer(body, fault)
            if b"mutation" in body:
                kill()
            return result

        for run in range(3):
            slack.on_message = kill if run == 0 else None
            github.answer = answer_then_kill if run == 1 else answer
            runs.append(subprocess.Popen(command, env=home.env, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL))  # fmt: skip
            runs[-1].wait(timeout=300)
        posts = len(github.posts.of_kind("Discussion", REPO))
    if len(slack.messages) > 2 or posts != 1 or runs[-1].returncode != 0:
        raise Broke(f"slack {len(slack.messages)} messages, github {posts} posts")
    return f"killed twice; Slack got {len(slack.messages)} (one duplicate), GitHub {posts} (none)"


def almost_right_files(root: Path) -> str:
    nodes = [json.loads(line) for line in SAMPLE.read_text().splitlines() if line]
    nodes[0]["body"] = "NUL \u0000 and a lone \ud800 surrogate"
    text = "".join(json.dumps(n, ensure_ascii=False) + "\n" for n in nodes)
    odd = root / "odd.jsonl"  # a BOM, NULs, surrogates (as invalid UTF-8)
    odd.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8", "surrogatepass"))
    home = Home(root, "home")
    home.must_build(source=odd)
    said = []
    for name, data in [
        ("cut.jsonl.gz", gzip.compress(text.encode("utf-8", "surrogatepass"))[:2000]),
        ("half.jsonl", (text[: len(text) // 2]).encode("utf-8", "surrogatepass")),
        ("twice.jsonl", (text + json.dumps({**nodes[0], "title": "other"}) + "\n").encode(
            "utf-8", "surrogatepass")),
    ]:  # fmt: skip
        path = root / name
        path.write_bytes(data)
        done = home.build(source=path)
        if done.code != 1 or name not in done.error_line():
            raise Broke(f"{name}: exit {done.code}: {done.error_line()}")
        said.append(done.error_line().split(f"{name}", 1)[1][:70])
    return "BOM, NUL, surrogates, invalid UTF-8: built; refused: " + " / ".join(said)


def moved_on_github(now: str):
    def probe(root: Path) -> str:
        nodes = [json.loads(line) for line in SAMPLE.read_text().splitlines() if line]
        for node in nodes:
            node["url"] = node["url"].replace(REPO, now)
        with Emulator(nodes, token=TOKEN) as github:
            github.dataset.move(REPO, now)
            home = Home(root, "home", {"GITHUB_GRAPHQL_URL": github.url, "GITHUB_TOKEN": TOKEN})
            done = home.run("build", "--repo", REPO, "--week", LAST, "--source", "github")
        line = done.error_line()
        written = list(home.path.glob("lake/**/data.parquet"))
        if done.code != 1 or f"prweekly repo add {now}" not in line or written:
            raise Broke(f"exit {done.code} ({len(written)} week files): {line}")
        return f"exit 1: {line.split(': ', 3)[-1][:110]}…"

    return probe


FAULT_PROBES = [
    Probe("concurrency", "two builds of different repositories at once on one home",
          "both whole, both registered", two_builds_at_once),
    Probe("concurrency", "repo add, sql and serve while a build holds a model",
          "each answers at once", during_a_held_build),
    Probe("delivery", "SMTP accepting, then dropping the connection", "sent once",
          smtp_drops_after_accepting),
    Probe("delivery", "Slack answering 429 (Retry-After: 1), then 500", "one message",
          slack_answers([(429, {"retry-after": "1"}, 0.0), (500, {}, 0.0)], 1, 1, "retried")),
    Probe("delivery", "Slack answering after 5 s", "one message, no retry",
          slack_answers([(200, {}, 5.0)], 1, 1, "waited for")),
    Probe("delivery", "GitHub answering 502 after creating the post", "one post",
          github_502_after_creating),
    Probe("delivery", "a kill between a provider's acceptance and the ledger", "at most one "
          "duplicate", kill_before_the_ledger),
    Probe("input", "a BOM, NULs, lone surrogates, invalid UTF-8; a cut gzip, a cut line, a PR "
          "twice", "kept, or refused naming it", almost_right_files),
    Probe("input", "a repository renamed on GitHub", "stops, naming the new name",
          moved_on_github("acme/booster")),
    Probe("input", "a repository transferred to another owner", "stops, naming the new name",
          moved_on_github("rocketry/rocket")),
]  # fmt: skip
