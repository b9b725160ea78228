"""Where prweekly's files live: a local folder, or an object store named by a URI.

The lake and the reports are written here. A reader must only ever see a whole file, so local
writes go to a temporary name first and are renamed into place, while object stores (`s3://`,
`gs://`, ...) publish an object only once its upload completes. Both go through pyarrow's
filesystems, which prweekly already depends on.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow.fs as pafs

from orchestration import object_store

Location = Path | str  # a local folder (Path) or a URI such as s3://bucket/prefix


def location(value: str | Path) -> Location:
    """A URI stays a string; anything else is a local path, made absolute."""
    text = str(value)
    return text.rstrip("/") if "://" in text else Path(text).expanduser().resolve()


def join(base: Location, *parts: str) -> Location:
    if isinstance(base, Path):
        return base.joinpath(*parts)
    return "/".join([base.rstrip("/"), *(p.strip("/") for p in parts)])


def filesystem_of(location: Location) -> tuple[pafs.FileSystem, str, str]:
    """The filesystem, the path in it, and the prefix that turns its paths back into URIs."""
    if isinstance(location, Path) or "://" not in location:
        return pafs.LocalFileSystem(), str(location), ""
    filesystem, path = pafs.FileSystem.from_uri(location)
    if isinstance(filesystem, pafs.LocalFileSystem):
        return filesystem, path, ""
    return filesystem, path, location.split("://", 1)[0] + "://"


def list_files(base: Location) -> tuple[list[object_store.StoredFile], str]:
    """Every file under `base`, recursively (none if it does not exist), and the prefix that
    turns their paths back into URIs. An object store's specifics are `object_store`'s."""
    filesystem, path, prefix = filesystem_of(base)
    return object_store.list_files(filesystem, str(base), path), prefix


def write_bytes(target: Location, data: bytes, durable: bool = True) -> int:
    """Replace `target` with `data`, so that a reader never sees a partial file. With
    `durable` False a local file is renamed into place without waiting for the disk (an
    fsync, about 1 to 7 ms a file): for files made again from the warehouse whenever they
    do not hold what was written (the reports and the site)."""
    filesystem, path, _ = filesystem_of(target)
    if isinstance(filesystem, pafs.LocalFileSystem):
        _write_local(Path(path), data, durable)
    else:
        parent = path.rsplit("/", 1)[0]
        filesystem.create_dir(parent, recursive=True)
        with filesystem.open_output_stream(path) as out:  # the object appears when closed
            out.write(data)
    return len(data)


def _write_local(target: Path, data: bytes, durable: bool = True) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = open_temporary(target)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def open_temporary(target: Path) -> tuple[int, str]:
    """A new hidden file beside `target` (`.<name>.<random>.tmp`), open for writing.

    Created with mode 0666 less the umask, as any file the user writes: `tempfile.mkstemp`
    makes it 0600, which would leave reports and the lake unreadable to a web server or a
    teammate once renamed into place.
    """
    while True:
        tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), str(tmp)
        except FileExistsError:  # a 48-bit name collision: draw another
            continue


def read_bytes(target: Location) -> bytes | None:
    """The file's content, or None when there is no such file."""
    filesystem, path, _ = filesystem_of(target)
    if isinstance(filesystem, pafs.LocalFileSystem):
        try:
            return Path(path).read_bytes()
        except FileNotFoundError:
            return None
    if filesystem.get_file_info(path).type == pafs.FileType.NotFound:
        return None
    with filesystem.open_input_stream(path) as stream:
        return stream.read()


def delete(target: Location) -> None:
    """Remove a file if it exists."""
    filesystem, path, _ = filesystem_of(target)
    if isinstance(filesystem, pafs.LocalFileSystem):
        Path(path).unlink(missing_ok=True)
        return
    if filesystem.get_file_info(path).type != pafs.FileType.NotFound:
        filesystem.delete_file(path)


def acquire_lock(
    path: Path,
    *,
    exclusive: bool = True,
    on_wait: Callable[[str], None] | None = None,
    waiting_message: str = "waiting for another prweekly process...",
) -> int:
    """Take a lock on `path` and return its descriptor (give it to `release_lock`); if the lock
    is taken, say `waiting_message` once and wait."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
    except BlockingIOError:
        started = time.monotonic()
        if on_wait:
            on_wait(waiting_message)
        try:
            fcntl.flock(fd, mode)
        except BaseException:
            os.close(fd)
            raise
        if on_wait:
            on_wait(f"...went ahead after {time.monotonic() - started:.1f}s")
    return fd


def release_lock(fd: int) -> None:
    fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)


@contextmanager
def file_lock(
    path: Path,
    *,
    exclusive: bool = True,
    on_wait: Callable[[str], None] | None = None,
    waiting_message: str = "waiting for another prweekly process...",
) -> Iterator[None]:
    """Hold a lock on `path` for a `with` block; if it is taken, say so once and wait."""
    fd = acquire_lock(path, exclusive=exclusive, on_wait=on_wait, waiting_message=waiting_message)
    try:
        yield
    finally:
        release_lock(fd)
