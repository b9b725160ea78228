"""What differs when the lake or the reports live on an object store (`s3://…`, `gs://…`).

Writes and reads go through pyarrow's filesystems, as on local disk (`storage.py`). Two things
do not carry over:

- DuckDB reads `s3://` only through its `httpfs` extension, which is downloaded at run time
  (impossible offline) or installed from a package built for one exact DuckDB release. So a
  DuckDB connection is given the store through pyarrow instead: its filesystem, wrapped as an
  fsspec filesystem, is registered on the connection for the URI's scheme. One client, one set
  of credentials (`AWS_*`, `AWS_ENDPOINT_URL`, a pod identity), for every DuckDB version.
- An object's LastModified has one-second resolution, so two writes of a week within a second
  look alike. A listing of S3 therefore carries each object's ETag, which changes with the
  content, and a compacted copy is checked against the ETags it was made from.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

import duckdb
import pyarrow.fs as pafs

STORE_SETTINGS = ("PRWEEKLY_LAKE_URI", "PRWEEKLY_REPORTS_URI")


@dataclass(frozen=True)
class StoredFile:
    """One object as listed: its path within the filesystem, and what identifies this version."""

    path: str
    size: int
    mtime_ns: int | None
    etag: str | None


def scheme_of(uri: str) -> str | None:
    """`s3` for `s3://bucket/x`; None for a local path or `file://`."""
    scheme, sep, _ = uri.partition("://")
    return scheme.lower() if sep and scheme.lower() != "file" else None


def list_files(filesystem: pafs.FileSystem, uri: str, path: str) -> list[StoredFile]:
    """Every object under `path` (the filesystem's spelling of `uri`), recursively; on S3 with
    each object's ETag, from the same listing requests (no request per object)."""
    if scheme_of(uri) == "s3":
        return _list_s3(path)
    selector = pafs.FileSelector(path, recursive=True, allow_not_found=True)
    return [
        StoredFile(info.path, info.size, info.mtime_ns, None)
        for info in filesystem.get_file_info(selector)
        if info.type == pafs.FileType.File
    ]


def _list_s3(path: str) -> list[StoredFile]:
    try:
        import boto3
    except ImportError as error:
        raise RuntimeError(
            "a lake on S3 needs boto3 to list it with ETags: install prweekly[deploy]"
        ) from error
    bucket, _, key = path.partition("/")
    prefix = key.rstrip("/") + "/" if key else ""
    pages = (
        boto3.client("s3").get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
    )
    found = []
    for page in pages:
        for item in page.get("Contents", []):
            if item["Key"].endswith("/"):  # a folder marker, not a file
                continue
            modified = int(item["LastModified"].timestamp()) * 10**9
            etag = item["ETag"].strip('"')
            found.append(StoredFile(f"{bucket}/{item['Key']}", item["Size"], modified, etag))
    return found


@functools.cache
def _fsspec_over_arrow(scheme: str) -> type:
    """An fsspec filesystem class for `scheme` that delegates to a pyarrow filesystem (fsspec
    comes with Dagster; imported only where a store is configured)."""
    from fsspec.implementations.arrow import ArrowFSWrapper

    return type(f"{scheme}_over_arrow", (ArrowFSWrapper,), {"protocol": (scheme,)})


def register_with_duckdb(conn: duckdb.DuckDBPyConnection) -> None:
    """Let `conn` read the configured object stores' URIs (`read_parquet('s3://…')`)."""
    done = set()
    for setting in STORE_SETTINGS:
        uri = os.environ.get(setting) or ""
        scheme = scheme_of(uri)
        if scheme is None or scheme in done:
            continue
        filesystem, _ = pafs.FileSystem.from_uri(uri)
        conn.register_filesystem(_fsspec_over_arrow(scheme)(filesystem))
        done.add(scheme)
