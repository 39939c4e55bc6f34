"""Wheels: every ELF inside, read from the zip in memory, never written to disk."""

from __future__ import annotations

import posixpath
import zipfile
from collections.abc import Iterator
from typing import IO

from rocm_spirv.inspect.base import DEFAULT_LIMITS, MAX_RATIO, Budget, BudgetExceeded, FormatError, Limits

CHUNK = 1 << 20

ZIP_MAGIC = b"PK\x03\x04"
INTERESTING = (b"\x7fELF", b"!<arch>\n", b"__CLANG_OFFLOAD_BUNDLE__"[:8], b"CCOB", b"\x10\xff\x10\xad")


def safe_name(name: str) -> bool:
    """A member name that stays inside the unpack folder (no absolute paths, no .., no drives)."""
    if not name or "\0" in name or "\\" in name or name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return False
    norm = posixpath.normpath(name)
    return not (norm == ".." or norm.startswith("../"))


def elf_members(stream: IO[bytes], what: str, limits: Limits = DEFAULT_LIMITS,
                budget: Budget | None = None) -> Iterator[tuple[str, bytearray]]:
    """(name, bytes) of each member that is an ELF, archive or bundle; checks names and sizes first.

    Members are inflated as a stream into a buffer of their declared size, taken from the run's
    budget before the first byte, so neither a lying header nor a zip bomb can take more memory.
    """
    budget = budget or limits.budget()
    try:
        zf = zipfile.ZipFile(stream)
    except Exception as err:  # BadZipFile, NotImplementedError (zip version), OSError, ValueError, …
        raise FormatError(f"{what}: not a readable zip file ({type(err).__name__}: {err})") from None
    with zf:
        infos = zf.infolist()
        if len(infos) > limits.max_entries:
            raise limits.refuse(f"{what}: members", len(infos), "max_entries")
        for info in infos:
            if not safe_name(info.filename):
                raise FormatError(f"{what}: member name {info.filename!r} escapes the wheel (path traversal)")
            _check_ratio(info, what)
        for info in infos:
            if info.is_dir() or info.file_size < 16:
                continue
            member = f"{what}: member {info.filename}"
            try:
                with zf.open(info) as f:
                    head = f.read(8)
                    if not any(head.startswith(m) for m in INTERESTING):
                        continue
                    budget.take(info.file_size, member)
                    data = bytearray(info.file_size)
                    data[: len(head)] = head
                    got = len(head) + _read_into(f, memoryview(data)[len(head) :])
                    extra = f.read(1)  # zipfile stops at the declared size; this catches any other reader
            except FormatError:
                raise
            except MemoryError:
                raise BudgetExceeded(f"{member}: out of memory inflating {info.file_size} bytes (the process has "
                                     "a memory limit below the decompression budget)") from None
            except Exception as err:  # BadZipFile (CRC), zlib.error, NotImplementedError (method), …
                why = f"{type(err).__name__}: {err}"
                raise FormatError(f"{member} cannot be read ({why})") from None
            if got != info.file_size or extra:
                raise FormatError(f"{member} is {got}{'+' if extra else ''} bytes, header says {info.file_size}")
            yield info.filename, data


def _read_into(f: IO[bytes], view: memoryview) -> int:
    got = 0
    with view:
        while got < len(view):
            n = f.readinto(view[got : got + CHUNK])  # type: ignore[attr-defined]
            if not n:
                break
            got += n
    return got


def _check_ratio(info: zipfile.ZipInfo, what: str) -> None:
    """A member claiming more than its codec can expand to has a corrupt (or lying) header."""
    codec = {zipfile.ZIP_DEFLATED: "deflate", zipfile.ZIP_STORED: "stored"}.get(info.compress_type)
    if codec is None:
        return  # bzip2, lzma: ratios far beyond DEFLATE's are real; the budget bounds them
    most = max(info.compress_size, 1) * MAX_RATIO[codec] + 64
    if info.file_size > most:
        raise FormatError(f"{what}: member {info.filename} declares {info.file_size} bytes from "
                          f"{info.compress_size} compressed ({codec}), more than {codec} can expand to "
                          "(corrupt header)")
