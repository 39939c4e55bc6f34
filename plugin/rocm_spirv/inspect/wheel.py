"""Wheels: every ELF inside, read from the zip in memory, never written to disk."""

from __future__ import annotations

import posixpath
import zipfile
from collections.abc import Iterator
from typing import IO

from rocm_spirv.inspect.base import DEFAULT_LIMITS, FormatError, Limits

ZIP_MAGIC = b"PK\x03\x04"
INTERESTING = (b"\x7fELF", b"!<arch>\n", b"__CLANG_OFFLOAD_BUNDLE__"[:8], b"CCOB", b"\x10\xff\x10\xad")


def safe_name(name: str) -> bool:
    """A member name that stays inside the unpack folder (no absolute paths, no .., no drives)."""
    if not name or "\0" in name or "\\" in name or name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return False
    norm = posixpath.normpath(name)
    return not (norm == ".." or norm.startswith("../"))


def elf_members(stream: IO[bytes], what: str, limits: Limits = DEFAULT_LIMITS) -> Iterator[tuple[str, bytes]]:
    """(name, bytes) of each member that is an ELF, archive or bundle; checks names and sizes first."""
    try:
        zf = zipfile.ZipFile(stream)
    except Exception as err:  # BadZipFile, NotImplementedError (zip version), OSError, ValueError, …
        raise FormatError(f"{what}: not a readable zip file ({type(err).__name__}: {err})") from None
    with zf:
        infos = zf.infolist()
        if len(infos) > limits.max_entries:
            raise FormatError(f"{what}: {len(infos)} members, over the limit of {limits.max_entries}")
        for info in infos:
            if not safe_name(info.filename):
                raise FormatError(f"{what}: member name {info.filename!r} escapes the wheel (path traversal)")
            _check_size(info, what, limits)
        total = 0
        for info in infos:
            if info.is_dir() or info.file_size < 16:
                continue
            try:
                with zf.open(info) as f:
                    head = f.read(8)
                    if not any(head.startswith(m) for m in INTERESTING):
                        continue
                    total += info.file_size
                    if total > limits.max_wheel_total:
                        raise FormatError(f"{what}: binaries add up to more than {limits.max_wheel_total} bytes")
                    data = head + f.read(info.file_size - len(head) + 1)
            except FormatError:
                raise
            except Exception as err:  # BadZipFile (CRC), zlib.error, NotImplementedError (method), …
                why = f"{type(err).__name__}: {err}"
                raise FormatError(f"{what}: member {info.filename} cannot be read ({why})") from None
            if len(data) != info.file_size:
                raise FormatError(f"{what}: member {info.filename} is {len(data)} bytes, header says {info.file_size}")
            yield info.filename, data


def _check_size(info: zipfile.ZipInfo, what: str, limits: Limits) -> None:
    if info.file_size > limits.max_member:
        raise FormatError(f"{what}: member {info.filename} declares {info.file_size} bytes, over the "
                          f"{limits.max_member}-byte limit (decompression bomb?)")
    if info.file_size > 1 << 20 and info.file_size > max(info.compress_size, 1) * limits.max_ratio:
        raise FormatError(f"{what}: member {info.filename} declares {info.file_size} bytes from "
                          f"{info.compress_size} compressed (decompression bomb)")
