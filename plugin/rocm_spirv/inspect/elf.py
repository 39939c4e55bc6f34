"""Host ELF files: where `.hip_fatbin`, `.hipFatBinSegment` and `.llvm.offloading` lie, via pyelftools."""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from rocm_spirv.inspect.base import Buffer, FormatError, one_line

FATBIN = ".hip_fatbin"
SEGMENT = ".hipFatBinSegment"
OFFLOADING = ".llvm.offloading"
WRAPPER_MAGIC = 0x48495046  # "HIPF"
SHT_NOBITS = 8


@dataclass(frozen=True)
class Section:
    name: str
    offset: int
    size: int
    addr: int


@dataclass(frozen=True)
class HostElf:
    sections: tuple[Section, ...]  # the device-code sections that are present
    wrappers: tuple[int, ...]  # binary pointer of each __hip_fatbin_wrapper (0 in relocatable objects)
    all_sections: tuple[Section, ...]  # everything with file bytes, for address lookups

    def section(self, name: str) -> Section | None:
        return next((s for s in self.sections if s.name == name), None)

    def file_offset(self, addr: int) -> tuple[Section, int] | None:
        """The section holding virtual address addr and the matching file offset."""
        for s in self.all_sections:
            if s.addr and s.addr <= addr < s.addr + s.size:
                return s, s.offset + (addr - s.addr)
        return None


class _BufferStream:
    """The seek/tell/read pyelftools uses, over a buffer: io.BytesIO would copy a bytearray (a
    decompressed wheel member of hundreds of MiB) just to read its headers."""

    def __init__(self, buf: bytes | bytearray) -> None:
        self._buf = buf
        self._pos = 0

    def seek(self, pos: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: len(self._buf)}[whence]
        self._pos = max(0, base + pos)
        return self._pos

    def tell(self) -> int:
        return self._pos

    def read(self, size: int | None = -1) -> bytes:
        end = len(self._buf) if size is None or size < 0 else min(len(self._buf), self._pos + size)
        data = bytes(self._buf[self._pos : end])
        self._pos = max(self._pos, end)
        return data


def _stream(buf: Buffer) -> Any:
    return buf if not isinstance(buf, bytes | bytearray) else _BufferStream(buf)


def read_host_elf(buf: Buffer, what: str) -> HostElf:
    """Section table only; section contents are left in the buffer for the bundle readers."""
    from elftools.elf.elffile import ELFFile

    try:
        elf = ELFFile(_stream(buf))
        little = elf.little_endian
        wide = elf.elfclass == 64
        found = []
        for sec in elf.iter_sections():
            if sec["sh_type"] == "SHT_NOBITS" or sec["sh_size"] == 0:
                continue
            name = one_line(sec.name, 60)
            found.append(Section(name, int(sec["sh_offset"]), int(sec["sh_size"]), int(sec["sh_addr"])))
    except FormatError:
        raise
    except Exception as err:  # pyelftools raises ELFError, struct.error, ValueError, … on bad input
        raise FormatError(f"{what}: not a readable ELF file ({type(err).__name__}: {err})") from None
    _check_layout(found, len(buf), what)
    wanted = tuple(s for s in found if s.name in (FATBIN, SEGMENT, OFFLOADING))
    wrappers: list[int] = []
    seg = next((s for s in wanted if s.name == SEGMENT), None)
    if seg is not None:
        rec = struct.Struct(("<" if little else ">") + ("IIQQ" if wide else "IIII"))
        if seg.size % rec.size:
            raise FormatError(f"{what}: {SEGMENT} is {seg.size} bytes, not a multiple of {rec.size}")
        for i in range(seg.size // rec.size):
            magic, _version, pointer, _ = rec.unpack_from(buf, seg.offset + i * rec.size)
            if magic != WRAPPER_MAGIC:
                raise FormatError(f"{what}: {SEGMENT} record {i} has magic 0x{magic:08x}, expected HIPF")
            wrappers.append(int(pointer))
    return HostElf(wanted, tuple(wrappers), tuple(found))


def _check_layout(sections: list[Section], length: int, what: str) -> None:
    """Every section inside the file, and no two sharing bytes (a lying header would)."""
    for s in sections:
        if s.offset + s.size > length:
            raise FormatError(f"{what}: section {s.name or '?'} claims bytes {s.offset}..{s.offset + s.size}, "
                              f"file has {length} (truncated?)")
    ordered = sorted(sections, key=lambda s: (s.offset, s.size))
    for a, b in pairwise(ordered):
        if b.offset < a.offset + a.size:
            raise FormatError(f"{what}: sections {a.name or '?'} and {b.name or '?'} overlap")
