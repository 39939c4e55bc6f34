"""The one write path, the one lock and the one way to read a regular file: a reader never sees a
half-written file, a write never costs a user a permission, an owner, a link or a device node, and a
read never blocks on a FIFO or a device.

write_atomic writes a temp file beside the target (named `.<name>.rocm-spirv-tmp.<pid>.<n>`), fsyncs
it and renames it over the target. An existing target keeps its mode and owner; a symlink keeps
being a symlink (its target is what changes); hard links, read-only files and anything that is not a
regular file are refused with one line. Temp files are removed on any exception, and the ones a
killed process left behind are removed by the next write to the same name.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import itertools
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from rocm_spirv.errors import UserError

TMP_MARK = ".rocm-spirv-tmp."
_counter = itertools.count()


def tmp_name(target: Path) -> str:
    return f".{target.name}{TMP_MARK}{os.getpid()}.{next(_counter)}"


def umask() -> int:
    # Reading the umask means setting it; the CLI is single-threaded while it writes.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def default_mode() -> int:
    """What open(..., 'w') would give a new file: 0644 under the usual umask 022."""
    return 0o666 & ~umask()


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_temps(target: Path) -> list[Path]:
    """Temp files for target left by processes that are gone (kill -9); returns what was removed."""
    removed: list[Path] = []
    prefix = f".{target.name}{TMP_MARK}"
    try:
        names = os.listdir(target.parent)
    except OSError:
        return removed
    for name in names:
        if not name.startswith(prefix):
            continue
        pid_text = name[len(prefix):].split(".", 1)[0]
        if not pid_text.isdigit() or pid_alive(int(pid_text)):
            continue
        path = target.parent / name
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            removed.append(path)
    return removed


@dataclass(frozen=True)
class Target:
    """Where the bytes go (a symlink resolved to its target) and what the existing file was."""

    path: Path
    existing: os.stat_result | None


def check_target(path: Path, what: str = "") -> Target:
    """Refuse what write_atomic must not replace; resolve a symlink to the file it names.

    Read-only is judged by the mode bits, not by access(2): root may write a 0444 file, but the
    user who made it read-only meant it to stay as it is.
    """
    label = what or str(path)
    real = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return Target(real, None)
    except NotADirectoryError:
        raise UserError(f"cannot write {label}: a part of its folder path is a file, not a folder",
                        "move that file away or pick another path") from None
    if not stat.S_ISREG(st.st_mode):
        raise UserError(f"refusing to write {label}: it is a {file_kind(st.st_mode)}",
                        "pass a path to a regular file (or a new one)")
    if not st.st_mode & 0o222:
        raise UserError(f"refusing to write {label}: it is read-only (mode {stat.S_IMODE(st.st_mode):04o})",
                        "make it writable (chmod u+w) if it should change, or write elsewhere")
    if attr_flags(real) & (FS_IMMUTABLE_FL | FS_APPEND_FL):
        raise UserError(f"refusing to write {label}: it is immutable or append-only (chattr +i/+a)",
                        "lift that (chattr -i -a) if it should change, or write elsewhere")
    if st.st_nlink > 1:
        raise UserError(f"refusing to write {label}: it has {st.st_nlink} hard links, and replacing it would "
                        "split them", "break the link yourself (cp FILE tmp && mv tmp FILE) or write elsewhere")
    if os.geteuid() != 0 and not os.access(real, os.W_OK):
        raise UserError(f"refusing to write {label}: you may not write it", "check its owner and mode")
    return Target(real, st)


FS_IOC_GETFLAGS = 0x80086601
FS_IMMUTABLE_FL, FS_APPEND_FL = 0x10, 0x20


def attr_flags(path: Path) -> int:
    """chattr flags of a regular file (0 where the file system has none)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return 0
    try:
        return int.from_bytes(fcntl.ioctl(fd, FS_IOC_GETFLAGS, bytes(8))[:4], "little")
    except OSError:
        return 0
    finally:
        os.close(fd)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot fsync a folder; the rename is still atomic
    finally:
        os.close(fd)


def stage(target: Target, data: bytes, mode: int | None = None, name: str | None = None) -> Path:
    """A complete, fsynced copy of data beside target.path, with the mode and owner the final file
    must have. name defaults to a temp name; the caller renames it into place or removes it."""
    folder = target.path.parent
    tmp = folder / (name or tmp_name(target.path))
    st = target.existing
    final_mode = mode if mode is not None else stat.S_IMODE(st.st_mode) if st else default_mode()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            if st is not None and (st.st_uid != os.geteuid() or st.st_gid != os.getegid()):
                try:
                    os.fchown(f.fileno(), st.st_uid, st.st_gid)
                except PermissionError:
                    raise UserError(f"refusing to write {target.path}: it belongs to another user or group "
                                    "and a replacement could not keep that owner",
                                    "run as its owner, or write elsewhere") from None
            os.fchmod(f.fileno(), final_mode)
            if st is not None:
                copy_xattrs(target.path, f.fileno())
            os.fsync(f.fileno())
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


# Labels the security policy assigns to every new file by itself; copying them may need privileges.
_POLICY_XATTRS = ("security.selinux", "security.SMACK64", "security.apparmor")


def copy_xattrs(source: Path, fd: int) -> None:
    """The extended attributes of source (POSIX ACLs are system.posix_acl_access, user.* what tools
    and users attach) onto the open replacement, or one line refusing the write."""
    try:
        names = os.listxattr(source)
    except OSError as err:
        if err.errno in (errno.ENOTSUP, errno.ENODATA):
            return  # a file system without extended attributes: nothing to keep
        raise
    for name in names:
        if name in _POLICY_XATTRS:
            continue
        try:
            os.setxattr(fd, name, os.getxattr(source, name))
        except OSError as err:
            raise UserError(f"refusing to write {source}: its extended attribute {name} (an ACL or a tag) "
                            f"could not be kept ({err.strerror})",
                            "remove that attribute if it need not stay, or edit the file by hand") from None


def commit(staged: Path, target: Path) -> None:
    os.replace(staged, target)
    _fsync_dir(target.parent)


def write_atomic(path: Path, data: str | bytes, mode: int | None = None, what: str = "") -> None:
    """Replace (or create) path with data. mode: None keeps an existing file's mode (a new file
    gets the umask's); a number sets it (executables). what: how errors name the file."""
    target = check_target(path, what)
    try:
        target.path.parent.mkdir(parents=True, exist_ok=True, mode=0o777)
    except FileExistsError:
        raise UserError(f"cannot write {what or path}: {target.path.parent} is a file, not a folder",
                        "move that file away or pick another path") from None
    remove_stale_temps(target.path)
    raw = data.encode() if isinstance(data, str) else data
    staged = stage(target, raw, mode)
    try:
        commit(staged, target.path)
    except BaseException:
        staged.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def locked(path: Path, busy: UserError | None = None) -> Iterator[None]:
    """An exclusive advisory lock held while the block runs (the kernel drops it on kill -9).

    path is a lock file (created if missing, and left in place: removing it would let a waiter
    lock a file a newcomer no longer sees) or an existing folder, which is locked itself so that
    nothing is added to it. With `busy`, a lock someone else holds raises it instead of waiting."""
    try:
        if path.is_dir():
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, default_mode())
    except FileExistsError:
        raise UserError(f"cannot lock {path}: {path.parent} is a file, not a folder",
                        "move that file away or pick another path") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (fcntl.LOCK_NB if busy is not None else 0))
        except BlockingIOError:
            assert busy is not None
            raise busy from None
        yield
    finally:
        os.close(fd)


# Reads: regular files only, never blocking on a FIFO or a device.


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


def _open_regular_fd(path: str | Path) -> tuple[int, os.stat_result]:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as err:
        if err.errno == errno.ENXIO:  # a UNIX socket cannot be opened at all
            raise NotRegularFile(err.errno, describe(Path(path)), str(path)) from None
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder", str(path))
        raise NotRegularFile(errno.EINVAL, f"is a {file_kind(st.st_mode)}, not a regular file", str(path))
    os.set_blocking(fd, True)
    return fd, st


def open_regular(path: Path) -> BinaryIO:
    """Open a regular file for reading; a folder raises IsADirectoryError, anything else NotRegularFile,
    without blocking.

    A FIFO would block open() until a writer comes and read() until it leaves, and /dev/zero never
    ends, so the file is opened non-blocking and its type checked on the open descriptor (no race
    with a rename between a stat and the open).
    """
    return os.fdopen(_open_regular_fd(path)[0], "rb")


def read_regular_stat(path: str | Path, limit: int) -> tuple[os.stat_result, bytes | None]:
    """The stat of a regular file (of the open descriptor) and its bytes, opened as open_regular does: None
    when the stat says it is larger than limit, else at most limit + 1 bytes (it may have grown since).
    Reads by the file's size: one read of limit + 1 bytes costs a buffer that large per file."""
    fd, st = _open_regular_fd(path)
    try:
        if st.st_size > limit:
            return st, None
        chunks: list[bytes] = []
        size, want = 0, st.st_size + 1
        while size <= limit:
            chunk = os.read(fd, min(want, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            want = 1 << 16
        return st, chunks[0] if len(chunks) == 1 else b"".join(chunks)
    finally:
        os.close(fd)


def read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of a regular file of at most limit bytes; None when it is larger."""
    data = read_regular_stat(path, limit)[1]
    return None if data is None or len(data) > limit else data


def refuse_newlines(**values: object) -> None:
    """A newline in a path would end a line of the generated file and inject the rest."""
    for what, value in values.items():
        items = value if isinstance(value, (list, tuple)) else [value]
        for item in items:
            if isinstance(item, str) and ("\n" in item or "\r" in item):
                raise UserError(f"{what} {item!r} contains a line break, which no generated file can hold",
                                "rename or link it to a path without one")


def sha256_file(path: Path) -> str:
    """The hex sha256 of a file, read in 1 MiB blocks (memory stays flat for a wheel of any size)."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
