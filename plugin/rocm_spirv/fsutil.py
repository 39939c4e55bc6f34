"""Atomic writes (a reader never sees a half-written file) and reads of regular files only."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path
from typing import BinaryIO


def write_atomic(path: Path, data: str | bytes, mode: int | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class NotRegularFile(OSError):
    """A FIFO, device, socket or folder where a file's bytes were expected."""


def file_kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "folder"), (stat.S_ISFIFO, "FIFO (named pipe)"),
                       (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
                       (stat.S_ISSOCK, "socket")):
        if test(mode):
            return name
    return "regular file" if stat.S_ISREG(mode) else "special file"


def describe(path: Path) -> str:
    """'is a FIFO (named pipe), not a regular file' and the like, for a path that exists."""
    return f"is a {file_kind(os.stat(path).st_mode)}, not a regular file"


def open_regular(path: Path) -> BinaryIO:
    """Open a regular file for reading; a folder raises IsADirectoryError, anything else NotRegularFile,
    without blocking.

    A FIFO would block open() until a writer comes and read() until it leaves, and /dev/zero never
    ends, so the file is opened non-blocking and its type checked on the open descriptor (no race
    with a rename between a stat and the open).
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as err:
        if err.errno == errno.ENXIO:  # a UNIX socket cannot be opened at all
            raise NotRegularFile(err.errno, describe(path), str(path)) from None
        raise
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder", str(path))
        raise NotRegularFile(errno.EINVAL, f"is a {file_kind(mode)}, not a regular file", str(path))
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of a regular file of at most limit bytes; None when it is larger."""
    with open_regular(path) as f:
        if os.fstat(f.fileno()).st_size > limit:
            return None
        data = f.read(limit + 1)  # the file may have grown since fstat
        return None if len(data) > limit else data
