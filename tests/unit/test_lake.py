from datetime import date

import pyarrow.parquet as pq
import pytest

from orchestration.extract.sources.nodes import to_row
from orchestration.lake.layout import SourceDataError, partition_dir, write_partition

NODE = {
    "number": 7,
    "title": "[engine] feat: throttle",
    "mergedAt": "2026-07-26T23:59:59Z",
    "author": {"login": "mlin"},
    "additions": 10,
    "deletions": 2,
    "changedFiles": 1,
    "files": {"nodes": [{"path": "a.py", "additions": 10, "deletions": 2, "changeType": "ADDED"}]},
}


def test_absent_lists_stay_unknown_and_present_ones_are_kept() -> None:
    row = to_row({**NODE, "labels": {"nodes": []}}, "acme/rocket")
    assert row["week_start"] == date(2026, 7, 20)
    assert row["labels"] == []  # present and empty: no labels
    assert row["reviews"] is None  # absent: unknown
    assert row["review_threads"] is None
    assert row["files"][0]["change_type"] == "ADDED"


def test_merged_at_with_an_offset_is_placed_in_its_utc_week() -> None:
    row = to_row({**NODE, "mergedAt": "2026-07-27T01:00:00+02:00"}, "acme/rocket")
    assert row["week_start"] == date(2026, 7, 20)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"mergedAt": None}, "no mergedAt"),
        ({"mergedAt": "yesterday"}, "not an ISO timestamp"),
        ({"number": "7"}, "no valid number"),
        ({"additions": "10"}, "not an integer"),
    ],
)
def test_records_that_cannot_be_trusted_are_refused(change: dict, message: str) -> None:
    with pytest.raises(SourceDataError, match=message):
        to_row({**NODE, **change}, "acme/rocket")


def test_a_partition_is_replaced_whole_and_leaves_no_temporary_file(tmp_path) -> None:
    week = date(2026, 7, 20)
    rows = [to_row({**NODE, "number": n}, "acme/rocket") for n in (3, 1, 2)]
    path = write_partition(tmp_path, "acme/rocket", week, rows)
    assert path.parent == partition_dir(tmp_path, "acme/rocket", week)
    assert pq.read_table(path).column("number").to_pylist() == [1, 2, 3]
    write_partition(tmp_path, "acme/rocket", week, rows[:1])
    assert pq.read_table(path).num_rows == 1
    assert [p.name for p in path.parent.iterdir()] == ["data.parquet"]


def test_duplicate_numbers_fail_without_touching_the_old_partition(tmp_path) -> None:
    week = date(2026, 7, 20)
    path = write_partition(tmp_path, "acme/rocket", week, [to_row(NODE, "acme/rocket")])
    before = path.read_bytes()
    with pytest.raises(SourceDataError, match="duplicate PR numbers"):
        write_partition(tmp_path, "acme/rocket", week, [to_row(NODE, "acme/rocket")] * 2)
    assert path.read_bytes() == before


def test_a_week_read_again_and_found_the_same_keeps_its_file(tmp_path) -> None:
    """Only when GitHub was asked changed: the file, and so its report's edition, stay."""
    week, at = date(2026, 7, 20), "prweekly.github_counted_at"
    rows = [to_row({**NODE, "number": n}, "acme/rocket") for n in (1, 2)]

    def write(rows, count: str, when: str):
        meta = {"prweekly.github_issue_count": count, at: when}
        return write_partition(tmp_path, "acme/rocket", week, rows, meta, observed_at=[at])

    path = write(rows, "2", "2026-07-27T06:00:00Z")
    first = path.read_bytes()
    assert write(rows, "2", "2026-08-03T06:00:00Z").read_bytes() == first  # counted again
    later = write(rows, "3", "2026-08-03T06:00:00Z")  # GitHub counts one more: a new file
    assert pq.read_schema(later).metadata[at.encode()] == b"2026-08-03T06:00:00Z"
    write([{**rows[0], "title": "edited"}, rows[1]], "3", "2026-08-10T06:00:00Z")  # a PR edited
    assert pq.read_table(path).column("title").to_pylist()[0] == "edited"
    assert pq.read_schema(path).metadata[at.encode()] == b"2026-08-10T06:00:00Z"
