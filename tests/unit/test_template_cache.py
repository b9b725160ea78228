"""The report's and the site's templates are compiled once for every process: Jinja's bytecode
cache, kept apart per set of environment options, which compiles an edited template again and
never fails a render."""

from __future__ import annotations

from pathlib import Path

import jinja2

from orchestration.report.render import environments
from orchestration.report.template_cache import _QuietCache, environment
from orchestration.site.build import _environment


def _env(templates: Path, cache: jinja2.BytecodeCache) -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(templates), bytecode_cache=cache)


def test_the_report_and_the_site_keep_their_compiled_templates() -> None:
    caches = [env.bytecode_cache for env in [*environments().values(), _environment()]]
    assert all(caches) and len(set(caches)) == 3  # Markdown, HTML and the site's apart


def test_environments_with_other_options_do_not_share_compiled_code(tmp_path: Path) -> None:
    """Autoescaping is compiled into a template's code, and Jinja's cache key leaves it out:
    a template the Markdown environment compiled, loaded as HTML, would escape nothing."""
    (tmp_path / "page.j2").write_text("{{ x }}", encoding="utf-8")
    loader = jinja2.FileSystemLoader(tmp_path)
    for _ in range(2):  # the second time from the cache
        assert environment(loader).get_template("page.j2").render(x="<b>") == "<b>"
        html = environment(loader, autoescape=True)
        assert html.get_template("page.j2").render(x="<b>") == "&lt;b&gt;"


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


class _Callable:
    def __call__(self, x: int) -> str:
        return f"<{x}>"


class _WithContext:
    @jinja2.pass_context
    def __call__(self, context: jinja2.runtime.Context, x: int) -> str:
        return f"{context['y']}{x}"


def test_a_template_calls_each_kind_of_callable_as_jinja_does(tmp_path: Path) -> None:
    """The context's own `call` skips Jinja's look for `pass_context` on callables known to
    want none: those that want the context, the environment or the evaluation context still
    get it, in a loop too, and a StopIteration is still undefined."""
    (tmp_path / "page.j2").write_text(
        "{% for i in [1] %}{{ plain(i) }} {{ obj(i) }} {{ ctx(i) }} {{ env_name(i) }} "
        "{{ eval_auto(i) }} {{ bound(i) }} {{ with_context(i) }}{% endfor %} [{{ stop() }}]",
        encoding="utf-8",
    )
    own = _Callable()
    own.__call__ = lambda x: f"own {x}"  # an instance's own __call__ is not the class's

    def stop() -> None:
        raise StopIteration

    values = {
        "plain": lambda x: f"<{x}>",
        "obj": own,
        "ctx": jinja2.pass_context(lambda c, x: f"{c['y']}{x}"),
        "env_name": jinja2.pass_environment(lambda e, x: f"{type(e).__name__}{x}"),
        "eval_auto": jinja2.pass_eval_context(lambda e, x: f"{e.autoescape}{x}"),
        "bound": _Callable().__call__,
        "with_context": _WithContext(),
        "stop": stop,
        "y": "y",
    }
    env = environment(jinja2.FileSystemLoader(tmp_path), autoescape=True)
    for _ in range(2):  # the second time from what the first call learnt
        assert env.get_template("page.j2").render(**values) == (
            "&lt;1&gt; &lt;1&gt; y1 _Environment1 True1 &lt;1&gt; y1 []"
        )


def test_printed_values_are_escaped_as_markupsafe_escapes_them(tmp_path: Path) -> None:
    from markupsafe import Markup

    (tmp_path / "page.j2").write_text("{{ a }}|{{ b }}|{{ c }}|{{ d }}", encoding="utf-8")
    env = environment(jinja2.FileSystemLoader(tmp_path), autoescape=True)
    page = env.get_template("page.j2").render(a="<'&\">", b=Markup("<i>"), c=3, d=None)
    assert page == "&lt;&#39;&amp;&#34;&gt;|<i>|3|None"


def test_a_name_is_looked_up_as_jinja_looks_it_up(tmp_path: Path) -> None:
    """An object's attribute before its item, a dict's item before its attribute (its methods
    still win), and neither found is undefined, as in Jinja's own environment."""

    class Both(dict):
        title = "attribute"

    (tmp_path / "page.j2").write_text(
        "{{ o.title }}|{{ b.title }}|{{ b.other }}|{{ d.title }}|{{ d.items is callable }}|"
        "{{ l.real }}|{{ o.missing is undefined }}|{{ d.missing is undefined }}",
        encoding="utf-8",
    )

    class Obj:
        title = "object"

    env = environment(jinja2.FileSystemLoader(tmp_path), undefined=jinja2.Undefined)
    page = env.get_template("page.j2").render(
        o=Obj(), b=Both(title="item", other="item"), d={"title": "item", "items": 1}, l=3
    )
    assert page == "object|attribute|item|item|True|3|True|True"


def test_a_builtin_method_is_called_with_its_own_arguments(tmp_path: Path) -> None:
    (tmp_path / "page.j2").write_text(
        "{{ d.get('a') }}|{{ d.get('b', 'none') }}|{{ ', '.join(['x', 'y']) }}|{{ len([1]) }}",
        encoding="utf-8",
    )
    env = environment(jinja2.FileSystemLoader(tmp_path), autoescape=True)
    for _ in range(2):
        page = env.get_template("page.j2").render(d={"a": "<1>"}, len=len)
        assert page == "&lt;1&gt;|none|x, y|1"
