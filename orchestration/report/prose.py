"""The sentences a report composes (`ReportText`): the body's through body.py (`body_text`, the
model's text where it wrote one), the header's theme, and the appendix's (every PR's factors,
area lines, risk reasons, the method) here.

Words, escaping, numbers and dates come from `Translator` (translator.py); the templates only
lay these sentences out (render.py).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from markupsafe import escape

from orchestration.report import actions, body, evidence, slots
from orchestration.report.queries import WeekFacts
from orchestration.report.text import clean_text
from orchestration.report.translator import Translator, fields_of, md_inline, strings
from orchestration.report.view import MAX_AREA_PRS, ReportView

# the fields of a factor's name that come from the PR's counts and the vocabulary alone
COUNTED_FIELDS = frozenset(("lines", "areas", "files", "type_label"))
# and those quoting the PR (its severity word, its first claim's figure): alike in both
# formats when the quoted text is plain
QUOTED_FIELDS = frozenset(("severity", "figure"))
# a PR's factors worded once for a week's Markdown and HTML files of a language, where the two
# are the same text (`_same_in_both`): (language, factors, counts) -> text
_worded_factors: dict[tuple, str] = {}
forget_factors = _worded_factors.clear


def _plain(text: str) -> bool:
    """Text that Markdown and HTML both print as it is (nothing to escape in either)."""
    return md_inline(text) == text and str(escape(clean_text(text))) == text


@cache
def _plain_quote(lang: str) -> bool:
    """Whether the language's quotation marks need no escaping in HTML."""
    form = strings(lang)["quote"]
    return str(escape(form)) == form


@cache
def _plain_vocabulary(lang: str) -> bool:
    """Whether the words a PR's factors are worded from need no escaping in either format."""
    s = strings(lang)
    forms = [form for key in ("n_lines", "n_areas", "n_files") for form in s[key].values()]
    words = [*s["factor_names"].values(), s["factor"], s["factor_negative"], *forms]
    labels = [names["label"] for names in s["type_names"].values() if "label" in names]
    return all(str(escape(w)) == w for w in [*words, s["list_sep"], s["list_and"]]) and all(
        _plain(label) for label in labels
    )


def _figure(pr: dict) -> str:
    """The figure of the PR's first impact claim, which its `impact` factor quotes."""
    claims = pr.get("impact_claims") or []
    return claims[0]["figure"] if claims else ""


class ReportText(Translator):
    """The sentences a report composes, from a week's view, in one language and format."""

    def size(self, pr: dict) -> str:
        return self(
            "pr_size",
            additions=pr["additions"],
            deletions=pr["deletions"],
            files=self.n("n_files", pr["changed_files"]),
        )

    def reason(self, flag: str, item: dict) -> str:
        """A risk's reason in this language, worded from the evidence the mart stores."""
        return evidence.reason(self, flag, item)

    def claims(self, pr: dict) -> str:
        """The PR's measured impact claims, quoted with their figures in bold."""
        return evidence.claims(self, pr)

    def factors(self, pr: dict, signed: bool = False) -> str:
        """The importance factors that scored, largest first, each worded with its figures
        (with `signed`, the negative ones too, as the appendix lists them). Worded once for
        both formats where they are the same text: a report words thousands of factors."""
        scored = sorted(
            ((n, p) for n, p in pr["factors"].items() if p > 0 or (signed and p < 0)),
            key=lambda kv: (-kv[1], kv[0]),
        )
        if not self._same_in_both(pr, scored):
            return self._factors(pr, scored)
        counts = (pr["additions"] + pr["deletions"], len(pr.get("areas") or []))
        quoted = (pr.get("severity_word"), _figure(pr))
        key = (self.lang, tuple(scored), *counts, pr["changed_files"], pr["change_type"], *quoted)
        text = _worded_factors.get(key)
        if text is None:
            text = _worded_factors[key] = str(self._factors(pr, scored))
        return self.safe(text)

    def _same_in_both(self, pr: dict, scored: list[tuple[str, float]]) -> bool:
        """Factors worded from counts and plain words alone, so Markdown and HTML word them
        alike (a severity or a figure quotes the PR, which each format escapes its own way)."""
        if not _plain_vocabulary(self.lang):
            return False
        names = self.s["factor_names"]
        for name, _ in scored:
            used = fields_of(names.get(name, name))
            if not used <= COUNTED_FIELDS | QUOTED_FIELDS:
                return False
            if "type_label" in used and not _plain(self.type_label(pr["change_type"])):
                return False
            if "severity" in used and not (
                _plain_quote(self.lang) and _plain(pr.get("severity_word") or "")
            ):
                return False
            figure = _figure(pr)  # a figure that is no text is worded apart in each format
            if "figure" in used and not (type(figure) is str and _plain(figure)):
                return False
        return True

    def _factors(self, pr: dict, scored: list[tuple[str, float]]) -> str:
        names = self.s["factor_names"]
        parts = []
        # each worded only where a factor's name uses it: a report words thousands of factors
        values = {
            "lines": lambda: self.n("n_lines", pr["additions"] + pr["deletions"]),
            "areas": lambda: self.n("n_areas", len(pr.get("areas") or [])),
            "files": lambda: self.n("n_files", pr["changed_files"]),
            "type_label": lambda: self.type_label(pr["change_type"]),
            "severity": lambda: evidence.quote(self, pr.get("severity_word") or ""),
            "figure": lambda: _figure(pr),
        }
        for name, points in scored:
            template = names.get(name, name)
            used = fields_of(template)
            label = self.fill(template, **{k: v() for k, v in values.items() if k in used})
            key = "factor" if points > 0 else "factor_negative"
            parts.append(self(key, label=label, points=self.num(abs(points), 1)))
        return self.join(parts)

    def _weight_values(self, weights: dict[str, float]) -> dict[str, str]:
        """Every weight worded, and the range of the type weights: once per report file."""
        kept = getattr(self, "_weights_worded", None)
        if kept is not None and kept[0] is weights:
            return kept[1]
        types = [v for k, v in weights.items() if k.startswith("type_")] or [0.0]
        values = {k: self.num(v, 1) for k, v in weights.items()}
        values |= {"type_min": self.num(min(types), 1), "type_max": self.num(max(types), 1)}
        self._weights_worded = (weights, values)
        return values

    def method_factor(self, name: str, weights: dict[str, float]) -> str:
        template = self.s["factor_methods"].get(name)
        if template is None:
            return self.safe("")
        try:
            return self.fill(template, **self._weight_values(weights))
        except KeyError:  # a weight the seed no longer has
            return self.safe("")

    # --- the body (body.py words it; these are what the templates call) --------------------
    def story_title(self, story) -> str | None:
        return body.story_title(self, story)

    def named_stories(self, v: ReportView) -> str:
        return body.named_stories(self, v)

    def risk_line(self, line) -> str:
        return body.risk_line(self, line)

    def action_refs(self, prs: list[dict]) -> str:
        """PRs as an action names them: each linked, with its title as written."""
        return actions.refs(self, prs)

    def footer(self, v: ReportView, notes) -> str:
        return body.footer(self, v, notes)

    # --- the appendix ----------------------------------------------------------------------
    def quotes(self, pr: dict, narrative: Any = None) -> str:
        """What a key PR's description says, quoted as written: its change sentence, measured
        claims and caveats, each labelled; first the model's words for it, if it wrote some."""
        parts = []
        told = (getattr(narrative, "prs", None) or {}).get(pr["number"]) or {}
        claims = [c[self.lang] for c in told.get("summary") or [] if c.get(self.lang)]
        if claims:
            label = self.strong(self.s["model_summary"])
            text = slots.linked(self, self.s["space"].join(claims), [])
            parts.append(self.safe(f"{label}{self.s['colon']}{text}"))
        if pr.get("summary"):
            quoted = evidence.quote(self, evidence.rich(self, pr["summary"]))
            parts.append(
                self.safe(f"{self.strong(self.s['change_sentence'])}{self.s['colon']}{quoted}")
            )
        if pr.get("impact_claims"):
            label = self.strong(self.s["measured_impact"])
            parts.append(self.safe(f"{label}{self.s['colon']}{self.claims(pr)}"))
        found = body.caveats(pr)
        if found:
            quoted = self.join(
                [evidence.quote(self, evidence.rich(self, c.get("sentence") or "")) for c in found],
                sep=self.s["watch_sep"],
            )
            label = self.strong(self.s["caveats"])
            parts.append(self.safe(f"{label}{self.s['colon']}{quoted}"))
        if not parts:
            return self("no_summary")
        return self.join(parts, sep=self.s["watch_sep"])

    def history_note(self, v: ReportView) -> str | None:
        """From which week on the warehouse holds the repository's PRs, when that is not from
        its first PR: first-time authors (and, with too few weeks, trends) are unknown."""
        s = v.facts.summary
        if s.get("history_complete", True) or not s.get("history_since"):
            return None
        key = "history_note_short" if s.get("volume_trend") == "unknown" else "history_note"
        since = self.week_label(s["history_since"])
        return self(key, repo=v.facts.repo, since=since, weeks=v.facts.trailing_weeks)

    def area_sentence(self, a) -> str:
        line = self(
            self._area_line_key(a),
            area=self.strong(a.area),
            prs=self.n("n_prs_short", a.pr_count),
            avg=self.num(a.trailing_avg, 1),
            trend=self.trend(a.trend),
        )
        refs = [self.pr_ref(pr) for pr in a.prs[:MAX_AREA_PRS]]
        if len(a.prs) > MAX_AREA_PRS:
            refs.append(self.n("area_more", len(a.prs) - MAX_AREA_PRS))
        sep = "；" if self.lang == "zh" else "; "
        end = "。" if self.lang == "zh" else "."
        space = "" if self.lang == "zh" else " "
        return self.safe(f"{line}{space}{self('area_prs')}{space}{sep.join(refs)}{end}")

    @staticmethod
    def _area_line_key(a) -> str:
        """Unknown when the weeks before are not in the warehouse (no trailing average)."""
        if a.trend == "unknown" or a.trailing_avg is None:
            return "area_line_unknown"
        return "area_line_new" if a.trend == "new" else "area_line"

    def trends_rest(self, v: ReportView) -> str:
        parts = [
            self("trends_kind", kind=self.trend(kind), areas=self.join(areas))
            for kind in ("new", "back", "rising", "steady", "falling", "unknown")
            if (areas := v.trends_by_kind.get(kind))
        ]
        if not parts:
            return self.safe("")
        return self(
            "trends_rest", items=self.safe(("；" if self.lang == "zh" else "; ").join(parts))
        )


def body_text(t: ReportText, v: ReportView) -> slots.BodyText:
    """The body's composed slots: the model's accepted text where it wrote one, else the
    rule-built sentences (slots.py)."""
    if v.is_empty:
        return slots.BodyText([], {}, {}, [])
    titles = slots.model_titles(t, v)
    rules = slots.BodyText(
        summary=body.summary_sentences(t, v, titles),
        stories={story.story_id: body.story_sentences(t, v, story) for story in v.stories},
        titles=titles,
        actions=actions.rule_actions(t, v),
    )
    return slots.fill(t, v, rules)


def theme(t: ReportText, facts: WeekFacts, body: slots.BodyText | None) -> str | None:
    """The week's theme for the header, shown once: the mart's short phrase, unless the model
    wrote the summary (which says the week's theme in its own words)."""
    if body is not None and body.source.get("summary") == "model":
        return None
    value = facts.summary.get("theme_zh" if t.lang == "zh" else "theme")
    return t.esc(value) if value else None
