"""The narrative in whole runs of verl 2026-W30: a hostile model reaches no reader, a step
that fails in every way a server can still writes the reports and says what happened, and a
careful model's recorded answers reach every part.

The week is built once without a model; each test copies that home and runs only the
narrative, publishing, report (and delivery) assets, or asks the narrative directly.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import time
from datetime import date
from pathlib import Path

import dagster as dg
import duckdb
import pytest
import yaml
from delivery_receivers import SlackReceiver, SmtpReceiver

from bench.narrative import FIXTURES
from orchestration.narrative.client import ChatClient
from orchestration.narrative.narrate import narrate_week
from orchestration.narrative.report import load_narrative
from orchestration.narrative.settings import LlmSettings
from orchestration.narrative.store import ensure_table, replace_week
from orchestration.report.queries import load_week
from orchestration.report.render import render_week
from orchestration.report.translator import md_inline
from orchestration.testing.github_emulator import Emulator
from orchestration.testing.llm_emulator import LlmEmulator, LlmFault
from orchestration.testing.llm_emulator.replay import Replay
from tests.conftest import VERL_DATASET
from tests.e2e.test_reliability_secrets import event_log, everything_under
from tests.e2e.test_report_history import LATIN_LIMIT, body_of, latin_share

REPO, WEEK, MONDAY = "verl-project/verl", "2026-W30", date(2026, 7, 20)
PASSWORD = "sk-FAKEurlPASSWORD-0123456789"
GITHUB_TOKEN = "ghp_FAKEnarrativeTOKEN_0123456789abcdef"
HOSTILE = (  # what the hostile emulator invents (orchestration/testing/llm_emulator/answers.py)
    "2520%",
    "evil.example",
    "acme/everyone",
    "@acme",
    "production database",
    "生产数据库",
    "ray.get",
    "1007144",
    "提升三成",
    "three times faster",
    "2026 行",
    "2026 rows",
    "fixes a security hole",
    "修复了安全漏洞",
    "onerror",
    "org/team",
    "吞吐量翻倍",
    "for every user",
)


@pytest.fixture(scope="module")
def week_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """verl 2026-W30 built without a model."""
    if not VERL_DATASET.exists():
        pytest.skip("the shared verl dataset is not beside the clone (../shared/datasets/)")
    from orchestration.service.cli import main

    home = tmp_path_factory.mktemp("narrative-runs") / "home"
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stderr(io.StringIO()):
        for name in ("PRWEEKLY_SOURCE", "GITHUB_TOKEN", "DAGSTER_HOME", "PRWEEKLY_LLM_URL"):
            mp.delenv(name, raising=False)
        mp.setenv("PRWEEKLY_HOME", str(home))
        args = ["build", "--repo", REPO, "--week", WEEK, "--source", f"file:{VERL_DATASET}"]
        assert main(args) == 0
    return home


def _texts(home: Path) -> dict[str, str]:
    """Every page, report and feed the home's reports folder holds, by path."""
    return {str(p): p.read_text("utf-8") for p in (home / "reports").rglob("*") if p.is_file()}


def _copy(home: Path, tmp_path: Path) -> Path:
    target = tmp_path / "home"
    shutil.copytree(home, target)
    return target


def _run(home: Path, env: dict, assets: tuple[str, ...]) -> dg.ExecuteInProcessResult:
    """A run of `assets` of the week, as the weekly job would run them."""
    from orchestration.assets import partition_key
    from orchestration.config import load_settings
    from orchestration.service.definitions import defs
    from orchestration.service.instance import get_instance
    from orchestration.service.progress import progress_logger

    with pytest.MonkeyPatch.context() as mp:
        for name in ("PRWEEKLY_SOURCE", "GITHUB_TOKEN", "DAGSTER_HOME", "PRWEEKLY_LLM_API_KEY"):
            mp.delenv(name, raising=False)
        mp.setenv("PRWEEKLY_HOME", str(home))
        for name, value in env.items():
            mp.setenv(name, value)
        key = str(partition_key(REPO, MONDAY))
        job = defs.resolve_job_def("weekly_report_job")
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            return job.with_logger_defs({"progress": progress_logger}).execute_in_process(
                instance=get_instance(load_settings()),
                tags={
                    "dagster/asset_partition_range_start": key,
                    "dagster/asset_partition_range_end": key,
                },
                run_config={
                    "loggers": {"progress": {}},
                    "resources": {"prweekly": {"config": {"home": str(home)}}},
                },
                asset_selection=[dg.AssetKey(name) for name in assets],
                raise_on_error=False,
            )


def _rows(home: Path) -> list[dict]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        cursor = conn.execute(
            "select kind, number, source, failed_checks, dropped_claims, usage_estimated, "
            "prompt_tokens, request, narrative from narrative.pr_narratives "
            "where repo = ? and week_start = ?",
            [REPO, MONDAY],
        )
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _logs(home: Path, run_id: str) -> str:
    """The run's log lines, as Dagster's run history keeps them."""
    from orchestration.config import load_settings
    from orchestration.service.instance import get_instance

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PRWEEKLY_HOME", str(home))
        entries = get_instance(load_settings()).all_logs(run_id)
    return "\n".join(entry.user_message or "" for entry in entries)


def _metadata(result: dg.ExecuteInProcessResult) -> dict:
    (event,) = [
        e
        for e in result.get_asset_materialization_events()
        if e.asset_key.path == ["pr_narratives"]
    ]
    return {k: v.value for k, v in event.materialization.metadata.items()}


def test_a_hostile_model_reaches_no_report_page_feed_or_payload(
    week_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = _copy(week_home, tmp_path)
    slack, smtp = SlackReceiver("/services/T0/B0/hostile"), SmtpReceiver("bot", "smtp-pass")
    github = Emulator(VERL_DATASET, token=GITHUB_TOKEN)
    deliver = {
        "site_url": "https://reports.example.com/",
        "slack": {"webhook_url": "${TEST_SLACK_WEBHOOK}"},
        "github": {"discussion_category": "Announcements"},
        "email": {
            "to": ["team@example.com"],
            "smtp_url": f"smtp://bot@127.0.0.1:{smtp.port}",
            "password_env": "TEST_SMTP_PASSWORD",
            "from": "prweekly@example.com",
        },
    }
    entry = {"name": REPO, "source": f"file:{VERL_DATASET}", "deliver": deliver}
    (home / "repositories.yml").write_text(yaml.safe_dump({"repositories": [entry]}))
    before = _texts(home)
    with LlmEmulator() as emulator, slack, smtp, github:
        emulator.faults.fail_randomly(LlmFault.HOSTILE, 1.0)
        env = {
            "PRWEEKLY_LLM_URL": emulator.url,
            "PRWEEKLY_LLM_MODEL": "hostile",
            "TEST_SLACK_WEBHOOK": slack.url,
            "TEST_SMTP_PASSWORD": "smtp-pass",
            "GITHUB_TOKEN": GITHUB_TOKEN,
            "GITHUB_GRAPHQL_URL": github.url,
        }
        assets = ("pr_narratives", "published_warehouse", "weekly_report", "delivered_reports")
        result = _run(home, env, assets)
    assert result.success
    rows = _rows(home)
    assert {r["source"] for r in rows} == {"model"} and all(r["dropped_claims"] for r in rows)
    texts = _texts(home)
    assert any(name.endswith(".xml") for name in texts) and any("index" in n for n in texts)
    texts |= {f"slack {i}": json.dumps(m, ensure_ascii=False) for i, m in enumerate(slack.messages)}
    for i, (_, message) in enumerate(smtp.messages):
        texts[f"email {i}"] = "\n".join(
            part.get_content() for part in message.walk() if part.get_content_maintype() == "text"
        )
    texts |= {f"github {i}": f"{p.title}\n{p.body}" for i, p in enumerate(github.posts.items)}
    assert slack.messages and smtp.messages and github.posts.items
    found = {
        (name, mark)
        for name, text in texts.items()
        for mark in HOSTILE
        if text.count(mark) > before.get(name, "").count(mark)  # the facts may say it already
    }
    assert found == set()
    zh = texts[str(home / "reports" / "verl-project__verl" / f"{MONDAY}.zh.md")]
    # the model's one good sentence is shown, for each key PR (its story, the appendix's words)
    assert zh.count("**说明**：该 PR 是 ") == 9 and zh.split("## 附录")[0].count("该 PR 是 ") >= 3
    assert "句无法由所引事实证实的表述已删去" in zh  # and the reader is told what was left out


def test_a_step_failing_every_way_writes_the_reports_and_says_what_happened(
    week_home: Path, tmp_path: Path
) -> None:
    home = _copy(week_home, tmp_path)
    with LlmEmulator() as emulator:
        emulator.refuse_strict_lengths = True  # as some hosted services do in strict mode
        emulator.faults.trickle_seconds = 0.25
        emulator.faults.fail_next(LlmFault.BAD_USAGE, after=1)  # the first is refused
        emulator.faults.fail_next(LlmFault.NO_USAGE)
        emulator.faults.fail_next(LlmFault.TRICKLE)
        url = emulator.url.replace("http://", f"http://bot:{PASSWORD}@")
        env = {
            "PRWEEKLY_LLM_URL": url,
            "PRWEEKLY_LLM_MODEL": "robust",
            "PRWEEKLY_LLM_CONCURRENCY": "1",
            "PRWEEKLY_LLM_REQUEST_DEADLINE_SECONDS": "2",
        }
        started = time.monotonic()
        result = _run(home, env, ("pr_narratives", "published_warehouse", "weekly_report"))
        elapsed = time.monotonic() - started
    assert result.success and elapsed < 120
    rows = {(r["kind"], r["number"]): r for r in _rows(home)}
    first, second, third = (rows[("pr", n)] for n in (7144, 6556, 7095))
    assert first["source"] == "model" and first["usage_estimated"]  # "prompt_tokens": "n/a"
    assert second["source"] == "model" and second["usage_estimated"]  # no usage at all
    assert second["prompt_tokens"] > 1000  # counted from the estimate, not as nothing
    assert third["source"] == "unavailable"
    assert "PRWEEKLY_LLM_REQUEST_DEADLINE_SECONDS=2" in third["failed_checks"][0]
    assert sum(r["source"] == "model" for r in rows.values()) == len(rows) - 1
    metadata = _metadata(result)
    assert metadata["schema"].startswith("relaxed: sent without minLength")
    assert "estimated by prweekly for 2 of" in metadata["token_counts"]
    assert metadata["endpoint"].startswith("http://***@127.0.0.1:")
    logs = _logs(home, result.run_id)
    assert "refused the schema in strict mode" in logs and "narrative not used for" in logs
    zh = (home / "reports" / "verl-project__verl" / f"{MONDAY}.zh.md").read_text("utf-8")
    assert "语言模型 `robust`" in zh and "**说明**：该 PR 是 " in zh
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PRWEEKLY_HOME", str(home))
        shown = [logs, json.dumps(metadata, default=str), *event_log(home), *everything_under(home)]
    assert [t for t in shown if PASSWORD in t] == []


def test_a_careful_models_answers_reach_every_part(week_home: Path, tmp_path: Path) -> None:
    copy = tmp_path / "warehouse.duckdb"
    shutil.copyfile(week_home / "warehouse.duckdb", copy)
    with LlmEmulator() as emulator, duckdb.connect(str(copy)) as conn:
        emulator.replay = Replay.from_folder(FIXTURES)
        ensure_table(conn)
        client = ChatClient(LlmSettings(emulator.url, "careful", None))
        outcomes = narrate_week(client, conn, REPO, MONDAY)
        replace_week(conn, REPO, MONDAY, outcomes)
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("PRWEEKLY_LLM_URL", emulator.url)
            mp.setenv("PRWEEKLY_LLM_MODEL", "careful")
            facts = load_week(conn, REPO, MONDAY)
            facts.narrative = load_narrative(conn, REPO, MONDAY)
    prompts = {o.number: json.dumps(o.request, ensure_ascii=False) for o in outcomes}
    assert len(outcomes) == 10 and [o.source for o in outcomes] == ["model"] * 10
    assert len({o.number for o in outcomes if o.kind == "pr"} & {6660}) == 1  # all 9 key PRs
    assert "Accumulation: 8" in prompts[7095] and "40.45%" in prompts[7095]  # the M=8 row
    assert "defaults to `false`" in prompts[7095] and "peak memory" in prompts[7095]
    assert "6.546 h" in prompts[6556]  # the baseline
    files = render_week(facts)
    zh, en = files[f"{MONDAY}.zh.md"], files[f"{MONDAY}.en.md"]
    shown = 0
    for outcome in outcomes:
        told = outcome.narrative
        if outcome.kind == "pr":
            shown += all(_words(c["zh"]) in zh for c in told["summary"])
        else:
            assert all(_words(c["zh"]) in zh for c in told["summary"])
            assert all(_words(c["en"]) in en for c in told["summary"])
            assert all(_words(r["zh"]) in zh for r in told["recommendations"])
    assert shown >= 8  # the report shows eight key changes at most
    # with the model's words the Chinese body stays Chinese and a two-minute read: its names
    # are code, its stories one or two sentences (the measure)
    body = body_of(zh)
    titles = [pr["title"] for pr in facts.prs]
    assert len(body) <= 5_000 and latin_share(body, titles) < LATIN_LIMIT, (
        len(body),
        latin_share(body, titles),
    )
    assert "`Qwen2.5-32B`" in body and " Qwen2.5-32B" not in body
    assert "墙钟时间缩短约 15.3%" in body and "注意：可能增加峰值内存；默认关闭。" in body
    assert "`Qwen3.5` 相关的 2 个 PR" in body and "`Ascend` 相关的 5 个 PR" in body


def _words(text: str) -> str:
    """The sentence's words up to its first code span or Markdown character, as rendered."""
    return md_inline(re.split(r"[`*_\[\]#<>|]", text, maxsplit=1)[0][:40])
