"""'What it does' from PR descriptions, and titles without their tags."""

from __future__ import annotations

import pytest

from orchestration.report.text import short_title, what_it_does

TEMPLATE = """### What does this PR do?

> Add **concise** overview of what this PR aims to achieve or
accomplish. Reference related GitHub issues and PRs.

### Checklist Before Starting

- [x] Search for similar PRs. Paste at least one query link here:
https://github.com/o/r/pulls?q=x
- `{modules}` include `fsdp`, `megatron`
"""


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (None, ""),
        ("", ""),
        ("As title.", ""),
        (TEMPLATE, ""),
        (
            TEMPLATE.replace("### Checklist", "Fixes the **sync** race\nin `rollout`.\n\n### C"),
            "Fixes the sync race in rollout.",
        ),
        (
            "<!-- note -->\n\n## Summary\n\nAdds a [cache](http://x) for wheels.\n\nCloses #12.",
            "Adds a cache for wheels.",
        ),
        (
            "This PR:\n- adds a knob\n- removes the old flag\n\nMore text.",
            "This PR: adds a knob; removes the old flag.",
        ),
        (
            "The change:\n- adds a knob\n- removes the old flag",
            "The change: adds a knob; removes the old flag.",
        ),
        (
            "Needs these PRs:\n- https://github.com/o/r/pull/1\n\n"
            "- move the sender\n- fix the receiver",
            "Move the sender; fix the receiver.",
        ),
        (
            "```python\nprint('code')\n```\n\n| a | b |\n|---|---|\n\nfix: avoid OOM in the mask",
            "Avoid OOM in the mask",
        ),
        ("Line one.\r\nstill one\x07.\r\n\r\nSecond.", "Line one. still one."),
    ],
)
def test_what_it_does(body, expected) -> None:
    assert what_it_does(body) == expected


def test_long_paragraphs_stop_at_a_sentence_and_huge_bodies_are_cheap() -> None:
    sentence = "The controller keeps the burn on the planned thrust curve at all times. "
    text = what_it_does(sentence * 10)
    assert text.endswith("times.") and 200 <= len(text) <= 360
    word = what_it_does("thrust " * 200_000)
    assert len(word) <= 361 and word.endswith("…")


def test_short_title() -> None:
    assert short_title("[ckpt, fsdp] feat: sharded delta") == "sharded delta"
    assert short_title("[BREAKING][x] fix(io)!: keep order") == "keep order"
    assert short_title("Bump numpy\nfrom 1 to 2") == "Bump numpy from 1 to 2"
    assert short_title("[tag]") == "[tag]"


def test_every_hidden_or_reordering_format_character_is_dropped_from_reports() -> None:
    """Each Unicode format character (category Cf) is dropped unless it is one the module keeps
    on purpose (joiners, a script's own signs); controls go too, and what reads normally stays.
    """
    import sys
    import unicodedata

    from orchestration.report.text import clean_text
    from orchestration.text import KEPT_FORMAT_CHARACTERS

    format_chars = [
        chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"
    ]
    assert len(format_chars) > 150
    for char in format_chars:
        kept = KEPT_FORMAT_CHARACTERS.fullmatch(char) is not None
        assert (clean_text(f"a{char}b") == f"a{char}b") == kept, f"U+{ord(char):04X}"
    for char in "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069":
        assert clean_text(f"exe.{char}gnp") == "exe.gnp", f"U+{ord(char):04X}"
    for char in "\x1b\x07\x9b\x00\x7f\u200b\u2060\ufeff\U000e0041":
        assert clean_text(f"a{char}b") == "ab", f"U+{ord(char):04X}"
    scotland = "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    kept = f"👩\u200d👩\u200d👧 می\u200cخواهم {scotland}"
    assert clean_text(kept) == kept
    assert short_title("fix: \u202eexe.txt") == "exe.txt"
