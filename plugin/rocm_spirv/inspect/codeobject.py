"""AMDGPU code objects: target and features from e_flags, kernels from `.kd` symbols."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from rocm_spirv.inspect.base import DEFAULT_LIMITS, Buffer, FormatError, Limits, cstring, need

EM_AMDGPU = 224
ELFOSABI_AMDGPU_HSA = 64
EF_AMDGPU_MACH = 0xFF

# EF_AMDGPU_MACH_* values (llvm/BinaryFormat/ELF.h, AMDGPUUsage "AMDGPU EF_AMDGPU_MACH Values").
MACH: dict[int, str] = {
    0x20: "gfx600", 0x21: "gfx601", 0x22: "gfx700", 0x23: "gfx701", 0x24: "gfx702", 0x25: "gfx703",
    0x26: "gfx704", 0x28: "gfx801", 0x29: "gfx802", 0x2A: "gfx803", 0x2B: "gfx810", 0x2C: "gfx900",
    0x2D: "gfx902", 0x2E: "gfx904", 0x2F: "gfx906", 0x30: "gfx908", 0x31: "gfx909", 0x32: "gfx90c",
    0x33: "gfx1010", 0x34: "gfx1011", 0x35: "gfx1012", 0x36: "gfx1030", 0x37: "gfx1031",
    0x38: "gfx1032", 0x39: "gfx1033", 0x3A: "gfx602", 0x3B: "gfx705", 0x3C: "gfx805",
    0x3D: "gfx1035", 0x3E: "gfx1034", 0x3F: "gfx90a", 0x40: "gfx940", 0x41: "gfx1100",
    0x42: "gfx1013", 0x43: "gfx1150", 0x44: "gfx1103", 0x45: "gfx1036", 0x46: "gfx1101",
    0x47: "gfx1102", 0x48: "gfx1200", 0x49: "gfx1250", 0x4A: "gfx1151", 0x4B: "gfx941",
    0x4C: "gfx942", 0x4E: "gfx1201", 0x4F: "gfx950", 0x50: "gfx1310", 0x51: "gfx9-generic",
    0x52: "gfx10-1-generic", 0x53: "gfx10-3-generic", 0x54: "gfx11-generic", 0x55: "gfx1152",
    0x57: "gfx1154", 0x58: "gfx1153", 0x59: "gfx12-generic", 0x5A: "gfx1251",
    0x5B: "gfx12-5-generic", 0x5C: "gfx1172", 0x5D: "gfx1170", 0x5E: "gfx1171",
    0x5F: "gfx9-4-generic", 0x62: "gfx11-7-generic", 0x63: "gfx13-generic",
}

_V4_SETTING = {0: "unsupported", 1: "any", 2: "off", 3: "on"}
_SIGN = {"on": "+", "off": "-"}

ELF_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")
SECTION_HEADER = struct.Struct("<IIQQQQIIQQ")
SYMBOL = struct.Struct("<IBBHQQ")
SHT_SYMTAB, SHT_DYNSYM = 2, 11


@dataclass(frozen=True)
class CodeObjectInfo:
    target: str  # processor from e_flags: gfx942, gfx11-generic
    xnack: str  # on, off, any, unsupported
    sramecc: str
    code_object_version: int  # 3, 4, 5, 6 (0 if unknown)
    generic_version: int  # e_flags high byte, code object v6 generic targets
    kernels: tuple[str, ...]

    @property
    def target_id(self) -> str:
        """gfx942:sramecc+:xnack- as clang spells it; features left out when "any"."""
        feats = [f"{name}{_SIGN[v]}" for name, v in (("sramecc", self.sramecc), ("xnack", self.xnack)) if v in _SIGN]
        return ":".join([self.target, *feats])


def is_elf(buf: Buffer, off: int = 0) -> bool:
    return bytes(buf[off : off + 4]) == b"\x7fELF"


def is_code_object(buf: Buffer, off: int, size: int) -> bool:
    if size < ELF_HEADER.size or not is_elf(buf, off) or off + size > len(buf):
        return False
    return buf[off + 4] == 2 and buf[off + 5] == 1 and struct.unpack_from("<H", buf, off + 18)[0] == EM_AMDGPU


def parse_code_object(buf: Buffer, off: int, size: int, what: str = "code object",
                      limits: Limits = DEFAULT_LIMITS) -> CodeObjectInfo:
    """Header and symbol table only; every offset is checked against the entry's bounds."""
    end = off + size
    need(buf, off, ELF_HEADER.size, end, what)
    ident, _etype, machine, _ver, _entry, _phoff, shoff, flags, _ehsize, _phes, _phn, shentsize, shnum, _shstr = (
        ELF_HEADER.unpack_from(buf, off)
    )
    if ident[4] != 2 or ident[5] != 1 or machine != EM_AMDGPU:
        raise FormatError(f"{what}: not a 64-bit little-endian AMDGPU ELF (e_machine {machine})")
    abi = ident[8]
    version = abi + 2 if ident[7] == ELFOSABI_AMDGPU_HSA and 1 <= abi <= 8 else 0
    mach = flags & EF_AMDGPU_MACH
    target = MACH.get(mach, f"unknown-mach-0x{mach:02x}")
    if version >= 4:
        xnack, sramecc = _V4_SETTING[(flags >> 8) & 3], _V4_SETTING[(flags >> 10) & 3]
    else:
        xnack = "on" if flags & 0x100 else "any"
        sramecc = "on" if flags & 0x200 else "any"
    generic = (flags >> 24) & 0xFF if version >= 6 else 0
    kernels = _kernels(buf, off, end, shoff, shentsize, shnum, what, limits)
    return CodeObjectInfo(target, xnack, sramecc, version, generic, kernels)


def _kernels(buf: Buffer, off: int, end: int, shoff: int, shentsize: int, shnum: int, what: str,
             limits: Limits = DEFAULT_LIMITS) -> tuple[str, ...]:
    if shnum == 0 or shoff == 0:
        return ()
    if shentsize != SECTION_HEADER.size:
        raise FormatError(f"{what}: section header size {shentsize}, expected {SECTION_HEADER.size}")
    need(buf, off + shoff, shnum * shentsize, end, f"{what} section headers")
    sections = [SECTION_HEADER.unpack_from(buf, off + shoff + i * shentsize) for i in range(shnum)]
    # Prefer .symtab (objects); linked code objects also have .dynsym with the same .kd names.
    chosen = [s for s in sections if s[1] == SHT_SYMTAB] or [s for s in sections if s[1] == SHT_DYNSYM]
    names: set[str] = set()
    for sec in chosen[:1]:
        _name, _type, _flags, _addr, sym_off, sym_size, link, _info, _align, entsize = sec
        if entsize != SYMBOL.size or link >= shnum:
            raise FormatError(f"{what}: malformed symbol table")
        need(buf, off + sym_off, sym_size, end, f"{what} symbol table")
        str_off, str_size = sections[link][4], sections[link][5]
        need(buf, off + str_off, str_size, end, f"{what} string table")
        str_start, str_end = off + str_off, off + str_off + str_size
        for i in range(sym_size // SYMBOL.size):
            st_name = SYMBOL.unpack_from(buf, off + sym_off + i * SYMBOL.size)[0]
            if st_name == 0:
                continue
            name = cstring(buf, str_start + st_name, str_end, f"{what} symbol name")
            if name.endswith(".kd"):
                names.add(name[:-3])
                if len(names) > limits.max_symbols:
                    raise limits.refuse(f"{what}: kernel symbols", len(names), "max_symbols")
    return tuple(sorted(names))
