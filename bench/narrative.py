"""The language model's cost over the whole verl history, measured at the LLM emulator.

`python -m bench.narrative` builds every verl week in a fresh `PRWEEKLY_HOME` with the
narrative on (`PRWEEKLY_LLM_URL` at the emulator), then again, and prints the requests the
emulator served cold and warm, and the prompt size per PR and per week in tokens (the
estimate the client uses: one token per CJK character, one per four other characters).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import duckdb

from bench.backfill import FIRST_WEEK, LAST_WEEK, REPO
from bench.extract import DEFAULT_DATASET


def _build(dataset: Path) -> None:
    from orchestration.cli import main

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
    from orchestration.llm_emulator import LlmEmulator
    from orchestration.narrative.client import estimate_tokens

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
        messages = json.loads(request)["messages"]
        tokens = sum(estimate_tokens(m["content"]) for m in messages)
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
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.dataset), indent=2), file=sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
