"""Inputs that are almost right: each is read, or refused with one line saying what is wrong.

File sources: a UTF-8 byte order mark, NUL bytes and lone surrogates in bodies, invalid UTF-8,
a gzip file cut mid-stream, a JSON line cut in half, the same PR twice with different
contents. GitHub: a repository renamed, or transferred to another owner, which GitHub still
answers under its old name (`followRenames`) with its new `nameWithOwner`.
"""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from github_fakes import FakeClock, make_pr, source_for

from orchestration.config import SourceDataError
from orchestration.extract.sources.file import FileSource
from orchestration.extract.sources.github_errors import GitHubMovedError
from orchestration.extract.sources.nodes import to_row
from orchestration.testing.github_emulator import Emulator

REPO = "acme/hostile"
START = datetime(2026, 7, 20, tzinfo=UTC)
END = START + timedelta(weeks=1)
NODE = {
    "number": 42,
    "title": "fix: something",
    "body": "Stops the stall.",
    "url": f"https://github.com/{REPO}/pull/42",
    "mergedAt": "2026-07-22T10:00:00Z",
    "author": {"login": "dev"},
    "files": {"nodes": [{"path": "a.py", "additions": 3, "deletions": 1}]},
}


def read(path: Path) -> list[dict]:
    return [to_row(node, REPO) for node in FileSource(path).fetch(REPO, START, END)]


@pytest.mark.parametrize("gzipped", [False, True])
def test_a_byte_order_mark_is_skipped(tmp_path: Path, gzipped: bool) -> None:
    data = b"\xef\xbb\xbf" + json.dumps(NODE).encode() + b"\r\n"  # as Windows tools write
    path = tmp_path / ("bom.jsonl.gz" if gzipped else "bom.jsonl")
    path.write_bytes(gzip.compress(data) if gzipped else data)
    (row,) = read(path)  # refused before: "Unexpected UTF-8 BOM (decode using utf-8-sig)"
    assert (row["number"], row["title"]) == (42, "fix: something")


def test_nul_bytes_and_lone_surrogates_in_bodies_are_kept_or_replaced(tmp_path: Path) -> None:
    path = tmp_path / "odd.jsonl"
    nodes = [{**NODE, "body": "a\u0000b"}, {**NODE, "number": 43, "body": "x\ud800y\udfff"}]
    path.write_text("".join(json.dumps(n) + "\n" for n in nodes))  # escaped, as JSON allows
    rows = {r["number"]: r["body"] for r in read(path)}
    assert rows == {42: "a\x00b", 43: "x\ufffdy\ufffd"}
    raw = tmp_path / "raw.jsonl"  # a NUL byte unescaped inside a string is not JSON
    raw.write_bytes(json.dumps(NODE).replace("Stops", "St\x00ops").encode() + b"\n")
    with pytest.raises(SourceDataError) as refused:
        read(raw)
    assert str(refused.value) == f"{raw}:1: malformed JSON: Invalid control character at column 54"


def test_a_json_line_cut_in_half_says_so_naming_the_line(tmp_path: Path) -> None:
    line = json.dumps({**NODE, "number": 43})
    path = tmp_path / "cut.jsonl"
    path.write_text(json.dumps(NODE) + "\n" + line[: len(line) // 2])
    with pytest.raises(SourceDataError) as refused:
        read(path)
    assert str(refused.value) == (
        f"{path}:2: malformed JSON: the line ends before its JSON does (a line cut short?)"
    )  # before: "malformed JSON (Unterminated string starting at)"


def test_a_gzip_cut_mid_stream_is_refused_whole(tmp_path: Path) -> None:
    lines = "".join(json.dumps({**NODE, "number": n}) + "\n" for n in range(1, 400))
    whole = gzip.compress(lines.encode())
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(SourceDataError) as refused:
        read(path)  # no PR of the readable half is kept: the extract writes nothing
    assert str(refused.value) == (
        f"cannot read dataset file {path}: Compressed file ended before the end-of-stream "
        "marker was reached (the file looks cut short: copy or download it again)"
    )


def test_the_same_pr_twice_with_different_contents_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "twice.jsonl"
    path.write_text(json.dumps(NODE) + "\n" + json.dumps({**NODE, "title": "fix: other"}) + "\n")
    with pytest.raises(SourceDataError, match=r"twice.jsonl:2: PR #42 appears again"):
        read(path)


@pytest.mark.parametrize("search_follows", [False, True])
@pytest.mark.parametrize("now", ["acme/booster", "rocketry/rocket"])  # renamed, transferred
def test_a_repository_github_answers_under_a_new_name_stops_the_build(
    now: str, search_follows: bool
) -> None:
    """GitHub answers `repository(owner, name)` for the old name with the new `nameWithOwner`;
    its search by the old name may find nothing (every week would have read as empty) or the
    PRs under their new URLs. Either way the build stops, naming the new name and what to do."""
    prs = [make_pr(n, START + timedelta(days=1, hours=n), repo=now) for n in (1, 2)]
    clock = FakeClock()
    with Emulator(prs, clock=clock.time) as emulator:
        emulator.dataset.move("acme/rocket", now, search_follows=search_follows)
        source = source_for(emulator, clock, token=None)
        with pytest.raises(GitHubMovedError) as stopped:
            list(source.fetch("acme/rocket", START, END))
        assert [n["number"] for n in source.fetch(now, START, END)] == [1, 2]  # its new name
    assert str(stopped.value) == (
        f"acme/rocket is {now} on GitHub now (renamed or transferred): its weeks would be read "
        f"under a name GitHub no longer uses. Follow it with `prweekly repo add {now}` (and "
        "`prweekly repo remove acme/rocket`: its lake, warehouse rows and reports are kept); "
        "nothing was written"
    )
