"""What the sources and the lake agree on: the error for a record that cannot be trusted."""

from __future__ import annotations


class SourceDataError(ValueError):
    """A record that cannot be trusted; the partition fails instead of storing a guess."""
