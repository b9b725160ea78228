"""The unit layer: code on data, with no Dagster instance, no server and no child process
(those tests are in tests/integration/ and tests/e2e/). A test here that starts one fails."""

from __future__ import annotations

import socketserver
import subprocess
import sys

import pytest


def _refused(what: str):
    def refuse(*_args, **_kwargs):
        raise AssertionError(f"a unit test {what}: move it to tests/integration/ or tests/e2e/")

    return refuse


@pytest.fixture(autouse=True)
def _code_on_data_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socketserver.TCPServer, "server_bind", _refused("opens a server"))
    monkeypatch.setattr(subprocess.Popen, "__init__", _refused("starts a process"))
    if "dagster" in sys.modules:
        instance = sys.modules["dagster"].DagsterInstance
        for name in ("ephemeral", "get", "local_temp", "from_config", "from_ref"):
            monkeypatch.setattr(instance, name, _refused("makes a Dagster instance"))
