"""A non-editable install (`pip install .`, as a container image does it) works on its own.

The wheel must carry the SQL project, seeds, templates and strings that a checkout keeps at the
top of the tree: `prweekly demo` from an empty folder, run by the installed copy, must write the
same reports, byte for byte, as `make demo` in the checkout.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

DEMO_TIMEOUT = 600  # seconds; the demo takes well under a minute


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project built as a wheel, offline, with the build backend the test env holds."""
    out = tmp_path_factory.mktemp("wheel")
    _run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "--no-index",
        "--disable-pip-version-check",
        "-q",
        "-w",
        str(out),
        str(ROOT),
    )
    [built] = out.glob("prweekly-*.whl")
    return built


def test_the_wheel_carries_every_file_of_the_sql_project_and_the_reports(wheel: Path) -> None:
    shipped = set(zipfile.ZipFile(wheel).namelist())
    wanted = {
        f"orchestration/_project/{path.relative_to(ROOT).as_posix()}"
        for folder in ("sql", "reports")
        for path in (ROOT / folder).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert len(wanted) > 40 and wanted <= shipped, sorted(wanted - shipped)
    assert "orchestration/_project/workspace.yaml" in shipped
    assert "orchestration/sample/acme__rocket.jsonl" in shipped


def test_no_module_reads_files_beside_the_package_except_through_project_files() -> None:
    """A path built from `__file__` above the package is missing in a wheel: ask
    `orchestration.config` instead, which knows both layouts."""
    above = re.compile(r"__file__\)(?:\.resolve\(\))?\.(?:parent\.parent|parents\[)")
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "orchestration").rglob("*.py")
        if path.name != "project_files.py" and above.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def _counted_at(report: bytes) -> bytes:
    """`report` with the time its completeness line was counted at left out."""
    return re.sub(rb"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC", b"<counted at>", report)


def test_an_installed_wheel_run_from_an_empty_folder_writes_the_demos_reports(
    wheel: Path, tmp_path: Path
) -> None:
    venv = _venv_with_the_test_dependencies(tmp_path / "venv")
    _run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        str(venv / "bin" / "python"),
        "install",
        "--no-deps",
        "--no-index",
        "--disable-pip-version-check",
        "-q",
        str(wheel),
    )
    installed, checkout = tmp_path / "installed", tmp_path / "checkout"
    installed.mkdir()
    checkout.mkdir()
    where = _run(
        str(venv / "bin" / "python"),
        "-c",
        "import orchestration.config as c; print(c.__file__); print(c.SQL_DIR)",
        cwd=installed,
    ).stdout.split()
    assert all(Path(path).is_relative_to(venv) for path in where), where  # not the checkout

    env = _clean_environment()
    # `make demo`: the checkout's (editable) prweekly with PRWEEKLY_HOME set; the installed
    # one from an empty folder with nothing set, so its home is ./data. Both at once.
    reference = subprocess.Popen(
        [str(Path(sys.executable).with_name("prweekly")), "demo"],
        cwd=ROOT,
        env={**env, "PRWEEKLY_HOME": str(checkout / "data")},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    candidate = _run(str(venv / "bin" / "prweekly"), "demo", cwd=installed, env=env)
    reference_out = reference.communicate(timeout=DEMO_TIMEOUT)[0]
    assert reference.returncode == 0, reference_out[-3000:]

    written = _files(installed / "data" / "reports")
    # 4 weeks x (zh, en) x (md, html, appendix page, svg chart), and the site: home and
    # repository page in both languages, 2 feeds
    assert len(written) == 38
    assert written.keys() == _files(checkout / "data" / "reports").keys()
    for name, content in written.items():  # the site's pages list when each edition was made
        if re.search(r"/\d{4}-\d{2}-\d{2}\.", name):
            expected = (checkout / "data" / "reports" / name).read_bytes()
            # each report says the minute its run counted the week's PRs: the two runs may
            # straddle a minute
            assert _counted_at(content) == _counted_at(expected), name
    assert str(installed / "data" / "reports" / "acme__rocket") in candidate.stdout
    assert sorted(p.name for p in installed.iterdir()) == ["data"]  # nothing else left behind
    # the sample is registered with its own file: with the emulator gone, `build --all` (what
    # the Monday schedule runs) reads it from there, not from GitHub's real API
    registry = (checkout / "data" / "repositories.yml").read_text()
    assert f"source: file:{ROOT / 'orchestration' / 'sample' / 'acme__rocket.jsonl'}" in registry
    again = _run(
        str(Path(sys.executable).with_name("prweekly")), "build", "--all", "--week", "2026-W30",
        cwd=ROOT, env={**env, "PRWEEKLY_HOME": str(checkout / "data")},
    )  # fmt: skip
    assert "building 1 repository 2026-W30" in again.stdout


def _venv_with_the_test_dependencies(venv: Path) -> Path:
    """A fresh virtualenv that sees this environment's third-party packages through a `.pth`
    file, but not its editable install of prweekly: the paths a `.pth` file adds are not
    scanned for `.pth` files themselves, so the editable hook stays inactive."""
    _run(sys.executable, "-m", "venv", "--without-pip", str(venv))
    purelib = _run(
        str(venv / "bin" / "python"),
        "-c",
        "import sysconfig; print(sysconfig.get_paths()['purelib'])",
    ).stdout.strip()
    ours = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
    (Path(purelib) / "test_dependencies.pth").write_text("\n".join(ours) + "\n")
    return venv


def _clean_environment() -> dict[str, str]:
    skip = ("PRWEEKLY_", "GITHUB_", "DAGSTER_", "PYTHONPATH", "VIRTUAL_ENV")
    return {key: value for key, value in os.environ.items() if not key.startswith(skip)}


def _files(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def _run(*args: str, cwd: Path | None = None, env: dict | None = None):
    result = subprocess.run(
        args,
        cwd=cwd or ROOT,
        env=env or _clean_environment(),
        capture_output=True,
        text=True,
        timeout=DEMO_TIMEOUT,
    )
    assert result.returncode == 0, f"{args}: {result.stdout[-2000:]}{result.stderr[-3000:]}"
    return result
