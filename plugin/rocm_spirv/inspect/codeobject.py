"""AMDGPU code objects: target and features from e_flags, kernels from `.kd` symbols."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from rocm_spirv import offload
from rocm_spirv.inspect.base import DEFAULT_LIMITS, Buffer, FormatError, Limits, cstring, need

EM_AMDGPU = 224
ELFOSABI_AMDGPU_HSA = 64
EF_AMDGPU_MACH = 0xFF

# EF_AMDGPU_MACH_* values: the vocabulary's table of known targets.
MACH: dict[int, str] = offload.MACH

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
