"""Real servers for the deployment tests, each on a free loopback port and removed after:
a throwaway PostgreSQL cluster and an S3-compatible object store (moto in server mode)."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

STARTUP_SECONDS = 30


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for_port(port: int, process: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode} before listening")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on port {port} within {STARTUP_SECONDS} s")


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


# --- PostgreSQL -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Postgres:
    """A running cluster: what `deploy/dagster.yaml` reads from the environment."""

    host: str
    port: int
    user: str
    password: str
    db: str

    def env(self) -> dict[str, str]:
        return {
            "DAGSTER_PG_HOST": self.host,
            "DAGSTER_PG_PORT": str(self.port),
            "DAGSTER_PG_USER": self.user,
            "DAGSTER_PG_PASSWORD": self.password,
            "DAGSTER_PG_DB": self.db,
        }


def _postgres_bindir() -> Path | None:
    """Where Debian's `postgresql` puts `initdb` and `postgres` (not on PATH there)."""
    on_path = shutil.which("initdb")
    if on_path and shutil.which("postgres"):
        return Path(on_path).resolve().parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)
    return Path(versions[0]).parent if versions else None


def _server_user() -> list[str]:
    """The prefix that runs a command as a user PostgreSQL accepts: `initdb` and `postgres`
    refuse to run as root, so under root they run as the `postgres` user the package made
    (or `nobody`)."""
    if os.geteuid() != 0:
        return []
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return ["runuser", "-u", name, "--"]
    pytest.skip("running as root with neither a `postgres` nor a `nobody` user to run PostgreSQL")


@contextlib.contextmanager
def postgres_cluster() -> Iterator[Postgres]:
    """A new cluster made by `initdb` in a temporary folder, with password authentication on
    a free loopback port and no Unix socket; stopped and removed after.

    The password is checked by md5, not SCRAM: Dagster opens a new connection for nearly every
    event it stores, and SCRAM's key stretching made each take 10 ms instead of 4 (half of the
    Postgres test's time). What the tests check is that the password reaches the server."""
    bindir = _postgres_bindir()
    if bindir is None:
        pytest.skip(
            "PostgreSQL is not installed (Debian's `postgresql` package; .ci/run installs it)"
        )
    as_user = _server_user()
    # Not under pytest's folder: that one is private to this user, and the server's user
    # must own its data folder.
    root = Path(tempfile.mkdtemp(prefix="prweekly-pg-"))
    data, pwfile = root / "data", root / "password"
    password = secrets.token_hex(12)
    pwfile.write_text(password + "\n", encoding="utf-8")
    if as_user:
        user = as_user[2]
        shutil.chown(root, user)
        shutil.chown(pwfile, user)
    process = None
    try:
        subprocess.run(
            [*as_user, str(bindir / "initdb"), "-D", str(data), "-U", "prweekly",
             f"--pwfile={pwfile}", "--auth=md5", "-E", "UTF8", "--no-sync"],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        port = free_port()
        process = subprocess.Popen(
            [*as_user, str(bindir / "postgres"), "-D", str(data), "-p", str(port),
             "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=",
             "-c", "fsync=off", "-c", "max_connections=50"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        _wait_for_port(port, process, "postgres")
        server = Postgres("127.0.0.1", port, "prweekly", password, "dagster")
        _create_database(server)
        yield server
    finally:
        if process is not None:
            _stop(process)
        shutil.rmtree(root, ignore_errors=True)


def _create_database(server: Postgres) -> None:
    import psycopg2

    deadline = time.monotonic() + STARTUP_SECONDS
    while True:  # the port opens a moment before the server accepts logins
        try:
            conn = psycopg2.connect(
                host=server.host, port=server.port, user=server.user,
                password=server.password, dbname="postgres",
            )  # fmt: skip
            break
        except psycopg2.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    conn.autocommit = True
    with conn.cursor() as cursor:
        cursor.execute(f"create database {server.db}")
    conn.close()


# --- S3 ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ObjectStore:
    """A running S3-compatible server and the settings a client needs for it."""

    endpoint: str
    bucket: str

    def env(self) -> dict[str, str]:
        return {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": "prweekly-test",
            "AWS_SECRET_ACCESS_KEY": "prweekly-test-secret",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_REGION": "us-east-1",
            "AWS_EC2_METADATA_DISABLED": "true",
        }


@contextlib.contextmanager
def s3_server(bucket: str = "prweekly") -> Iterator[ObjectStore]:
    """moto's S3 in server mode on a free loopback port, with one empty bucket."""
    try:
        import boto3
        import moto.server  # noqa: F401  (the server mode needs its extra)
    except ImportError:
        pytest.skip("moto[server] and boto3 are not installed (the `dev` extra installs them)")
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        _wait_for_port(port, process, "moto_server")
        store = ObjectStore(f"http://127.0.0.1:{port}", bucket)
        env = store.env()
        client = boto3.client(
            "s3", endpoint_url=store.endpoint, region_name=env["AWS_REGION"],
            aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
        )  # fmt: skip
        client.create_bucket(Bucket=bucket)
        yield store
    finally:
        _stop(process)
