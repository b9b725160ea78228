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
