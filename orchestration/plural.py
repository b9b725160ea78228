"""A count and its noun, in English as people write it: `1 week`, `2 weeks`, `1 repository`."""

from __future__ import annotations

_IRREGULAR = {"repository": "repositories", "entry": "entries", "copy": "copies"}


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """`count` and `noun`, or its plural (`nouns`, else the usual English form) unless 1."""
    if count == 1:
        return f"{count:,} {noun}"
    return f"{count:,} {nouns or _IRREGULAR.get(noun) or noun + 's'}"
