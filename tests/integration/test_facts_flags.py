"""Crafted PRs for the flags with signal: hardware, dependencies and size, each with its evidence.

One week of `acme/flags` (2026-W10) is built once through the model runner; each test reads
the warehouse. Every PR here is a case a maintainer struck out (or missed) on a real week.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import duckdb
import pytest

from orchestration.extract.sources.nodes import to_row
from orchestration.report.queries import load_week
from orchestration.report.render import render_week
from tests.unit.test_facts_support import build_models, pr, query

REPO = "acme/flags"
A, M, D = "ADDED", "MODIFIED", "DELETED"


def at(hour: int) -> str:
    return f"2026-03-0{2 + hour // 24}T{hour % 24:02d}:00:00Z"


def lines(node: dict, deletions: dict[str, int]) -> dict:
    """The node with `deletions` (path: lines removed) set on its files and totals."""
    for file in node["files"]["nodes"]:
        file["deletions"] = deletions.get(file["path"], 0)
    node["deletions"] = sum(deletions.values())
    return node


BOT_NOTES = "Bumps codspeed.\n\n- fix: hangs on ARM64 due to atomics by @someone in #23"


def nodes() -> list[dict]:
    code = [("pkg/fsdp/sync.py", 80, M)]
    return [
        # hardware: a negation, a crash report behind `Fixes #N`, a test named for the hardware
        pr(1, "[fsdp, perf] feat: defer gradient sync", at(1), code,
           body="Defers the gradient sync.\n\nThis is relevant to #6010, but the PR does not "
           "claim to resolve that hardware-specific report without an Ascend profile."),
        pr(2, "[rollout] fix: stop sampling placeholder tokens", at(2), code,
           body="Fixes #5817 (the masked_scatter crash on NPU, confirmed by the reporter)."),
        pr(3, "[ckpt] refactor: rename misleading arg", at(3),
           [("pkg/ckpt/engine.py", 20, M), ("tests/ckpt/test_correctness_on_npu.py", 4, M)]),
        # ... a workflow for the hardware touched by a broad refactor, next to a change for it
        pr(4, "[trainer] refactor: split the trainer", at(4),
           [("pkg/trainer/base.py", 400, M), (".github/workflows/e2e_ascend.yml", 2, M)]),
        pr(5, "[ci] chore: run nightly jobs", at(5),
           [(".github/workflows/nightly_ascend.yml", 30, M), ("pkg/ci/jobs.py", 5, M)]),
        pr(6, "[trainer] feat: third-party accelerators", at(6), code,
           body="Add GRPO Trainer support for Ascend NPU.\n\nSee https://example.org/npu/guide."),
        pr(7, "Update codspeed action to v4.18.5", at(7), [(".github/workflows/bench.yml", 2, M)],
           body=BOT_NOTES, author="renovate[bot]"),
        pr(8, "[model] feat: value head", at(8), code,
           body="Add a value head registered for cuda and npu."),
        pr(9, "[doc] chore: npu best practice", at(9),
           [("docs/npu.md", 40, M), ("tests/special_npu/run.sh", 3, M)]),
        # dependencies: the project's own version, a dropped and a pinned dependency, internal
        # lock edges, a requirements list
        pr(10, "[misc] chore: bump dev version to 0.9.0.dev", at(10), [("pyproject.toml", 2, M)]),
        pr(11, "Bump version to 0.5.5", at(11), [("Cargo.toml", 2, M), ("Cargo.lock", 60, M)]),
        lines(pr(12, "Drop whoami dependency", at(12),
                 [("Cargo.toml", 0, M), ("crates/uv/Cargo.toml", 0, M), ("Cargo.lock", 0, M)]),
              {"Cargo.toml": 1, "crates/uv/Cargo.toml": 1, "Cargo.lock": 41}),
        pr(13, "[build] chore: pin torch-npu==2.7.1 for CI", at(13), [("pyproject.toml", 2, M)]),
        pr(14, "Move remove_virtualenv to uv-fs", at(14),
           [("crates/uv-fs/src/lib.rs", 30, M), ("crates/uv-fs/Cargo.toml", 1, M),
            ("Cargo.lock", 1, M)]),
        pr(15, "Add tensorboard logging", at(15),
           [("pkg/log/board.py", 40, A), ("requirements.txt", 1, M)]),
        pr(16, "[misc] chore: bump the version of vllm-ascend to v0.11.0", at(16),
           [("docker/Dockerfile.ascend", 2, M)]),
        # size: a removal, benchmark results, a move, generated files; and a real one
        lines(pr(17, "[recipe] chore: remove the old recipe", at(17),
                 [("pkg/recipe/old.py", 0, D), ("pkg/recipe/__init__.py", 2, M)]),
              {"pkg/recipe/old.py": 5000}),
        pr(18, "[bench] chore: record benchmark results", at(18),
           [("benchmarks/results/run.json", 22403, A), ("benchmarks/README.md", 20, M)]),
        lines(pr(19, "[reward] chore: rename the reward loop files", at(19),
                 [("pkg/reward/manager.py", 1100, A), ("pkg/reward/loop.py", 0, D),
                  ("pkg/reward/__init__.py", 2, M)]),
              {"pkg/reward/loop.py": 1100, "pkg/reward/__init__.py": 2}),
        pr(20, "[data] feat: giant loader", at(20),
           [("pkg/data/loader.py", 1200, A), ("uv.lock", 3000, M)]),
        pr(21, "[docs] docs: rewrite the guide", at(21), [("docs/guide.md", 3000, M)]),
        pr(22, "[api] chore: regenerate clients", at(22),
           [("pkg/api/_generated_client.py", 5000, M), ("web/__snapshots__/a.snap", 900, M)]),
        # a run script named for the hardware beside a docs fix: a recipe, not code for it
        pr(23, "[doc] fix: correct a config key", at(23),
           [("docs/algo/ppo.md", 10, M), ("recipe/dapo/run_dapo_npu.sh", 2, M)]),
        # who owns the hardware's files is no code for it
        pr(24, "[ci] chore: update ascend related files code owner", at(24),
           [(".github/CODEOWNERS", 3, M)]),
        # the documentation's own dependencies: only when the title names what it bumps
        pr(25, "[docs] feat: a page for the PPO algorithm", at(25),
           [("docs/ppo.md", 300, A), ("docs/requirements-docs.txt", 1, M)]),
        pr(26, "Bump mkdocs-material from 9.1.0 to 9.2.0", at(26),
           [("requirements-docs.txt", 2, M)]),
        # the change sentence says what the PR does: hardware named further down is one item
        # of a list; a clause after `;` names another platform
        pr(27, "[recipe, perf] feat: add nsys profiler support for env worker", at(27), code,
           body="### What does this PR do?\n\nAdd a profiler configuration section for the env "
           "workers.\n\n- Support nsys, npu, torch, and torch_memory profiling tools\n"),
        pr(28, "[docker] fix: align the stable image", at(28), [("docker/Dockerfile.stable", 9, M)],
           body="### What does this PR do?\n\nUpdate the Dockerfile so the stable image builds "
           "on GB200/aarch64 by keeping the base image's kernels; x86 likely should be "
           "simplified the same way."),
        # the title names the hardware, but nothing that runs beyond run scripts, tests and
        # docs changed: a recipe for it, tests enabled on it
        pr(29, "[recipe] feat: add qwen3 8b DAPO training script on ASCEND NPU", at(29),
           [("recipe/dapo/run_dapo_qwen3_8b_npu.sh", 140, A),
            ("docs/ascend/quick_start.rst", 5, M)]),
        pr(30, "enable vllm client-server tests on XPU", at(30),
           [("tests/test_vllm_client.py", 31, M)]),
        # a lock file that follows the manifest of what the tests exercise (a playground's
        # package) says nothing of the project's dependencies; beside the project's own
        # manifest it does
        pr(31, "fix: check `server.fs` after stripping query as well", at(31),
           [("src/node/server/fs.ts", 20, M), ("playground/fs-serve/package.json", 3, M),
            ("pnpm-lock.yaml", 12, M)]),
        pr(32, "feat: pretty errors", at(32),
           [("src/node/errors.ts", 20, M), ("packages/vite/package.json", 1, M),
            ("playground/errors/package.json", 3, M), ("pnpm-lock.yaml", 12, M)]),
        # two files for hardware as large as each other, listed in either order: the same file
        # is the evidence (the first path), its word beside it
        pr(33, "[kernels] feat: fused attention", at(33),
           [("pkg/kernels/xpu/attn.py", 40, M), ("pkg/kernels/npu/attn.py", 40, M)]),
        pr(34, "[kernels] feat: fused attention again", at(34),
           [("pkg/kernels/npu/attn.py", 40, M), ("pkg/kernels/xpu/attn.py", 40, M)]),
    ]  # fmt: skip


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The week built once through the model runner; tests only read it."""
    home = tmp_path_factory.mktemp("flags")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PRWEEKLY_HOME", str(home))
        return build_models(home, {REPO: nodes()})


def raised(home: Path, flag: str) -> dict[int, tuple[str, str, dict]]:
    return {
        number: (reason, key, json.loads(evidence))
        for number, reason, key, evidence in query(
            home,
            "select number, reason, reason_key, evidence from marts.fct_weekly_risks "
            "where risk_flag = ?",
            [flag],
        )
    }


def test_hardware_needs_files_for_it_or_a_description_that_targets_it(home: Path) -> None:
    found = raised(home, "hardware_specific")
    # not 1 (a negation), 2 (a crash behind `Fixes #N`), 3 (a test's name), 4 (a workflow in a
    # broad refactor), 7 (a bot's release notes), 8 (cuda and npu), 9 (docs and a test script)
    assert sorted(n for n in found if n < 10) == [5, 6]
    assert found[5][1:] == (
        "path",
        {"word": "ascend", "path": ".github/workflows/nightly_ascend.yml"},
    )
    assert found[6] == (
        'the description names "ascend": "Add GRPO Trainer support for Ascend NPU."',
        "description",
        {"word": "ascend", "sentence": "Add GRPO Trainer support for Ascend NPU."},
    )
    assert 13 in found and 16 in found  # the title names the hardware
    assert 23 not in found
    # not 24 (CODEOWNERS), 27 (the change sentence names no hardware), 29 and 30 (a run
    # script and tests for the hardware, whatever the title names)
    assert sorted(n for n in found if 24 <= n < 33) == [28]
    sentence = (
        "Update the Dockerfile so the stable image builds on GB200/aarch64 by keeping the "
        "base image's kernels; x86 likely should be simplified the same way."
    )
    assert found[28][1:] == ("description", {"word": "aarch64", "sentence": sentence})


def test_hardware_files_as_large_as_each_other_give_the_same_evidence(home: Path) -> None:
    found = raised(home, "hardware_specific")
    evidence = {"word": "npu", "path": "pkg/kernels/npu/attn.py"}
    assert found[33] == ('changes pkg/kernels/npu/attn.py ("npu")', "path", evidence)
    assert found[34] == found[33]


def test_dependency_changes_name_the_file_and_the_dependency(home: Path) -> None:
    found = raised(home, "dependency_change")
    # not 10, 11 (the project's own version), 14 (an internal lock edge); 16 changes only a
    # container build, but the title names what it bumps; 20's lock file grew by 3,000 lines
    # nor 25 (the documentation's requirements, which the title does not name), nor 31 (a lock
    # file beside a playground's manifest alone)
    assert sorted(found) == [12, 13, 15, 16, 20, 26, 32]
    assert found[26][2] == {"files": ["requirements-docs.txt"], "more": 0,
                            "package": "mkdocs-material"}  # fmt: skip
    assert found[12] == (
        'changes Cargo.lock, Cargo.toml, crates/uv/Cargo.toml (the title names "whoami")',
        "files",
        {"files": ["Cargo.lock", "Cargo.toml", "crates/uv/Cargo.toml"], "more": 0,
         "package": "whoami"},
    )  # fmt: skip
    assert found[13][2] == {"files": ["pyproject.toml"], "more": 0, "package": "torch-npu"}
    assert found[15][0] == "changes requirements.txt"
    assert found[16][2]["package"] == "vllm-ascend"


def test_size_counts_what_was_written(home: Path) -> None:
    found = raised(home, "large_change")
    # not 17 (a removal), 18 (benchmark results), 19 (a move), 21 (docs), 22 (generated)
    assert sorted(found) == [20]
    assert found[20] == ("1200 lines across 1 file", "size", {"lines": 1200, "files": 1})


def test_no_docs_only_change_carries_a_size_or_hardware_flag(home: Path) -> None:
    flags = dict(
        query(
            home,
            "select number, [hardware_specific, large_change] from marts.fct_pull_requests "
            "where number in (9, 21)",
        )
    )
    assert flags == {9: [False, False], 21: [False, False]}


def truncated(number: int, listed: int, total: int) -> dict:
    """A feature whose file list GitHub cut at `listed` of `total` files, all of them code;
    its tests are among the files not listed."""
    files = [(f"pkg/big/mod{i:04d}.py", 1, A) for i in range(listed)]
    node = pr(number, "[big] feat: generate the bindings", at(30), files)
    node["files"]["totalCount"] = total
    node["changedFiles"] = total
    node["additions"] = total
    return node


def test_a_truncated_file_list_leaves_what_it_cannot_show_unknown(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    home = tmp_path_factory.mktemp("truncated")
    complete = pr(2, "[big] feat: small module", at(31),
                  [("pkg/big/small.py", 40, A), ("tests/big/test_small.py", 9, A)])  # fmt: skip
    build_models(home, {REPO: [truncated(1, 3000, 3500), complete]})
    facts = {
        number: rest
        for number, *rest in query(
            home,
            "select number, files_complete, listed_files, changed_files, touches_tests, "
            "missing_tests, core_path, dependency_change, large_change, risk_flags "
            "from marts.fct_pull_requests order by number",
        )
    }
    # 3,000 lines of listed code: very large whatever the other 500 hold
    assert facts[1] == [False, 3000, 3500, None, None, None, None, True, ["large_change"]]
    assert facts[2][:5] == [True, 2, 2, True, False]
    # no reason says "no test file changed" for it
    reasons = query(home, "select reason from marts.fct_weekly_risks where number = 1")
    assert reasons == [("3000 lines across 3000 files",)]
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        report = render_week(load_week(conn, REPO, date(2026, 3, 2)))["2026-03-02.en.md"]
    assert "no test file changed" not in report and "Add tests for" not in report


def test_a_cut_list_is_known_from_the_count_without_changed_files() -> None:
    node = truncated(1, 3000, 3500)
    del node["changedFiles"]
    assert to_row(node, REPO)["changed_files"] == 3500


def series() -> list[dict]:
    """acme/areas: title tags that name code, and tags that do not."""

    def p(number: int, title: str, files: list) -> dict:
        return pr(number, title, at(40 + number), files, repo="acme/areas")

    grpo = [("trainer/async_grpo/loop.py", 30, M)]
    return [
        # a series name, a step tag and an upper-case prefix are no areas: the files place them
        p(1, "[sparse refactor] chore: split the loader", [("loader/split.py", 40, M)]),
        p(2, "[2/N][sparse refactor] chore: split the writer", [("writer/split.py", 40, M)]),
        # spellings of one folder are one area, spelt as the folder is
        p(3, "[AsyncGRPO] fix: drop stale rollouts", grpo),
        p(4, "[asyncgrpo] feat: overlap steps", grpo),
        p(5, "[async_grpo] perf: batch rewards", grpo),
        # a tag naming a folder or module the files touch, below the first folder
        p(6, "[algo] feat: clip ratios", [("trainer/ppo/core_algos.py", 20, M)]),
        # a catch-all folder is named after what it holds; a top-level source file is its own
        # area; `root` only for what is neither
        p(7, "[misc] fix: flops of a new GPU", [("utils/flops_counter.py", 12, M)]),
        p(8, "fix: admin endpoint", [("admin.go", 12, M)]),
        # a tool's hidden configuration is named after it; `root` for what is neither
        p(9, "chore: tidy release config", [(".goreleaser.yml", 3, M)]),
        p(11, "chore: tidy settings", [("settings.yaml", 3, M)]),
        # a catch-all only when nothing better exists
        p(10, "fix: shared helper and its caller",
          [("utils/__init__.py", 60, M), ("writer/csv.py", 10, M)]),
        p(12, "feat: support files for allow", [("src/node/utils.ts", 16, M),
          ("src/node/server/static.ts", 7, M)]),
        # a helper (below utils/) places a PR less than the code it serves, unless far larger
        p(13, "feat: support https", [("src/node/utils/createCertificate.ts", 65, A),
          ("src/node/server/index.ts", 48, M)]),
        p(14, "feat: flops of a new model", [("pkg/utils/flops.py", 51, M),
          ("pkg/workers/critic.py", 2, M)]),
        p(15, "fix: frame conversion", [("py-areas/areas/_utils/construction/frame.py", 3, M),
          ("py-areas/areas/dataframe/frame.py", 2, M)]),
        # what the tests exercise (playground/, fixtures/) and the docs, their code samples and
        # dependency files give way to source code; alone, a playground app is its own area
        p(16, "feat: load env files", [("src/node/config.ts", 29, M),
          ("playground/TestEnv.vue", 24, A), ("playground/env/main.js", 30, A),
          ("yarn.lock", 40, M)]),
        p(17, "test: legacy output", [("playground/legacy/main.js", 39, A),
          ("playground/legacy/index.html", 2, M)]),
        p(18, "feat: examples for every parameter", [("docs/en/examples.md", 105, M),
          ("docs_src/examples/tutorial005.py", 263, A), ("areas/params.py", 17, M),
          ("areas/openapi/models.py", 16, M)]),
        # dependency lists and lock files are `dependencies` (a manifest changed beside them
        # too), a package manifest `packaging`, a changelog `changelog`, a release the release
        p(19, "chore: upgrade smallstep libs", [("go.mod", 4, M), ("go.sum", 273, M)]),
        p(20, "Update pubgrub", [("Cargo.toml", 2, M), ("Cargo.lock", 2, M)]),
        p(21, "chore: include src files in npm package", [("package.json", 1, M)]),
        p(22, "chore: cleanup changelog", [("packages/areas/CHANGELOG.md", 278, M),
          ("packages/plugin-x/CHANGELOG.md", 50, M)]),
        p(23, "Update flake8 settings", [("py-areas/.flake8", 17, M),
          ("py-areas/areas/__init__.py", 18, M), ("py-areas/areas/_html.py", 7, M)]),
        p(24, "Release 0.9.2", [("examples/scripts/old.py", 259, D), ("setup.py", 2, M),
          ("areas/__init__.py", 2, M)]),
        # a documentation's code samples (docs_src/) are no code: never a container, however
        # many of them the history changed
        p(25, "docs: tutorials", [(f"docs_src/{part}/tutorial{i}.py", 5, A)
                                  for part in ("a", "b") for i in range(30)]),
        p(26, "docs: fix a tutorial default", [("docs_src/path_op/tutorial004.py", 2, M)]),
        # with no tag, a title's word naming one of the areas the lines place it in: an area's
        # name word (code split at its capitals), a folder, a file's name; not a word inside a
        # file's name, nor what the tests exercise
        p(27, "Change internal representation of `CacheEntry` to avoid allocations",
          [("crates/acme-cache/src/lib.rs", 53, M),
           ("crates/acme-dist/src/source_dist.rs", 72, M)]),
        p(28, "Move dependency group normalization into specification",
          [("crates/acme-requirements/src/specification.rs", 36, M),
           ("crates/areas/src/commands/pip/compile.rs", 30, M),
           ("crates/areas/src/commands/pip/sync.rs", 28, M)]),
        p(29, "fix: Check enum categories when reading csv",
          [("crates/core/src/categorical/builder.rs", 42, M),
           ("crates/io/src/csv/buffer.rs", 15, M)]),
        p(30, "Add system install test for alpine", [(".github/workflows/ci.yml", 27, M),
          ("scripts/check_system_python.py", 12, M)]),
        p(31, "fix: defaultRequestToFile should consider optimized modules",
          [("src/node/resolver.ts", 20, M), ("playground/rewrite-optimized/Test.vue", 24, A)]),
        # a word of an area's name names it only past a first word it shares with another
        # (`acme-cache` beside `acme-dist`), and a CI workflow's name names nothing
        p(32, "Fix biased aggregation of token-weighted metrics",
          [("trainer/grpo.py", 40, M), ("gspo_token/loss.py", 20, M)]),
        p(33, "fix a hang and add a model CI test",
          [("workers/reward.py", 50, M), (".github/workflows/model.yml", 40, M)]),
        # a tag in the singular names a folder in the plural, spelt as the folder
        p(34, "[model] feat: support qwen3 mtp", [("models/mcore/mtp.py", 20, M)]),
        p(35, "[workers] fix: sync the critic", [("pkg/worker/critic.py", 20, M)]),
        # a scope written as a path is its folders, each a module in turn
        p(36, "feat(plugins/worker): support SharedWorker",
          [("src/node/plugins/worker.ts", 30, M)]),
        p(37, "uv/tests: update packse tests", [("crates/areas/tests/it/lock_scenarios.rs", 30, M),
          ("crates/areas/tests/it/sync.rs", 12, M)]),
        p(39, "netrc/lex: fix `lineno` not incremented",
          [("crates/areas-netrc/src/lex.rs", 6, M)]),
        p(38, "fix(playground/ssr-vue): remove crossorigin",
          [("playground/ssr-vue/src/main.js", 4, M), ("src/node/ssr/render.ts", 2, M)]),
    ]  # fmt: skip


def test_areas_name_code_the_pr_changes(tmp_path_factory: pytest.TempPathFactory) -> None:
    home = build_models(tmp_path_factory.mktemp("areas"), {"acme/areas": series()})
    areas = {
        number: (primary, signal)
        for number, primary, signal in query(
            home, "select number, primary_area, area_signal from marts.fct_pull_requests"
        )
    }
    assert areas == {
        1: ("loader", "paths"),
        2: ("writer", "paths"),
        3: ("async_grpo", "title"),
        4: ("async_grpo", "title"),
        5: ("async_grpo", "title"),
        6: ("algo", "title"),
        7: ("flops_counter", "paths"),
        8: ("admin", "paths"),
        9: ("goreleaser", "paths"),
        10: ("writer", "paths"),
        11: ("root", "paths"),
        12: ("server", "paths"),
        13: ("server", "paths"),
        14: ("flops", "paths"),
        15: ("dataframe", "paths"),
        16: ("config", "paths"),
        17: ("legacy", "paths"),
        18: ("params", "paths"),
        19: ("dependencies", "paths"),
        20: ("dependencies", "paths"),
        21: ("packaging", "paths"),
        22: ("changelog", "paths"),
        23: ("flake8", "paths"),
        24: ("release", "release"),
        25: ("docs_src", "paths"),
        26: ("docs_src", "paths"),
        27: ("acme-cache", "title_words"),
        28: ("acme-requirements", "title_words"),
        29: ("io", "title_words"),
        30: ("ci", "paths"),
        31: ("resolver", "paths"),
        32: ("trainer", "paths"),
        33: ("workers", "paths"),
        34: ("models", "title"),
        35: ("worker", "title"),
        36: ("worker", "title"),
        37: ("tests", "title"),
        38: ("ssr-vue", "title"),
        39: ("areas-netrc", "title"),
    }


def test_the_github_and_file_sources_tell_a_cut_list_alike(tmp_path: Path) -> None:
    """GitHub lists at most 3,000 files: a PR whose list stops short of its changedFiles (250
    of 300 here, the same mechanism) is cut whichever source read it."""
    from datetime import UTC, datetime

    from github_fakes import REPO as GITHUB_REPO
    from github_fakes import FakeClock, make_pr, source_for

    from orchestration.extract.sources.file import FileSource
    from orchestration.testing.github_emulator import Emulator

    monday = datetime(2026, 7, 20, tzinfo=UTC)
    node = make_pr(7, monday, files=250)
    node["files"]["totalCount"] = node["changedFiles"] = 300
    clock = FakeClock()
    with Emulator([node], clock=clock.time) as emu:
        (via_github,) = source_for(emu, clock).fetch(
            GITHUB_REPO, monday, datetime(2026, 7, 27, tzinfo=UTC)
        )
    dataset = tmp_path / "cut.jsonl"
    dataset.write_text(json.dumps(node) + "\n", encoding="utf-8")
    (via_file,) = FileSource(dataset).fetch(GITHUB_REPO, monday, datetime(2026, 7, 27, tzinfo=UTC))
    rows = [to_row(n, GITHUB_REPO) for n in (via_github, via_file)]
    assert [(len(r["files"]), r["changed_files"]) for r in rows] == [(250, 300), (250, 300)]
