"""The code location loads and wires every model, check, job and schedule."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import dagster as dg

from orchestration.service.definitions import defs, project

ROOT = Path(__file__).resolve().parents[2]


def test_every_sql_model_is_an_asset_with_its_yaml_checks() -> None:
    graph = defs.resolve_asset_graph()
    keys = {key.to_user_string() for key in graph.get_all_asset_keys()}
    assert {"raw_pull_requests", "weekly_report", *project.models} <= keys
    assert {f"seeds/{name}" for name in project.seeds} <= keys
    checks = {(c.asset_key.to_user_string(), c.name) for c in graph.asset_check_keys}
    assert ("fct_pull_requests", "unique_repo_number") in checks
    assert ("fct_weekly_area_trends", "accepted_values_trend") in checks
    deps = {k.to_user_string() for k in graph.get(dg.AssetKey("fct_weekly_summary")).parent_keys}
    assert {"fct_pull_requests", "stg_weekly_partitions", "seeds/topics"} <= deps


def test_dagster_validates_the_workspace() -> None:
    dagster = Path(sys.executable).with_name("dagster")
    result = subprocess.run(
        [str(dagster), "definitions", "validate", "-w", "workspace.yaml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "All code locations passed validation" in result.stderr + result.stdout
