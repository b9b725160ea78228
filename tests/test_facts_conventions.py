"""Change type and areas on repositories with other habits than verl's, from crafted PRs.

Three invented repositories, built once through the model runner:
- `acme/plainsite`: plain imperative titles, gitmoji, upper-case prefixes, releases, bots,
  and the code in one package folder named after the project;
- `acme/monorail`: Conventional Commits with language scopes, Rust crates under `crates/`
  and a Python package under `py-monorail/`;
- `acme/sprawl`: the code in `engine/`, named after nothing, which holds most of the changes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_facts_support import build_models, pr, rows_by_number

CODE = [("plainsite/net/retry.py", 20, "MODIFIED")]


def plainsite() -> list[dict]:
    def p(number: int, title: str, files=CODE, **kw) -> dict:
        day = 2 + number % 5
        return pr(number, title, f"2026-03-0{day}T10:{number:02d}:00Z", files, **kw, repo=R1)

    return [
        # plain imperative titles
        p(1, "Align retry policy with the server"),
        p(2, "Drop support for Python 3.8"),
        p(3, "Narrow the accepted timeout types"),
        p(4, "Hide internal helpers"),
        p(5, "Raise clear error when the config is missing"),
        p(6, "Deprecate the legacy loader"),
        p(7, "Expose the cache size"),
        p(8, "Speed up the parser"),
        p(9, "Add tests for the loader", [*CODE, ("tests/test_loader.py", 40, "ADDED")]),
        # gitmoji codes and emoji, upper-case prefixes, bracket scopes
        p(10, ":bug: Stop leaking sockets"),
        p(11, "🐛 Stop leaking sockets again"),
        p(12, "⚡️ Cache compiled patterns"),
        p(13, "ENH: add rolling median"),
        p(14, "MAINT: tidy the setup"),
        p(15, "MNT Update the vendored copy"),
        p(16, "TST: cover the parser"),
        p(17, "api: add pagination"),
        p(18, "feat[cli]: add a json output"),
        # releases and bots
        p(
            19,
            "Release: v1.9",
            [("CHANGELOG.md", 30, "MODIFIED"), ("plainsite/_version.py", 2, "MODIFIED")],
        ),
        p(20, "plainsite 2.0.0rc1", [("plainsite/_version.py", 2, "MODIFIED")]),
        p(21, "Bump version to 2.1.0", [("plainsite/_version.py", 2, "MODIFIED")]),
        p(22, "Sockets timeout policy", author="renovate[bot]"),
        # the description, then the paths
        p(23, "Parser edge cases", body="- [x] Bug fix (non-breaking change)\n- [ ] New feature"),
        p(24, "Memory housekeeping", body="Fixes #12, where the pool grew without bound."),
        p(25, "Streaming loader", body="## Summary\n\nThis PR adds a streaming loader."),
        p(26, "Lockfile refresh", [("uv.lock", 300, "MODIFIED")]),
        p(27, "Quaternions", [("plainsite/math/quat.py", 120, "ADDED")]),
        p(28, "Zebra crossing", [("plainsite/net/zebra.py", 5, "MODIFIED")]),
        # areas: descend through the package folder, experimental/, to a file of its own
        p(29, "Add a protocol version", [("plainsite/protocol.py", 30, "MODIFIED")]),
        p(30, "Add an agent", [("experimental/agents/runner.py", 30, "ADDED")]),
        p(31, "Add top-level imports", [("plainsite/__init__.py", 3, "MODIFIED")]),
        p(32, "[plainsite] fix: say which file failed", [("plainsite/io/files.py", 9, "MODIFIED")]),
        p(33, "[misc] fix: tidy the retry log", [("plainsite/net/log.py", 9, "MODIFIED")]),
        # a change without code is what its files are, whatever the title says
        p(34, "[algorithm] fix: broken link", [("docs/algo.md", 3, "MODIFIED")]),
        p(
            35,
            "[core] fix: trigger the nightly job",
            [(".github/workflows/nightly.yml", 2, "MODIFIED")],
        ),
        p(
            36,
            "chore: update notes",
            [("docs/notes.md", 40, "MODIFIED"), (".github/workflows/d.yml", 3, "MODIFIED")],
        ),
        p(
            37,
            "chore: disable a job",
            [(".github/workflows/d.yml", 30, "MODIFIED"), ("docs/ci.md", 3, "MODIFIED")],
        ),
        p(38, "fix the retry example", [("examples/retry/run.py", 20, "MODIFIED")]),
        p(
            39,
            "test: doc the fixtures",
            [("docs/fixtures.md", 30, "MODIFIED"), ("tests/conftest.py", 2, "MODIFIED")],
        ),
        # a weak type gives way to the verb; a revert the description names
        p(40, "feat: optimize the retry loop"),
        p(41, "chore: fix the socket timeout"),
        p(42, "feat: update urllib3 to 2.2.1"),
        p(43, "fix: restore the old pool", body="This reverts commit 0a1b2c3d4e5f."),
        # titles that only look like conventions
        p(44, "add Series::round", [("plainsite/series/round.py", 10, "MODIFIED")]),
        p(45, "[BREAKING config] fix: rename the timeout key"),
        p(46, "[python 3.12] fix: the loop policy", [("plainsite/aio/loop.py", 5, "MODIFIED")]),
        p(47, "chore: tidy the agent skill", [(".agent/skills/pr/prompt.py", 5, "MODIFIED")]),
        p(48, "refactor: move the frame", [("plainsite/internals/frame/core.py", 5, "MODIFIED")]),
    ]


def monorail() -> list[dict]:
    def p(number: int, title: str, files, **kw) -> dict:
        return pr(number, title, f"2026-03-03T10:{number:02d}:00Z", files, **kw, repo=R2)

    io = [("crates/monorail-io/src/csv.rs", 40, "MODIFIED")]
    return [
        p(1, "fix(rust): handle empty frames", io),
        p(2, "perf(python): faster join", [("py-monorail/monorail/ops/join.py", 30, "MODIFIED")]),
        p(
            3,
            "feat(python, rust!): expression hashing",
            [("crates/monorail-python/src/expr/hash.rs", 50, "MODIFIED")],
        ),
        p(
            4,
            "depr(python): deprecate the old reader",
            [("py-monorail/monorail/io/old.py", 10, "MODIFIED")],
        ),
        p(5, "build: pin the toolchain", [("rust-toolchain.toml", 1, "MODIFIED")]),
        p(6, "fix(core): overflow in sums", [("crates/monorail-core/src/sum.rs", 8, "MODIFIED")]),
        p(7, "Rust Monorail 0.42.0", [("Cargo.toml", 4, "MODIFIED")]),
        p(8, "nodejs-monorail 0.2.0", [("nodejs-monorail/package.json", 2, "MODIFIED")]),
        p(9, "python: use buffered writers", [("py-monorail/monorail/io/csv.py", 12, "MODIFIED")]),
        p(10, "feat[sql]: window functions", [("crates/monorail-sql/src/window.rs", 70, "ADDED")]),
        p(11, "refactor(py-monorail): tidy", [("py-monorail/monorail/io/csv.py", 12, "MODIFIED")]),
    ]


def sprawl() -> list[dict]:
    parts = ["render", "audio", "physics", "render", "physics", "render"]
    nodes = [
        pr(
            i + 1,
            f"Tune {part} defaults",
            f"2026-03-04T10:{i:02d}:00Z",
            [(f"engine/{part}/mod{i}.py", 10, "MODIFIED")],
            repo=R3,
        )
        for i, part in enumerate(parts)
    ]
    nodes.append(
        pr(7, "Tune the tools", "2026-03-04T11:00:00Z", [("tools/lint.py", 5, "MODIFIED")], repo=R3)
    )
    return nodes


R1, R2, R3 = "acme/plainsite", "acme/monorail", "acme/sprawl"
SETTINGS = "repositories:\n- name: acme/sprawl\n  area_rules: {engine/audio/: sound}\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    nodes = {R1: plainsite(), R2: monorail(), R3: sprawl()}
    return build_models(tmp_path_factory.mktemp("conventions"), nodes, SETTINGS)


def facts(home: Path, repo: str) -> dict:
    return rows_by_number(
        home,
        "change_type, change_type_signal, primary_area, areas",
        f"marts.fct_pull_requests where repo = '{repo}'",
    )


def test_plain_imperative_titles_are_typed_by_their_verb(built: Path) -> None:
    f = facts(built, R1)
    expected = {
        1: "fix",  # Align
        2: "refactor",  # Drop
        3: "refactor",  # Narrow
        4: "refactor",  # Hide
        5: "fix",  # Raise clear error when
        6: "chore",  # Deprecate
        7: "feat",  # Expose
        8: "perf",  # Speed up
    }
    assert {n: f[n][:2] for n in expected} == {n: (t, "title_verb") for n, t in expected.items()}
    assert f[9][:2] == ("test", "title_verb")  # a weak verb gives way to "tests"


def test_gitmoji_emoji_and_upper_case_prefixes(built: Path) -> None:
    f = facts(built, R1)
    assert f[10][:2] == ("fix", "title_emoji")  # :bug:
    assert f[11][:2] == ("fix", "title_emoji")  # 🐛
    assert f[12][:2] == ("perf", "title_emoji")  # ⚡️, with its variation selector
    assert f[13][:2] == ("feat", "title_type")  # ENH:
    assert f[14][:2] == ("chore", "title_type")  # MAINT:
    assert f[15][:2] == ("chore", "title_type")  # MNT, no colon
    assert f[16][:2] == ("test", "title_type")  # TST:
    # `api:` in lower case is a module, not the upper-case-only alias API
    assert f[17] == ("feat", "title_verb", "api", ["api"])
    assert f[18][:3] == ("feat", "title_type", "cli")  # type[scope]:


def test_releases_bots_descriptions_and_paths_come_last(built: Path) -> None:
    f = facts(built, R1)
    assert f[19][:2] == ("chore", "title_type")  # `release:` is a type prefix
    assert [f[n][:2] for n in (20, 21)] == [("chore", "title_release")] * 2
    assert f[22][:2] == ("chore", "bot")
    assert f[23][:2] == ("fix", "description")  # a checked "Bug fix" box
    assert f[24][:2] == ("fix", "description")  # Fixes #12
    assert f[25][:2] == ("feat", "description")  # This PR adds ...
    assert f[26][:2] == ("chore", "paths_fallback")  # only a lock file
    assert f[27][:2] == ("feat", "paths_fallback")  # a new source file
    assert f[28][:2] == ("other", "none")


def test_areas_descend_through_the_package_folder(built: Path) -> None:
    f = facts(built, R1)
    assert f[1][2:] == ("net", ["net"])  # plainsite/net/retry.py
    assert f[29][2] == "protocol"  # a module directly in the package is its own area
    assert f[30][2] == "agents"  # experimental/ is a container
    assert f[31][2] == "root"  # the package's __init__.py
    # the repository's name and a catch-all are tags, not areas: the paths decide
    assert f[32][2:] == ("io", ["io"])
    assert f[33][2:] == ("net", ["net"])


def test_a_change_without_code_is_what_its_files_are(built: Path) -> None:
    f = facts(built, R1)
    assert f[34] == ("docs", "paths", "docs", ["docs"])  # not fix, not the title's module
    assert f[35] == ("ci", "paths", "ci", ["ci"])
    assert f[36][:2] == ("docs", "paths")  # most of its lines are documentation
    assert f[37][:2] == ("ci", "paths")  # most of its lines are CI
    assert f[38][:2] == ("docs", "paths")  # example scripts are documentation
    assert f[39][:2] == ("test", "paths")  # the title's type names a kind it changed


def test_a_weak_type_gives_way_and_reverts_are_read_from_the_description(built: Path) -> None:
    f = facts(built, R1)
    assert f[40][:2] == ("perf", "title_verb")  # feat: optimize ...
    assert f[41][:2] == ("fix", "title_verb")  # chore: fix ...
    assert f[42][:2] == ("chore", "title_verb")  # feat: update X to 2.2.1
    assert f[43][:2] == ("revert", "description")  # This reverts commit ...


def test_titles_that_only_look_like_conventions(built: Path) -> None:
    f = facts(built, R1)
    assert f[44][:3] == ("feat", "title_verb", "series")  # `Series::` is no `type:`
    breaking = rows_by_number(built, "is_breaking", f"marts.fct_pull_requests where repo = '{R1}'")
    assert f[45][2] == "config" and breaking[45] == (True,)  # [BREAKING config]
    assert f[46][2] == "aio"  # `python 3.12` is a language and a version, not an area
    assert f[47][2] == "agent"  # a hidden folder, named without its dot
    assert f[48][2] == "frame"  # internals/ holds components


def test_language_scopes_are_tags_and_crates_are_areas(built: Path) -> None:
    f = facts(built, R2)
    assert f[1] == ("fix", "title_type", "monorail-io", ["monorail-io"])
    assert f[2][2] == "ops"  # py-monorail/ and monorail/ are containers
    assert f[3][:3] == ("feat", "title_type", "expr")  # monorail-python/ is one too
    assert f[4][:2] == ("chore", "title_type")  # depr: a deprecation is a chore
    assert f[5][:2] == ("ci", "title_type")  # build
    assert f[6][2] == "monorail-core"  # `core` is a layer, not an area
    assert f[7][:2] == f[8][:2] == ("chore", "title_release")
    assert f[9][:3] == ("refactor", "title_verb", "io")  # the verb after the language
    assert f[10][:3] == ("feat", "title_type", "sql")  # `sql` is a part of the code
    assert f[11][2:] == ("io", ["io"])  # the repository's name with a language is a tag
    languages = {"rust", "python", "py", "js", "core", "monorail", "crates", "src"}
    assert not languages & {area for row in f.values() for area in row[3]}


def test_a_folder_holding_most_changes_is_a_container_and_rules_still_win(built: Path) -> None:
    f = facts(built, R3)
    assert [f[n][2] for n in range(1, 8)] == [
        "render",
        "sound",  # repositories.yml: engine/audio/ -> sound
        "physics",
        "render",
        "physics",
        "render",
        "tools",
    ]
