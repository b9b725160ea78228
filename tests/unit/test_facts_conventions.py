"""Change type and areas on repositories with other habits than verl's, from crafted PRs.

Three invented repositories, built once through the model runner:
- `acme/plainsite`: plain imperative titles, gitmoji, upper-case prefixes, releases, bots,
  and the code in one package folder named after the project;
- `acme/monorail`: Conventional Commits with language scopes, Rust crates under `crates/`
  and a Python package under `py-monorail/`;
- `acme/sprawl`: the code in `engine/`, named after nothing, which holds most of the changes;
- `acme/squashed`: squash-merged PRs as a git export has them (bodies that list the squashed
  commits, dependency bots' bumps, titles without a verb).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.test_facts_support import build_models, pr, rows_by_number

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
        p(17, "api: add pagination", [("plainsite/api/pages.py", 20, "MODIFIED")]),
        p(18, "feat[cli]: add a json output", [("plainsite/cli/output.py", 20, "MODIFIED")]),
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
        p(
            45,
            "[BREAKING config] fix: rename the timeout key",
            [("plainsite/config.py", 9, "MODIFIED")],
        ),
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
        # a code span of the title naming a changed file by two words or more
        p(12, "Support extras in `pip compile -r pyproject.toml`",
          [("crates/monorail-requirements/src/tree.rs", 80, "MODIFIED"),
           ("crates/monorail-resolver/src/mod.rs", 50, "MODIFIED"),
           ("crates/monorail/tests/it/pip_compile.rs", 130, "MODIFIED")]),
        p(13, "Avoid erroring on wheel-only packages in `pylock.toml`",
          [("crates/monorail-resolver/src/lock/export/pylock_toml.rs", 30, "MODIFIED"),
           ("crates/monorail/tests/it/pip_sync.rs", 75, "MODIFIED")]),
        # one word (`horizontal`) or words naming no file: the paths place it
        p(14, "fix: check shape for `*_horizontal` functions",
          [("crates/monorail-ops/src/horizontal.rs", 20, "MODIFIED")]),
        p(15, "Fix `read csv` on empty files", [("crates/monorail-io/src/read.rs", 9, "MODIFIED")]),
        # a command spelt as the crate it names; a file named as itself is no module of its own
        p(16, "Add a progress bar for `monorail cache clean`",
          [("crates/monorail-cache/src/clean.rs", 20, "MODIFIED"),
           ("crates/monorail/src/commands/cache.rs", 40, "MODIFIED")]),
        p(17, "Add type hints to `dpo_trainer.py`",
          [("monorail/trainer/dpo_trainer.py", 10, "MODIFIED")]),
    ]  # fmt: skip


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


def squashed() -> list[dict]:
    def p(number: int, title: str, files, deletions: int = 0, **kw) -> dict:
        node = pr(
            number,
            title,
            f"2026-03-05T{10 + number // 60}:{number % 60:02d}:00Z",
            files,
            **kw,
            repo=R4,
        )
        node["deletions"] = deletions
        node["files"]["nodes"][0]["deletions"] = deletions
        return node

    flow = [(".github/workflows/ci.yml", 2, "MODIFIED")]
    code = [("squashed/replacer.go", 4, "MODIFIED")]
    manifest = [("templates/lit/package.json", 2, "MODIFIED")]
    docs_lock = [("docs/Gemfile.lock", 6, "MODIFIED")]
    tutorial = [("docs_src/advanced/tutorial004.py", 2, "MODIFIED")]
    toolchain = [("rust-toolchain.toml", 1, "MODIFIED"), ("squashed/lib.rs", 30, "MODIFIED")]
    return [
        # a dependency bump is a chore whatever its files and its conventional type
        p(1, "build(deps): bump actions/checkout from 3 to 4", flow, author="dependabot[bot]"),
        p(2, "⬆ Bump dawidd6/action-download-artifact from 2.27.0 to 2.28.0", flow),
        p(3, "Update astral-sh/setup-uv digest to 0c5e2b8", flow, author="renovate[bot]"),
        p(4, "fix(deps): update dependency lit to v3", manifest),
        p(5, "chore(deps): bump nokogiri from 1.12.5 to 1.13.6 in /docs", docs_lock),
        p(6, "ci: run the linters on the release branch", flow),  # no bump: CI
        p(7, "docs: update the install guide to 2.0", [("docs/install.md", 8, "MODIFIED")]),
        # code in a documentation folder is documentation
        p(8, "🎨 Fix default value in a tutorial", tutorial, deletions=1),
        # a language and a version: a toolchain bump
        p(9, "Rust 1.75", toolchain, deletions=20),
        # nothing names a type: a change that only adds code is a feature, else a repair
        p(10, "core: Unix ns and Unix ms time placeholders", code),
        p(11, "core: placeholder spacing", code, deletions=3),
        # a revert inside the squashed commits is not the PR's type; one opening the body is
        p(12, "headers: Support deleting all headers as first op", code, deletions=1,
          body="* Delete all fields when the name is `*`\n\n* Revert \"Rearrange deletion\"\n\n"
               "This reverts commit 1b50eeeccc92ccd660c7896d8283c7d9e5d1fcb0.\n\n* Treat it apart"),
        p(13, "Restore the old pool", code, deletions=1,
          body="This reverts commit 1b50eeeccc92ccd660c7896d8283c7d9e5d1fcb0.\n\nIt broke the CI."),
        # verbs whose conventional-commit type is mostly `fix`
        p(14, "Skip inserting the redirect if a catch-all exists", code, deletions=2),
        p(15, "realign values", code, deletions=3),
        p(16, "fileserver: minor tweaks", code, deletions=2,
          body="* Make grid entries full width and fix the breadcrumb color\n\nSigned-off-by: A"),
        # a gitmoji is a type like `refactor:`, and gives way to its verb the same way
        p(17, "♻️ Update mypy", [("squashed/app.py", 2, "MODIFIED"),
                                 ("requirements-tests.txt", 2, "MODIFIED")], deletions=2),
        # `chore:` gives way to a word naming tests, docs or CI
        p(18, "chore: Add more automated sortedness tests", code, deletions=1),
        # a changelog alone is release housekeeping
        p(19, "chore: cleanup changelog", [("CHANGELOG.md", 300, "MODIFIED")], deletions=290),
        # removing a component: its files deleted, next to nothing added
        p(20, "Remove the metadata worker",
          [("workers/meta/index.ts", 0, "DELETED"), ("workers/meta/package.json", 0, "DELETED")],
          deletions=4970),
        p(21, "Remove duplicate import warnings", code, deletions=40),  # code cleaned up
        p(22, "[Parser] Fail when unknown args are given", code, deletions=1),
        p(23, "Change the cache entry to avoid allocations", code, deletions=5),
        p(24, "Use arrow 3.0.0 release", [("Cargo.toml", 2, "MODIFIED"), *code], deletions=2),
        p(25, "chore: add readme and jemalloc to the sql crate", code, deletions=1),
        p(26, "💽 [Parser] Fail when unknown args are given", code, deletions=1),  # no gitmoji
        p(27, "🦄 Speed up the parser", code, deletions=1),
        p(28, "🎀 New defaults: `logging_steps=10`", code, deletions=1),  # a phrase, no type
        p(29, "Dynamic group by", code, deletions=1,
          body="* [NEW] Added a dynamic zip iterator\n\n* Use it in group by"),
        p(30, "FFD packing", [("squashed/pack.py", 232, "MODIFIED")], deletions=52),
        p(31, "Add a brief sleep before sending SIGINT", code, deletions=1,
          body="In an attempt not to interrupt the child.\n\nThis resolves the issue with marimo."),
        p(32, "Add a retry budget", code, deletions=1, body="Closes #12: the issue asked for it."),
        p(33, "Add a retry budget", code, deletions=1, body="Adds it. Also fixes a bug in it."),
        # what the title says the change is for types a weak verb or a chore gitmoji
        p(34, "📦 Packing with flash attention to avoid cross-contamination", code, deletions=1),
        p(35, "Replace the loader with a stateful one to support resuming", code, deletions=3),
        p(36, "Move entropy out of the loop to reduce peak memory", code, deletions=3),
        p(37, "Move the parsers together to avoid code duplication", code, deletions=3),
        p(38, "Bump torch to support Python 3.13", [("pyproject.toml", 2, "MODIFIED")]),
        # nothing names a type: the paths say a removal, a restructuring or a repair
        p(39, "🪦 RIP the chat command", [("squashed/chat.py", 0, "DELETED"),
                                          ("docs/clis.md", 9, "MODIFIED")], deletions=571),
        p(40, "📨 Tokenize directly", [("squashed/sft.py", 25, "MODIFIED")], deletions=46),
        p(41, "Update dpo_trainer.py", [("squashed/dpo_trainer.py", 2, "MODIFIED")], deletions=2),
        # docstrings are documentation, misspelt names renames
        p(42, "[SFT] fix: collator docstring", [("squashed/sft.py", 2, "MODIFIED")], deletions=2),
        p(43, "chore: fixed typos in several variable names", code, deletions=4),
        p(44, "docs(python): more detail in the strategies docstrings",
          [("squashed/testing/strategies.py", 8, "MODIFIED")], deletions=2),
        # tests named by a title that changes CI only; one dependency updated
        p(45, "Add a system install test for alpine",
          [(".github/workflows/ci.yml", 26, "MODIFIED"), ("scripts/check.py", 10, "MODIFIED")]),
        p(46, "Update packse and drop Python 3.9 from the test requirements",
          [("squashed/tests/it/lock.rs", 100, "MODIFIED"), ("scripts/pyproject.toml", 1, "MODIFIED")
           ]),
        # repository housekeeping, documentation assets and data, a `[ci]` module
        p(47, "[misc] chore: add a code owner", [(".github/CODEOWNERS", 13, "MODIFIED")]),
        p(48, "🍱 Update the sponsor banner", [("docs/img/sponsors/banner.svg", 1, "MODIFIED")]),
        p(49, "🔧 Add sponsor Kong", [("docs/overrides/main.html", 6, "MODIFIED"),
                                     ("docs/data/sponsors.yml", 3, "MODIFIED"),
                                     ("README.md", 1, "MODIFIED")]),
        p(50, "👥 Update People", [("docs/data/people.yml", 135, "MODIFIED")], deletions=65,
          author="github-actions[bot]"),
        p(51, "Add an architecture diagram", [("docs/img/arch.svg", 30, "ADDED")]),
        p(53, "Strip the fragment from direct URLs", code, deletions=1),  # 4 added, 1 removed
        p(54, "docs(rust): fix a typo in the read example", code, deletions=1),
        p(55, "chore: add an example", [("examples/run.sh", 40, "ADDED")]),
        p(56, "Add support to resolve names in expressions", code, deletions=1),
        p(57, "Fix typo in the documentation of the index variable", code, deletions=1),
        p(58, "fix(python): typo in the exception message", code, deletions=1),
        p(59, "✏️ Fix typo in `app/routing.py`", code, deletions=1),
        p(60, "Lock during installs to prevent races", code, deletions=1),
        p(61, "Refactor the finder to allow handling errors", code, deletions=30),
        p(62, "chore: fix typo in error message", code, deletions=1),
        p(52, "[ci] feat: add a nightly NPU test", [(".github/workflows/npu.yml", 44, "MODIFIED"),
                                                  ("tests/npu/run_grpo.sh", 184, "ADDED")]),
    ]  # fmt: skip


R1, R2, R3, R4 = "acme/plainsite", "acme/monorail", "acme/sprawl", "acme/squashed"
SETTINGS = "repositories:\n- name: acme/sprawl\n  area_rules: {engine/audio/: sound}\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    nodes = {R1: plainsite(), R2: monorail(), R3: sprawl(), R4: squashed()}
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
    assert f[28][:2] == ("feat", "paths_fallback")  # only added lines (acme/squashed #11: other)


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
    assert f[42][:2] == ("chore", "title_bump")  # feat: update X to 2.2.1, a dependency bump
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
    # `sql` is a part of the code, spelt as its crate is (one area with the PRs the paths place)
    assert f[10][:3] == ("feat", "title_type", "monorail-sql")
    assert f[11][2:] == ("io", ["io"])  # the repository's name with a language is a tag
    # a title's command line or file name naming a changed file or folder (not a test's)
    pip_compile = ["monorail-requirements", "monorail-resolver", "pip_compile"]
    assert f[12][2:] == ("pip_compile", pip_compile)
    assert f[13][2:] == ("pylock", ["monorail-resolver", "pylock"])
    by_paths = ["monorail-ops", "monorail-io", "monorail-cache", "trainer"]
    assert [f[n][2] for n in (14, 15, 16, 17)] == by_paths
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


def test_a_dependency_bump_is_a_chore_whatever_its_files(built: Path) -> None:
    f = facts(built, R4)
    assert {n: f[n][:2] for n in range(1, 6)} == {n: ("chore", "title_bump") for n in range(1, 6)}
    assert f[6][:2] == ("ci", "paths")  # no bump: what its files are
    assert f[7][:2] == ("docs", "paths")  # a `docs:` title keeps its type


def test_documentation_sources_versions_and_titles_without_a_verb(built: Path) -> None:
    f = facts(built, R4)
    assert f[8][:2] == ("docs", "paths")  # docs_src/ holds the documentation's code
    assert f[9][:2] == ("chore", "title_release")  # Rust 1.75
    assert f[10][:2] == ("feat", "paths_fallback")  # only added lines
    assert f[11][:2] == ("fix", "paths_fallback")  # code changed in place, no word for it
    assert f[30][:2] == ("feat", "paths_fallback")  # four times more added than removed
    assert f[29][:2] == ("feat", "description")  # a squashed commit's verb after its [tag]
    # a weak verb gives way to a description that says it fixes a bug, not to `Closes #N`
    assert [f[n][:2] for n in (31, 32, 33)] == [("fix", "description"), ("feat", "title_verb"),
                                               ("feat", "title_verb")]  # fmt: skip


def test_only_a_revert_opening_the_body_types_the_pr(built: Path) -> None:
    f = facts(built, R4)
    assert f[12][:2] == ("feat", "title_verb")  # a squashed commit reverted another
    assert f[13][:2] == ("revert", "description")
    reverts = rows_by_number(
        built, "reverts_number", f"marts.fct_pull_requests where repo = '{R4}'"
    )
    assert reverts[12] == reverts[13] == (None,)  # the links are another model's


def test_verbs_typed_as_conventional_commits_mostly_type_them(built: Path) -> None:
    f = facts(built, R4)
    assert f[14][:2] == ("fix", "title_verb")  # skip
    assert f[15][:2] == ("fix", "title_verb")  # realign
    assert f[16][:2] == ("fix", "description")  # make, the squashed commit's verb
    assert f[22][:2] == ("fix", "title_verb")  # fail when ..., as reject and validate
    assert f[23][:2] == ("perf", "title_verb")  # a weak verb gives way to "allocations"
    # an emoji that is no gitmoji names no type, and the title is read after it
    assert [f[n][:2] for n in (26, 27, 28)] == [("fix", "title_verb"), ("perf", "title_verb"),
                                               ("feat", "title_verb")]  # fmt: skip


def test_a_gitmoji_or_chore_type_gives_way_like_a_conventional_type(built: Path) -> None:
    f = facts(built, R4)
    assert f[17][:2] == ("chore", "title_verb")  # ♻️ Update <a dependency it changes>
    assert f[18][:2] == ("test", "title_verb")  # chore: ... tests
    assert f[25][:2] == ("chore", "title_type")  # a readme beside code is no docs change
    assert f[24][:2] == ("chore", "title_verb")  # use <a dependency's version it changes>
    assert f[19][:2] == ("chore", "paths")  # CHANGELOG.md alone


def test_removing_a_component_is_a_chore_and_removing_code_a_refactor(built: Path) -> None:
    f = facts(built, R4)
    assert f[20][:2] == ("chore", "title_verb")
    assert f[21][:2] == ("refactor", "title_verb")


def test_what_the_title_says_the_change_is_for_types_a_weak_verb(built: Path) -> None:
    f = facts(built, R4)
    assert f[34][:2] == ("fix", "title_verb")  # a chore gitmoji, "to avoid ..."
    assert [f[n][:2] for n in (35, 36, 37)] == [("feat", "title_verb"), ("perf", "title_verb"),
                                               ("refactor", "title_verb")]  # fmt: skip
    assert f[38][0] == "chore"  # a bump that changes the manifest stays a bump
    assert f[56][:2] == ("feat", "title_verb")  # "to resolve" names no purpose (a DNS name)
    assert f[60][:2] == ("fix", "title_verb")  # no known verb, but "to prevent races"
    assert f[61][:2] == ("refactor", "title_verb")  # "Refactor" says it outright


def test_without_a_word_for_it_the_paths_say_removal_restructuring_or_repair(built: Path) -> None:
    f = facts(built, R4)
    assert f[39][:2] == ("chore", "paths_fallback")  # files deleted, next to nothing added
    assert f[40][:2] == ("refactor", "paths_fallback")  # more taken away than added
    assert f[41][:2] == ("fix", "paths_fallback")  # GitHub's `Update <file>` says nothing
    assert f[53][:2] == ("fix", "title_verb")  # "Strip" that adds more than it deletes


def test_docstrings_typos_ci_tests_dependencies_and_housekeeping(built: Path) -> None:
    f = facts(built, R4)
    assert f[42][:2] == ("docs", "title_word")  # fix: ... docstring
    assert f[43][:2] == ("refactor", "title_word")  # misspelt names fixed in code
    assert f[54][:2] == ("docs", "title_type")  # a docs: title keeps its type
    assert f[57][:2] == ("refactor", "title_word")  # names come before documentation
    assert f[58][:2] == ("fix", "title_type")  # a misspelt message: no rename said
    assert f[59][:2] == ("docs", "title_emoji")  # ✏️, a gitmoji for docs, keeps its type
    assert f[62][:2] == ("fix", "title_verb")  # a message users read is no rename
    assert f[44][:2] == ("docs", "paths")  # a docs: title on docstrings of test helpers
    assert f[45][:2] == ("ci", "title_verb")  # "test" in the title, CI changed, no test file
    assert f[46][:2] == ("chore", "title_verb")  # Update <one name> changing a manifest
    assert f[47][:2] == ("chore", "paths")  # CODEOWNERS is no CI
    # documentation's images and data without prose: what the chore gitmoji says
    assert [f[n][:2] for n in (48, 49, 50)] == [("chore", "paths")] * 3
    assert f[51][:2] == ("docs", "paths")  # an image with no explicit type stays documentation
    assert f[55][:2] == ("docs", "paths")  # an example script is documentation, not an asset
    assert f[52][:2] == ("ci", "paths")  # the `[ci]` module of a `[modules] feat:` title
