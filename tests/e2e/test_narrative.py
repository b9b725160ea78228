"""The language model's narrative, driven through the real client against the LLM emulator.

One verl week is built three times with the emulator (cold, warm, then with a wrong key and
another model); the fault tests ask single parts of that week's warehouse directly.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
from datetime import date
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from orchestration.narrative.client import ChatClient
from orchestration.narrative.narrate import ask, narrate_week
from orchestration.narrative.prompt import pr_asks, week_asks
from orchestration.narrative.report import load_narrative
from orchestration.narrative.settings import LlmSettings
from orchestration.narrative.store import ensure_table, find, replace_week
from orchestration.report.queries import load_week
from orchestration.report.render import render_week
from orchestration.report.translator import md_inline
from orchestration.service.cli import main
from orchestration.testing.llm_emulator import LlmEmulator, LlmFault
from tests.conftest import VERL_DATASET
from tests.e2e.test_reliability_secrets import event_log, everything_under

KEY = "sk-FAKEnarrativeKEY-0123456789abcdef"
MODEL = "emulated-model"
REPO, WEEK, MONDAY = "verl-project/verl", "2026-W30", "2026-07-20"
_CJK = re.compile(r"[\u4e00-\u9fff]")


@contextlib.contextmanager
def _environment(home: Path, url: str, model: str, key: str, out: io.StringIO):
    with pytest.MonkeyPatch.context() as mp:
        for name in ("PRWEEKLY_SOURCE", "GITHUB_TOKEN", "DAGSTER_HOME", "GITHUB_GRAPHQL_URL"):
            mp.delenv(name, raising=False)
        mp.setenv("PRWEEKLY_HOME", str(home))
        mp.setenv("PRWEEKLY_LLM_URL", url)
        mp.setenv("PRWEEKLY_LLM_MODEL", model)
        mp.setenv("PRWEEKLY_LLM_API_KEY", key)
        with contextlib.redirect_stderr(out), contextlib.redirect_stdout(out):
            yield


def _build(home: Path, url: str, model: str, key: str, out: io.StringIO) -> int:
    with _environment(home, url, model, key, out):
        return main(["build", "--repo", REPO, "--week", WEEK, "--source", f"file:{VERL_DATASET}"])


def _narrate_and_report(home: Path, url: str, model: str, key: str, out: io.StringIO) -> bool:
    """A run of the narrative, publishing and report steps only (the models are built)."""
    from orchestration.assets import partition_key
    from orchestration.config import load_settings
    from orchestration.service.definitions import defs
    from orchestration.service.instance import get_instance
    from orchestration.service.progress import progress_logger

    with _environment(home, url, model, key, out):
        job = defs.resolve_job_def("weekly_report_job")
        key_ = str(partition_key(REPO, date.fromisoformat(MONDAY)))
        result = job.with_logger_defs({"progress": progress_logger}).execute_in_process(
            instance=get_instance(load_settings()),
            tags={
                "dagster/asset_partition_range_start": key_,
                "dagster/asset_partition_range_end": key_,
            },
            run_config={
                "loggers": {"progress": {}},
                "resources": {"prweekly": {"config": {"home": str(home)}}},
            },
            asset_selection=[
                dg.AssetKey(name)
                for name in ("pr_narratives", "published_warehouse", "weekly_report")
            ],
            raise_on_error=False,
        )
    return result.success


def _reports(home: Path) -> dict[str, bytes]:
    folder = home / "reports" / "verl-project__verl"
    return {p.name: p.read_bytes() for p in sorted(folder.glob(f"{MONDAY}.*"))}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """verl 2026-W30 built cold, warm, then with a wrong key and another model."""
    if not VERL_DATASET.exists():
        pytest.skip("the shared verl dataset is not beside the clone (../shared/datasets/)")
    home = tmp_path_factory.mktemp("narrative") / "home"
    out = io.StringIO()
    with LlmEmulator(api_key=KEY) as emulator:
        assert _build(home, emulator.url, MODEL, KEY, out) == 0
        cold, first = emulator.requests_served, _reports(home)
        assert _build(home, emulator.url, MODEL, KEY, out) == 0
        warm, second = emulator.requests_served - cold, _reports(home)
        assert _narrate_and_report(home, emulator.url, "another-model", "sk-wrong", out)
        third = _reports(home)
    return {
        "home": home,
        "cold": cold,
        "warm": warm,
        "first": first,
        "second": second,
        "third": third,
        "output": out.getvalue(),
    }


def _week_numbers(conn: duckdb.DuckDBPyConnection) -> set[int]:
    rows = conn.execute(
        "select number from marts.fct_pull_requests where repo = ? and week_start = ?",
        [REPO, MONDAY],
    ).fetchall()
    return {n for (n,) in rows}


def test_the_chinese_report_uses_the_checked_narrative(built: dict) -> None:
    zh = built["first"][f"{MONDAY}.zh.md"].decode("utf-8")
    assert built["cold"] > 2
    with duckdb.connect(str(built["home"] / "warehouse.duckdb"), read_only=True) as conn:
        rows = conn.execute(
            "select kind, number, source, narrative from narrative.pr_narratives "
            "where repo = ? and week_start = ? and model = ?",
            [REPO, MONDAY, MODEL],
        ).fetchall()
        numbers = _week_numbers(conn)
    assert rows and all(source == "model" for _, _, source, _ in rows)
    assert len(rows) == built["cold"]  # one request per part, none retried
    week = next(json.loads(n) for kind, _, _, n in rows if kind == "week")
    assert f"由语言模型 `{MODEL}` 撰写" in zh.split("## 附录")[0]  # the footer line
    # the model's summary opens the report (it says the week's theme: the header does not)
    summary = "".join(c["zh"] for c in week["summary"])
    assert md_inline(summary.split("`")[0].split("#")[0][:20]) in zh.split("## 本周概要")[1]
    assert "主题" not in zh.split("## ")[0] and week["recommendations"] and week["stories"]
    assert len([r for r in rows if r[0] == "pr"]) == 9  # every key PR, #6660 too
    unlinked = re.sub(r"\[(#\d+)\]\([^)]*\)", r"\1", zh)
    for kind, _, _, narrative in rows:
        text = json.loads(narrative)
        if kind == "pr":  # each key PR's words, in the appendix if not in a story
            summary = "".join(c["zh"] for c in text["summary"])
            assert md_inline(summary.split("`")[0][:20]) in unlinked, summary
            assert _CJK.search(summary)
    actions = unlinked.split("## 后续建议")[1].split("\n## ")[0]
    for item in week["recommendations"]:  # each PR it names is a link
        assert md_inline(item["zh"].split("`")[0][:20]) in actions, item["zh"]
    assert week["stories"][0]["title_zh"] in zh
    linked = {int(n) for n in re.findall(r"/pull/(\d+)\)", zh)}
    assert linked and linked <= numbers
    en = built["first"][f"{MONDAY}.en.md"].decode("utf-8")
    assert f"Written by the language model `{MODEL}`" in en


def test_a_second_build_asks_nothing_and_is_byte_identical(built: dict) -> None:
    assert built["warm"] == 0
    assert built["second"] == built["first"]


def test_a_wrong_key_stops_the_narrative_only(built: dict, monkeypatch) -> None:
    from orchestration.config import load_settings
    from orchestration.report.publisher import ReportPublisher

    assert "refused the key (HTTP 401): check PRWEEKLY_LLM_API_KEY" in built["output"]
    zh = built["third"][f"{MONDAY}.zh.md"].decode("utf-8")
    assert "语言模型" not in zh  # no text of another model, no note
    monkeypatch.setenv("PRWEEKLY_HOME", str(built["home"]))
    week = date.fromisoformat(MONDAY)
    with duckdb.connect(str(built["home"] / "warehouse.duckdb"), read_only=True) as conn:
        notes = ReportPublisher(load_settings()).notes(conn, REPO, week)  # stamp and links
        today = render_week(load_week(conn, REPO, week), notes)  # as without a model
    from orchestration.service.instance import get_instance

    check = dg.AssetCheckKey(dg.AssetKey("pr_narratives"), "model_answered")
    (last,) = get_instance(load_settings()).event_log_storage.get_asset_check_execution_history(
        check, limit=1
    )
    evaluation = last.event.dagster_event.event_specific_data
    assert not evaluation.passed and "PRWEEKLY_LLM_API_KEY" in evaluation.description
    assert built["third"][f"{MONDAY}.zh.md"] == today[f"{MONDAY}.zh.md"].encode("utf-8")
    assert built["third"][f"{MONDAY}.en.html"] == today[f"{MONDAY}.en.html"].encode("utf-8")


def test_the_key_never_leaks(built: dict) -> None:
    home = built["home"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PRWEEKLY_HOME", str(home))
        events = event_log(home)
    texts = [built["output"], *events, *everything_under(home)]
    leaks = [text[max(0, text.find(KEY) - 80) :][:200] for text in texts if KEY in text]
    assert leaks == []
    assert KEY[3:] not in "".join(texts)


# --- faults, one part at a time -------------------------------------------------------------


@pytest.fixture(scope="module")
def week_parts(built: dict) -> tuple[list, set[int]]:
    with duckdb.connect(str(built["home"] / "warehouse.duckdb"), read_only=True) as conn:
        return week_asks(conn, REPO, date.fromisoformat(MONDAY)), _week_numbers(conn)


@pytest.fixture
def emulator():
    with LlmEmulator() as server:
        yield server


def _client(emulator: LlmEmulator, wait: float = 5.0, timeout: float = 30.0) -> ChatClient:
    llm = LlmSettings(emulator.url, MODEL, None, max_wait_seconds=wait)
    return ChatClient(llm, timeout=timeout)


@pytest.mark.parametrize(
    ("fault", "times", "source", "reason"),
    [
        (LlmFault.SERVER_ERROR, 2, "model", None),
        (LlmFault.RATE_LIMIT, 1, "model", None),
        (LlmFault.INVALID_JSON, 1, "model", "not valid JSON"),
        (LlmFault.INVALID_JSON, 2, "fallback", "not valid JSON"),
        (LlmFault.BREAK_SCHEMA, 2, "fallback", "lacks 'summary'"),
        (LlmFault.FOREIGN_PR, 2, "fallback", "(not a PR of this week), which its cited facts"),
        (LlmFault.UNKNOWN_FIGURE, 2, "fallback", "states 9876.5%, which no cited fact gives"),
        (LlmFault.ENGLISH, 2, "fallback", "summary[0].zh is not written in Chinese"),
    ],
)
def test_each_fault_is_retried_or_rejected_with_its_reason(
    emulator: LlmEmulator, week_parts: tuple, fault: LlmFault, times: int, source: str, reason
) -> None:
    asks, numbers = week_parts
    emulator.faults.retry_after_seconds = 1
    emulator.faults.fail_next(fault, times)
    outcome = ask(_client(emulator), asks[0], numbers)
    assert outcome.source == source
    if reason is None:
        assert outcome.failed_checks == [] and outcome.attempts == 1
    else:
        assert any(reason in check for check in outcome.failed_checks), outcome.failed_checks
        retry = json.loads(emulator.requests[1]["body"])["messages"][-1]["content"]
        assert "Your answer cannot be used" in retry and reason.split(",")[0] in retry
    if source == "fallback":
        assert outcome.narrative is None and outcome.attempts == 2
    else:
        assert outcome.narrative["number"] == asks[0].number


def test_a_timeout_is_asked_again(emulator: LlmEmulator, week_parts: tuple) -> None:
    asks, numbers = week_parts
    emulator.faults.delay_seconds = 1.0
    emulator.faults.fail_next(LlmFault.TIMEOUT)
    outcome = ask(_client(emulator, timeout=0.3), asks[-1], numbers)
    assert outcome.source == "model" and emulator.requests_served == 2


def test_a_rate_limit_past_the_wait_ceiling_is_not_waited_for(
    emulator: LlmEmulator, week_parts: tuple
) -> None:
    asks, numbers = week_parts
    emulator.faults.retry_after_seconds = 600
    emulator.faults.fail_next(LlmFault.RATE_LIMIT)
    outcome = ask(_client(emulator, wait=5.0), asks[0], numbers)
    assert outcome.source == "unavailable"
    assert "PRWEEKLY_MAX_WAIT_SECONDS" in outcome.failed_checks[0]


def test_faulty_answers_leave_whole_weeks_naming_only_their_prs(
    built: dict, emulator: LlmEmulator, week_parts: tuple, tmp_path: Path
) -> None:
    asks, numbers = week_parts
    for fault in (LlmFault.FOREIGN_PR, LlmFault.UNKNOWN_FIGURE, LlmFault.ENGLISH):
        emulator.faults.fail_randomly(fault, 0.3)
    copy = tmp_path / "warehouse.duckdb"
    shutil.copyfile(built["home"] / "warehouse.duckdb", copy)
    with duckdb.connect(str(copy)) as conn:
        ensure_table(conn)
        # as the build asks: the week's request is built from the PR answers accepted, so the
        # report finds it (which parts fail depends on the threads' order, not on the seed)
        replace_week(conn, REPO, date.fromisoformat(MONDAY), [])  # nothing from the cache
        outcomes = narrate_week(_client(emulator), conn, REPO, date.fromisoformat(MONDAY))
        replace_week(conn, REPO, date.fromisoformat(MONDAY), outcomes)
        stored = find(conn, [o.input_hash for o in outcomes])
        assert len(stored) == len(outcomes) == len(asks)  # each: the model's text or fallback
        assert {o.source for o in stored.values()} <= {"model", "fallback"}
        assert any(o.source == "fallback" for o in stored.values())
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("PRWEEKLY_LLM_URL", emulator.url)
            mp.setenv("PRWEEKLY_LLM_MODEL", MODEL)
            facts = load_week(conn, REPO, date.fromisoformat(MONDAY))
            facts.narrative = load_narrative(conn, REPO, date.fromisoformat(MONDAY))
    files = render_week(facts)
    for name, text in files.items():
        named = {int(n) for n in re.findall(r"/pull/(\d+)", text)}
        assert named <= numbers, (name, named - numbers)
    assert "改用确定性文本" in files[f"{MONDAY}.zh.md"]


def test_a_changed_pr_asks_again_only_for_itself_and_its_week(
    built: dict, emulator: LlmEmulator, tmp_path: Path
) -> None:
    copy = tmp_path / "warehouse.duckdb"
    shutil.copyfile(built["home"] / "warehouse.duckdb", copy)
    monday = date.fromisoformat(MONDAY)
    with duckdb.connect(str(copy)) as conn:
        changed = pr_asks(conn, REPO, monday)[1].number
        conn.execute(
            "update marts.fct_pull_requests set title = title || ' (edited)' "
            "where repo = ? and number = ?",
            [REPO, changed],
        )
        outcomes = narrate_week(_client(emulator), conn, REPO, monday)
    asked = [json.loads(r["body"])["messages"][1]["content"] for r in emulator.requests]
    assert len(asked) == 2 and f'"number":{changed},' in asked[0]
    assert {o.number for o in outcomes if not o.cached} == {changed, None}


# --- settings ---------------------------------------------------------------------------------


def test_without_a_url_no_model_is_set_and_the_key_never_shows_in_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from orchestration.config import UsageError
    from orchestration.narrative.settings import load_llm_settings

    for name in ("PRWEEKLY_LLM_URL", "PRWEEKLY_LLM_MODEL", "PRWEEKLY_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert load_llm_settings() is None
    monkeypatch.setenv("PRWEEKLY_LLM_URL", "http://localhost:11434/v1")
    with pytest.raises(UsageError, match="PRWEEKLY_LLM_MODEL"):
        load_llm_settings()
    monkeypatch.setenv("PRWEEKLY_LLM_MODEL", "qwen2.5:7b")
    monkeypatch.setenv("PRWEEKLY_LLM_API_KEY", KEY)
    monkeypatch.setenv("PRWEEKLY_LLM_CONCURRENCY", "0")
    with pytest.raises(UsageError, match="at least 1"):
        load_llm_settings()
    monkeypatch.delenv("PRWEEKLY_LLM_CONCURRENCY")
    llm = load_llm_settings()
    assert llm.endpoint == "http://localhost:11434/v1/chat/completions"
    assert llm.api_key == KEY and KEY not in repr(llm) and KEY not in str(llm)


def test_the_llm_emulator_lists_its_fault_kinds(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit):
        main(["llm-emulator", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert all(fault.value in text for fault in LlmFault)
