"""A PR's importance factors as the appendix words them: once per week for Markdown and HTML
where the two are the same text, and each format's own escaping where they are not."""

from __future__ import annotations

from orchestration.report import prose
from orchestration.report.prose import ReportText, forget_factors


def _pr(**over) -> dict:
    pr = {
        "number": 7,
        "additions": 1500,
        "deletions": 320,
        "areas": ["engine"],
        "changed_files": 13,
        "change_type": "feat",
        "severity_word": None,
        "impact_claims": [],
        "factors": {"type": 2.0, "size": 2.0, "breadth": 1.0, "core": 1.0, "dampener": -0.5},
    }
    pr.update(over)
    return pr


def test_counted_factors_read_the_same_in_both_formats_and_are_worded_once(monkeypatch) -> None:
    forget_factors()
    worded = []
    original = ReportText._factors

    def counting(self, pr, scored):
        worded.append(self.fmt)
        return original(self, pr, scored)

    monkeypatch.setattr(ReportText, "_factors", counting)
    md = ReportText("en", "md").factors(_pr(), signed=True)
    html = ReportText("en", "html").factors(_pr(), signed=True)
    expected = (
        "size: 1,820 changed lines (+2.0), feature work (+2.0), breadth: 1 area, 13 files "
        "(+1.0), core path (+1.0) and docs, CI and chore dampener (−0.5)"
    )
    assert (str(md), str(html)) == (expected, expected)
    assert type(html).__name__ == "Markup" and type(md).__name__ == "MdText"
    assert worded == ["md"]
    unsigned = ReportText("en", "html").factors(_pr())
    assert str(unsigned) == (
        "size: 1,820 changed lines (+2.0), feature work (+2.0), breadth: 1 area, 13 files "
        "(+1.0) and core path (+1.0)"
    )
    assert worded == ["md", "html"]


def test_a_factor_quoting_the_pr_is_escaped_by_each_format() -> None:
    forget_factors()
    pr = _pr(
        factors={"severity": 1.5, "size": 2.0},
        severity_word="<leak> *",
        impact_claims=[{"figure": "2x"}],
    )
    md = str(ReportText("en", "md").factors(pr))
    html = str(ReportText("en", "html").factors(pr))
    assert md != html
    assert "&lt;leak&gt;" in html and "<leak>" not in html
    assert "\\*" in md and "&lt;" not in md


def test_a_plain_quoted_word_or_figure_is_worded_once_and_kept_apart_by_its_text(
    monkeypatch,
) -> None:
    forget_factors()
    worded = []
    original = ReportText._factors

    def counting(self, pr, scored):
        worded.append(self.fmt)
        return original(self, pr, scored)

    monkeypatch.setattr(ReportText, "_factors", counting)
    crash = _pr(factors={"severity": 1.5}, severity_word="crashes")
    race = _pr(factors={"severity": 1.5}, severity_word="race")
    faster = _pr(factors={"impact": 1.0}, impact_claims=[{"figure": "2.3×"}])
    for pr in (crash, race, faster):
        md, html = (str(ReportText("en", fmt).factors(pr)) for fmt in ("md", "html"))
        assert md == html
    assert str(ReportText("en", "html").factors(crash)) == "fixes “crashes” (+1.5)"
    assert str(ReportText("en", "md").factors(race)) == "fixes “race” (+1.5)"
    assert str(ReportText("en", "md").factors(faster)) == "measured impact 2.3× (+1.0)"
    assert worded == ["md", "md", "md"]
    # a figure that is no text is worded by each format, as before
    none = _pr(factors={"impact": 1.0}, impact_claims=[{"figure": None}])
    ReportText("en", "md").factors(none), ReportText("en", "html").factors(none)
    assert worded == ["md", "md", "md", "md", "html"]


def test_a_change_type_without_a_plain_label_is_worded_per_format() -> None:
    forget_factors()
    pr = _pr(change_type="a<b", factors={"type": 2.0})
    assert str(ReportText("en", "html").factors(pr)) == "a&lt;b (+2.0)"
    assert str(ReportText("en", "md").factors(pr)) == "a\\<b (+2.0)"


def test_a_vocabulary_that_needs_escaping_is_never_shared(monkeypatch) -> None:
    forget_factors()
    monkeypatch.setattr(prose, "_plain_vocabulary", lambda lang: False)
    pr = _pr(factors={"core": 1.0})
    ReportText("en", "md").factors(pr)
    assert not prose._worded_factors
    assert prose._plain_vocabulary("en") is False
    monkeypatch.undo()
    assert prose._plain_vocabulary("en") is True and prose._plain_vocabulary("zh") is True


def test_a_pr_number_is_linked_by_its_own_url_however_often_it_is_linked() -> None:
    """Each file links a PR's number once and reuses it; the same number with another URL (a
    group report's repositories) or none is linked as itself."""
    t = ReportText("en", "html")
    a = {"number": 7, "url": "https://github.com/a/b/pull/7"}
    b = {"number": 7, "url": "https://github.com/c/d/pull/7"}
    assert [str(t.link(p)) for p in (a, b, a, {"number": 7})] == [
        '<a href="https://github.com/a/b/pull/7">#7</a>',
        '<a href="https://github.com/c/d/pull/7">#7</a>',
        '<a href="https://github.com/a/b/pull/7">#7</a>',
        "#7",
    ]
    assert (
        str(t.link(a, "a <title>")) == '<a href="https://github.com/a/b/pull/7">a &lt;title&gt;</a>'
    )
    assert str(ReportText("en", "md").link(a)) == "[#7](https://github.com/a/b/pull/7)"


def test_a_pr_reference_follows_its_title_and_url() -> None:
    t = ReportText("en", "md")
    a = {"number": 7, "url": "https://github.com/a/b/pull/7", "title": "[core] fix: a *race*"}
    assert str(t.pr_ref(a)) == "[#7](https://github.com/a/b/pull/7) a \\*race\\*"
    assert (
        str(t.pr_ref({**a, "title": "docs: other"})) == "[#7](https://github.com/a/b/pull/7) other"
    )
    assert str(t.pr_ref(a)) == "[#7](https://github.com/a/b/pull/7) a \\*race\\*"
