"""The description reader (orchestration/descriptions/): the change sentence, impact claims with
their header and condition, the headline claim and caveats, on crafted bodies and on the verl
PRs issue 24 names (read from the shared dataset, skipped without it)."""

from __future__ import annotations

import csv
import gzip
import json
from functools import cache

import pytest

from orchestration.config import SQL_DIR
from orchestration.descriptions.function import describe
from orchestration.descriptions.vocabulary import Vocabulary, vocabulary
from tests.conftest import VERL_DATASET

REPO = "verl-project/verl"


@cache
def seeds() -> Vocabulary:
    """The vocabulary as int_pull_request_descriptions builds it from the seeds."""
    with (SQL_DIR / "seeds" / "description_signals.csv").open(encoding="utf-8") as f:
        rows = [(r["signal"], r["phrase"]) for r in csv.DictReader(f)]
    with (SQL_DIR / "seeds" / "title_verbs.csv").open(encoding="utf-8") as f:
        rows += [
            ("change_verb", r["verb"])
            for r in csv.DictReader(f)
            if r["anywhere"] == "false" and r["change_type"] not in ("docs", "test")
        ]
    return vocabulary("\n".join(f"{s}\t{p}" for s, p in sorted(rows)))


def read(body: str, title: str = "[engine] feat: a change", repo: str = "acme/crafted") -> dict:
    return describe(repo, title, body, seeds())


@cache
def verl(number: int) -> dict:
    if not VERL_DATASET.is_file():
        pytest.skip("the shared verl dataset is not beside the clone (../shared/datasets/)")
    with gzip.open(VERL_DATASET, "rt", encoding="utf-8") as lines:
        for line in lines:
            if f'"number": {number},' in line or f'"number":{number},' in line:
                node = json.loads(line)
                if node["number"] == number:
                    return describe(REPO, node["title"], node["body"], seeds())
    raise AssertionError(f"verl #{number} is not in the dataset")


def kinds(found: dict) -> list[tuple[str, str]]:
    return [(c["kind"], c["sentence"]) for c in found["caveats"]]


# --- the change sentence ------------------------------------------------------------------


def test_the_change_is_chosen_over_the_motivation_before_it() -> None:
    found = read(
        "### What does this PR do?\n\nThe engine currently syncs after every step, which is\n"
        "slow.\n\nThis PR adds an opt-in setting:\n\n```yaml\nengine:\n  defer_sync: true\n```\n"
    )
    assert found["summary"] == "This PR adds an opt-in setting: defer_sync: true."
    assert found["summary_source"] == "subject_verb"


@pytest.mark.parametrize(
    "body",
    [
        "Co-authored-by: a <a@example.com>\nCo-authored-by: b <b@example.com>\n",
        "---------\n\nSigned-off-by: a <a@example.com>\nCo-authored-by: b <b@example.com>",
        "Fixes #12.",
        "First half of the #7085 split requested in review.",
        "Follow-up to #6604 for the engine.",
        "As title.",
        "### What does this PR do?\n\n- [x] Unified management of all skip strategies.\n"
        "- [x] remove the legacy skipper\n\n### Test\n\n1.SKIP_STEPS=[1,3,5], no data here.",
        "### What does this PR do?\n\n> Add concise overview of what this PR aims to achieve.",
        "Inference: [Note which backend this PR will affect: vLLM, SGLang, both, or none]",
    ],
    ids=[
        "co-authored",
        "signed-off",
        "reference",
        "pointer",
        "follow-up",
        "as-title",
        "checklist-and-test-list",
        "template-prompt",
        "placeholder",
    ],
)
def test_no_sentence_is_better_than_a_wrong_one(body: str) -> None:
    assert read(body)["summary"] is None


def test_the_title_again_is_no_change_sentence() -> None:
    title = "[perf] feat: re-support torch profiler and optimize output naming"
    assert (
        read("### What does this PR do?\n\nRe-support torch profiler.\n", title)["summary"] is None
    )


def test_a_link_leaves_its_sentence_whole() -> None:
    found = read(
        "Refactor the checkpoint manager to avoid complex logic, following the way mentioned in\n"
        "https://github.com/acme/crafted/issues/5630\n\nMore later."
    )
    assert found["summary"] == (
        "Refactor the checkpoint manager to avoid complex logic, following the way mentioned "
        "in #5630"
    )
    cut = read("Refactor the checkpoint manager to avoid complex logic, following the way in\n"
               "https://example.com/design\n")  # fmt: skip
    assert cut["summary"] == "Refactor the checkpoint manager to avoid complex logic."


def test_a_squash_message_offers_only_its_first_commit() -> None:
    body = "* Synchronize server references to avoid a data race\n\n* only hold the lock briefly\n"
    assert read(body, "admin: Sync server variables")["summary"] == (
        "Synchronize server references to avoid a data race"
    )
    commits = (
        "* add sft test for cot\n\n* add tokenizer api to patch gemma\n\n* fix test\n\n* lint\n"
    )
    assert read(commits, "[algo] docs: add steps to reproduce results")["summary"] is None


def test_a_change_to_the_tests_is_chosen_only_when_nothing_else_is_said() -> None:
    found = read(
        "### Design\n\n- Added a side-stream clone to the test adapter to reproduce the bug.\n"
        "- `Broadcast.run()` now calls `synchronize()` right after the broadcast.\n"
    )
    assert found["summary"].startswith("Broadcast.run() now calls synchronize()")
    assert found["summary_source"] == "now"


# --- impact claims and the headline -----------------------------------------------------------

SWEEP = (
    "| FSDP | Accumulation | Baseline median | Deferred median | Paired\nspeedup median | "
    "Bootstrap 95% CI | Latency reduction |\n|---:|---:|---:|---:|---:|---:|---:|\n"
    "| 1 | 1 | 53.690 ms | 53.475 ms | 1.003x | [0.998x, 1.004x] | 0.33% |\n"
    "| 1 | 8 | 434.290 ms | 253.966 ms | 1.679x | [1.669x, 1.711x] | 40.45% |\n"
    "| 2 | 1 | 55.782 ms | 55.976 ms | 0.992x | [0.987x, 1.002x] | -0.76% |\n"
    "| 2 | 8 | 444.312 ms | 263.475 ms | 1.688x | [1.681x, 1.689x] | 40.77% |\n"
)


def test_a_sweep_is_read_with_its_header_and_its_control_rows_are_no_claims() -> None:
    found = read(SWEEP)
    head = found["headline_claim"]
    # 1.688x is within noise of 1.679x, which the author gives first
    assert (head["figure"], head["value"], head["unit"], head["direction"]) == (
        "1.679x",
        1.679,
        "x",
        "higher",
    )
    assert head["metric"] == "speed-up"
    assert head["condition"] == "FSDP=1, Accumulation=8"
    assert head["header"].startswith("FSDP | Accumulation | Baseline median")
    assert "Latency reduction 40.45%" in head["sentence"]
    figures = [c["figure"] for c in found["impact_claims"]]
    assert figures == ["1.679x", "1.688x"]  # no 1.003x, no 0.992x; the headline first


def test_escaped_pipes_stay_inside_their_cell() -> None:
    found = read("| case | speedup |\n|---|---|\n| a \\| b | 2.5x |\n")
    assert found["headline_claim"]["condition"] == "case=a | b"


def test_a_relative_figure_needs_a_metric_and_a_change() -> None:
    found = read(
        "Accuracy is 85% on GSM8K. Tested on 8x H100 at 95% confidence. "
        "It takes 50% of the runtime. Throughput is 30% higher with the new kernel."
    )
    assert [(c["figure"], c["metric"], c["value"]) for c in found["impact_claims"]] == [
        ("30%", "throughput", 30.0)
    ]


def test_a_change_between_two_measurements_is_a_claim() -> None:
    found = read("In CI, JUnit time fell from 1.986s to 1.118s on Linux.")
    head = found["headline_claim"]
    assert (head["value"], head["unit"], head["direction"]) == (1.118, "s", "lower")


def test_a_column_measured_in_its_headers_unit_is_no_condition() -> None:
    found = read(
        "| Input | Median (ms) | Peak mem (GB) | vs baseline |\n|---|---|---|---|\n"
        "| packse, 0.13 MB | 240 | 11.9 | 1.49x faster |\n"
    )
    assert found["headline_claim"]["condition"] == "packse, 0.13 MB"
    assert found["headline_claim"]["sentence"].startswith("packse, 0.13 MB: Median (ms) 240")


def test_a_slowdown_or_an_interval_is_no_headline() -> None:
    found = read(
        "With prefetch on, forward compute slows down ~8-14% due to HBM contention. "
        "All rounds were faster, with a paired bootstrap 95% interval of 3.8% to 5.9% faster. "
        "Python installs went from 11s -> 38s, slower."
    )
    assert found["headline_claim"]["figure"] == "5.9%"
    assert "95% interval" in found["headline_claim"]["sentence"]  # as written


# --- caveats -----------------------------------------------------------------------------------


def test_caveats_are_read_with_their_kind() -> None:
    found = read(
        "This PR adds an opt-in setting. The option defaults to false because it can increase "
        "peak memory. The `max_batches` setting is intentionally ignored.\n\n### Test\n\n"
        "- [x] Reproduced on Ascend NPU.\n- [ ] Not verified on CUDA (no GPU available).\n"
    )
    assert [k for k, _ in kinds(found)] == [
        "default",
        "trade_off",
        "default",
        "omission",
        "unverified",
    ]
    assert kinds(found)[-1][1] == "Not verified on CUDA (no GPU available)."


@pytest.mark.parametrize(
    ("body", "breaking"),
    [
        ("Backend flag renamed: `use_dist` → `use_bridge`.", True),
        ("Remove the deprecated `--legacy` CLI flag.", True),
        ("⚠️ This changes loss values for every run.", True),
        ("Remove an unused helper from the trainer utils.", False),
        ("Drop the nightly CI job for the old trainer.", False),
        ("The option was removed in upstream 0.18, so we follow.", False),
        ("No breaking changes.", False),
        ("Restores the find API which was removed a while back.", False),
        ("### Release Notes\n\n### v0.30.0\n\n- Socket option IpTos has been renamed.", False),
        ("If this PR breaks any API (CLI arguments, config), add [BREAKING] to the title.", False),
    ],
)
def test_breaking_changes_in_the_description(body: str, breaking: bool) -> None:
    found = read(body)
    assert ("breaking" in [k for k, _ in kinds(found)]) is breaking
    assert (found["breaking_sentence"] is not None) is breaking


def test_the_titles_breaking_tag_is_a_caveat() -> None:
    found = read(
        "Make the bridge the default.", "[BREAKING][megatron] chore: make the bridge default"
    )
    assert kinds(found)[0] == ("breaking", "[BREAKING][megatron] chore: make the bridge default")
    assert found["breaking_sentence"] is None  # the flag reads the title's tag itself


@pytest.mark.parametrize(
    ("title", "kind"),
    [
        ("Removes GFPOTrainer", "breaking"),
        ("depr(rust!,python): Rename `write_csv` parameter `has_header`", "breaking"),
        ("[vllm] refactor: drop support for vLLM older than 0.18.0", "breaking"),
        ("[BREAKING config] fix: move val_before_train to config yaml", "breaking"),
        ("perf: Reduce default async thread count", "default"),
        ("🎀 New defaults: `logging_steps=10`", "default"),
    ],
)
def test_the_title_states_caveats_too(title: str, kind: str) -> None:
    assert [k for k, _ in kinds(read("", title))] == [kind]


def test_a_sentence_ends_inside_its_emphasis() -> None:
    found = read("**I deliberately did not move the pin.** I have not validated it on CUDA.")
    assert kinds(found) == [
        ("omission", "I deliberately did not move the pin."),
        ("unverified", "I have not validated it on CUDA."),
    ]


def test_motivation_and_checklists_hold_no_caveats() -> None:
    found = read(
        "### Why this is not a duplicate\n\nIssue #5 does not cover this location.\n\n"
        "### Checklist\n\n- [x] #58 is not a duplicate: it is not supported there.\n"
    )
    assert found["caveats"] == []


# --- the verl PRs of issue 24 -----------------------------------------------------------------


def test_verl_7095_headline_is_the_m8_row_and_its_caveats_are_read() -> None:
    found = verl(7095)
    assert found["summary"] == (
        "This PR adds an opt-in FSDP engine setting: use_no_sync_for_gradient_accumulation: true."
    )
    head = found["headline_claim"]
    assert (head["figure"], head["condition"]) == ("1.679x", "FSDP=1, Accumulation=8")
    assert "40.45%" in head["sentence"] and head["header"].startswith("FSDP | Accumulation")
    assert all(c["figure"] not in ("1.003x", "0.992x") for c in found["impact_claims"])
    assert {"trade_off", "default", "unverified"} <= {k for k, _ in kinds(found)}
    assert any("can increase peak memory" in s for k, s in kinds(found) if k == "trade_off")


@pytest.mark.parametrize(
    ("number", "summary"),
    [
        (7144, "Extends the flat FSDP2 Shard(0) fast path to block placements"),
        (
            6542,
            "This PR replaces eval() with ast.literal_eval(), which only parses Python literals.",
        ),
        (7103, "This PR adds the same guard to the VeOmni engine."),
        (7083, "BroadcastOperation._run() now calls torch.cuda.synchronize() right after"),
        (
            6014,
            "Refactoring Megatron checkpoint menager to avoid complex logics, following the way",
        ),
        (6951, "Add vanilla mBridge deprecation warning and make Megatron Bridge default."),
        (6097, None),
        (7099, None),
    ],
)
def test_verl_change_sentences(number: int, summary: str | None) -> None:
    found = verl(number)["summary"]
    if summary is None:
        assert found is None
    else:
        assert found.startswith(summary), found
        assert not found.endswith(("mentioned in", "…"))


def test_verl_claims_and_caveats_of_issue_24() -> None:
    rows = verl(7144)["impact_claims"]
    assert verl(7144)["headline_claim"]["figure"] == "2.3×"
    assert {c["condition"] for c in rows} >= {"Qwen2.5-7B (1+1 nodes)", "Qwen2.5-32B (2+2 nodes)"}
    assert all(c["header"] == "model (placement) | delta_sharded | nccl (full broadcast) | speedup"
               for c in rows)  # fmt: skip
    head = verl(6556)["headline_claim"]
    assert (head["figure"], head["metric"], head["value"]) == ("~15.3%", "wall-clock", -15.3)
    ignored = (
        "algorithm.filter_groups.max_num_gen_batches is intentionally ignored; "
        "refill continues until enough groups are sampleable."
    )
    assert ("omission", ignored) in kinds(verl(7082))
    assert [k for k, _ in kinds(verl(7103))] == ["unverified"]


def test_commit_trailers_alone_are_no_description_but_the_title_still_counts() -> None:
    from orchestration.descriptions.function import read_one

    trailers = "Co-authored-by: A <a@x.org>\n\nSigned-off-by: B <b@x.org>\n"
    empty = read_one("acme/crafted", "Fix the cache", None, trailers, seeds())
    assert empty["summary"] is None and empty["caveats"] == []
    titled = read_one("acme/crafted", "[BREAKING] drop the v1 API", None, trailers, seeds())
    assert [c["kind"] for c in titled["caveats"]] == ["breaking"]
    said = read_one(
        "acme/crafted", "t", None, "Adds a cache of resolved wheels.\n\n" + trailers, seeds()
    )
    assert said["summary"] == "Adds a cache of resolved wheels."


def test_words_read_ascii_and_other_text_alike() -> None:
    from orchestration.descriptions.markdown import tokens, words

    assert words("Fix `FSDP2`-sharded I/O, (v1.2)!") == "fix fsdp2 sharded i o v1 2"
    # only ASCII marks part words: other text keeps its letters and its punctuation
    assert words("Ünïcode stays: naïve Café—x") == "ünïcode stays naïve café—x"
    # any whitespace parts words; a lone surrogate is kept as it is
    assert words("A\u00a0B\u3000c_D\ud800e") == "a b c d\ud800e"
    assert tokens("Ünïcode stays: naïve_x") == ["ünïcode", "stays", "naïve", "x"]
    assert tokens("Fix I/O") == ["fix", "i", "o"]


def test_trailers_only() -> None:
    from orchestration.descriptions.function import trailers_only

    assert trailers_only("Co-authored-by: A <a@x.org>\n \nsigned-off-by: B\n")
    assert trailers_only(" \n\t")
    assert not trailers_only("Co-authored-by: A\nFixes the cache")
    assert not trailers_only("Thanks! Co-authored-by: A")


def test_a_repeated_box_is_split_once_and_its_links_by_repository() -> None:
    from orchestration.descriptions.markdown import parse
    from orchestration.descriptions.sentences import sentences

    box = "- [x] Tests added for https://github.com/a/b/issues/7 today. Docs updated"
    first, again = (parse(box).blocks[0] for _ in range(2))
    said = sentences(first, "a/b", seeds())
    assert [s.text for s in said] == ["Tests added for #7 today.", "Docs updated"]
    assert sentences(again, "a/b", seeds()) is said  # the same text: split once
    other = parse(box).blocks[0]
    assert sentences(other, "c/d", seeds())[0].text == "Tests added for a/b#7 today."


@pytest.mark.parametrize(
    ("title", "tagged"),
    [
        ("[BREAKING] drop the v1 API", True),
        ("[ breaking config] rename the flag", True),
        ("[Breaking][trainer] remove GFPO", True),
        ("feat!: drop the v1 API", True),
        ("fix(api)!: rename the flag", True),
        ("depr(rust!,python): drop the old reader", True),
        ("[breakingly] fast loader", False),
        ("Fix! the loader", False),
        ("feat: wow! faster", False),
    ],
)
def test_the_breaking_tag_of_a_title(title: str, tagged: bool) -> None:
    from orchestration.descriptions.caveats import breaking_tag

    assert breaking_tag(title) is tagged


def test_a_sentence_ends_at_a_full_stop_a_closed_emphasis_or_a_cjk_mark() -> None:
    from orchestration.descriptions.sentences import split

    assert split("Adds the cache. It halves the time.", "a/b") == [
        "Adds the cache.",
        "It halves the time.",
    ]
    assert split("Adds **the cache.** It halves the time", "a/b") == [
        "Adds the cache.",
        "It halves the time",
    ]
    assert split("增加缓存。 速度翻倍", "a/b") == ["增加缓存。", "速度翻倍"]
    assert split("Version 1.2.3 is out", "a/b") == ["Version 1.2.3 is out"]


@pytest.mark.parametrize(
    ("sentence", "breaking"),
    [
        ("This PR removes the use_cache config field", True),
        ("Remove the GFPOTrainer", True),  # a class, by its name's end
        ("The max_len option is removed", True),
        ("Remove the unused helper", False),  # nothing a removal breaks
        ("Remove speedup for sampling in eval", False),
        ("Remove the ci job config", False),  # housekeeping
    ],
)
def test_a_removal_is_breaking_only_of_a_setting_or_a_class(sentence: str, breaking: bool) -> None:
    from orchestration.descriptions.caveats import _removal

    assert _removal(sentence, seeds()) is breaking
