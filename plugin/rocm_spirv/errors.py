"""The tool's own errors: one base the CLI turns into a single line, and the OS errors it translates."""

from __future__ import annotations

import errno


class RocmSpirvError(Exception):
    """Every error rocm-spirv raises on purpose. The CLI prints line() and exits with exit_code."""

    exit_code = 2

    def line(self) -> str:
        return " ".join(str(self).split())


class UserError(RocmSpirvError):
    """Bad input or a missing piece: says the cause and the remedy, never a traceback."""

    def __init__(self, cause: str, remedy: str = "") -> None:
        self.cause = cause
        self.remedy = remedy
        super().__init__(self.line())

    def line(self) -> str:
        return f"{self.cause}; {self.remedy}" if self.remedy else self.cause


_REMEDY = {
    errno.EROFS: "the file system is mounted read-only; write somewhere else",
    errno.EACCES: "you lack permission there; check the owner and mode, or write somewhere else",
    errno.EPERM: "the operation is not permitted (an immutable file, chattr +i?); check lsattr, or write "
                 "somewhere else",
    errno.ENOTDIR: "a part of that path is a file where a folder should be; move it away or pick another path",
    errno.EISDIR: "that path is a folder; name a file",
    errno.ENOSPC: "the disk is full; free space and run again (nothing was half-written)",
    errno.EDQUOT: "the disk quota is used up; free space and run again (nothing was half-written)",
    errno.EEXIST: "something is in the way at that path; move it away or pick another path",
    errno.ENOENT: "check the path",
    errno.ELOOP: "the path has a symlink loop; fix the link",
    errno.ENAMETOOLONG: "use a shorter path",
    errno.EXDEV: "keep the file and its folder on one file system",
}


def os_error(err: OSError, doing: str = "") -> UserError:
    """An OSError as one line: what failed, on which path, and what to do about it."""
    where = " -> ".join(str(p) for p in (err.filename, err.filename2) if p is not None)
    cause = err.strerror or type(err).__name__
    what = f"{doing}: " if doing else ""
    return UserError(f"{what}{cause}" + (f": {where}" if where else ""),
                     _REMEDY.get(err.errno or 0, "check the path and run again"))
