"""Each caveat's detail (orchestration/descriptions/caveat_details.py): what a trade-off trades
and which way, how a default is set and which setting, what an omission leaves out and where a
change was not verified, read with the seeds as int_pull_request_descriptions passes them; and
the mart carries it for verl's PRs."""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

import duckdb
import pytest

from orchestration.config import SQL_DIR
from orchestration.descriptions.caveat_details import details, seed_signal
from orchestration.descriptions.function import describe
from orchestration.descriptions.vocabulary import Vocabulary, vocabulary
from tests.unit.test_descriptions import verl


@cache
def seeds() -> Vocabulary:
    """The vocabulary of the SQL model: description signals and caveat details."""
    with (SQL_DIR / "seeds" / "description_signals.csv").open(encoding="utf-8") as f:
        rows = [(r["signal"], r["phrase"]) for r in csv.DictReader(f)]
    with (SQL_DIR / "seeds" / "caveat_details.csv").open(encoding="utf-8") as f:
        rows += [
            (seed_signal(r["kind"], r["field"], r["value"], r["better"]), r["phrase"])
            for r in csv.DictReader(f)
        ]
    return vocabulary("\n".join(f"{s}\t{p}" for s, p in sorted(rows)))


def detail(kind: str, sentence: str) -> tuple[str | None, str | None]:
    found = details(kind, sentence, seeds())
    return found["subject"], found["effect"]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("It can increase peak memory.", ("peak_memory", "increase")),
        ("This may slow down the first step.", ("speed", "decrease")),
        ("TiledMLP trades ~30-40% speed for memory savings.", ("speed", "traded")),
        ("at the cost of slightly higher latency", ("latency", "increase")),
        ("It reduces memory overhead.", ("memory", "improves")),  # no cost: a benefit
        ("A more memory-efficient collocate mode.", ("memory", "improves")),
        ("Leave it disabled when memory headroom is tight.", ("memory", None)),
        ("Update the docs on their trade-offs.", (None, None)),
    ],
)
def test_a_trade_off_says_what_it_trades_and_which_way(sentence: str, expected: tuple) -> None:
    assert detail("trade_off", sentence) == expected


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("This PR adds an opt-in setting: use_no_sync: true.", ("use_no_sync", "opt_in")),
        ("The option defaults to false because it costs memory.", (None, "off_by_default")),
        ("[misc] fix: disable chunked-prefill by default", (None, "off_by_default")),
        ("Speculative decoding is enabled by default.", (None, "on_by_default")),
        ("Continuous Token is now the default path.", (None, "now_default")),
        ("Make Megatron Bridge default.", (None, "now_default")),
        ("[misc] fix: set default value of ETP to 1", (None, "changed_default")),
        ("[training_utils] fix: align default dir", (None, "changed_default")),  # a tag: no name
        ("add an option a.b.use_mbridge, default is False.", ("a.b.use_mbridge", "off_by_default")),
    ],
)
def test_a_default_says_how_it_is_set_and_which_setting(sentence: str, expected: tuple) -> None:
    assert detail("default", sentence) == expected


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (
            "algo.max_batches is intentionally ignored; refill goes on.",
            ("algo.max_batches", "ignored"),
        ),
        (
            "FSDP worker only: Megatron worker is not supported yet",
            ("Megatron worker", "unsupported"),
        ),
        (
            "Kimi-VL, MiniMax-VL, and DeepSeek-VL2 are not supported yet.",
            ("Kimi-VL, MiniMax-VL, and DeepSeek-VL2", "unsupported"),
        ),
        (
            "The veomni FSDP2+EP consumer stays in #7085 (stacked).",
            ("veomni FSDP2+EP consumer", "deferred"),
        ),
        ("The existing behavior remains unchanged.", ("existing behavior", "unchanged")),
        ("Reject unsupported combinations with router replay.", (None, "unsupported")),
        ("I deliberately did not move the pin itself.", (None, "omitted")),
        ("The submitter will add the screenshot in a follow-up.", (None, "deferred")),
        ("(at ../csrc/autograd_not_implemented_fallback.cpp:63.)", (None, None)),  # a path
    ],
)
def test_an_omission_says_what_it_leaves_out_as_written(sentence: str, expected: tuple) -> None:
    assert detail("omission", sentence) == expected


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Not verified on CUDA (no GPU available).", ("CUDA", "not_verified")),
        ("GPU/NPU throughput should be measured first.", ("GPU/NPU", "not_measured")),
        ("This area is not covered by CI hardware (AMD GPUs).", ("AMD GPUs", "no_ci")),
        ("I have not validated MTP", (None, "not_verified")),
    ],
)
def test_unverified_names_the_platform_as_written(sentence: str, expected: tuple) -> None:
    assert detail("unverified", sentence) == expected


def test_a_breaking_caveat_has_no_detail() -> None:
    assert detail("breaking", "It removes the `foo` option.") == (None, None)


def test_verl_7095s_trade_off_and_default_are_read_from_its_description() -> None:
    found = verl(7095)  # the reader with the seeds as the SQL model passes them
    body = "\n".join(c["sentence"] for c in found["caveats"])
    caveats = describe("verl-project/verl", "[fsdp, perf] feat: defer", body, seeds())["caveats"]
    got = {(c["kind"], c["subject"], c["effect"]) for c in caveats}
    assert ("trade_off", "peak_memory", "increase") in got
    assert ("default", None, "off_by_default") in got
    assert ("default", "use_no_sync_for_gradient_accumulation", "opt_in") in got
    assert ("unverified", "GPU/NPU", "not_measured") in got


def test_the_mart_carries_each_caveats_detail(verl_history_home: Path) -> None:
    with duckdb.connect(str(verl_history_home / "warehouse.duckdb"), read_only=True) as conn:
        rows = conn.execute(
            "select number, c.kind, c.subject, c.effect from (select number, unnest(caveats) c "
            "from marts.fct_pull_requests where number in (7082, 7095, 7103, 7144))"
        ).fetchall()
    assert (7095, "trade_off", "peak_memory", "increase") in rows
    assert (7095, "default", None, "off_by_default") in rows
    assert (7082, "trade_off", "generation_time", "traded") in rows
    assert (7082, "omission", "algorithm.filter_groups.max_num_gen_batches", "ignored") in rows
    assert (7103, "unverified", "CUDA", "not_verified") in rows
    assert (7144, "omission", "veomni FSDP2+EP consumer", "deferred") in rows
