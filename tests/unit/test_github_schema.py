"""The client's query documents are valid against GitHub's full public schema and the emulator's."""

from __future__ import annotations

from functools import cache

import pytest
from github_fakes import SHARED
from graphql import build_schema, parse, validate

from orchestration.extract.sources.github_queries import ALL_QUERIES, SEARCH_PAGE
from orchestration.testing.github_emulator.limits import analyse
from orchestration.testing.github_emulator.mutations import build

FULL_SCHEMA = SHARED / "github" / "schema.graphql"


@cache
def github_schema():
    if not FULL_SCHEMA.is_file():
        pytest.skip(f"GitHub's public schema is not at {FULL_SCHEMA.name} in ../shared/github/")
    # GitHub's published SDL defines one EnterpriseOwnerInfo field twice, which graphql-core's
    # schema check rejects; the documents are still validated against every type in it.
    return build_schema(FULL_SCHEMA.read_text(encoding="utf-8"), assume_valid=True)


@pytest.mark.parametrize("name", sorted(ALL_QUERIES))
def test_query_is_valid_against_githubs_full_schema(name):
    errors = validate(github_schema(), parse(ALL_QUERIES[name]))
    assert errors == [], [e.message for e in errors]


@pytest.mark.parametrize("name", sorted(ALL_QUERIES))
def test_query_is_valid_against_the_emulator_schema(name):
    errors = validate(build(), parse(ALL_QUERIES[name]))
    assert errors == [], [e.message for e in errors]


def test_emulator_schema_agrees_with_github_on_every_field_it_declares():
    full, mine = github_schema(), build()
    for name, kind in mine.type_map.items():
        if name.startswith("__") or name in ("String", "Int", "Boolean", "ID", "Float"):
            continue
        theirs = full.type_map[name]
        for field_name, field in getattr(kind, "fields", {}).items():
            assert str(theirs.fields[field_name].type) == str(field.type), f"{name}.{field_name}"
            for arg_name, arg in getattr(field, "args", {}).items():  # input fields have none
                assert str(theirs.fields[field_name].args[arg_name].type) == str(arg.type)


def test_a_search_page_stays_well_inside_githubs_limits():
    variables = {"owner": "o", "name": "n", "query": "q", "first": SEARCH_PAGE, "after": None}
    cost = analyse(build(), parse(ALL_QUERIES["search"]), variables)
    assert cost.nodes < 50_000  # GitHub's limit is 500,000
    assert cost.points <= 30


def test_a_misspelt_field_fails_against_githubs_schema():
    broken = ALL_QUERIES["search"].replace("changedFiles", "changedFile")
    assert validate(github_schema(), parse(broken))
