"""How a fact is matched with its label: change sentences and headline claims."""

from __future__ import annotations

import re

# a link to an issue, PR or discussion, and a reference `owner/name#N`: the fact shows `#N`
# (`owner/name#N` for another repository), the label may hold the URL; both read as `#N`
GITHUB_LINK = re.compile(
    r"https?://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull|discussions)/(\d+)[^\s)\]>]*"
)
REFERENCE = re.compile(r"\b[\w.-]+/[\w.-]+#(\d+)")
FIGURE = re.compile(r"(?P<value>[-+]?\d+(?:\.\d+)?)\s*(?P<unit>x|×|%|ms|s|min|h|[KMG]i?B)?")


def normalise(text: str | None) -> str:
    """A sentence as the comparison sees it (see the module's docstring)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text or "")
    text = REFERENCE.sub(r"#\1", GITHUB_LINK.sub(r"#\1", text))
    text = re.sub(r"https?://\S+", "", text)
    text = re.sub(r"[*`]|…$", "", text)
    return re.sub(r"\s+", " ", text).strip().lower().rstrip(".:;, ")


def sentence_ok(labels: list[str], fact: str | None) -> bool:
    """The fact's change sentence is acceptable against the labelled alternatives."""
    said = normalise(fact)
    if not labels:
        return not said
    for label in map(normalise, labels):
        longest = max(2 * len(label), len(label) + 200)
        if said == label or (label in said and len(said) <= longest):
            return True
        if said and said in label and 2 * len(said) >= len(label):
            return True
    return False


def fact_claim(claim: dict | None) -> tuple[float, str] | None:
    """(absolute value, unit) of a claim struct: its `value`/`unit`, else read off `figure`."""
    if not claim:
        return None
    value, unit = claim.get("value"), claim.get("unit")
    found = FIGURE.search(str(claim.get("figure") or ""))
    if value is None and found:
        value = float(found["value"])
    if not unit and found:
        unit = found["unit"]
    if value is None:
        return None
    return abs(float(value)), (unit or "").replace("×", "x")


def claim_ok(labels: list[tuple[float, str]], fact: tuple[float, str] | None) -> bool:
    if fact is None:
        return False
    value, unit = fact
    return any(u == unit and abs(v - value) <= 0.01 * max(v, value) for v, u in labels)
