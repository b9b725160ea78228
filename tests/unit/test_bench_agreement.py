"""The agreement bench judges facts against labels by the rules its docstring gives."""

from __future__ import annotations

from datetime import date

from bench.agreement import story_pairs, summarise
from bench.facts_match import claim_ok, fact_claim, sentence_ok


def test_an_empty_label_wants_no_sentence():
    assert sentence_ok([], None)
    assert sentence_ok([], "  ")
    assert not sentence_ok([], "Fix ascend docker tag")


def test_a_sentence_agrees_after_markup_and_case_are_dropped():
    label = ["This PR adds support for passing parameters to `ray.init`."]
    assert sentence_ok(label, "this PR adds support for passing parameters to ray.init")
    linked = ["This PR add [CollabLLM](https://aka.ms/CollabLLM) as a training recipe."]
    assert sentence_ok(linked, "This PR add CollabLLM as a training recipe.")


def test_a_link_to_an_issue_or_pr_agrees_with_the_number_the_fact_shows():
    # the fact renders a link to an issue or PR as `#N` (`owner/name#N` in another repository)
    label = [
        "Fixes issue (https://github.com/verl-project/verl/pull/4778#issuecomment-3850938277) "
        "with metric aggregation across DP ranks"
    ]
    assert sentence_ok(label, "Fixes issue (#4778) with metric aggregation across DP ranks")
    other = ["Tracked upstream in https://github.com/NVIDIA/Megatron-LM/issues/4933 for now."]
    assert sentence_ok(other, "Tracked upstream in NVIDIA/Megatron-LM#4933 for now.")
    assert not sentence_ok(label, "Fixes issue (#4779) with metric aggregation across DP ranks")


def test_a_lead_in_or_the_rest_of_a_list_is_acceptable_but_not_a_whole_description():
    label = ["Implement KL loss, GRPO outcome adv, and utilize bon rollouts"]
    assert sentence_ok(label, label[0] + "; Provide scripts for deepseek and qwen on GSM8k.")
    assert sentence_ok(label, "This PR contains following things: " + label[0])
    assert not sentence_ok(label, label[0] + "; " + "x" * 300)


def test_a_sentence_cut_short_reads_only_when_most_of_it_is_there():
    label = ["Extends the flat FSDP2 fast path to block placements and moves the export."]
    assert sentence_ok(label, "Extends the flat FSDP2 fast path to block placements…")
    assert not sentence_ok(label, "Extends the flat")
    assert not sentence_ok(label, "FSDP currently synchronizes gradients after every micro-batch")


def test_a_claim_agrees_on_value_and_unit_whatever_its_sign():
    labels = [(1.679, "x"), (40.45, "%")]
    assert claim_ok(labels, fact_claim({"figure": "1.679×", "unit": "×", "metric": "speedup"}))
    assert claim_ok(labels, fact_claim({"value": -40.45, "unit": "%", "figure": "-40.45%"}))
    assert not claim_ok(labels, fact_claim({"figure": "1.003x"}))
    assert not claim_ok(labels, fact_claim({"figure": "40.45 ms"}))
    assert not claim_ok(labels, None)


def _row(number: int, story: str, facts: set[str], sample: str = "week") -> dict:
    return {"repo": "o/r", "number": number, "sample": sample, "week": date(2026, 7, 20),
            "story": (story, facts)}  # fmt: skip


def test_story_pairs_count_pairs_within_whole_weeks_only():
    rows = [
        _row(1, "qwen", {"a"}),
        _row(2, "qwen", {"a"}),
        _row(3, "", {"a"}),  # the facts join it, the label does not
        _row(4, "ascend", set()),
        _row(5, "ascend", set()),  # a labelled pair the facts miss
        _row(6, "qwen", {"a"}, sample="random"),  # no whole week: no pairs
    ]
    assert story_pairs(rows) == {"pairs": 10, "labelled": 2, "found": 3, "both": 1}


def test_a_fact_the_warehouse_lacks_is_not_built_rather_than_wrong():
    row = {
        "type_ok": True, "area_ok": False, "topics_jaccard": 0.5, "sentence_ok": True,
        "sentence": (["x"], "x"), "claim_ok": None, "claim": ([], None), "caveats_ok": True,
        "release": (False, False),
    }  # fmt: skip
    s = summarise([row], built={"summary"})
    assert (s["type"], s["area"], s["topics_jaccard"], s["sentence"]["acceptable"]) == (
        1.0, 0.0, 0.5, 1.0,
    )  # fmt: skip
    assert s["claim"] is None and s["caveats"] is None and s["release"] is None


def test_the_contract_columns_are_read_when_a_warehouse_has_them():
    import duckdb

    from bench.agreement import compare

    conn = duckdb.connect()
    conn.execute("create schema marts")
    conn.execute(
        """create table marts.fct_pull_requests as select * from (values
        ('o/r', 1, date '2026-07-20', 'feat', 'fsdp', ['performance'], 'title_type', 'title',
         'T1', 'This PR adds an opt-in setting.',
         {'metric': 'latency', 'value': 1.679, 'unit': 'x', 'figure': '1.679×'},
         [{'kind': 'default', 'sentence': 'off by default'}], false),
        ('o/r', 2, date '2026-07-20', 'fix', 'ascend', ['hardware'], 'title_type', 'title',
         'T2', null, null, [], true))
        t(repo, number, week_start, change_type, primary_area, topics, change_type_signal,
          area_signal, title, summary, headline_claim, caveats, is_release)"""
    )
    conn.execute(
        "create table marts.fct_weekly_stories as select 'o/r' as repo, "
        "date '2026-07-20' as week_start, 's1' as story_id, [1, 2] as numbers"
    )
    labels = [
        {"repo": "o/r", "number": 1, "sample": "week", "change_type": "perf",
         "areas": {"fsdp"}, "topic_set": {"performance"}, "caveat_set": {"default"},
         "claims": [(1.679, "x")], "change_sentence": "This PR adds an opt-in setting:",
         "is_release": "false", "story": ""},
        {"repo": "o/r", "number": 2, "sample": "week", "change_type": "fix",
         "areas": {"npu"}, "topic_set": {"hardware"}, "caveat_set": set(), "claims": [],
         "change_sentence": "", "is_release": "true", "story": ""},
    ]  # fmt: skip
    rows, built = compare(conn, labels)
    assert built == {"summary", "headline_claim", "caveats", "is_release", "stories"}
    one, two = rows
    assert (one["type_ok"], one["area_ok"], one["sentence_ok"], one["claim_ok"]) == (
        False, True, True, True,
    )  # fmt: skip
    assert one["caveats_ok"] and two["caveats_ok"] and two["sentence_ok"]
    assert two["release"] == (True, True) and two["claim_ok"] is None
    assert story_pairs(rows) == {"pairs": 1, "labelled": 0, "found": 1, "both": 0}
