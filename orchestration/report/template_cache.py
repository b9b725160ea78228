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
from typing import Any

import jinja2


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


class _Environment(jinja2.Environment):
    """Jinja's environment, `row.name` on a plain dict looked up without raising first.

    Jinja tries the attribute, then the item: for a dict (every mart row a report reads) the
    attribute's AttributeError came first, thousands of times a report. The result is the
    same: a dict's own attributes still win, a missing key is still undefined."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


def environment(loader: jinja2.BaseLoader, **options: Any) -> jinja2.Environment:
    """`jinja2.Environment(loader=loader, **options)` whose compiled templates are kept."""
    return _Environment(loader=loader, bytecode_cache=bytecode_cache(**options), **options)
