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
