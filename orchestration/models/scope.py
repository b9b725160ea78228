"""The partitions a run covers, as values of the project's partition keys, and the SQL filter
that selects their rows (what an incremental run replaces and its data tests check)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from orchestration.models.project import PartitionKey


@dataclass(frozen=True)
class Scope:
    """By partition column: the values a run covers, or the closed range (first, last) it does.

    A column the scope does not name is not filtered: every value of it is in the scope.
    """

    values: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    ranges: dict[str, tuple[Any, Any]] = field(default_factory=dict)

    def filter(
        self, columns: set[str] | None = None, tag: str = ""
    ) -> tuple[str, dict[str, Any]] | None:
        """`column = ... and column between ...` over the scope's columns (those found in
        `columns`, if given; parameters named after `tag`), or None when it names none."""
        columns = set(self.values) | set(self.ranges) if columns is None else columns
        terms, params = [], {}
        for column, values in self.values.items():
            if column in columns:
                name = f"scope_{column}{tag}"
                if len(values) == 1:
                    terms.append(f"{column} = ${name}")
                    params[name] = values[0]
                else:
                    terms.append(f"{column} in (select unnest(${name}))")
                    params[name] = list(values)
        for column, (first, last) in self.ranges.items():
            if column in columns:
                name = f"scope_{column}{tag}"
                terms.append(f"{column} between ${name}_first and ${name}_last")
                params.update({f"{name}_first": first, f"{name}_last": last})
        return (" and ".join(terms), params) if terms else None

    def variables(self, partitions: dict[str, PartitionKey]) -> dict[str, Any]:
        """The run's values as the project's variables name them (`var('repo')`, ...); a key
        with several values has no variable (a model filters on it with `scoped()`)."""
        found: dict[str, Any] = {}
        for key in partitions.values():
            if key.var and len(self.values.get(key.column, ())) == 1:
                found[key.var] = self.values[key.column][0]
            if key.first and key.column in self.ranges:
                found[key.first], found[key.last] = self.ranges[key.column]
        return found

    def several(self, column: str) -> int:
        """How many values the scope names for `column` when it names more than one, else 0."""
        count = len(self.values.get(column, ()))
        return count if count > 1 else 0

    def extended(self, partitions: dict[str, PartitionKey], steps: int) -> Scope:
        """The scope with each ranged key reaching `steps` steps further back."""
        ranges = dict(self.ranges)
        for key in partitions.values():
            if key.step_days and key.column in ranges:
                first, last = ranges[key.column]
                ranges[key.column] = (first - timedelta(days=key.step_days * steps), last)
        return Scope(dict(self.values), ranges)


def any_of(scopes: list[Scope] | None, columns: set[str]) -> tuple[str, dict[str, Any]]:
    """A filter on the rows of any of `scopes` (every row when None, or when a scope names
    none of `columns`)."""
    if not scopes:
        return "true", {}
    terms, params = [], {}
    for i, scope in enumerate(scopes):
        found = scope.filter(columns, f"_{i}")
        if found is None:
            return "true", {}
        terms.append(f"({found[0]})")
        params.update(found[1])
    return " or ".join(terms), params
