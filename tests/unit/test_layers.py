"""Every test module stands in one layer (docs/testing.md): unit, integration or e2e."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
LAYERS = ("unit", "integration", "e2e")


def test_no_test_module_stands_outside_a_layer() -> None:
    loose = sorted(p.name for p in TESTS.glob("test_*.py"))
    assert not loose, f"put {loose} in one of tests/{{{','.join(LAYERS)}}}/ (docs/testing.md)"


def test_each_layer_has_tests_and_only_the_layers_hold_them() -> None:
    for name in LAYERS:
        assert list((TESTS / name).glob("test_*.py")), name
    stray = {
        p.parent.name
        for p in TESTS.rglob("test_*.py")
        if p.parent != TESTS and p.parent.name not in LAYERS and "fixtures" not in p.parts
    }
    assert not stray, stray


def test_with_ci_true_a_skip_fails_but_an_opt_in_one(pytester, monkeypatch) -> None:
    """The suite's hook (tests/conftest.py): in CI a skip is a missing install step."""
    pytester.makeconftest("from tests.conftest import pytest_runtest_makereport  # noqa: F401\n")
    pytester.makeini("[pytest]\nmarkers = opt_in: may skip with CI=true\n")
    pytester.makepyfile(
        "import pytest\n"
        "def test_plain():\n    pytest.skip('Chromium is not installed')\n"
        "@pytest.mark.opt_in\n"
        "def test_opted_in():\n    pytest.skip('PRWEEKLY_LOAD_FULL is not set')\n"
    )
    monkeypatch.setenv("CI", "true")
    result = pytester.runpytest_inprocess("-p", "no:randomly", "-p", "no:xdist")
    result.assert_outcomes(failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*skipped with CI=true, where every test must run*Chromium*"])
    monkeypatch.setenv("CI", "false")
    pytester.runpytest_inprocess("-p", "no:randomly", "-p", "no:xdist").assert_outcomes(skipped=2)
