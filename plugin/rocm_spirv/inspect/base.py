"""What every reader shares: the buffer type, the format error and the size limits."""

from __future__ import annotations

import errno
import mmap
import os
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from rocm_spirv.errors import RocmSpirvError

# A file mapped into memory, or bytes decompressed from a bundle or read from a wheel.
Buffer = bytes | bytearray | mmap.mmap


class FileMap(mmap.mmap):
    """A mapped file that keeps its descriptor, so the holes of a sparse file can be skipped unread."""

    fd: int = -1


def next_data(buf: Buffer, pos: int) -> int:
    """The first offset >= pos that may hold something other than zeros: holes of a sparse file are
    jumped with SEEK_DATA (a 1 GiB section that is 40 KB on disk costs one system call, not 1 GiB of
    zero pages). Anything else, or a file system without SEEK_DATA, answers pos itself."""
    fd = getattr(buf, "fd", -1)
    if fd < 0 or not hasattr(os, "SEEK_DATA"):
        return pos
    try:
        return max(pos, os.lseek(fd, pos, os.SEEK_DATA))
    except OSError as err:
        return len(buf) if err.errno == errno.ENXIO else pos  # ENXIO: only a hole after pos


class FormatError(RocmSpirvError):
    """Malformed, truncated or hostile input; the message is one line that says where."""

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message))


class NotBinary(FormatError):
    """Readable, but not a kind of file that can hold device code here: a script, text, a thin archive."""


def one_line(text: str, limit: int = 400) -> str:
    """Control characters (from names inside hostile files) shown as '?', long text cut."""
    clean = "".join(c if c.isprintable() else "?" for c in text)
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"


BUDGET_FLAG = "--max-decompressed"
# Bytes out per run. zlib inflates 150-300 MB/s on a loaded 2-core machine, so the worst input that
# stays inside the default (many members just under it) still ends in under 2 s, and the decompressed
# data plus one transient copy of a member stays far below 1 GB.
DEFAULT_BUDGET = 256 << 20

# The most one compressed byte can expand to. DEFLATE (zip members, zlib bundles) tops out near
# 1032:1 (258-byte matches at 2 bits each), so a member declaring more is lying about its size. zstd
# (and bzip2, lzma) can reach far higher ratios on real data: no ratio says "bomb" for them, only the
# budget of bytes out.
MAX_RATIO = {"deflate": 1032, "stored": 1}


@dataclass(frozen=True)
class Limits:
    """Caps that keep hostile input from taking unbounded memory or time."""

    max_decompressed: int = DEFAULT_BUDGET  # bytes out of every decompression in one run, together
    max_entries: int = 100_000  # bundle entries, archive members, zip members, offload images (--max-entries)
    max_depth: int = 3  # archive in wheel in …
    # Kernel (.kd) symbols of one code object: real libraries have thousands; a 720,000-symbol bomb took
    # 1.5 GiB to list (--max-symbols).
    max_symbols: int = 100_000
    # Bytes of names and strings one container declares (bundle ids, offload-binary strings, an archive's
    # long-name table): 20,000 bundle ids of 4 KB each were 161 MB of output
    # (--max-strings).
    max_string_bytes: int = 16 << 20
    # Distinct SPIR-V modules --validate hands spirv-val in one run, all inputs together: spirv-val reads
    # one module per process (~2 ms each), and 20,000 distinct tiny modules took 32 s (--max-validate).
    max_validate: int = 10_000

    def refuse(self, what: str, count: int, limit: str) -> LimitExceeded:
        """The one-line refusal naming the limit and the flag that raises it."""
        flag, unit = LIMIT_FLAGS[limit]
        value = getattr(self, limit)
        shown = human_size(value) if unit == "bytes" else f"{value:,} {unit}"
        got = f"{human_size(count)} or more" if unit == "bytes" else f"{count:,} or more"
        return LimitExceeded(f"{what}: {got}, over the limit of {shown} (raise it with {flag} N if the input "
                             "is trusted)")

    def budget(self) -> Budget:
        """A fresh budget for one run; a run that reads several inputs passes one Budget to each."""
        return Budget(self.max_decompressed)


LIMIT_FLAGS = {"max_entries": ("--max-entries", "entries"), "max_symbols": ("--max-symbols", "symbols"),
               "max_string_bytes": ("--max-strings", "bytes"), "max_validate": ("--max-validate", "modules")}


class LimitExceeded(FormatError):
    """Input larger than a count or size limit of the run: the remedy is the flag, not a new file."""


class BudgetExceeded(FormatError):
    """The run would decompress more than its budget: the remedy is the flag, not a new file."""


@dataclass
class Budget:
    """Bytes decompressed so far in one run, across every bundle and zip member of every input (and
    archive members copied out, while they are held)."""

    limit: int
    used: int = 0

    def take(self, size: int, what: str) -> None:
        """Reserve size bytes before decompressing them; raises BudgetExceeded when they do not fit."""
        if size > self.limit - self.used:
            raise BudgetExceeded(f"{what}: {human_size(size)} more would pass the budget of {human_size(self.limit)} "
                                 f"decompressed or copied out of containers per run ({human_size(self.used)} used)")
        self.used += size

    @contextmanager
    def held(self, size: int, what: str) -> Iterator[None]:
        """Take size bytes for a copy that is dropped afterwards (an archive member), then give them back."""
        self.take(size, what)
        try:
            yield
        finally:
            self.used -= size


def parse_size(text: str) -> int:
    """'512M', '2G', '1.5GiB', '1000000' -> bytes (binary units)."""
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(t[-1:], 1)
    number = t[:-1] if scale > 1 else t
    try:
        value = float(number)
    except ValueError:
        raise ValueError(f"{text!r} is not a size") from None
    if not value > 0 or value != value or value == float("inf"):
        raise ValueError(f"{text!r} is not a positive size")
    return int(value * scale)


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
