"""The sentences a report composes (`ReportText`): the executive summary, key changes' reasons
and factors, area lines, risks and recommendations, assembled from a week's view.

Words, escaping, numbers and dates come from `Translator` (translator.py); the templates only
lay these sentences out (render.py).
"""

from __future__ import annotations

import re
from functools import lru_cache
from string import Formatter

from orchestration.report import evidence
from orchestration.report.translator import Translator
from orchestration.report.view import MAX_AREA_PRS, ReportView


@lru_cache(maxsize=512)
def _fields(template: str) -> frozenset[str]:
    """The names a `str.format` template fills (`{x.y}` and `{x[0]}` fill `x`)."""
    fields = (field for _, field, _, _ in Formatter().parse(template) if field)
    return frozenset(re.split(r"[.\[]", field, maxsplit=1)[0] for field in fields)


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
        (with `signed`, the negative ones too, as the appendix lists them)."""
        names = self.s["factor_names"]
        parts = []
        scored = sorted(
            ((n, p) for n, p in pr["factors"].items() if p > 0 or (signed and p < 0)),
            key=lambda kv: (-kv[1], kv[0]),
        )
        claims = pr.get("impact_claims") or []
        # each worded only where a factor's name uses it: a report words thousands of factors
        values = {
            "lines": lambda: self.n("n_lines", pr["additions"] + pr["deletions"]),
            "areas": lambda: self.n("n_areas", len(pr.get("areas") or [])),
            "files": lambda: self.n("n_files", pr["changed_files"]),
            "type_label": lambda: self.type_label(pr["change_type"]),
            "severity": lambda: evidence.quote(self, pr.get("severity_word") or ""),
            "figure": lambda: claims[0]["figure"] if claims else "",
        }
        for name, points in scored:
            template = names.get(name, name)
            used = _fields(template)
            label = self.fill(template, **{k: v() for k, v in values.items() if k in used})
            key = "factor" if points > 0 else "factor_negative"
            parts.append(self(key, label=label, points=self.num(abs(points), 1)))
        return self.join(parts)

    def recommendation(self, flag: str, prs: list[dict]) -> str:
        template = self.s["recommendations"].get(flag)
        if template is None:
            return self("recommendation_unknown", prs=self.links(prs), flag=flag)
        return self.fill(template, prs=self.links(prs))

    def method_factor(self, name: str, weights: dict[str, float]) -> str:
        template = self.s["factor_methods"].get(name)
        if template is None:
            return self.safe("")
        types = [v for k, v in weights.items() if k.startswith("type_")] or [0.0]
        values = {k: self.num(v, 1) for k, v in weights.items()}
        values |= {"type_min": self.num(min(types), 1), "type_max": self.num(max(types), 1)}
        try:
            return self.fill(template, **values)
        except KeyError:  # a weight the seed no longer has
            return self.safe("")

    # --- sentences shared by both formats ------------------------------------------------
    def summary_paragraphs(self, v: ReportView) -> list[str]:
        """The executive summary's prose: volume, then theme, areas and the main risk."""
        f, s = v.facts, v.facts.summary
        volume = [
            self(
                "summary_volume",
                merged=self.n("n_prs", s["merged_prs"]),
                authors=self.n("n_authors", s.get("authors") or 0),
                # nothing when none is new, or when it is unknown (None: the history does not
                # reach the repository's first PR, which `history_note` says)
                new_authors=self.share(
                    "new_authors", s.get("first_time_authors"), s.get("authors") or 0
                ),
            )
        ]
        if v.volume_direction:
            volume.append(
                self.pick(
                    "summary_vs_avg",
                    v.volume_direction,
                    pct=v.volume_change_pct or 0,
                    weeks=f.trailing_weeks,
                    avg=self.num(f.trailing_avg_prs, 1),
                )
            )
        threshold = self.num(f.key_threshold, 1)
        if f.key_prs:
            volume.append(
                self.share("summary_key", len(f.key_prs), len(f.prs), threshold=threshold)
            )
        theme = s.get("theme_zh") if self.lang == "zh" else s.get("theme")
        context = []
        if theme:
            mix = self.join([self.type_count(k, n) for k, n in v.type_counts[:4]])
            context.append(self("summary_theme", theme=self.strong(theme), mix=mix))
        if v.areas:
            items = [
                self(
                    "summary_area_item",
                    area=a.area,
                    n=a.pr_count,
                    trend=self("summary_area_trend", trend=self.trend(a.trend))
                    if a.trend in ("new", "rising", "falling")
                    else self.safe(""),
                )
                for a in v.areas[:3]
            ]
            context.append(self("summary_areas", areas=self.join(items)))
        if v.main_risk:
            g = v.main_risk
            key_part = self.share("summary_main_risk_key", g.key_count, len(g.items))
            context.append(
                self(
                    "summary_main_risk",
                    flag=self.strong(self.flag_inline(g.flag)),
                    prs=self.n("n_prs_short", len(g.items)),
                    key_part=key_part,
                )
            )
        else:
            context.append(self("summary_no_risk"))
        space = "" if self.lang == "zh" else " "
        paragraphs = [self.safe(space.join(volume)), self.safe(space.join(context))]
        return paragraphs + ([note] if (note := self.history_note(v)) else [])

    def history_note(self, v: ReportView) -> str | None:
        """From which week on the warehouse holds the repository's PRs, when that is not from
        its first PR: first-time authors (and, with too few weeks, trends) are unknown."""
        s = v.facts.summary
        if s.get("history_complete", True) or not s.get("history_since"):
            return None
        key = "history_note_short" if s.get("volume_trend") == "unknown" else "history_note"
        since = self.week_label(s["history_since"])
        return self(key, repo=v.facts.repo, since=since, weeks=v.facts.trailing_weeks)

    def headlines_intro(self, v: ReportView) -> str:
        if v.facts.key_prs:
            return self("summary_headlines")
        return self("summary_no_key", threshold=self.num(v.facts.key_threshold, 1))

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

    def watch(self, v: ReportView, pr: dict) -> str:
        flags = v.pr_flags.get(pr["number"], [])
        return self.join([self.flag(flag) for flag in flags], sep=self.s["watch_sep"])
