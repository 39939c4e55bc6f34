"""SPIR-V module header and preamble: version, generator, entry points, capabilities, extensions."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from rocm_spirv.inspect.base import Buffer, FormatError
from rocm_spirv.inspect.spirv_grammar import capability_name, generator_name

MAGIC = 0x07230203
MAGIC_BYTES = (b"\x03\x02\x23\x07", b"\x07\x23\x02\x03")

OP_EXTENSION = 10
OP_ENTRY_POINT = 15
OP_CAPABILITY = 17
OP_FUNCTION = 54

@dataclass(frozen=True)
class SpirvInfo:
    version: str  # "1.6"
    generator: str  # "Khronos LLVM/SPIR-V Translator (version 14)"
    bound: int
    entry_points: tuple[str, ...]
    capabilities: tuple[str, ...]
    extensions: tuple[str, ...]


def is_spirv(buf: Buffer, off: int = 0, size: int | None = None) -> bool:
    end = len(buf) if size is None else off + size
    return end - off >= 20 and bytes(buf[off : off + 4]) in MAGIC_BYTES


def _string(words: bytes, endian: str) -> str:
    """A literal string operand: UTF-8, NUL-terminated, padded to words."""
    raw = words.split(b"\0", 1)[0]
    return raw.decode("utf-8", errors="replace")


def parse_spirv(buf: Buffer, off: int, size: int, what: str = "SPIR-V module") -> SpirvInfo:
    """Read the header and the preamble up to the first OpFunction; never the function bodies."""
    end = off + size
    if size < 20 or end > len(buf):
        raise FormatError(f"{what}: {size} bytes is too short for a SPIR-V header")
    head = bytes(buf[off : off + 4])
    if head not in MAGIC_BYTES:
        raise FormatError(f"{what}: no SPIR-V magic")
    endian = "<" if head == MAGIC_BYTES[0] else ">"
    _, version, generator, bound, _schema = struct.unpack_from(f"{endian}5I", buf, off)
    major, minor = (version >> 16) & 0xFF, (version >> 8) & 0xFF
    tool, tool_version = generator >> 16, generator & 0xFFFF
    gen = f"{generator_name(tool)} (version {tool_version})"
    entries: list[str] = []
    caps: list[str] = []
    exts: list[str] = []
    pos = off + 20
    word = struct.Struct(f"{endian}I")
    while pos + 4 <= end:
        (first,) = word.unpack_from(buf, pos)
        count, opcode = first >> 16, first & 0xFFFF
        if count == 0:
            raise FormatError(f"{what}: instruction with word count 0 at byte {pos - off}")
        if pos + 4 * count > end:
            raise FormatError(f"{what}: instruction at byte {pos - off} runs past the end of the module")
        if opcode == OP_FUNCTION:
            break
        if opcode == OP_CAPABILITY and count >= 2:
            (cap,) = word.unpack_from(buf, pos + 4)
            caps.append(capability_name(cap))
        elif opcode == OP_EXTENSION and count >= 2:
            exts.append(_string(bytes(buf[pos + 4 : pos + 4 * count]), endian))
        elif opcode == OP_ENTRY_POINT and count >= 4:
            entries.append(_string(bytes(buf[pos + 12 : pos + 4 * count]), endian))
        pos += 4 * count
    return SpirvInfo(f"{major}.{minor}", gen, bound, tuple(entries), tuple(caps), tuple(exts))
