"""LLVM offload binaries (`.llvm.offloading`, magic 0x10FF10AD), as the new offload driver writes them."""

from __future__ import annotations

from dataclasses import dataclass

from rocm_spirv.inspect.base import DEFAULT_LIMITS, Buffer, FormatError, Limits, cstring, u16, u32, u64

MAGIC = b"\x10\xff\x10\xad"
HEADER = 32
ENTRY = 40
IMAGE_KINDS = {0: "none", 1: "object", 2: "bitcode", 3: "cubin", 4: "fatbinary", 5: "ptx", 6: "spirv"}
OFFLOAD_KINDS = {0: "none", 1: "openmp", 2: "cuda", 3: "hip", 4: "sycl"}


@dataclass(frozen=True)
class OffloadImage:
    id: str  # hip-amdgcn-amd-amdhsa--gfx942, in bundle-id spelling
    image_kind: str
    offset: int  # absolute in the buffer
    size: int
    strings: tuple[tuple[str, str], ...]


def is_offload_binary(buf: Buffer, off: int = 0) -> bool:
    return bytes(buf[off : off + 4]) == MAGIC


def parse_offload_binaries(buf: Buffer, start: int, end: int, limits: Limits = DEFAULT_LIMITS) -> list[OffloadImage]:
    """All binaries in buf[start:end]; the section holds several, each 8-byte aligned."""
    images: list[OffloadImage] = []
    pos = start
    while pos < end:
        if not is_offload_binary(buf, pos):
            if any(buf[pos:end]):
                raise FormatError(f"offload binary at byte {pos}: no 0x10FF10AD magic")
            break
        images += _one(buf, pos, end, limits)
        size = u64(buf, pos + 8)
        pos += (size + 7) & ~7
        if len(images) > limits.max_entries:
            raise limits.refuse("offload images", len(images), "max_entries")
    return images


def _one(buf: Buffer, start: int, end: int, limits: Limits) -> list[OffloadImage]:
    what = f"offload binary at byte {start}"
    if end - start < HEADER:
        raise FormatError(f"{what}: header is truncated")
    version, size = u32(buf, start + 4), u64(buf, start + 8)
    entry_off, entry_size = u64(buf, start + 16), u64(buf, start + 24)
    if version == 0 or size < HEADER or size > end - start:
        raise FormatError(f"{what}: version {version}, size {size} does not fit the {end - start} bytes there")
    stop = start + size
    if entry_size % ENTRY or entry_size == 0 or entry_off > size or entry_size > size - entry_off:
        raise FormatError(f"{what}: entry table at {entry_off} ({entry_size} bytes) is outside the binary")
    out = []
    string_bytes = 0
    for e in range(start + entry_off, start + entry_off + entry_size, ENTRY):
        image_kind, offload_kind = u16(buf, e), u16(buf, e + 2)
        str_off, nstr, img_off, img_size = u64(buf, e + 8), u64(buf, e + 16), u64(buf, e + 24), u64(buf, e + 32)
        if nstr > limits.max_entries or str_off > size or nstr * 16 > size - str_off:
            raise FormatError(f"{what}: string table ({nstr} strings at {str_off}) is outside the binary")
        if img_off > size or img_size > size - img_off:
            raise FormatError(f"{what}: image at {img_off} ({img_size} bytes) is outside the binary")
        strings = []
        for k in range(nstr):
            key_off, val_off = u64(buf, start + str_off + 16 * k), u64(buf, start + str_off + 16 * k + 8)
            pair = (cstring(buf, start + key_off, stop, what), cstring(buf, start + val_off, stop, what))
            # Pairs may all point at one long string: count what they decode to, not the table's size.
            string_bytes += len(pair[0]) + len(pair[1])
            if string_bytes > limits.max_string_bytes:
                raise limits.refuse(f"{what}: strings", string_bytes, "max_string_bytes")
            strings.append(pair)
        meta = dict(strings)
        out.append(OffloadImage(_bundle_id(OFFLOAD_KINDS.get(offload_kind, f"kind{offload_kind}"),
                                           meta.get("triple", ""), meta.get("arch", "")),
                                IMAGE_KINDS.get(image_kind, f"image{image_kind}"), start + img_off, img_size,
                                tuple(strings)))
    return out


def _bundle_id(kind: str, triple: str, arch: str) -> str:
    """hip + amdgcn-amd-amdhsa + gfx942 -> hip-amdgcn-amd-amdhsa--gfx942 (bundle ids carry four triple parts)."""
    parts = triple.split("-")
    while len(parts) < 4:
        parts.append("")
    return f"{kind}-{'-'.join(parts)}-{arch}"
