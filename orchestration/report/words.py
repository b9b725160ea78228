"""The names a `str.format` template of the i18n strings fills, so that only those are worded."""

from __future__ import annotations

import re
from functools import lru_cache
from string import Formatter


@lru_cache(maxsize=1024)
def fields_of(template: str) -> frozenset[str]:
    """The names `template` fills (`{x.y}` and `{x[0]}` fill `x`)."""
    fields = (field for _, field, _, _ in Formatter().parse(template) if field)
    return frozenset(re.split(r"[.\[]", field, maxsplit=1)[0] for field in fields)
