"""The report's and the site's templates are compiled once for every process: Jinja's bytecode
cache, which compiles an edited template again and never fails a render."""

from __future__ import annotations

from pathlib import Path

import jinja2

from orchestration.report.render import environments
from orchestration.site.build import _environment
from orchestration.template_cache import _QuietCache, bytecode_cache


def _env(templates: Path, cache: jinja2.BytecodeCache) -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(templates), bytecode_cache=cache)


def test_the_report_and_the_site_share_the_cache() -> None:
    assert bytecode_cache() is not None
    assert {env.bytecode_cache for env in environments().values()} == {bytecode_cache()}
    assert _environment().bytecode_cache is bytecode_cache()


def test_an_edited_template_is_compiled_again(tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    (tmp_path / "c").mkdir()
    page = tmp_path / "t" / "page.j2"
    page.write_text("one {{ x }}", encoding="utf-8")
    cache = _QuietCache(str(tmp_path / "c"))
    assert _env(tmp_path / "t", cache).get_template("page.j2").render(x=1) == "one 1"
    assert list((tmp_path / "c").iterdir())  # kept for the next process
    page.write_text("two {{ x }}", encoding="utf-8")
    assert _env(tmp_path / "t", cache).get_template("page.j2").render(x=1) == "two 1"


def test_a_cache_that_cannot_be_used_costs_the_compilation_only(tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "page.j2").write_text("{{ x }}", encoding="utf-8")
    (tmp_path / "not-a-folder").write_text("", encoding="utf-8")
    cache = _QuietCache(str(tmp_path / "not-a-folder"))
    assert _env(tmp_path / "t", cache).get_template("page.j2").render(x=2) == "2"
