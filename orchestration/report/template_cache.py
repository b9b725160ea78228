"""Compiled report and site templates kept between processes (Jinja's bytecode cache).

Compiling the report's and the site's templates costs each process about 0.15 s of CPU
before its first page: every build, and each process a run renders reports in. Jinja keeps
the compiled code in the user's own temporary folder (which it makes with mode 700 and
checks); an entry is used only for the same template source and Python version, so an
edited template is compiled again. The environment's options (autoescaping, whitespace
control) are compiled into the code too, and Jinja's key leaves them out: each set of options
has its own entries (`environment`). A cache that cannot be written (a full disk) costs the
compilation, never the render.
"""

from __future__ import annotations

import hashlib
from contextlib import suppress
from functools import cache
from types import BuiltinMethodType, FunctionType, MethodType
from typing import Any

import jinja2
import jinja2.runtime
from markupsafe import Markup, _escape_inner, escape


class _QuietCache(jinja2.FileSystemBytecodeCache):
    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with suppress(OSError):  # nothing loaded: compiled
            super().load_bytecode(bucket)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with suppress(OSError):  # compiled again next time
            super().dump_bytecode(bucket)


@cache
def _cache_of(options: str) -> jinja2.BytecodeCache | None:
    try:
        return _QuietCache(pattern=f"__prweekly_{options}_%s.cache")
    except (RuntimeError, OSError):  # Jinja finds no folder of this user's own
        return None


def bytecode_cache(**options: Any) -> jinja2.BytecodeCache | None:
    """The cache of the environments made with `options` (the loader aside)."""
    described = repr(sorted((name, repr(value)) for name, value in options.items()))
    return _cache_of(hashlib.sha256(described.encode("utf-8")).hexdigest()[:16])


# what `getattr` finds on a plain dict before its items (`d.items` is the method, as in Jinja)
_DICT_ATTRIBUTES = frozenset(dir(dict))


# by function (a method's) or class (an instance's): whether Jinja passes it nothing
_TAKES_NOTHING: dict[Any, bool] = {}


def _callee(obj: Any) -> Any:
    """What decides whether Jinja passes `obj` a context: its function, or its class while
    the instance holds no `__call__` or `jinja_pass_arg` of its own; None: ask Jinja."""
    kind = type(obj)
    if kind is MethodType:
        return obj.__func__
    if kind is FunctionType:
        return obj
    if kind is BuiltinMethodType:  # a dict's `get`: nothing can mark it to want a context
        return kind
    own = getattr(obj, "__dict__", None)
    if own is None or "__call__" in own or "jinja_pass_arg" in own:
        return None
    return kind


def _takes_nothing(callee: Any) -> bool:
    if isinstance(callee, type):  # an instance: Jinja looks at it and at its `__call__`
        call = getattr(callee, "__call__", None)  # noqa: B004
        return not hasattr(callee, "jinja_pass_arg") and not hasattr(call, "jinja_pass_arg")
    return not hasattr(callee, "jinja_pass_arg")


class _Context(jinja2.runtime.Context):
    """Jinja's context, a call from a template made without Jinja's look for
    `pass_context` and the like on every call (thousands a report): whether a callable wants
    one is known from its function or class, the first time it is called."""

    def call(__self, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        callee = _callee(__obj)
        if callee is not None:
            plain = _TAKES_NOTHING.get(callee)
            if plain is None:
                plain = _TAKES_NOTHING[callee] = _takes_nothing(callee)
            if plain:
                if kwargs:
                    kwargs.pop("_block_vars", None)
                    kwargs.pop("_loop_vars", None)
                try:
                    return __obj(*args, **kwargs)
                except StopIteration:
                    return __self.environment.undefined(
                        "value was undefined because a callable raised a StopIteration exception"
                    )
        return super().call(__obj, *args, **kwargs)


_new_str = str.__new__


def _escape(value: Any) -> Markup:
    """markupsafe's `escape`, a str or a Markup (every value a template prints) without
    `Markup.__new__`'s look for `__html__`; the same text."""
    kind = type(value)
    if kind is str:
        return _new_str(Markup, _escape_inner(value))
    if kind is Markup:
        return value
    return escape(value)


class _Template(jinja2.Template):
    """A compiled template whose printed values are escaped by `_escape`."""

    @classmethod
    def _from_namespace(cls, environment: Any, namespace: Any, globals: Any) -> Any:
        if "escape" in namespace:
            namespace["escape"] = _escape
        return super()._from_namespace(environment, namespace, globals)


class _Environment(jinja2.Environment):
    """Jinja's environment, `row.name` on a plain dict looked up without raising first.

    Jinja tries the attribute, then the item: for a dict (every mart row a report reads) the
    attribute's AttributeError came first, thousands of times a report. The result is the
    same: a dict's own attributes still win, a missing key is still undefined."""

    context_class = _Context
    template_class = _Template

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        # Jinja's own look-up, spelt out here: a call fewer for each of the translator's
        # methods a template names (thousands a report)
        try:
            return getattr(obj, attribute)
        except AttributeError:
            pass
        try:
            return obj[attribute]
        except (TypeError, LookupError, AttributeError):
            return self.undefined(obj=obj, name=attribute)


def environment(loader: jinja2.BaseLoader, **options: Any) -> jinja2.Environment:
    """`jinja2.Environment(loader=loader, **options)` whose compiled templates are kept."""
    return _Environment(loader=loader, bytecode_cache=bytecode_cache(**options), **options)
