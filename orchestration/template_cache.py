"""Compiled report and site templates kept between processes (Jinja's bytecode cache).

Compiling the report's and the site's templates costs each process about 0.15 s of CPU
before its first page: every build, and each process a run renders reports in. Jinja keeps
the compiled code in the user's own temporary folder (which it makes with mode 700 and
checks); an entry is used only for the same template source and Python version, so an
edited template is compiled again. A cache that cannot be written (a full disk) costs the
compilation, never the render.
"""

from __future__ import annotations

from contextlib import suppress
from functools import cache

import jinja2


class _QuietCache(jinja2.FileSystemBytecodeCache):
    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with suppress(OSError):  # nothing loaded: compiled
            super().load_bytecode(bucket)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with suppress(OSError):  # compiled again next time
            super().dump_bytecode(bucket)


@cache
def bytecode_cache() -> jinja2.BytecodeCache | None:
    """The cache every template environment shares; None where Jinja finds no folder of this
    user's own to keep it in."""
    try:
        return _QuietCache()
    except (RuntimeError, OSError):
        return None
