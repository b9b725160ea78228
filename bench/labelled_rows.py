"""A fetched repository's labelled rows held against its dataset before any agreement is counted.

The rows of `tests/fixtures/labelled/prs.csv` for a repository whose dataset is not committed
(`PRWEEKLY_EXTRA_DATASETS`, absent in CI) can only be checked where the dataset is, and that is
where `bench.facts_labelled` reads it: the rows must be the seeded sample drawn from it
(`tests/fixtures/labelled/sample.py`), its whole week one week, and every change sentence stored
as a locator must resolve in its PR's body. Otherwise the labels no longer describe these PRs
(the dataset was fetched again, the set edited by hand) and the bench stops, naming them, rather
than report an agreement with other PRs' labels.
"""

from __future__ import annotations

from bench.agreement import sample


class LabelsDoNotMatch(ValueError):
    """The labelled rows are not those the dataset at hand gives."""


def check_fetched(repo: str, labels: list[dict], prs: dict[int, dict]) -> None:
    """Raise LabelsDoNotMatch unless `labels` (the set's rows of `repo`, in its order) are the
    seeded draw from `prs` ({number: node}) and their sentences resolve in the bodies."""
    drawn = sample.draw_from({repo: list(prs.values())})
    rows = [(r["repo"], int(r["number"]), r["sample"]) for r in labels]
    if rows != drawn:
        extra = sorted(set(rows) - set(drawn))[:5]
        missing = sorted(set(drawn) - set(rows))[:5]
        raise LabelsDoNotMatch(
            f"{repo}: the labelled rows are not the seeded sample of the dataset here "
            f"(labelled, not drawn: {extra or 'none'}; drawn, not labelled: {missing or 'none'}"
            f"{'; same PRs, another order' if not extra and not missing else ''})"
        )
    weeks = set()
    for label in labels:
        pr = prs[int(label["number"])]
        try:
            found = sample.sentences(label["change_sentence"], pr.get("body") or "")
        except ValueError as error:
            raise LabelsDoNotMatch(f"{repo}#{label['number']}: {error}") from error
        if not all(found):
            raise LabelsDoNotMatch(f"{repo}#{label['number']}: a change sentence is empty")
        if label["sample"] == "week":
            weeks.add(sample.monday(pr["mergedAt"]))
    if len(weeks) > 1:
        raise LabelsDoNotMatch(f"{repo}: the whole week's rows span {sorted(weeks)}")
