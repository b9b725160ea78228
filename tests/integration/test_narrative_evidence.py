"""The evidence rule on its own: figures, names, markup, the language checks, descriptions,
and the labelled set of answers to real prompts (`tests/fixtures/narrative/`)."""

from __future__ import annotations

import gzip
import json

import pytest

from bench.narrative import FIXTURES, MAX_FALSE_ACCEPTS, MAX_FALSE_REJECTS, evaluate, load_labelled
from orchestration.narrative.description import description_facts
from orchestration.narrative.evidence import chinese_share
from orchestration.narrative.figures import Figure, figures, matches
from orchestration.narrative.sanitize import clean
from orchestration.narrative.schema import SCHEMAS, WEEK_SCHEMA_NAME, max_tokens, relaxed
from orchestration.narrative.settings import LlmSettings, redact_url
from tests.conftest import SHARED


def _said(text: str) -> Figure:
    return next(f for f in figures(text) if not f.neutral)


def _fact(text: str) -> list[Figure]:
    return figures(text)


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("降低约 40%", "Latency reduction: 40.45%"),  # a marked rounding
        ("提速 1.68 倍", "Paired speedup median: 1.679x"),  # three significant digits
        ("约 15% 的墙钟时间", "reduce ~15.3% wall-clock time"),
        ("近三成", "30.2% fewer"),  # a Chinese number word, a rounding by nature
        ("three times faster", "a 3.0× speedup"),
        ("从 3.9 到 4.9 秒", "3.9–4.9 s"),  # a range in another language
        ("more than 40%", "42.3% lower"),  # a bound near its figure
        ("adding 58", "additions 58 lines"),  # a bare number for a figure with its unit
    ],
)
def test_a_figure_that_states_the_fact_is_accepted(said: str, fact: str) -> None:
    assert any(matches(_said(said), f) for f in _fact(fact)), (said, fact)


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("cuts memory use by 2520%", "2520 lines added"),  # the additions as a percentage
        ("约 50%", "Latency reduction: 40.45%"),  # a rounding too far
        ("1.7 倍", "1.679x"),  # an unmarked rounding that loses a digit
        ("提升三成", "a 2.3× speedup"),
        ("降低 15.3 h", "reduce ~15.3% wall-clock time"),  # another unit
        ("1024 layers", "a bucket of 1024 MB"),  # a count of things is not a measure
        ("more than 10%", "42.3% lower"),  # a bound far from its figure
    ],
)
def test_a_figure_that_does_not_state_the_fact_is_refused(said: str, fact: str) -> None:
    assert not any(matches(_said(said), f) for f in _fact(fact)), (said, fact)


def test_names_with_digits_and_dates_are_not_figures() -> None:
    text = "FSDP2 on Qwen3.5-35B-A3B with H20, v0.5.0, 2026-07-20, #6010, 8GB"
    assert [(f.value, f.unit) for f in figures(text)] == [(8.0, "GB")]


def test_the_chinese_check_counts_code_names_as_neutral() -> None:
    for label in ("FSDP2 reduce-scatter 优化", "VeOmni CPU offload 修复", "`ewm_sum` 新表达式"):
        assert chinese_share(label) >= 0.5, label
    assert chinese_share("Defers FSDP gradient sync during accumulation") < 0.5


@pytest.mark.parametrize(
    ("text", "removed"),
    [
        ("见 [公告](https://evil.example/x)", "link"),
        ("![x](http://x/y.png) 图", "image"),
        ("<img src=x onerror=alert(1)> 提速", "HTML"),
        ("cc @alice and @acme/everyone", "mention"),
        ("**立即** 生效", "emphasis"),
        ("gnp\u202e.exe", "control characters"),
        ("see https://evil.example/advice now", "link"),
    ],
)
def test_an_answer_is_made_plain_text(text: str, removed: str) -> None:
    plain, what = clean(text)
    assert removed in what
    for mark in ("](", "http", "<", "**", "@a", "\u202e"):
        assert mark not in plain, (text, plain)


def test_code_spans_stay_as_names() -> None:
    plain, what = clean("skips `model.to(device)` and `@torch.no_grad` under `a|b`")
    assert plain == "skips `model.to(device)` and `@torch.no_grad` under `a|b`" and what == []


def test_a_description_loses_its_template_before_the_cut() -> None:
    body = (
        "### What does this PR do?\n\nAdds a guard.\n\n### Checklist Before Starting\n\n"
        "- [ ] Search for similar PRs. Paste at least one query link here: ...\n"
        "- [x] Format the PR title\n\n### Test\n\n> For changes that can not be tested by CI,\n"
        "validate by experiment(s).\n\n| Config | Result |\n|---|---|\n| Baseline | 6.546\nh |\n"
        "- [ ] Not verified on CUDA (no GPU available).\n\n---------\n\n"
        "Co-authored-by: someone <someone@example.com>\n"
    )
    assert description_facts(body) == [
        "Adds a guard.",
        "Test",
        "Config: Baseline; Result: 6.546 h",
        "(unchecked) Not verified on CUDA (no GPU available).",
    ]


def test_a_strict_server_gets_a_schema_without_the_length_keywords() -> None:
    week = SCHEMAS[WEEK_SCHEMA_NAME]
    text = json.dumps(relaxed(week))
    assert all(k not in text for k in ("minLength", "maxLength", "minItems", "maxItems"))
    assert "minLength" in json.dumps(week)  # the answers are still checked against these
    assert max_tokens(week) >= 2048


def test_credentials_in_the_url_are_never_shown() -> None:
    url = "http://bot:sk-SECRETpass@models.example:8080/v1?api-key=sk-SECRETkey"
    shown = redact_url(url)
    assert "SECRET" not in shown and shown.startswith("http://***@models.example:8080/v1")
    settings = LlmSettings(url, "m", "sk-SECRETbearer")
    assert "SECRET" not in repr(settings) + str(settings) + settings.shown_endpoint


# --- the labelled set --------------------------------------------------------------------


def test_the_labelled_set_sorts_good_from_bad_claims() -> None:
    prompts, answers = load_labelled()
    assert len(answers) >= 150 and {p["repo"] for p in prompts.values()} == {
        "verl-project/verl",
        "pola-rs/polars",
    }
    result = evaluate(prompts, answers)
    assert result["bad_claims"] >= 100 and result["good_claims"] >= 500
    assert result["false_accept_rate"] <= MAX_FALSE_ACCEPTS, result["worst_false_accepts"]
    assert result["false_reject_rate"] <= MAX_FALSE_REJECTS, result["worst_false_rejects"]


def test_the_labelled_prompts_are_real_prompts_of_the_shared_datasets() -> None:
    prompts, _ = load_labelled()
    wanted = {(p["repo"], p["number"]): p for p in prompts.values() if p["kind"] == "pr"}
    found = 0
    for repo in ("verl-project/verl", "pola-rs/polars"):
        path = SHARED / "datasets" / repo.replace("/", "__") / "pull_requests.jsonl.gz"
        if not path.exists():
            pytest.skip("the shared datasets are not beside the clone (../shared/datasets/)")
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            for line in lines:
                node = json.loads(line)
                prompt = wanted.get((repo, node["number"]))
                if prompt:
                    facts = prompt["facts"]["facts"]
                    pr = next(f for f in facts if f["id"] == f"p{node['number']}")
                    assert pr["title"].strip() == node["title"].strip(), node["number"]
                    found += 1
    assert found == len(wanted) and (FIXTURES / "README.md").exists()


# --- the verification pass ---------------------------------------------------------------


@pytest.mark.parametrize(("refute", "source"), [(False, "model"), (True, "fallback")])
def test_the_verification_pass_drops_what_the_model_finds_unsupported(
    refute: bool, source: str
) -> None:
    from bench.narrative import ask_of
    from orchestration.narrative.client import ChatClient
    from orchestration.narrative.narrate import ask
    from orchestration.testing.llm_emulator import LlmEmulator, LlmFault

    prompts, _ = load_labelled()
    prompt = prompts["verl-project/verl 2026-07-20 #7095"]
    with LlmEmulator() as emulator:
        if refute:
            emulator.faults.fail_next(LlmFault.REFUTE, after=1)  # the answer, then the verdict
        client = ChatClient(LlmSettings(emulator.url, "m", None, verify=True))
        outcome = ask(client, ask_of(prompt), set(prompt["week_numbers"]))
        asked = [
            json.loads(r["body"])["response_format"]["json_schema"]["name"]
            for r in emulator.requests
        ]
    assert asked == ["pr_narrative", "claim_verdicts"] and outcome.source == source
    refuted = [line for line in outcome.dropped_claims if "verification:" in line]
    assert bool(refuted) is refute


def test_review_threads_reach_the_prompt_marked_ones_first() -> None:
    from orchestration.narrative.facts import review_facts

    threads = [
        {
            "is_resolved": True,
            "is_outdated": False,
            "path": "a.py",
            "author": "alice",
            "body": "Nit: rename `x`.",
        },
        {
            "is_resolved": False,
            "is_outdated": False,
            "path": "b.py",
            "author": "gemini-bot",
            "body": "![high](https://www.gstatic.com/codereviewagent/high-priority.svg)\n\n"
            "`ray.get()` blocks the event loop here. @alice",
        },
        {"is_resolved": None, "is_outdated": None, "path": None, "author": None, "body": ""},
    ]
    facts = review_facts(7095, threads)
    assert [(f["id"], f["author"], f.get("severity"), f["resolved"]) for f in facts] == [
        ("p7095.r1", "gemini-bot", "high", False),
        ("p7095.r2", "alice", None, True),
    ]
    assert facts[0]["text"] == "`ray.get()` blocks the event loop here. alice"


def test_past_the_builds_deadline_no_part_is_asked() -> None:
    from bench.narrative import ask_of
    from orchestration.narrative.client import ChatClient
    from orchestration.narrative.narrate import ask
    from orchestration.testing.llm_emulator import LlmEmulator

    prompts, _ = load_labelled()
    prompt = prompts["verl-project/verl 2026-07-20 #7095"]
    with LlmEmulator() as emulator:
        client = ChatClient(LlmSettings(emulator.url, "m", None, build_deadline_seconds=1e-6))
        outcome = ask(client, ask_of(prompt), set(prompt["week_numbers"]))
        assert emulator.requests_served == 0
    assert outcome.source == "unavailable"
    assert "PRWEEKLY_LLM_BUILD_DEADLINE_SECONDS" in outcome.failed_checks[0]


def test_impact_claims_and_caveats_of_the_contract_become_facts_headline_first() -> None:
    from orchestration.narrative.facts import caveat_facts, claim_facts

    row = {
        "metric": "latency",
        "value": -40.45,
        "unit": "%",
        "direction": "lower",
        "condition": "M=8",
        "header": "FSDP | Accumulation | Latency reduction",
        "figure": "40.45%",
        "sentence": "1 | 8 | 40.45%",
    }
    control = {**row, "condition": "M=1", "value": -0.33, "figure": "0.33%"}
    facts = claim_facts(7095, [control, row], row)
    assert [(f["id"], f.get("headline"), f["condition"]) for f in facts] == [
        ("p7095.i1", True, "M=8"),
        ("p7095.i2", None, "M=1"),
    ]
    caveats = caveat_facts(7095, [{"kind": "default", "sentence": "The option defaults to false."}])
    assert caveats == [
        {
            "id": "p7095.c1",
            "kind": "caveat",
            "pr": 7095,
            "caveat": "default",
            "text": "The option defaults to false.",
        }
    ]
    said = figures("在 M=8 时延迟降低约 40%")
    from orchestration.narrative.evidence import read_fact

    assert all(any(matches(f, g) for g in read_fact(facts[0]).figures) for f in said)


def test_a_chinese_sentence_keeps_names_as_code_once_accepted() -> None:
    """The model's names (models, hardware, identifiers) reach the Chinese report as code, so
    its prose stays Chinese; figures, PR numbers and the report's loan words stay text."""
    from orchestration.narrative.checks import _Checker
    from orchestration.narrative.sanitize import names_as_code

    said = "为 fully-async 引入 Qwen2.5-32B，在 H20 上 NCCL 从 14.2 s 降到 6.2 s（#7144）"
    assert names_as_code(said) == (
        "为 `fully-async` 引入 `Qwen2.5-32B`，在 `H20` 上 `NCCL` 从 14.2 秒降到 6.2 秒（#7144）"
    )
    assert names_as_code("加速 2.3x，8GB") == "加速 2.3x，8GB"
    assert names_as_code("PR 与 CI、`use_x` 和 GPU/NPU") == "PR 与 CI、`use_x` 和 `GPU/NPU`"
    facts = [
        {"id": "p1", "kind": "pr", "pr": 1, "title": "[fsdp] feat: VeOmni offload for Qwen3.5"},
        {"id": "p1.d1", "kind": "sentence", "pr": 1, "text": "Adds VeOmni offload for Qwen3.5."},
    ]
    ask = type("Ask", (), {"fact_list": facts})()
    check = _Checker(ask, {1})
    kept = check.claim(
        {"zh": "#1 为 Qwen3.5 加入 VeOmni offload。", "en": "#1 adds VeOmni offload for "
         "Qwen3.5.", "facts": ["p1", "p1.d1"]}, "summary[0]",
    )  # fmt: skip
    assert kept is not None and kept["zh"] == "#1 为 `Qwen3.5` 加入 `VeOmni` offload。"
    assert kept["en"] == "#1 adds VeOmni offload for Qwen3.5."
    assert check.label("VeOmni 卸载修复", {1}, "title_zh", "zh") == "`VeOmni` 卸载修复"
