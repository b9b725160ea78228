"""The language model's narrative: how well the evidence rule sorts answers, and what it costs.

`python -m bench.narrative` checks every answer of the labelled set
(`tests/fixtures/narrative/`: real prompts of both shared datasets, good answers written as a
careful strong model would and bad ones) with the evidence rule and prints its false accepts
(a bad claim kept, or markup, a link or a mention left in kept text; target at most 2%) and
false rejects (a good claim dropped; at most 5%), with the worst cases of each.
`python -m bench.narrative --cost` builds every verl week in a fresh `PRWEEKLY_HOME` with the
narrative on (at the LLM emulator), then again, and prints the requests served cold and warm
and the prompt sizes in tokens (the client's estimate).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
from datetime import date
from pathlib import Path

import duckdb

from bench.backfill import FIRST_WEEK, LAST_WEEK, REPO
from bench.extract import DEFAULT_DATASET

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "narrative"
MAX_FALSE_ACCEPTS, MAX_FALSE_REJECTS = 0.02, 0.05
SANITISED = {"markup", "link", "mention", "html"}  # bad only if something survives in kept text
_RESIDUE = re.compile(r"https?://|www\.|\]\(|<[A-Za-z/!]|\*\*|(?<![\w`.])@[A-Za-z0-9]|!\[|^#+\s")


def load_labelled(folder: Path = FIXTURES) -> tuple[dict[str, dict], list[dict]]:
    """The prompts by key and the labelled answers."""
    read = lambda name: [json.loads(line) for line in (folder / name).open(encoding="utf-8")]  # noqa: E731
    return {p["prompt"]: p for p in read("prompts.jsonl")}, read("answers.jsonl")


def ask_of(prompt: dict):
    """The request a labelled prompt is, with its messages."""
    from orchestration.narrative.prompt import ask_of_facts

    week = date.fromisoformat(prompt["week"])
    return ask_of_facts(prompt["repo"], week, prompt["number"], prompt["facts"])


def places(answer: dict, kind: str) -> list[str]:
    """Every claim and label of an answer, by place."""
    found = [f"summary[{i}]" for i in range(len(answer.get("summary") or []))]
    if kind == "pr":
        return [*found, "title_zh", "value_zh", "value_en"]
    found.append("theme")
    for i, story in enumerate(answer.get("stories") or []):
        found += [f"stories[{i}].sentences[{j}]" for j in range(len(story["sentences"]))]
        found += [f"stories[{i}].title_zh", f"stories[{i}].title_en"]
    return found + [
        f"recommendations[{i}]" for i in range(len(answer.get("recommendations") or []))
    ]


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() if k != "facts" for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def evaluate(prompts: dict[str, dict], answers: list[dict]) -> dict:
    """False accepts and rejects over the labelled set, claim by claim."""
    from orchestration.narrative.checks import review

    good = bad = false_accepts = false_rejects = trimmed = 0
    worst_accepts, worst_rejects = [], []
    for entry in answers:
        prompt = prompts[entry["prompt"]]
        result = review(
            ask_of(prompt),
            json.dumps(entry["answer"], ensure_ascii=False),
            set(prompt["week_numbers"]),
        )
        reasons = {line.split(" dropped", 1)[0]: line for line in result.dropped}
        dropped = (
            set(result.dropped_at)
            if result.usable
            else set(places(entry["answer"], prompt["kind"]))
        )
        residue = any(_RESIDUE.search(s) for s in _strings(result.answer or {}))
        for place in places(entry["answer"], prompt["kind"]):
            kept = place not in dropped
            if place in entry["bad"]:
                bad += 1
                wrong = (residue if kept else False) if entry["kind"] in SANITISED else kept
                if wrong:
                    false_accepts += 1
                    worst_accepts.append(
                        f"{entry['id']} {entry['kind']} {place}: {_text(entry, place)}"
                    )
            else:
                good += 1
                why = reasons.get(place) or "; ".join(result.failed)
                if kept:
                    continue
                if "would pass" in why:
                    trimmed += 1
                    continue
                false_rejects += 1
                worst_rejects.append(f"{entry['id']} {entry['kind']} {place}: {why[:300]}")
    return {
        "answers": len(answers),
        "good_claims": good,
        "bad_claims": bad,
        "false_accepts": false_accepts,
        "false_accept_rate": round(false_accepts / bad, 4) if bad else 0.0,
        "false_rejects": false_rejects,
        "false_reject_rate": round(false_rejects / good, 4) if good else 0.0,
        "trimmed_for_length": trimmed,
        "worst_false_accepts": worst_accepts[:10],
        "worst_false_rejects": worst_rejects[:10],
    }


def _text(entry: dict, place: str) -> str:
    value = entry["answer"]
    for part in re.findall(r"\w+|\[\d+\]", place):
        value = value[int(part[1:-1])] if part.startswith("[") else value.get(part)
    return (value.get("en") or value.get("zh")) if isinstance(value, dict) else str(value)


def _build(dataset: Path) -> None:
    from orchestration.service.cli import main

    args = ["build", "--repo", REPO, "--week", FIRST_WEEK, "--to", LAST_WEEK]
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        code = main([*args, "--source", f"file:{dataset}"])
    if code != 0:
        raise SystemExit(f"the build failed (exit {code})")


def _spread(values: list[int]) -> dict:
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "median": round(statistics.median(values)),
        "mean": round(statistics.fmean(values)),
        "max": max(values),
    }


def measure(dataset: Path) -> dict:
    """Requests and prompt sizes of the whole verl history at the emulator, cold and warm."""
    from orchestration.narrative.client import estimate_tokens
    from orchestration.testing.llm_emulator import LlmEmulator

    home = Path(tempfile.mkdtemp(prefix="prweekly-narrative-"))
    saved = dict(os.environ)
    try:
        with LlmEmulator() as emulator:
            os.environ.update(
                PRWEEKLY_HOME=str(home),
                PRWEEKLY_LLM_URL=emulator.url,
                PRWEEKLY_LLM_MODEL="emulated",
            )
            for name in ("DAGSTER_HOME", "PRWEEKLY_SOURCE", "PRWEEKLY_LLM_API_KEY"):
                os.environ.pop(name, None)
            _build(dataset)
            cold = emulator.requests_served
            _build(dataset)
            warm = emulator.requests_served - cold
        with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
            rows = conn.execute(
                "select week_start, kind, request from narrative.pr_narratives"
            ).fetchall()
    finally:
        os.environ.clear()
        os.environ.update(saved)
        shutil.rmtree(home, ignore_errors=True)
    per_pr, per_week_part, per_week = [], [], {}
    for week, kind, request in rows:
        tokens = sum(estimate_tokens(m["content"]) for m in json.loads(request)["messages"])
        (per_pr if kind == "pr" else per_week_part).append(tokens)
        per_week[week] = per_week.get(week, 0) + tokens
    return {
        "repo": REPO,
        "weeks": f"{FIRST_WEEK}..{LAST_WEEK}",
        "requests_cold": cold,
        "requests_warm": warm,
        "prompt_tokens_per_pr": _spread(per_pr),
        "prompt_tokens_week_part": _spread(per_week_part),
        "prompt_tokens_per_week_all_parts": _spread(list(per_week.values())),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.narrative", description=__doc__)
    parser.add_argument("--cost", action="store_true", help="measure the cost instead")
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    args = parser.parse_args(argv)
    if args.cost:
        print(json.dumps(measure(args.dataset), indent=2), file=sys.stdout)
        return 0
    result = evaluate(*load_labelled())
    print(json.dumps(result, indent=2, ensure_ascii=False), file=sys.stdout)
    met = (
        result["false_accept_rate"] <= MAX_FALSE_ACCEPTS
        and result["false_reject_rate"] <= MAX_FALSE_REJECTS
    )
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
