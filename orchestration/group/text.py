"""The sentences of a group's weekly report, in one language and format.

`GroupText` is the repository report's `Translator` (numbers, dates, lists, links, escaping
through the escaping layer) with the group's strings (`reports/i18n/group.<lang>.yml`) on top;
every sentence is built from a `GroupWeek`, so the Markdown and the HTML say the same.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import yaml
from markupsafe import escape

from orchestration.config import I18N_DIR, repo_slug
from orchestration.group.queries import GroupWeek
from orchestration.report.text import short_title
from orchestration.report.translator import Translator, strings
from orchestration.report.view import VOLUME_BAND

MAX_STORIES = 6  # the key stories the body tells; each repository's line names its own
MAX_SUMMARY_STORIES = 3
MAX_RISK_PRS = 4  # PRs named on a recurring risk's line
MAX_NAMED_REPOS = 5  # repositories a sentence names; the rest are counted ("and 7 more")
CAVEAT_CHARS = 140


def _volume_direction(merged: int, avg: float | None, trend: str) -> str | None:
    """more, fewer or same against the trailing average, worded as a repository's report
    words it (beyond ±VOLUME_BAND is a change, whatever the trend word); None without one."""
    if trend not in ("rising", "falling", "steady") or not avg:
        return None
    if merged > avg * (1 + VOLUME_BAND):
        return "more"
    if merged < avg * (1 - VOLUME_BAND):
        return "fewer"
    return "same"


@cache
def group_strings(lang: str) -> dict[str, Any]:
    return yaml.safe_load((I18N_DIR / f"group.{lang}.yml").read_text(encoding="utf-8"))


class GroupText(Translator):
    def __init__(self, lang: str, fmt: str) -> None:
        super().__init__(lang, fmt)
        own = group_strings(lang)
        self.s = {**strings(lang), **own}
        self.s["metric_names"] = {
            **strings(lang).get("metric_names", {}),
            **own.get("metric_names", {}),
        }

    # --- names and links ----------------------------------------------------------------
    def repo_report(self, repo: str, week: Any) -> str:
        """The repository's own report of the week, beside the group's folder."""
        return f"../../{repo_slug(repo)}/{week}.{self.lang}.{self.fmt}"

    def anchor(self, href: str, text: Any) -> str:
        label = self.esc(text)
        if self.fmt == "html":
            return self.safe(f'<a href="{escape(href)}">{label}</a>')
        return self.safe(f"[{label}]({href})")

    def repo_name(self, g: GroupWeek, row: dict) -> str:
        """The repository's name, linked to its own report when it has one this week."""
        if row["repo"] in g.reported:
            return self.anchor(self.repo_report(row["repo"], g.week_start), row["display_name"])
        return self.esc(row["display_name"])

    def pr(self, number: int, url: str | None) -> str:
        return self.link({"number": number, "url": url})

    def few(self, items: list[Any], most: int) -> list[Any]:
        """The first `most` items, and "N more" for the rest (a group of a hundred)."""
        if len(items) <= most:
            return items
        return [*items[:most], self.n("g_more", len(items) - most)]

    def repos_n(self, names: list[str]) -> str:
        """`2 repositories (a and b)` / `2 个仓库（a 和 b）`."""
        count = self.n("g_repos_n", len(names))
        inner = self.join(self.few([self.esc(n) for n in names], MAX_NAMED_REPOS))
        return self.safe(f"{count}（{inner}）" if self.lang == "zh" else f"{count} ({inner})")

    # --- stories ------------------------------------------------------------------------
    def titled_by_lead(self, story: dict) -> bool:
        """A PR told alone, or a story whose only link is its first PR's number, is named
        after its lead PR, as its repository's report names it."""
        mart = story["title_zh"] if self.lang == "zh" else story["title_en"]
        return story["kind"] == "single" or not mart or mart.startswith("#")

    def story_title(self, story: dict) -> str:
        if self.titled_by_lead(story):
            return self.esc(short_title(story["lead_title"] or ""))
        return self.esc(story["title_zh"] if self.lang == "zh" else story["title_en"])

    def story_figure(self, story: dict) -> str | None:
        claim = story.get("lead_claim")
        if not claim or not claim.get("figure"):
            return None
        metric = self.s["metric_names"].get(claim.get("metric") or "", claim.get("metric"))
        if self.lang == "zh" and metric == claim.get("metric"):
            metric = "实测"  # no Chinese word for it: the figure alone
        condition = claim.get("condition")
        where = ""
        if condition:
            inner = self.esc(condition)
            where = self.safe(f"（{inner}）" if self.lang == "zh" else f" ({inner})")
        # a share moves one way or the other: say which (a speed-up or a time says it itself)
        direction = ""
        if claim.get("unit") == "%" and claim.get("direction") in ("lower", "higher"):
            direction = self.safe(self.s["g_directions_claim"][claim["direction"]])
        return self(
            "g_story_figure",
            metric=metric or "",
            figure=claim["figure"],
            direction=direction,
            condition=where,
        )

    def story_caveat(self, story: dict) -> str | None:
        caveat = story.get("lead_caveat")
        if not caveat:
            return None
        if self.lang == "en" and caveat.get("sentence"):
            sentence = caveat["sentence"]
            if len(sentence) > CAVEAT_CHARS:
                sentence = sentence[: CAVEAT_CHARS - 1].rsplit(" ", 1)[0] + "…"
            return self("g_story_caveat", caveat=sentence)
        name = self.s["caveat_names"].get(caveat.get("kind"), None)
        return self("g_story_caveat", caveat=name) if name else None

    def story_scale(self, story: dict) -> str:
        top = max(1, round(100 - float(story["importance_percentile"])))
        values = {
            "repo": story["display_name"],
            "prs": story["scale_prs"],
            "weeks": story["scale_weeks"],
        }
        if float(story["importance_percentile"]) >= 100:
            return self("g_story_scale_best", **values)
        return self("g_story_scale", top=top, **values)

    def story_row(self, g: GroupWeek, story: dict) -> str:
        """`**repo** · title: led by #n title; figure; caveat (top 2% of ...)`."""
        row = next(r for r in g.repos if r["repo"] == story["repo"])
        head = self(
            "g_story_row", repo=self.strong(self.repo_name(g, row)), title=self.story_title(story)
        )
        parts = []
        if not self.titled_by_lead(story):
            lead = self.esc(short_title(story["lead_title"] or ""))
            parts.append(
                self(
                    "g_story_lead", pr=self.pr(story["lead_number"], story["lead_url"]), title=lead
                )
            )
        else:
            parts.append(self.pr(story["lead_number"], story["lead_url"]))
        parts += [p for p in (self.story_figure(story), self.story_caveat(story)) if p]
        scale = self.story_scale(story)
        tail = f"（{scale}）" if self.lang == "zh" else f" ({scale})"
        return self.safe(
            f"{head}{self.s['colon']}{self.join(parts, sep=self.s['watch_sep'])}{tail}"
        )

    def told_stories(self, g: GroupWeek) -> list[dict]:
        """The key stories the body tells: the group's first, releases left to their section."""
        return [s for s in g.stories if s["kind"] != "release"][:MAX_STORIES]

    # --- what happened ------------------------------------------------------------------
    def summary(self, g: GroupWeek) -> list[str]:
        """Three to five sentences: the count and its change, the releases, the stories that
        stand out, the strongest recurring risk, the repositories gone quiet."""
        s = g.summary
        end = "." if self.lang == "en" else "。"
        repos = self.n("g_repos_n", s["repositories"])
        first = str(self.n("g_volume", s["merged_prs"], repos=repos))
        avg = s["trailing_avg_prs"]
        direction = _volume_direction(s["merged_prs"], avg, s["volume_trend"])
        if direction in ("more", "fewer"):
            pct = f"{round(abs(s['merged_prs'] - avg) / avg * 100)}%"
            first += str(
                self(
                    "g_vs_avg",
                    pct=pct,
                    avg=self.num(avg, 1),
                    direction=self.s["g_directions"][direction],
                )
            )
        elif direction == "same":
            first += str(self("g_vs_avg_same", avg=self.num(avg, 1)))
        active = str(self("g_active", active=s["active_repositories"], n=s["repositories"]))
        trend = self.s["g_active_trend"].get(s["active_trend"])
        sep = "；" if self.lang == "zh" else "; "
        out = [self.safe(first + sep + active + (sep + trend if trend else "") + end)]
        if g.releases:
            items = [
                self("g_release_item", repo=r["repo"], version=r["version"] or "")
                for r in g.releases
            ]
            out.append(self.n("g_releases_line", len(items), items=self.join(items)))
        told = self.told_stories(g)[:MAX_SUMMARY_STORIES]
        if told:
            items = [
                self("g_story_item", title=self.story_title(x), repo=x["display_name"])
                for x in told
            ]
            out.append(self("g_stories_line", items=self.join(items)))
        if g.risks:
            risk = self.risk_line(g, g.risks[0], short=True)
            out.append(self("g_risk_line", risk=risk))
        if g.newly_quiet:
            quiet = [self.esc(r["display_name"]) for r in g.newly_quiet]
            if len(quiet) > MAX_NAMED_REPOS:
                out.append(self("g_quiet_line_many", repos=self.repos_n(quiet)))
            else:
                out.append(self.n("g_quiet_line", len(quiet), repos=self.join(quiet)))
        return out

    def release_row(self, release: dict) -> str:
        return self(
            "g_release_row",
            repo=self.strong(release["repo"]),
            version=release["version"] or "",
            pr=self.pr(release["number"], release["url"]),
            title=short_title(release["title"] or ""),
        )

    # --- busiest and quiet --------------------------------------------------------------
    def busiest_line(self, g: GroupWeek) -> str | None:
        if not g.busiest:
            return None
        items = []
        for r in g.busiest:
            prs = self.n("g_prs_n", r["merged_prs"])
            if r["volume_trend"] in ("unknown", None):
                items.append(self("g_busy_item_plain", repo=self.repo_name(g, r), prs=prs))
            else:
                items.append(
                    self(
                        "g_busy_item",
                        repo=self.repo_name(g, r),
                        prs=prs,
                        trend=self.trend(r["volume_trend"]),
                    )
                )
        return self("g_busiest", items=self.join(items))

    def quiet_line(self, g: GroupWeek) -> str:
        if not g.newly_quiet:
            return self("g_no_quiet")
        items = [
            self("g_quiet_item", repo=self.repo_name(g, r), avg=self.num(r["trailing_avg_prs"], 1))
            for r in g.newly_quiet
        ]
        return self("g_quiet", items=self.join(items))

    # --- recurring risks ----------------------------------------------------------------
    def risk_line(self, g: GroupWeek, risk: dict, short: bool = False) -> str:
        repos = self.repos_n(risk["repos"])
        if risk["risk_kind"] == "missing_tests":
            counts: dict[str, int] = {}
            for pr in risk["prs"]:
                counts[pr["repo"]] = counts.get(pr["repo"], 0) + 1
            shown = list(counts.items())
            if len(shown) > MAX_NAMED_REPOS:  # the repositories with the most, then a count
                shown.sort(key=lambda c: -c[1])
            items = [self("g_risk_count", repo=name, n=n) for name, n in shown]
            items = self.few(items, MAX_NAMED_REPOS)
            values = {
                "prs": self.n("g_prs_n", risk["pr_count"]),
                "repos": repos,
                "counts": self.join(items),
            }
            if short:
                values["counts"] = self.safe("")
            if risk["trend"] == "new" or not risk["trailing_missing_tests"]:
                text = self("g_risk_missing_new", **values)
            else:
                text = self(
                    "g_risk_missing",
                    avg=self.num(risk["trailing_missing_tests"], 1),
                    trend=self.trend(risk["trend"]),
                    **values,
                )
            return self.safe(str(text).rstrip("：: "))
        shown = [] if short else risk["prs"][:MAX_RISK_PRS]
        prs = [self.safe(f"{self.esc(p['repo'])} {self.pr(p['number'], p['url'])}") for p in shown]
        if not short and len(risk["prs"]) > MAX_RISK_PRS:
            prs.append(self.n("g_more", len(risk["prs"]) - MAX_RISK_PRS))
        key = "g_risk_dependency" if risk["risk_kind"] == "dependency" else "g_risk_platform"
        text = self(key, subject=self.strong(risk["subject"]), repos=repos, prs=self.join(prs))
        return self.safe(str(text).rstrip("：: "))

    # --- first-time contributors --------------------------------------------------------
    def newcomer_lines(self, g: GroupWeek) -> list[str]:
        lines = []
        for person in g.summary["first_time_contributors"] or []:
            prs = [
                self(
                    "g_newcomer_pr",
                    repo=p["repo"],
                    pr=self.pr(p["number"], p["url"]),
                    title=short_title(p["title"] or ""),
                )
                for p in person["prs"]
            ]
            lines.append(self("g_newcomer", author=person["author"], prs=self.join(prs)))
        return lines

    def newcomers_unknown(self, g: GroupWeek) -> str | None:
        unknown = g.summary["first_time_unknown"] or []
        if not unknown:
            return None
        if len(unknown) > MAX_NAMED_REPOS:
            return self("g_newcomers_unknown_many", repos=self.repos_n(unknown))
        return self("g_newcomers_unknown", repos=self.join([self.esc(n) for n in unknown]))

    # --- one line per repository --------------------------------------------------------
    def repo_line(self, g: GroupWeek, row: dict) -> str:
        name = self.repo_name(g, row)
        if not row["extracted"]:
            return self("g_repo_absent", repo=name)
        if not row["merged_prs"]:
            return self("g_repo_none", repo=name)
        trend = row["volume_trend"]
        theme = row["theme_zh"] if self.lang == "zh" else row["theme"]
        lead = g.lead_of(row["repo"])
        story = ""
        if lead:
            story = self.safe(
                f"{self.story_title(lead)} {self.pr(lead['lead_number'], lead['lead_url'])}"
            )
        return self(
            "g_repo_line",
            repo=name,
            prs=self.n("g_prs_n", row["merged_prs"]),
            trend=self("g_repo_trend", trend=self.trend(trend)) if trend != "unknown" else "",
            theme=self("g_repo_theme", theme=theme) if theme else "",
            lead=self("g_repo_lead", story=story) if lead else "",
        )
