"""The reliability probes `bench/probe.py` runs: kills, corruption, hostile input, GitHub faults.

Each case builds the bundled sample (acme/rocket, four weeks) in a throwaway home through the
real `prweekly` command, breaks something the way real life does, and returns what it saw, or
raises `Broke` with what it saw when the promise did not hold.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from bench.fault_probes import FAULT_PROBES
from bench.github_probes import GITHUB_PROBES
from bench.output_probes import OUTPUT_PROBES
from bench.probe_home import DRIVER, FIRST, LAST, REPO, SAMPLE, Broke, Home, Probe

W29, W30 = "2026-07-13", "2026-07-20"


def variant(root: Path, name: str, repo: str = REPO, **change) -> Path:
    """The sample as `repo`'s PRs, changed: `titles` suffix on W30, `drop` a number,
    `moved` {number: mergedAt}, `title_of` {number: title}."""
    target = root / f"{name}.jsonl"
    with target.open("w") as out:
        for line in SAMPLE.read_text().splitlines():
            node = json.loads(line)
            if node["number"] == change.get("drop"):
                continue
            node["url"] = node["url"].replace(REPO, repo)
            node["mergedAt"] = change.get("moved", {}).get(node["number"], node["mergedAt"])
            if change.get("titles") and node["mergedAt"] >= W30:
                node["title"] += change["titles"]
            node["title"] = change.get("title_of", {}).get(node["number"], node["title"])
            out.write(json.dumps(node) + "\n")
    return target


def second_version(root: Path) -> Path:
    """Week 30 edited after the first build: titles changed, one PR gone."""
    w30 = [json.loads(ln) for ln in SAMPLE.read_text().splitlines() if ln]
    first = min(n["number"] for n in w30 if n["mergedAt"] >= W30)
    return variant(root, "v2", titles=" (v2)", drop=first)


def clean_result(root: Path, dataset: Path, after_first: bool) -> tuple[str, dict[str, bytes]]:
    """The same builds with no kill: the first build (when the probe made one), then `dataset`.
    A week whose facts changed after its edition says so, as the rerun's reports do."""
    home = Home(root, "clean")
    if after_first:
        home.must_build()
    home.must_build(source=dataset)
    return home.marts(), home.reports()


def kill_at(point: str):
    def probe(root: Path) -> str:
        v2 = second_version(root)
        home = Home(root, "home")
        if point != "dagster_setup":
            home.must_build()
        marts, reports = (home.marts(), home.reports()) if point != "dagster_setup" else ("", {})
        killed = home.build(source=v2, driver=point)
        if killed.code != -signal.SIGKILL:
            raise Broke(f"the build was not killed at {point} (exit {killed.code})")
        clean = clean_result(root, v2, after_first=point != "dagster_setup")
        if point.startswith("report_write"):  # the marts are published: each file old or new
            half = home.reports()
            torn = [n for n in half if half[n] not in (reports.get(n), clean[1].get(n))]
            if torn:
                raise Broke(f"report files neither old nor new: {torn}")
        elif point != "dagster_setup" and (home.marts(), home.reports()) != (marts, reports):
            raise Broke("after the kill, readers saw other marts or reports than before it")
        rerun = home.build(source=v2)
        if rerun.code != 0:
            raise Broke(f"the rerun failed: {rerun.error_line()}")
        if (home.marts(), home.reports()) != clean:
            raise Broke("the rerun differs from a clean build of the same data")
        old = {"dagster_setup": "fresh storage", "report_write:1": "each report file whole, "
               "old or new"}.get(point, "old marts and reports intact")  # fmt: skip
        return f"killed (SIGKILL); {old}; rerun equals a clean build, byte for byte"

    return probe


def reader_during_build(root: Path) -> str:
    home = Home(root, "home")
    home.must_build()
    before = home.sql("select count(*), max(title) from marts.fct_pull_requests")
    marker = root / "held"
    env = {**home.env, "PRWEEKLY_HOLD_MARKER": str(marker)}
    args = ["build", "--repo", REPO, "--week", FIRST, "--to", LAST, "--source"]
    held = subprocess.Popen(
        [sys.executable, str(DRIVER), "hold:fct_pull_requests", *args,
         f"file:{second_version(root)}"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 240
        while not marker.exists():
            if held.poll() is not None or time.monotonic() > deadline:
                raise Broke("the held build never reached fct_pull_requests")
            time.sleep(0.2)
        started = time.monotonic()
        seen = home.sql("select count(*), max(title) from marts.fct_pull_requests")
        waited = time.monotonic() - started
    finally:
        held.kill()
        held.wait()
    if seen != before:
        raise Broke(f"a reader saw the half-built marts: {seen!r} instead of {before!r}")
    return f"`prweekly sql` answered in {waited:.1f} s with the previous build's marts"


def flipped_bits_in_compacted_copy(root: Path) -> str:
    home = Home(root, "home")
    home.must_build()
    truth = home.marts()
    if home.run("compact").code != 0:
        raise Broke("`prweekly compact` failed")
    (copy,) = (home.path / "lake").rglob("*compacted*/**/*.parquet") or [None]
    if copy is None:
        raise Broke("no compacted copy was written")
    intact, rng, said, rewrote, refused = copy.read_bytes(), random.Random(14), 0, 0, 0
    for _ in range(4):
        flipped = bytearray(intact)
        flipped[rng.randrange(4, len(flipped) - 8)] ^= 1 << rng.randrange(8)
        copy.write_bytes(bytes(flipped))
        (home.path / "warehouse.duckdb").unlink()  # every model a full build, reading copies
        done = home.build()
        if done.code != 0:
            refused += 1
            continue
        if home.marts() != truth:
            raise Broke("a flipped bit in the compacted copy gave wrong values with exit 0")
        said += "compacted copy" in done.err and "not read" in done.err
        rewrote += "compacted" in done.err and "into one file" in done.err
    return f"4 flips: {4 - refused} builds with right values ({said} skipped the damaged " \
        f"copy by its checksum, {rewrote} rewrote it first), {refused} refused"  # fmt: skip


def week_files(home: Home) -> list[Path]:
    return sorted(p for p in (home.path / "lake").rglob("data.parquet") if "week=" in str(p))


def deleted_week_file(root: Path) -> str:
    home = Home(root, "home")
    home.must_build()
    gone = next(p for p in week_files(home) if "2026-07-06" in str(p))
    gone.unlink()
    done = home.build(week=LAST)
    if done.code == 0 and gone.exists() and home.marts():
        return "the week was extracted again from its source; exit 0"
    if done.code == 0 or "2026-07-06" not in done.err:
        raise Broke(f"exit {done.code} without naming the missing week: {done.error_line()}")
    return done.error_line()


def junk_in_lake(root: Path) -> str:
    home = Home(root, "home")
    home.must_build()
    truth = home.marts()
    week = week_files(home)[0]
    latest = week.parent.parent / "week=latest"
    latest.mkdir()
    (latest / "data.parquet").write_bytes(week.read_bytes())
    (week.parent / "notes.txt").write_text("stray")
    done = home.build(week=LAST)
    if done.code != 0 or home.marts() != truth:
        raise Broke(f"junk changed the build: exit {done.code} {done.error_line()}")
    if "week=latest" not in done.err:
        raise Broke("the build did not name the junk it skipped")
    return "exit 0, same marts; the run log names week=latest"


def hostile_sql(root: Path) -> str:
    home = Home(root, "home")
    home.must_build(week=LAST)
    attacks = [
        "copy (select 42) to 'leak.csv'",
        "select * from read_csv('/etc/passwd')",
        "attach 'other.duckdb' as other",
        "set enable_external_access = true",
        "drop table marts.fct_pull_requests",
        "install httpfs",
    ]
    for attack in attacks:
        done = home.run("sql", attack)
        if done.code == 0 or (home.path / "leak.csv").exists() or Path("leak.csv").exists():
            raise Broke(f"`{attack}` was not refused (exit {done.code})")
    if not home.sql("select count(*) from marts.fct_pull_requests").strip():
        raise Broke("the warehouse lost its marts")
    return f"{len(attacks)} of {len(attacks)} refused, exit 1, warehouse unchanged"


def terminal_escapes(root: Path) -> str:
    nasty = "Fix \x1b]0;owned\x07 title \x1b[2J\x1b[31mred\u202e"
    number = json.loads(SAMPLE.read_text().splitlines()[-1])["number"]
    source = variant(root, "nasty", title_of={number: nasty})
    home = Home(root, "home")
    home.must_build(source=source)
    shown = home.run("sql", f"select title from marts.fct_pull_requests where number = {number}")
    if "\x1b" in shown.out or "\x07" in shown.out:
        raise Broke("raw terminal escapes reached the terminal")
    kept = home.sql(
        f"select title = '{nasty}' from marts.fct_pull_requests where number = {number}"
    )
    if "true" not in kept:
        raise Broke("the warehouse did not keep the title as written")
    return "shown escaped (\\x1b…), kept verbatim in the warehouse"


def refused(*args: str, want: str, code: int | None = None):
    def probe(root: Path) -> str:
        done = Home(root, "home").run(*args)
        line = done.error_line()
        if done.code == 0 or (code is not None and done.code != code) or want not in line:
            raise Broke(f"exit {done.code}: {line}")
        if (root / "home" / "repositories.yml").exists():
            line += " (nothing registered)"
        return f"exit {done.code}: {line}"

    return probe


def case_folded_identity(root: Path) -> str:
    home = Home(root, "home")
    home.must_build()
    prs = home.sql("select count(*) from marts.fct_pull_requests")
    home.must_build(repo="Acme/Rocket", week=LAST)
    repos = home.sql("select count(distinct repo) from marts.fct_pull_requests")
    if (
        repos.splitlines()[-1] != "1"
        or home.sql("select count(*) from marts.fct_pull_requests") != prs
    ):
        raise Broke(f"two spellings made two repositories ({repos.splitlines()[-1]})")
    listed = [ln for ln in home.run("repo", "list").out.splitlines() if "rocket" in ln.lower()]
    if len(listed) != 1:
        raise Broke(f"repositories.yml lists {len(listed)} entries for the repository")
    return "one repository, same PR count; repositories.yml holds one entry"


def failing_data_test_stays_local(root: Path) -> str:
    home = Home(root, "home")
    home.must_build(week=W29, to=LAST)
    w30 = [json.loads(ln) for ln in SAMPLE.read_text().splitlines() if ln]
    number = min(n["number"] for n in w30 if n["mergedAt"] >= W30)
    moved = variant(root, "moved", moved={number: "2026-07-19T23:00:00Z"})
    done = home.build(week=W29, to=W29, source=moved)
    line = done.error_line()
    if done.code == 0 or f"PR #{number}" not in line:
        raise Broke(f"exit {done.code}: {line}")
    other = home.build(repo="acme/other", week=LAST, source=variant(root, "o", "acme/other"))
    if other.code != 0:
        raise Broke(f"another repository's build failed too: {other.error_line()}")
    return f"exit 1 naming the keys ({line.split(':', 2)[-1].strip()[:90]}…); acme/other built"


def full_disk(root: Path) -> str:
    if os.geteuid() != 0:
        return "skipped: mounting a tmpfs needs root"
    disk = root / "disk"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96m", "probe", str(disk)]).returncode:
        return "skipped: could not mount a tmpfs"
    try:
        home = Home(disk, "home")
        home.must_build()
        marts = home.marts()
        filler = disk / "filler"
        with filler.open("wb", buffering=0) as out:  # every byte that is left
            while shutil.disk_usage(disk).free >= 1 << 16:
                try:
                    out.write(b"\0" * (1 << 16))
                except OSError:
                    break
        done = home.build(source=second_version(root))
        line = done.error_line()
        if done.code == 0 or "no space left on" not in line or home.marts() != marts:
            raise Broke(f"exit {done.code}: {line}")
        filler.unlink()
        if home.build(source=second_version(root)).code != 0:
            raise Broke("the same build failed once space was freed")
        return f"exit 1: {line}; marts kept; the build succeeds once space is freed"
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


PROBES = [
    Probe("kill", "at a week's Parquet write", "old data whole; rerun = clean build",
          kill_at("parquet_write")),
    Probe("kill", "inside fct_pull_requests' transaction", "old data whole; rerun = clean build",
          kill_at("model:fct_pull_requests")),
    Probe("kill", "after the first report file", "each file old or new; rerun = clean build",
          kill_at("report_write:1")),
    Probe("kill", "during the first Dagster set-up", "next build repairs the storage",
          kill_at("dagster_setup")),
    Probe("kill", "a reader while a build holds a model", "previous build whole, no wait",
          reader_during_build),
    Probe("corruption", "flipped bits in the compacted copy", "right values or an error",
          flipped_bits_in_compacted_copy),
    Probe("corruption", "a week file deleted", "error naming the week (or re-extracted)",
          deleted_week_file),
    Probe("corruption", "junk in the lake", "skipped and named", junk_in_lake),
    Probe("corruption", "disk full (96 MB tmpfs)", "says where; data kept; exit 1", full_disk),
    Probe("hostile", "writes and file reads through `prweekly sql`", "refused",
          hostile_sql),
    Probe("hostile", "terminal escapes in a title", "shown escaped", terminal_escapes),
    Probe("hostile", "owner holding `_`", "refused before anything is written",
          refused("build", "--repo", "x__y/z", "--week", LAST, "--source", f"file:{SAMPLE}",
                  want="owner")),
    Probe("hostile", "a second spelling (Acme/Rocket)", "one repository",
          case_folded_identity),
    Probe("hostile", "a week the file does not cover", "clear error",
          refused("build", "--repo", REPO, "--week", "2026-W48", "--source", f"file:{SAMPLE}",
                  want="2026")),
    Probe("hostile", "a misspelt command", "usage error, exit 2",
          refused("biuld", "--repo", REPO, want="", code=2)),
    Probe("data", "a data test failing in one repository", "names keys; others go on",
          failing_data_test_stays_local),
    *GITHUB_PROBES,
    *OUTPUT_PROBES,  # issue 27: escaping, limits, configuration, the CLI
    *FAULT_PROBES,  # issue 27: concurrency, delivery faults, almost-right input, moved repositories
]  # fmt: skip
