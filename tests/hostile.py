"""Builders of hostile inputs from real artifacts, shared by the tests and benchmarks/fuzz_inspect.py:
names carrying rich markup, decompression bombs, sparse sections."""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path

# Each is a rich markup error, a style or link, an emoji code or a terminal escape when printed raw.
MARKUPS = ("[/x]", "[bold]", "[/]", "[link=https://example.com]", "[red", "\\", "\\[b]", ":smile:",
           "\x1b[2J", "[/bold red]", "[@click=app.quit]", "[#ff0000 on blue]")

# Python source for a child process's own peak RSS in KiB. Not ru_maxrss: subprocess starts children
# with vfork, and Linux carries the parent's high-water mark across exec into the child's ru_maxrss
# (a child of a 250 MB pytest reports 250 MB). VmHWM belongs to the address space exec made.
PEAK_KIB = "int(open('/proc/self/status').read().split('VmHWM:')[1].split()[0])"


def bsd_ar(members: dict[str, bytes]) -> bytes:
    """A BSD-format static archive: names stored verbatim before the data, so any name fits."""
    out = bytearray(b"!<arch>\n")
    for name, data in members.items():
        raw = name.encode()
        size = len(raw) + len(data)
        out += f"#1/{len(raw):<13}{0:<12}{0:<6}{0:<6}{644:<8}{size:<10}`\n".encode() + raw + data
        if size % 2:
            out += b"\n"
    return bytes(out)


def plain_bundle(entries: list[tuple[str, bytes]]) -> bytes:
    """An uncompressed clang offload bundle with the given ids and payloads."""
    head = 24 + 8 + sum(24 + len(i.encode()) for i, _ in entries)
    table, payload = bytearray(), bytearray()
    for ident, data in entries:
        table += struct.pack("<QQQ", head + len(payload), len(data), len(ident.encode())) + ident.encode()
        payload += data
    return b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", len(entries)) + bytes(table) + bytes(payload)


def ccob_zstd(plain_chunks: Iterator[bytes], size: int) -> bytes:
    """A CCOB v3 zstd bundle around a plain bundle given as chunks (so 1 GiB never sits in memory)."""
    import zstandard

    comp = zstandard.ZstdCompressor(level=3).compressobj(size=size)
    payload = b"".join(comp.compress(c) for c in plain_chunks) + comp.flush()
    return b"CCOB" + struct.pack("<HHQQQ", 3, 1, 32 + len(payload), size, 0) + payload


def padded_bundle(ident: str, head: bytes, zeros: int) -> tuple[Iterator[bytes], int]:
    """(chunks, size) of a plain bundle whose one entry is head followed by zeros."""
    first = plain_bundle([(ident, head)])
    size = len(first) + zeros

    def chunks() -> Iterator[bytes]:
        yield first
        left = zeros
        while left:
            n = min(left, 16 << 20)
            yield bytes(n)
            left -= n

    return chunks(), size


def wheel(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def zip_bomb(path: Path, head: bytes, zeros: int, members: int = 1) -> Path:
    """A wheel of members that are head plus zeros, deflated at level 9 (about 1030:1), streamed."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for i in range(members):
            with z.open(f"pkg/lib{i}.so", "w", force_zip64=True) as f:
                f.write(head)
                left = zeros
                while left:
                    n = min(left, 16 << 20)
                    f.write(bytes(n))
                    left -= n
    return path


def sparse_fatbin(obj: Path, out: Path, size: int) -> Path:
    """obj with its .hip_fatbin moved to the end of the file and grown to size bytes: a hole after the bundle."""
    data = bytearray(obj.read_bytes())
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    stroff, = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize + 24)
    for i in range(shnum):
        sh = shoff + i * shentsize
        name_off, = struct.unpack_from("<I", data, sh)
        if data[stroff + name_off :].startswith(b".hip_fatbin\0"):
            off, sz = struct.unpack_from("<QQ", data, sh + 24)
            at = (len(data) + 4095) // 4096 * 4096
            fat = bytes(data[off : off + sz])
            struct.pack_into("<QQ", data, sh + 24, at, size)
            break
    else:
        raise ValueError(f"{obj} has no .hip_fatbin")
    with open(out, "wb") as f:
        f.write(data)
        f.seek(at)
        f.write(fat)
        f.truncate(at + size)
    return out


def sparse_archive(obj: Path, out: Path, size: int) -> Path:
    """A BSD archive whose one member is obj's first 4 KiB and then a hole, size bytes in all."""
    head = obj.read_bytes()[:4096]
    name = b"big.o"
    with open(out, "wb") as f:
        f.write(b"!<arch>\n" + f"#1/{len(name):<13}{0:<12}{0:<6}{0:<6}{644:<8}{size + len(name):<10}`\n".encode())
        f.write(name + head)
        f.truncate(f.tell() - len(head) + size)
    return out


def zlib_ratio_limit() -> float:
    """DEFLATE's real best: 64 MiB of zeros at level 9 (documents the ~1030:1 the readers assume)."""
    raw = 64 << 20
    return raw / len(zlib.compress(bytes(raw), 9))


# Count and string bombs: small files that declare very many entries, symbols or string bytes.

def gnu_ar_long_names(members: int, table_bytes: int, data: bytes = b"x") -> bytes:
    """A GNU archive whose '//' long-name table is table_bytes without one newline, and members that
    each name an offset in it (reading a name must not copy the rest of the table)."""
    table = b"n" * table_bytes
    out = bytearray(b"!<arch>\n")
    out += f"{'//':<16}{0:<12}{0:<6}{0:<6}{644:<8}{len(table):<10}`\n".encode() + table + b"\n" * (len(table) & 1)
    for i in range(members):
        name = f"/{(i * 4099) % max(1, table_bytes - 1)}"
        out += f"{name:<16}{0:<12}{0:<6}{0:<6}{644:<8}{len(data):<10}`\n".encode() + data + b"\n" * (len(data) & 1)
    return bytes(out)


def many_ids_bundle(count: int, id_bytes: int) -> bytes:
    """An uncompressed bundle of count empty entries, each with an id of id_bytes."""
    return plain_bundle([(f"hip-amdgcn-amd-amdhsa--gfx942-{i:08d}".ljust(id_bytes, "x"), b"") for i in range(count)])


def offload_binary_strings(pairs: int, string_bytes: int = 4095) -> bytes:
    """An LLVM offload binary with one image whose pairs all point at one long key and one long value."""
    header, entry = 32, 40
    str_off = header + entry
    key_at = str_off + 16 * pairs
    val_at = key_at + string_bytes + 1
    size = val_at + string_bytes + 1
    size += -size % 8
    out = bytearray(size)
    out[0:32] = b"\x10\xff\x10\xad" + struct.pack("<IQQQ", 1, size, header, entry)
    out[header:str_off] = struct.pack("<HHIQQQQ", 1, 3, 0, str_off, pairs, 0, 0)
    for k in range(pairs):
        struct.pack_into("<QQ", out, str_off + 16 * k, key_at, val_at)
    out[key_at : key_at + string_bytes] = b"k" * string_bytes
    out[val_at : val_at + string_bytes] = b"v" * string_bytes
    return bytes(out)


def code_object_kd_symbols(count: int, name_bytes: int = 32) -> bytes:
    """A gfx942 AMDGPU code object whose .symtab holds count kernel descriptor (.kd) symbols."""
    names = bytearray(b"\0")
    offsets = []
    for i in range(count):
        offsets.append(len(names))
        names += f"k{i}".ljust(name_bytes - 3, "_").encode() + b".kd\0"
    symtab = bytes(24) + b"".join(struct.pack("<IBBHQQ", o, 0x12, 0, 1, 0, 64) for o in offsets)
    shstr = b"\0.symtab\0.strtab\0.shstrtab\0"
    body_at = 64
    sym_at = body_at
    str_at = sym_at + len(symtab)
    shs_at = str_at + len(names)
    sh_at = (shs_at + len(shstr) + 7) // 8 * 8
    sections = [bytes(64),
                struct.pack("<IIQQQQIIQQ", 1, 2, 0, 0, sym_at, len(symtab), 2, 1, 8, 24),
                struct.pack("<IIQQQQIIQQ", 9, 3, 0, 0, str_at, len(names), 0, 0, 1, 0),
                struct.pack("<IIQQQQIIQQ", 17, 3, 0, 0, shs_at, len(shstr), 0, 0, 1, 0)]
    ident = b"\x7fELF\x02\x01\x01" + bytes([64, 3]) + bytes(7)  # ELFOSABI_AMDGPU_HSA, code object v5
    head = ident + struct.pack("<HHIQQQIHHHHHH", 3, 224, 1, 0, 0, sh_at, 0x4C, 64, 56, 0, 64, len(sections), 3)
    out = bytearray(head) + symtab + names + shstr
    out += bytes(sh_at - len(out))
    return bytes(out + b"".join(sections))
