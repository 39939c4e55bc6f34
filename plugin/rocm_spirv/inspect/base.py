"""What every reader shares: the buffer type, the format error and the size limits."""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass

from rocm_spirv.errors import RocmSpirvError

# A file mapped into memory, or bytes decompressed from a bundle or read from a wheel.
Buffer = bytes | bytearray | mmap.mmap


class FormatError(RocmSpirvError):
    """Malformed, truncated or hostile input; the message is one line that says where."""

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message))


def one_line(text: str, limit: int = 400) -> str:
    """Control characters (from names inside hostile files) shown as '?', long text cut."""
    clean = "".join(c if c.isprintable() else "?" for c in text)
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"


@dataclass(frozen=True)
class Limits:
    """Caps that keep hostile input from taking unbounded memory or time."""

    max_decompressed: int = 1 << 30  # one compressed bundle, uncompressed
    max_member: int = 1 << 30  # one wheel member, uncompressed
    max_wheel_total: int = 4 << 30  # all inspected wheel members together
    max_ratio: int = 2000  # uncompressed/compressed above this is treated as a bomb
    max_entries: int = 100_000  # bundle entries, archive members, zip members
    max_depth: int = 3  # archive in wheel in …


DEFAULT_LIMITS = Limits()


PAGE = mmap.PAGESIZE
# Linux maps up to 64 KiB around a faulting page of a file ("fault-around"), so pages just before a
# range may be resident too; releasing reaches back this far to catch them.
FAULT_AROUND_SLACK = 128 << 10


def release(buf: Buffer, start: int, end: int) -> None:
    """Tell the kernel we are done with these pages of a mapped file, so big inputs keep RSS small."""
    if isinstance(buf, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):
        start = max(0, start - FAULT_AROUND_SLACK)
        lo, hi = start - start % PAGE, min(len(buf), end + (-end) % PAGE)
        if hi > lo:
            buf.madvise(mmap.MADV_DONTNEED, lo, hi - lo)


def u16(buf: Buffer, off: int) -> int:
    return int(struct.unpack_from("<H", buf, off)[0])


def u32(buf: Buffer, off: int) -> int:
    return int(struct.unpack_from("<I", buf, off)[0])


def u64(buf: Buffer, off: int) -> int:
    return int(struct.unpack_from("<Q", buf, off)[0])


def need(buf: Buffer, start: int, size: int, end: int, what: str) -> None:
    """Raise unless [start, start+size) lies inside [0, end) and inside buf."""
    if start < 0 or size < 0 or start + size > end or start + size > len(buf):
        raise FormatError(f"{what}: truncated (needs bytes {start}..{start + size}, has {min(end, len(buf))})")


def cstring(buf: Buffer, off: int, end: int, what: str, limit: int = 4096) -> str:
    """A NUL-terminated string starting at off, within end and limit bytes."""
    if off < 0 or off >= end:
        raise FormatError(f"{what}: string offset {off} is outside the data")
    stop = buf.find(b"\0", off, min(end, off + limit))
    if stop < 0:
        raise FormatError(f"{what}: unterminated string at offset {off}")
    return bytes(buf[off:stop]).decode("utf-8", errors="replace")


def human_size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{n} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"
