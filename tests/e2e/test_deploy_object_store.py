"""The lake and the reports on a real S3-compatible server (moto in server mode on loopback):
extract, compaction, models and reports end to end, byte for byte as on local disk."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import build_sample
from tests.servers import ObjectStore, s3_server


@pytest.fixture(scope="module")
def store() -> ObjectStore:
    with s3_server() as server:
        yield server


@pytest.fixture(scope="module")
def built(store: ObjectStore, tmp_path_factory: pytest.TempPathFactory):
    """The sample's four weeks built once with the lake and the reports on the store; the
    environment stays set for the module's tests. Yields (the store prefix, PRWEEKLY_HOME)."""
    home = tmp_path_factory.mktemp("on-store") / "home"
    prefix = f"s3://{store.bucket}/{home.parent.name}"
    with pytest.MonkeyPatch.context() as mp:
        for name in ("PRWEEKLY_SOURCE", "GITHUB_TOKEN", "DAGSTER_HOME", "GITHUB_GRAPHQL_URL"):
            mp.delenv(name, raising=False)
        for name, value in store.env().items():
            mp.setenv(name, value)
        mp.setenv("PRWEEKLY_HOME", str(home))
        mp.setenv("PRWEEKLY_LAKE_URI", f"{prefix}/lake")
        mp.setenv("PRWEEKLY_REPORTS_URI", f"{prefix}/reports/")
        assert build_sample("2026-W27", "2026-W30") == 0
        yield prefix, home


def objects(prefix: str) -> dict[str, bytes]:
    """Every object under an `s3://bucket/prefix`, by its key below the prefix."""
    import boto3

    bucket, _, key = prefix.removeprefix("s3://").partition("/")
    client = boto3.client("s3")
    found = {}
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=key + "/"):
        for item in page.get("Contents", []):
            if item["Key"].endswith("/"):  # a folder marker pyarrow leaves
                continue
            body = client.get_object(Bucket=bucket, Key=item["Key"])["Body"].read()
            found[item["Key"].removeprefix(key + "/")] = body
    return found


def test_a_build_on_the_object_store_writes_the_same_reports_as_on_disk(
    built: tuple[str, Path], sample_home: Path
) -> None:
    import duckdb

    on_store, home = built
    lake = sorted(objects(f"{on_store}/lake"))
    assert lake[:6] == [
        "raw/history/repo=acme__rocket/data.parquet",
        *(
            f"raw/pull_requests/repo=acme__rocket/week={week}/data.parquet"
            for week in ("2026-06-29", "2026-07-06", "2026-07-13", "2026-07-20")
        ),
        lake[5],
    ]
    assert lake[5].startswith("raw/pull_requests_compacted/acme__rocket/") and len(lake) == 6
    assert not (home / "lake").exists() and not (home / "reports").exists()

    on_disk = sample_home / "reports"
    local = {p.relative_to(on_disk).as_posix(): p.read_bytes() for p in on_disk.rglob("*.*")}
    stored = objects(f"{on_store}/reports")
    assert sorted(stored) == sorted(local)
    # 4 weeks in zh and en with their appendix pages, the site's home and the repository's page
    # in both languages
    assert len([name for name in stored if name.endswith(".html")]) == 20
    # the week reports byte for byte; the site's pages list each edition's render time
    weeks = [n for n in sorted(stored) if re.search(r"/\d{4}-\d{2}-\d{2}\.", n)]
    assert len(weeks) == 32 and [n for n in weeks if stored[n] != local[n]] == []

    # The warehouse's views read the lake on the store too, through any prweekly connection.
    from orchestration.database import connect

    with connect(home / "warehouse.duckdb", read_only=True) as conn:
        rows = conn.execute("select count(*) from staging.stg_pull_requests").fetchone()
    with duckdb.connect(str(sample_home / "warehouse.duckdb"), read_only=True) as conn:
        assert rows == conn.execute("select count(*) from staging.stg_pull_requests").fetchone()


def test_a_copy_on_the_store_is_checked_by_etag_not_by_time_stamp(built: tuple[str, Path]) -> None:
    """LastModified has one-second resolution (and each node of a store its own clock): a
    compacted copy records the ETags of the objects it was made from, and a week rewritten
    with the same size is read from its own object, whatever its time stamp."""
    import boto3

    from orchestration.config import load_settings
    from orchestration.lake.compaction import _manifest, plan_full_read
    from orchestration.lake.files import list_week_files
    from orchestration.storage import filesystem_of

    lake_dir = load_settings().lake_dir
    weeks = list_week_files(lake_dir).weeks["acme__rocket"]
    (copy,) = plan_full_read(lake_dir, list_week_files(lake_dir)).compacted
    filesystem, path, _ = filesystem_of(copy)
    recorded = _manifest(path, filesystem).weeks
    assert {week: entry[3] for week, entry in recorded.items()} == {
        week: weeks[week].etag for week in recorded
    }

    first = weeks[min(weeks)]
    bucket, _, key = first.path.removeprefix("s3://").partition("/")
    client = boto3.client("s3")
    body = client.get_object(Bucket=bucket, Key=key)["Body"].read()
    client.put_object(Bucket=bucket, Key=key, Body=body[:4] + b"\0" * 4 + body[8:])
    try:
        relisted = list_week_files(lake_dir)
        assert relisted.weeks["acme__rocket"][min(weeks)].size == first.size
        said: list[str] = []
        plan = plan_full_read(lake_dir, relisted, said.append)
    finally:  # the module's other test reads this lake
        client.put_object(Bucket=bucket, Key=key, Body=body)
    assert plan.compacted == [] and len(plan.weekly) == len(weeks)
    assert f"week {min(weeks)} changed since the copy was made (its ETag differs)" in said[0]
