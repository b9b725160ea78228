"""Caveats as the body states them: by their structured detail (what is traded and which way,
how a default is set, what is left out, where it was not verified), worded in each language, a
Chinese sentence never holding the description's English; the actions name the detail too."""

from __future__ import annotations

from pathlib import Path

from tests.unit.test_report_body import body, files_of, link, three_prs, warehouse

DETAILED = """
alter table marts.fct_pull_requests drop column caveats;
alter table marts.fct_pull_requests add column caveats
    struct(kind varchar, sentence varchar, subject varchar, effect varchar)[];
update marts.fct_pull_requests set caveats = [
    {'kind': 'default', 'sentence': 'This PR adds an opt-in setting: use_no_sync: true.',
     'subject': 'use_no_sync', 'effect': 'opt_in'},
    {'kind': 'trade_off', 'sentence': 'It reduces memory overhead.',
     'subject': 'memory', 'effect': 'improves'},
    {'kind': 'trade_off', 'sentence': 'It defaults to false: it can increase peak memory.',
     'subject': 'peak_memory', 'effect': 'increase'},
    {'kind': 'default', 'sentence': 'It defaults to false: it can increase peak memory.',
     'subject': null, 'effect': 'off_by_default'},
    {'kind': 'unverified', 'sentence': 'Throughput should be measured on GPU/NPU.',
     'subject': 'GPU/NPU', 'effect': 'not_measured'}]
where number = 1;
update marts.fct_pull_requests set caveats = [
    {'kind': 'omission', 'sentence': 'algo.max_batches is intentionally ignored.',
     'subject': 'algo.max_batches', 'effect': 'ignored'},
    {'kind': 'omission', 'sentence': 'The existing behaviour remains unchanged.',
     'subject': 'existing behaviour', 'effect': 'unchanged'},
    {'kind': 'unverified', 'sentence': 'Not verified on CUDA (no GPU available).',
     'subject': 'CUDA', 'effect': 'not_verified'}]
where number = 2;
"""


def test_a_caveat_is_worded_from_its_detail_in_each_language(tmp_path: Path) -> None:
    files = files_of(warehouse(tmp_path, three_prs(), DETAILED))
    zh, en = body(files["2026-07-20.zh.md"]), body(files["2026-07-20.en.md"])
    # what it costs, then how it is switched on: the default that says most, once
    assert "注意：可能增加峰值内存；默认关闭。" in zh
    assert "Caveat: may increase peak memory; off by default." in en
    # an omission names what it leaves out as code; a reassurance is no caveat
    assert "注意：未在 `CUDA` 上验证；有意忽略 `algo.max_batches`。" in zh
    assert "Caveat: not verified on `CUDA`; ignores `algo.max_batches`." in en
    for words in ("peak memory", "reduces", "unchanged", "defaults to", "intentionally"):
        assert words not in zh
    assert "memory overhead" not in en and "unchanged" not in en


def test_an_action_on_a_caveat_names_its_detail(tmp_path: Path) -> None:
    files = files_of(warehouse(tmp_path, three_prs(), DETAILED))
    zh = body(files["2026-07-20.zh.md"]).split("## 后续建议")[1]
    en = body(files["2026-07-20.en.md"]).split("## What to do")[1]
    assert f"在 `CUDA` 上验证作者没有验证过的改动：{link(2)}" in zh
    assert f"先在 `GPU/NPU` 上实测，再决定是否推广：{link(1)}" in zh
    assert f"Verify it on `CUDA`, where its author did not: {link(2)}" in en
    assert f"Measure it on `GPU/NPU` before rolling it out: {link(1)}" in en
