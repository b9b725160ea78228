"""Editions: a week whose facts change after its report went out gets a corrected edition that
says what changed, and the next week's report lists the correction."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import duckdb
import pytest

from orchestration.report.editions import content_sha256
from orchestration.service.cli import main

W29, W30 = "2026-07-13", "2026-07-20"
FIRST_MERGE = "2026-06-01"  # the subset starts here: history enough for trends, a quick build


def _verl_subset(dataset: Path, path: Path, extra: list[dict] = ()) -> Path:
    """The verl PRs merged from FIRST_MERGE to the end of W30, plus `extra`."""
    with gzip.open(dataset, "rt", encoding="utf-8") as lines:
        nodes = [json.loads(line) for line in lines]
    kept = [n for n in nodes if FIRST_MERGE <= n["mergedAt"][:10] <= "2026-07-26"]
    path.write_text("".join(json.dumps(n) + "\n" for n in [*kept, *extra]), encoding="utf-8")
    return path


def _build(dataset: Path, first: str, last: str) -> None:
    args = ["build", "--repo", "verl-project/verl", "--week", first, "--to", last]
    assert main([*args, "--source", f"file:{dataset}"]) == 0


def _editions(home: Path) -> list[tuple]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        return conn.execute(
            "select week_start::varchar, lang, edition, content_sha256, corrected_since "
            "from publish.editions order by all"
        ).fetchall()


@pytest.fixture(scope="module")
def corrected_home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """verl W29-W30 built, then built again with a revert of a W29 PR merged in W30."""
    from tests.conftest import VERL_DATASET

    if not VERL_DATASET.exists():
        pytest.skip("the shared verl dataset is not beside the clone (../shared/datasets/)")
    root = tmp_path_factory.mktemp("editions")
    first = _verl_subset(VERL_DATASET, root / "first.jsonl")
    w29 = [
        json.loads(line)
        for line in first.read_text().splitlines()
        if "2026-07-13" <= json.loads(line)["mergedAt"][:10] <= "2026-07-19"
    ]
    victim = max(w29, key=lambda n: n["number"])
    revert = dict(victim)
    revert |= {
        "number": 99001,
        "title": f'Revert "{victim["title"]}"',
        "body": f"Reverts verl-project/verl#{victim['number']}: it broke the nightly run.",
        "url": "https://github.com/verl-project/verl/pull/99001",
        "mergedAt": "2026-07-22T09:00:00Z",
        "mergeCommit": {"oid": "f" * 40},
    }
    second = _verl_subset(VERL_DATASET, root / "second.jsonl", [revert])
    with pytest.MonkeyPatch.context() as mp:
        for name in ("PRWEEKLY_SOURCE", "GITHUB_TOKEN", "DAGSTER_HOME", "GITHUB_GRAPHQL_URL"):
            mp.delenv(name, raising=False)
        home = root / "home"
        mp.setenv("PRWEEKLY_HOME", str(home))
        _build(first, W29, W30)
        before = _editions(home)
        _build(second, W29, W30)  # rebuilding W29, with the revert now merged in W30
        after = _editions(home)
    return home, {"victim": victim["number"], "before": before, "after": after}


def test_a_late_revert_makes_a_corrected_edition_naming_the_pr(corrected_home) -> None:
    home, run = corrected_home
    victim = run["victim"]
    reports = home / "reports" / "verl-project__verl"
    # the first build: one edition per week and language, none corrected
    assert [(w, lang, n) for w, lang, n, _, c in run["before"]] == [
        (W29, "en", 1), (W29, "zh", 1), (W30, "en", 1), (W30, "zh", 1)
    ]  # fmt: skip
    assert all(c is None for *_, c in run["before"])
    after = {(w, lang, n): (sha, c) for w, lang, n, sha, c in run["after"]}
    assert set(after) == {(w, lang, n) for w in (W29, W30) for lang in ("en", "zh") for n in (1, 2)}
    for lang in ("en", "zh"):
        sha, since = after[(W29, lang, 2)]
        assert since is not None  # it corrects the first edition
        markdown = (reports / f"{W29}.{lang}.md").read_text(encoding="utf-8")
        assert sha == content_sha256(markdown)  # the edition is the file's text
    en = (reports / f"{W29}.en.md").read_text(encoding="utf-8")
    box = en.split("> **Corrected since the edition of ", 1)[1].split("\n\n", 1)[0]
    assert f"#{victim} " in box and "reverted by #99001" in box, box
    zh = (reports / f"{W29}.zh.md").read_text(encoding="utf-8")
    assert "> **自 " in zh and f"#{victim} " in zh and "已被 #99001 回滚" in zh
    html = (reports / f"{W29}.en.html").read_text(encoding="utf-8")
    assert '<aside class="correction">' in html and "reverted by #99001" in html

    # the next week's report lists the correction of W29, and its own new PR
    w30 = (reports / f"{W30}.en.md").read_text(encoding="utf-8")
    listed = w30.split("**Corrections to earlier weeks**", 1)[1].split("\n\n", 2)[1]
    assert f"[Week 29 of 2026]({W29}.en.md)" in listed and f"#{victim} " in listed, listed
    assert "#99001 " in w30.split("> **Corrected since", 1)[1].split("\n\n", 1)[0]
    w30_zh = (reports / f"{W30}.zh.md").read_text(encoding="utf-8")
    assert "**对往期周报的更正**" in w30_zh and f"#{victim} " in w30_zh


def test_the_site_shows_the_edition_history(corrected_home) -> None:
    home, _ = corrected_home
    page = (home / "reports" / "verl-project__verl" / "index.html").read_text(encoding="utf-8")
    week = page.split(f'<article class="week" id="{W29}">', 1)[1].split("</article>", 1)[0]
    assert "Editions: 1 (" in week and "; 2 (" in week
    assert "corrected since the edition of" in week
