"""The edition book alone: when a report is a new edition, and what its box and list say."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from orchestration.report.edition_book import EditionBook
from orchestration.report.editions import changes_between

W1, W2 = date(2026, 7, 13), date(2026, 7, 20)
T0 = datetime(2026, 7, 20, 6, 0)


def _facts(**prs: tuple) -> dict[str, dict]:
    return {
        n.lstrip("n"): {"title": t, "importance": i, "flags": f, "reverted_by": r}
        for n, (t, i, f, r) in prs.items()
    }


A = _facts(n1=("one", 5.0, ["core_path"], []), n2=("two", 2.0, [], []))
B = _facts(n1=("one", 6.5, ["core_path", "revert"], [9]), n3=("three", 1.0, [], []))


def test_changes_name_each_pr_and_what_changed() -> None:
    assert changes_between(A, B) == [
        {
            "number": 1,
            "kind": "changed",
            "title": "one",
            "importance": [5.0, 6.5],
            "flags_added": ["revert"],
            "flags_removed": [],
            "reverted_by": [9],
        },
        {"number": 2, "kind": "removed", "title": "two"},
        {"number": 3, "kind": "added", "title": "three"},
    ]
    assert changes_between(A, A) == []


def test_the_same_facts_again_are_the_same_edition_and_keep_their_box() -> None:
    book = EditionBook("o/r", [])
    assert book.correction(W1, A, T0) is None
    first = book.record(W1, "en", "text A", A, None, T0)
    later = T0 + timedelta(days=2)
    box = book.correction(W1, B, later)
    assert box is not None and box.since == T0 and box.changes == changes_between(A, B)
    second = book.record(W1, "en", "text B + box", B, box, later)
    assert (first.edition, second.edition, second.corrected_since) == (1, 2, T0)
    # rendered again with the same facts: the same box, the same text, no new edition
    again = book.correction(W1, B, later + timedelta(days=1))
    assert again == box
    assert book.record(W1, "en", "text B + box", B, again, later + timedelta(days=1)) is second
    assert [e.edition for e in book.new] == [1, 2]


def test_the_next_week_lists_corrections_made_since_last_weeks_report() -> None:
    book = EditionBook("o/r", [])
    book.record(W1, "en", "a", A, None, T0)
    assert book.earlier_corrections(W2) == []
    later = T0 + timedelta(days=3)
    book.record(W1, "en", "b", B, book.correction(W1, B, later), later)
    (listed,) = book.earlier_corrections(W2)
    assert (listed.week_start, listed.since, listed.corrected_at) == (W1, T0, later)
    assert [c["number"] for c in listed.changes] == [1, 2, 3]
    assert book.earlier_corrections(W1) == []  # a week never lists its own correction


def test_editions_are_stored_once_and_read_back_whole() -> None:
    import duckdb

    from orchestration.report.editions import read_editions, save_editions

    book = EditionBook("o/r", [])
    book.record(W1, "en", "a", A, None, T0)
    later = T0 + timedelta(days=3)
    book.record(W1, "en", "b", B, book.correction(W1, B, later), later)
    with duckdb.connect() as conn:
        assert read_editions(conn, "o/r") == []  # no table yet: no editions
        save_editions(conn, book.new)
        save_editions(conn, book.new)  # a save interrupted and done again
        assert read_editions(conn, "o/r") == book.new
        assert read_editions(conn, "other/repo") == []
