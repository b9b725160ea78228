"""The `file:PATH` source: JSON lines of `PullRequest` nodes, plain or gzip-compressed.

Bytes that are not valid UTF-8 become U+FFFD (the PR is kept), and a byte order mark at the
start (as Windows tools write one) is skipped. A PR number that appears on two lines is read
once if the lines are byte-identical, and is an error naming both lines if not. A line that is
not JSON is an error naming the line and column; one that stops before its JSON does, and a
gzip file that ends before its stream does, say they look cut short.

A file covers the weeks from its first `mergedAt` to its last: it is taken as the repository's
history from its first PR on, and a week outside it is unknown rather than empty.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import zlib
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from orchestration.config import SourceDataError
from orchestration.extract.sources.base import check_dataset_file
from orchestration.extract.sources.nodes import parse_timestamp

_PR_URL = re.compile(r"/([^/]+/[^/]+)/pull/\d+/?$")


class FileSource:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.description = f"file:{path}"
        self._lines_read = 0
        self._first: datetime | None = None  # the first and last mergedAt, once read
        self._last: datetime | None = None
        self._read_whole = False

    def _open(self):
        with open(self.path, "rb") as probe:
            gzipped = probe.read(2) == b"\x1f\x8b"
        if gzipped:
            return gzip.open(self.path, "rt", encoding="utf-8-sig", errors="replace")
        return open(self.path, encoding="utf-8-sig", errors="replace")

    def fetch(self, repo: str, start: datetime, end: datetime) -> Iterator[dict]:
        for line_no, node, merged_at in self._records():
            if start <= merged_at < end:
                self._check_repo(node, repo, line_no)
                yield node

    def coverage(self) -> tuple[datetime, datetime]:
        """The first and last `mergedAt` in the file; a file without PRs covers nothing."""
        if not self._read_whole:
            for _ in self._records():
                pass
        if self._first is None or self._last is None:
            raise SourceDataError(f"{self.description} holds no pull requests: it covers no week")
        return self._first, self._last

    def merged_before(self, repo: str, moment: datetime) -> bool:
        return self.coverage()[0] < moment

    def _records(self) -> Iterator[tuple[int, dict, datetime]]:
        """Every PR of the file with its line and `mergedAt`, noting the first and last."""
        check_dataset_file(self.path)
        seen: dict[int, tuple[int, bytes]] = {}  # number: (first line, digest of that line)
        first = last = None
        try:
            with self._open() as lines:
                for line_no, line in enumerate(lines, start=1):
                    self._lines_read = line_no
                    if not line.strip():
                        continue
                    node = self._parse(line, line_no)
                    if self._is_repeat(node, line, line_no, seen):
                        continue
                    merged_at = parse_timestamp(
                        node.get("mergedAt"), "mergedAt", node.get("number")
                    )
                    if merged_at is None:
                        raise SourceDataError(
                            f"{self.path}:{line_no}: PR #{node.get('number')} has no mergedAt"
                        )
                    first = merged_at if first is None else min(first, merged_at)
                    last = merged_at if last is None else max(last, merged_at)
                    yield line_no, node, merged_at
        except EOFError as exc:
            raise SourceDataError(
                f"cannot read dataset file {self.path}: {exc} (the file looks cut short: copy "
                "or download it again)"
            ) from None
        except (OSError, zlib.error, UnicodeDecodeError) as exc:
            raise SourceDataError(f"cannot read dataset file {self.path}: {exc}") from None
        self._first, self._last, self._read_whole = first, last, True

    def _parse(self, line: str, line_no: int) -> dict:
        try:
            node = json.loads(line)
        except json.JSONDecodeError as exc:
            # on one line, a string still open at its end also means the line stops early
            if exc.pos >= len(line.rstrip()) or exc.msg.startswith("Unterminated string"):
                said = "the line ends before its JSON does (a line cut short?)"
            else:
                said = f"{exc.msg.removesuffix(' at')} at column {exc.colno}"
            raise SourceDataError(f"{self.path}:{line_no}: malformed JSON: {said}") from None
        if not isinstance(node, dict):
            raise SourceDataError(f"{self.path}:{line_no}: expected a JSON object per line")
        return node

    def _is_repeat(
        self, node: dict, line: str, line_no: int, seen: dict[int, tuple[int, bytes]]
    ) -> bool:
        """True for an exact repeat of an earlier line's PR; an error if the PR differs."""
        number = node.get("number")
        if not isinstance(number, int) or isinstance(number, bool):
            return False  # to_row names the invalid number
        digest = hashlib.sha256(line.strip().encode("utf-8", "surrogatepass")).digest()
        first = seen.setdefault(number, (line_no, digest))
        if first[0] == line_no:
            return False
        if first[1] == digest:
            return True
        raise SourceDataError(
            f"{self.path}:{line_no}: PR #{number} appears again with different data "
            f"(first on line {first[0]}); keep one record per PR"
        )

    def _check_repo(self, node: dict, repo: str, line_no: int) -> None:
        """A file of another repository's PRs is a mistake worth stopping for."""
        match = _PR_URL.search(node.get("url") or "")
        if match and match.group(1).lower() != repo.lower():
            raise SourceDataError(
                f"{self.path}:{line_no}: PR #{node.get('number')} belongs to {match.group(1)}, "
                f"not {repo}; pass the --repo the file was made for"
            )

    def stats(self) -> dict[str, float | int | str]:
        return {"source": self.description, "lines_read": self._lines_read}

    def week_counts(self) -> dict:
        """A file holds no count to check it against: how complete it is stays unknown."""
        return {}
