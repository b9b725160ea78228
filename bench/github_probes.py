"""The GitHub probes of `bench/probe.py`: the emulator fails the way GitHub does, for real.

The emulator runs in this process on loopback; `prweekly build --source github` runs as a
child process against it with a token, on real time. Week 30 of the sample is padded to 160
PRs, so a window's search takes two pages and a shift between pages can lose one.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

from bench.probe_home import LAST, REPO, SAMPLE, Broke, Home, Probe
from orchestration.testing.github_emulator import Emulator, Fault

TOKEN = "probe-token-0123456789"


def padded_nodes() -> list[dict]:
    """The sample, with week 30 grown to 160 PRs (copies under new numbers, a minute apart)."""
    nodes = [json.loads(line) for line in SAMPLE.read_text().splitlines() if line]
    w30 = [n for n in nodes if n["mergedAt"] >= LAST]
    extra = []
    for i in range(160 - len(w30)):
        model = w30[i % len(w30)]
        merged = datetime.fromisoformat(LAST + "T00:00:00+00:00") + timedelta(minutes=30 + i)
        number = 5000 + i
        extra.append({**model, "number": number, "mergedAt": merged.strftime("%Y-%m-%dT%H:%M:%SZ"),
                      "url": model["url"].rsplit("/", 1)[0] + f"/{number}"})  # fmt: skip
    return nodes + extra


def github_build(root: Path, plan, env: dict[str, str] | None = None):
    """A W30 build from the emulator after `plan(emulator.faults)`; (outcome, home, served)."""
    with Emulator(padded_nodes(), token=TOKEN) as emulator:
        plan(emulator.faults)
        home = Home(root, "home", {"GITHUB_GRAPHQL_URL": emulator.url, "GITHUB_TOKEN": TOKEN,
                                   **(env or {})})  # fmt: skip
        done = home.run("build", "--repo", REPO, "--week", LAST, "--source", "github")
        served = emulator.requests_served
    if TOKEN in done.out + done.err:
        raise Broke("the token was printed")
    return done, home, served


def week_prs(home: Home) -> int:
    got = home.sql(f"select count(*) from marts.fct_pull_requests where week_start = '{LAST}'")
    return int(got.splitlines()[-1])


def completes(fault: Fault, times: int = 1, **settings):
    def probe(root: Path) -> str:
        def plan(faults) -> None:
            faults.retry_after_seconds = 1
            for name, value in settings.items():
                setattr(faults, name, value)
            faults.fail_next(fault, times=times, after=1)

        done, home, served = github_build(root, plan)
        if done.code != 0:
            raise Broke(f"exit {done.code}: {done.error_line()}")
        if week_prs(home) != 160:
            raise Broke(f"exit 0 with {week_prs(home)} of 160 PRs")
        return f"exit 0, 160 of 160 PRs, {served} requests, {done.seconds:.0f} s"

    return probe


def fails(fault: Fault, want: str, requests: int, env: dict[str, str] | None = None, **knobs):
    """The build fails with `want` in its error after at most `requests` requests: it did not
    retry or wait what cannot get better (time is not the measure: a loaded machine is slow)."""

    def probe(root: Path) -> str:
        def plan(faults) -> None:
            for name, value in knobs.items():
                setattr(faults, name, value)
            faults.fail_randomly(fault, 1.0)

        done, home, served = github_build(root, plan, env)
        line = done.error_line()
        if done.code == 0 or want.lower() not in line.lower():
            raise Broke(f"exit {done.code} in {done.seconds:.0f} s: {line}")
        if served > requests:
            raise Broke(f"{served} requests (more than {requests}): {line}")
        if list((home.path / "lake").rglob(f"week={LAST}/*.parquet")):
            raise Broke("a week file was written by the failed build")
        return f"exit {done.code} after {served} request(s): {line[:160]}"

    return probe


def null_merged_at(root: Path) -> str:
    done, _home, _served = github_build(root, lambda f: f.fail_next(Fault.NULL_MERGED_AT, 50))
    line = done.error_line()
    if done.code == 0 or "mergedAt" not in line or "#" not in line:
        raise Broke(f"exit {done.code}: {line}")
    return f"exit {done.code}: {line[:160]}"


GITHUB_PROBES = [
    Probe("github", "search results shift between pages", "re-walked: every PR, or an error",
          completes(Fault.SHIFT_PAGES)),
    Probe("github", "a node whose mergedAt is null", "error naming the PR", null_merged_at),
    Probe("github", "'Something went wrong' twice", "retried, complete",
          completes(Fault.WENT_WRONG, times=2)),
    Probe("github", "502s and a reset connection", "retried, complete",
          completes(Fault.BAD_GATEWAY_HTML, times=2)),
    Probe("github", "a 429 with retry-after", "waited out, complete",
          completes(Fault.SECONDARY_429)),
    Probe("github", "a token without access (403)", "fails at once saying what to fix",
          fails(Fault.FORBIDDEN_403, "GITHUB_TOKEN", requests=1)),
    Probe("github", "SAML single sign-on not authorised", "fails at once with the SSO link",
          fails(Fault.SAML_403, "single sign-on", requests=1)),
    Probe("github", "bad credentials (401)", "fails at once",
          fails(Fault.UNAUTHORIZED, "token", requests=1)),
    Probe("github", "a spent hourly budget (403)", "fails at once past PRWEEKLY_MAX_WAIT_SECONDS",
          fails(Fault.RATE_LIMIT_403, "PRWEEKLY_MAX_WAIT_SECONDS", requests=1,
                env={"PRWEEKLY_MAX_WAIT_SECONDS": "5"})),
    Probe("github", "a server that trickles its answer", "bounded retries, each in its deadline",
          fails(Fault.TRICKLE, "deadline", requests=10, trickle_bytes=64, trickle_seconds=0.5,
                env={"PRWEEKLY_REQUEST_DEADLINE_SECONDS": "2",
                     "PRWEEKLY_WEEK_DEADLINE_SECONDS": "6"})),
]  # fmt: skip
