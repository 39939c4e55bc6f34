"""Clang offload bundles: `__CLANG_OFFLOAD_BUNDLE__` and compressed `CCOB` (v1-v3, zlib and zstd)."""

from __future__ import annotations

import io
import zlib
from dataclasses import dataclass

from rocm_spirv.inspect.base import (
    DEFAULT_LIMITS,
    MAX_RATIO,
    Budget,
    BudgetExceeded,
    Buffer,
    FormatError,
    Limits,
    next_data,
    release,
    u16,
    u32,
    u64,
)

MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
CCOB = b"CCOB"
METHODS = {0: "zlib", 1: "zstd"}
MAX_ID = 4096
CHUNK = 1 << 20  # bytes inflated, or zeros skipped, per step


@dataclass(frozen=True)
class RawEntry:
    """One entry of an uncompressed bundle; offset is absolute in the buffer it came from."""

    id: str
    offset: int
    size: int


@dataclass(frozen=True)
class Bundle:
    """A bundle found in a section or file. For CCOB, data holds the decompressed bundle."""

    offset: int  # where the bundle starts in the enclosing buffer
    stored_size: int  # bytes it takes there (compressed size for CCOB)
    size: int  # uncompressed size
    compression: str  # "" or "ccob-v2-zstd" …
    data: Buffer  # buffer the entry offsets refer to
    entries: tuple[RawEntry, ...]


def parse_uncompressed(
    buf: Buffer, start: int, end: int, limits: Limits = DEFAULT_LIMITS
) -> tuple[tuple[RawEntry, ...], int]:
    """Entries of the bundle at buf[start:end] and the end of its last byte (header or payload)."""
    what = f"offload bundle at byte {start}"
    if end - start < len(MAGIC) + 8 or bytes(buf[start : start + len(MAGIC)]) != MAGIC:
        raise FormatError(f"{what}: no {MAGIC.decode()} magic")
    count = u64(buf, start + 24)
    if count > limits.max_entries or count * 24 > end - start - 32:
        raise FormatError(f"{what}: claims {count} entries, more than its {end - start} bytes can hold")
    pos = start + 32
    extent = pos
    entries = []
    id_bytes = 0
    for i in range(count):
        if pos + 24 > end:
            raise FormatError(f"{what}: entry {i} header is truncated")
        off, size, id_len = u64(buf, pos), u64(buf, pos + 8), u64(buf, pos + 16)
        pos += 24
        if id_len > MAX_ID or pos + id_len > end:
            raise FormatError(f"{what}: entry {i} id length {id_len} runs past the bundle")
        id_bytes += id_len
        if id_bytes > limits.max_string_bytes:
            raise limits.refuse(f"{what}: entry ids", id_bytes, "max_string_bytes")
        ident = bytes(buf[pos : pos + id_len]).decode("utf-8", errors="replace")
        pos += id_len
        if off > end - start or size > end - start - off:
            raise FormatError(f"{what}: entry {ident or i} claims bytes {off}..{off + size}, bundle has {end - start}")
        entries.append(RawEntry(ident, start + off, size))
        extent = max(extent, pos, start + off + size)
    return tuple(entries), max(extent, pos)


def ccob_header(buf: Buffer, start: int, end: int) -> tuple[int, str, int, int, int]:
    """(version, method, header size, total stored size or 0, uncompressed size)."""
    what = f"compressed offload bundle at byte {start}"
    if end - start < 8 or bytes(buf[start : start + 4]) != CCOB:
        raise FormatError(f"{what}: no CCOB magic")
    version, method_id = u16(buf, start + 4), u16(buf, start + 6)
    if method_id not in METHODS:
        raise FormatError(f"{what}: unknown compression method {method_id}")
    if version == 1:
        head, total, raw = 20, 0, (u32(buf, start + 8) if end - start >= 20 else -1)
    elif version == 2:
        head = 24
        total, raw = (u32(buf, start + 8), u32(buf, start + 12)) if end - start >= 24 else (0, -1)
    elif version == 3:
        head = 32
        total, raw = (u64(buf, start + 8), u64(buf, start + 16)) if end - start >= 32 else (0, -1)
    else:
        raise FormatError(f"{what}: unsupported CCOB version {version}")
    if raw < 0:
        raise FormatError(f"{what}: header is truncated")
    if total and (total < head or total > end - start):
        raise FormatError(f"{what}: declares {total} bytes, only {end - start} are there")
    return version, METHODS[method_id], head, total, raw


def decompress(buf: Buffer, start: int, end: int, budget: Budget) -> tuple[bytearray, int, str]:
    """(decompressed bundle, stored size, "ccob-v2-zstd") for the CCOB at buf[start:end].

    The declared size is taken from the run's budget before anything is inflated, and inflating
    stops there whatever the data holds, so memory stays within the budget however the input lies.
    """
    what = f"compressed offload bundle at byte {start}"
    version, method, head, total, raw = ccob_header(buf, start, end)
    stop = start + total if total else end
    payload = bytes(buf[start + head : stop])
    if method == "zlib" and raw > max(len(payload), 1) * MAX_RATIO["deflate"] + 64:
        raise FormatError(f"{what}: declares {raw} bytes from {len(payload)} compressed, more than zlib can "
                          "expand to (corrupt header)")
    budget.take(raw, what)
    try:
        out = bytearray(raw)
        _inflate_zstd(payload, out) if method == "zstd" else _inflate_zlib(payload, out)
    except FormatError as err:
        raise FormatError(f"{what}: {err}") from None
    except MemoryError:
        raise BudgetExceeded(f"{what}: out of memory inflating {raw} bytes (the process has a memory "
                             "limit below the decompression budget)") from None
    except Exception as err:  # zlib.error, zstandard.ZstdError: corrupt data, or no memory for the codec
        if "memory" in str(err).lower():
            raise BudgetExceeded(f"{what}: {method} ran out of memory ({err})") from None
        raise FormatError(f"{what}: {method} data is corrupt ({err})") from None
    return out, stop - start, f"ccob-v{version}-{method}"


def _inflate_zstd(payload: bytes, out: bytearray) -> None:
    """Exactly len(out) bytes out of the first zstd frame, streamed into out; never more."""
    import zstandard

    raw = len(out)
    declared = zstandard.frame_content_size(payload)
    if declared not in (-1, raw):
        raise FormatError(f"zstd frame holds {declared} bytes, header says {raw}")
    got = 0
    reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(payload), read_across_frames=False)
    with reader as r, memoryview(out) as view:
        while got < raw:
            n = r.readinto(view[got : min(raw, got + CHUNK)])
            if not n:
                break
            got += n
    if got != raw:
        raise FormatError(f"decompressed to {got} bytes, header says {raw}")


def _inflate_zlib(payload: bytes, out: bytearray) -> None:
    raw = len(out)
    d = zlib.decompressobj()
    got, rest = 0, payload
    while got < raw and not d.eof:
        # Called again with no input too: output cut at the limit may still be pending inside zlib.
        chunk = d.decompress(rest, min(CHUNK, raw - got))
        if not chunk:
            break
        out[got : got + len(chunk)] = chunk
        got += len(chunk)
        rest = d.unconsumed_tail
    more = not d.eof and bool(d.decompress(rest, 1))
    if got != raw or more:
        raise FormatError(f"decompressed to {got}{'+' if more else ''} bytes, header says {raw}")


def find_bundles(buf: Buffer, start: int, end: int, limits: Limits = DEFAULT_LIMITS,
                 budget: Budget | None = None) -> list[Bundle]:
    """Every bundle in buf[start:end]: linkers put one per object back to back, padded with zeros.

    Only headers and padding are read; the gaps between bundles are searched only when they hold
    something other than zeros, and holes of sparse files are not read at all, so a 500 MB section
    costs a few pages per bundle.
    """
    budget = budget or limits.budget()
    bundles: list[Bundle] = []
    pos = start
    while True:
        pos = _skip_zeros(buf, pos, end)
        if pos >= end:
            break
        if not is_bundle(buf, pos):
            pos = _next_magic(buf, pos, end)
            if pos >= end:
                break
        if len(bundles) >= limits.max_entries:
            raise limits.refuse("bundles in one section", len(bundles) + 1, "max_entries")
        found = bundle_at(buf, pos, end, limits, budget)
        release(buf, pos, pos + found.stored_size)
        bundles.append(found)
        pos += max(found.stored_size, 4)
    return bundles


def _skip_zeros(buf: Buffer, pos: int, end: int) -> int:
    while pos < end:
        pos = min(next_data(buf, pos), end)
        chunk = bytes(buf[pos : min(pos + CHUNK, end)])
        rest = chunk.lstrip(b"\0")
        if rest:
            return pos + len(chunk) - len(rest)
        release(buf, pos, pos + len(chunk))
        pos += len(chunk)
    return end


def bundle_at(buf: Buffer, at: int, end: int, limits: Limits = DEFAULT_LIMITS,
              budget: Budget | None = None) -> Bundle:
    """The one bundle, plain or compressed, that starts at buf[at]."""
    if bytes(buf[at : at + 4]) == CCOB:
        _, _, _, total, _ = ccob_header(buf, at, end)
        # v1 has no size: it runs to the next bundle or the end of the section.
        stop = at + total if total else _next_magic(buf, at + 4, end)
        data, stored, compression = decompress(buf, at, stop, budget or limits.budget())
        entries, _extent = parse_uncompressed(data, 0, len(data), limits)
        return Bundle(at, stored, len(data), compression, data, entries)
    entries, extent = parse_uncompressed(buf, at, end, limits)
    return Bundle(at, extent - at, extent - at, "", buf, entries)


def is_bundle(buf: Buffer, off: int = 0) -> bool:
    head = bytes(buf[off : off + len(MAGIC)])
    return head == MAGIC or head[:4] == CCOB


def _next_magic(buf: Buffer, pos: int, end: int) -> int:
    """Where the next bundle magic starts, searched a chunk at a time past holes and read pages."""
    while pos < end:
        pos = min(next_data(buf, pos), end)
        stop = min(pos + CHUNK + len(MAGIC), end)
        found = [p for p in (buf.find(MAGIC, pos, stop), buf.find(CCOB, pos, stop)) if p >= 0]
        if found:
            return min(found)
        release(buf, pos, stop)
        if stop >= end:
            break
        pos = stop - len(MAGIC)  # a magic may straddle the chunk boundary
    return end
