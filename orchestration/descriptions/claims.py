"""Measured impact claims: each figure with its metric, value, unit, direction, the condition
it holds under and the table header it came from; and the headline claim.

A figure is a relative change (`40.45%`, `1.679×`, `2x faster`), a change between two
measurements (`from 1.98 s to 1.12 s`) or an amount saved (`saves 2 GB`), beside a metric's
words (seeds: `metric_higher`, `metric_lower`) and a word saying which way it moved
(`impact_up`, `impact_down`, `impact_better`, `impact_worse`). A table is read with its header:
a row's key columns (those before the first measured column) are its condition, a baseline row
is none, and a figure within noise of no change (a control row's ×1.00) is no claim. The
headline is the largest improvement in the group of metrics most claims measure (a later row
must beat an earlier one by more than noise to lead).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from orchestration.descriptions.figures import (
    EXCLUDED,
    MAX_SENTENCE,
    PAIR,
    RELATIVE,
    SCALE,
    UNIT_HEADER,
    accepted,
    clause_around,
    measured,
    to_number,
    unit_metric,
    unit_name,
    window,
)
from orchestration.descriptions.markdown import Block, Doc, plain, words
from orchestration.descriptions.sentences import sentences
from orchestration.descriptions.vocabulary import Vocabulary

NOISE = math.log(1.02)  # an effect smaller than ±2% is no change
NEAR = 0.95  # a claim within this share of the largest effect leads when it comes first
MAX_CLAIMS = 8
METRIC_REACH = 80  # in a sentence, the metric's words stand within this many characters


@dataclass(slots=True)
class Claim:
    metric: str
    value: float
    unit: str
    direction: str  # which way the metric moved: higher, lower
    condition: str | None
    header: str | None
    figure: str
    sentence: str
    effect: float | None  # log of the change, > 0 for an improvement; None when unknown
    group: str
    order: int

    def row(self) -> dict:
        return {
            k: getattr(self, k)
            for k in (
                "metric",
                "value",
                "unit",
                "direction",
                "condition",
                "header",
                "figure",
                "sentence",
            )
        }


def _row_sentence(condition: str | None, header: list[str], cells: list[tuple[int, str]]) -> str:
    parts = [f"{header[j]} {c}".strip() for j, c in cells if c]
    text = ", ".join(parts)
    while len(text) > MAX_SENTENCE - len(condition or "") and len(parts) > 1:
        parts = (
            [p for p in parts if RELATIVE.search(p)]
            if any(not RELATIVE.search(p) for p in parts)
            else parts[:-1]
        )
        text = ", ".join(parts)
    return f"{condition}: {text}" if condition else text


class _Reader:
    def __init__(self, vocab: Vocabulary) -> None:
        self.vocab = vocab
        self.claims: list[Claim] = []

    def metric(self, *contexts: str) -> tuple[str, str, str] | None:
        """(name, group, better) of the first metric named in the contexts, nearest first."""
        for context in contexts:
            padded = f" {words(context)} "
            found = [
                (padded.find(k), -len(k), v) for k, v in self.vocab.metrics.items() if k in padded
            ]
            if found:
                return min(found)[2]
        return None

    def movement(self, context: str) -> str | None:
        """`up`, `down`, `better` or `worse`: the word nearest the start of the context says."""
        w = words(context)
        found = []
        for kind in ("up", "down", "better", "worse"):
            hit = self.vocab.found(f"impact_{kind}", w)
            if hit:
                found.append((f" {w} ".find(f" {hit} "), kind))
        return min(found)[1] if found else None

    def add(self, found: re.Match, text: str, contexts: tuple[str, ...], base: dict) -> None:
        """One relative figure (`found` in `text`) with what its contexts say about it."""
        unit = unit_name(found["unit"])
        value = to_number(found["a"])
        metric = self.metric(*contexts)
        move = next((m for m in (self.movement(c) for c in contexts) if m), None)
        sign = found["sign"]
        if sign:
            move = "down" if sign in "-−" else "up"
        if unit == "x" and value < 1:
            move = "down"
        if metric is None or (move is None and unit != "x"):
            return
        name, group, better = metric
        if move in ("better", "worse"):
            good = move == "better"
            direction = better if good else ("lower" if better == "higher" else "higher")
        else:
            direction = "lower" if move == "down" else "higher"
            good = direction == better
        if unit == "%":
            p = min(value / 100, 0.99)
            size = -math.log(1 - p) if direction == "lower" else math.log(1 + p)
            signed = -value if direction == "lower" else value
        else:
            size = abs(math.log(value)) if value > 0 else 0.0
            signed = value
        self.claims.append(
            Claim(
                name,
                signed,
                unit,
                direction,
                base.get("condition"),
                base.get("header"),
                text[
                    next(
                        s
                        for s in (found.start("pre"), found.start("sign"), found.start("a"))
                        if s >= 0
                    ) : found.end()
                ],
                base.get("sentence") or window(text, found.start()),
                size if good else -size,
                group,
                len(self.claims),
            )
        )

    def sentence(self, text: str) -> None:
        # a level (`95% CI`) blanked out, the offsets kept: the sentence is stored as written
        masked = EXCLUDED.sub(lambda e: " " * len(e.group()), text)
        relative = [m for m in RELATIVE.finditer(masked) if accepted(m, masked)]
        for m in relative:
            clause = clause_around(masked, m.start(), m.end())
            near = masked[max(0, m.start() - METRIC_REACH) : m.end() + METRIC_REACH]
            self.add(m, text, (clause, near), {})
        if relative:
            return
        for m in PAIR.finditer(text):
            a, ua, b, ub = (
                (m["a"], m["ua"], m["b"], m["ub"])
                if m["a"]
                else (m["a2"], m["ua2"], m["b2"], m["ub2"])
            )
            ua, ub = unit_name(ua), unit_name(ub)
            if ua not in SCALE or ub not in SCALE or to_number(a) == 0:
                continue
            ratio = to_number(b) * SCALE[ub] / (to_number(a) * SCALE[ua])
            metric = self.metric(clause_around(text, m.start(), m.end()), text) or unit_metric(ub)
            if metric is not None and metric[0] == "speed-up":  # "faster", "slower" of two times
                metric = unit_metric(ub) or metric
            if metric is None or abs(math.log(ratio or 1e-9)) < NOISE:
                continue
            name, group, better = metric
            direction = "lower" if ratio < 1 else "higher"
            size = abs(math.log(ratio))
            self.claims.append(
                Claim(
                    name,
                    to_number(b),
                    ub,
                    direction,
                    None,
                    None,
                    m.group(0).strip(),
                    window(text, m.start()),
                    size if direction == better else -size,
                    group,
                    len(self.claims),
                )
            )

    def table(self, block: Block, intro: str, repo: str) -> None:
        rows = [[plain(c, repo) for c in row] for row in block.rows or []]
        if len(rows) < 2:
            return
        header, data = rows[0], [r for r in rows[1:] if any(r)]
        width = len(header)
        columns = [
            j
            for j in range(width)
            if UNIT_HEADER.search(header[j]) or any(measured(r[j]) for r in data if j < len(r))
        ]
        # the key columns come before the first measured one; the first column names the case
        # unless its header names a metric (`Input | Main | Optimized` with `packse, 0.13 MB`)
        first = columns[0] if columns else 0
        if (
            first == 0
            and width > 1
            and not self.metric(header[0])
            and not UNIT_HEADER.search(header[0])
        ):
            first = next((j for j in columns if j > 0), 1)
        keys = list(range(first))
        excluded = {
            j
            for j in range(width)
            if self.vocab.found("impact_excluded", words(header[j]))
            or " ci " in f" {words(header[j])} "
            or "interval" in header[j].lower()
        }
        line = " | ".join(header)
        others = " ".join(h for j, h in enumerate(header) if j not in keys)
        for row in data:
            key_text = words(" ".join(row[j] for j in keys if j < len(row)))
            if keys and self.vocab.found("impact_baseline", key_text):
                continue
            condition = (
                ", ".join(
                    f"{header[j]}={row[j]}" if len(row[j]) <= 8 and header[j] else row[j]
                    for j in keys
                    if j < len(row) and row[j]
                )
                or None
            )
            cells = [
                (j, row[j])
                for j in range(min(width, len(row)))
                if j not in keys and j not in excluded
            ]
            sentence = _row_sentence(condition, header, cells)
            base = {"condition": condition, "header": line, "sentence": sentence}
            for j, cell in cells:
                m = next((m for m in RELATIVE.finditer(cell) if accepted(m, cell)), None)
                if m is not None:
                    before = len(self.claims)
                    self.add(m, cell, (cell, header[j], others, intro), base)
                    if len(self.claims) > before:
                        break  # a row is one claim; its other figures are in its sentence


def impact_claims(doc: Doc, vocab: Vocabulary, repo: str) -> tuple[list[dict], dict | None]:
    """The description's claims, headline first (then the largest), and the headline."""
    reader = _Reader(vocab)
    intro = ""
    for block in doc.blocks:
        if block.kind == "table":
            reader.table(block, intro, repo)
        elif block.kind in ("prose", "item", "box"):
            found = [s.text for s in sentences(block, repo, vocab)]
            for s in found:
                if (
                    "%" in s
                    or "×" in s
                    or "x" in s
                    or "X" in s
                    or "from" in s
                    or "→" in s
                    or "->" in s
                ):
                    reader.sentence(s)
            intro = found[-1] if found else intro
    claims = [c for c in reader.claims if c.effect is None or abs(c.effect) >= NOISE]
    if not claims:
        return [], None
    headline = _headline(claims)
    rest = sorted(
        (c for c in claims if c is not headline),
        key=lambda c: (-(c.effect if c.effect is not None else -9), c.order),
    )
    ordered = ([headline] if headline else []) + rest
    return [c.row() for c in ordered[:MAX_CLAIMS]], headline.row() if headline else None


def _headline(claims: list[Claim]) -> Claim | None:
    good = [c for c in claims if c.effect is not None and c.effect > 0]
    if not good:
        return None
    counts: dict[str, int] = {}
    for c in good:
        counts[c.group] = counts.get(c.group, 0) + 1
    main = max(counts, key=lambda g: (counts[g], -min(c.order for c in good if c.group == g)))
    in_group = [c for c in good if c.group == main]
    largest = max(c.effect or 0 for c in in_group)
    return min((c for c in in_group if (c.effect or 0) >= NEAR * largest), key=lambda c: c.order)
