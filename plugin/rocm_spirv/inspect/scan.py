"""Inspect a path: pick the reader by magic, walk containers, describe every entry."""

from __future__ import annotations

import dataclasses
import io
import mmap
import os
from pathlib import Path
from typing import IO

from rocm_spirv.fsutil import open_regular
from rocm_spirv.inspect import archive, bundle, codeobject, elf, offloadbinary, spirv, wheel
from rocm_spirv.inspect.base import DEFAULT_LIMITS, Budget, Buffer, FileMap, FormatError, Limits, NotBinary, release
from rocm_spirv.inspect.model import (
    BITCODE,
    CODE_OBJECT,
    HOST,
    SPIRV,
    UNKNOWN,
    BundleInfo,
    Entry,
    FileReport,
    InputReport,
)
from rocm_spirv.inspect.targetid import parse_entry_id

BITCODE_MAGIC = (b"BC\xc0\xde", b"\xde\xc0\x17\x0b")


# (file path, entry index) -> SPIR-V module bytes, filled when the caller wants to validate.
Sink = dict[tuple[str, int], bytes]


def inspect_path(path: Path, limits: Limits = DEFAULT_LIMITS, sink: Sink | None = None,
                 budget: Budget | None = None) -> InputReport:
    """Raises OSError for unreadable paths (NotRegularFile for FIFOs, devices, sockets: never opened
    blocking) and FormatError for malformed content. Pass one budget to every input of a run."""
    name = str(path)
    with open_regular(path) as f:
        length = os.fstat(f.fileno()).st_size
        if length == 0:
            raise FormatError(f"{name}: empty file")
        with FileMap(f.fileno(), 0, access=mmap.ACCESS_READ) as buf:
            buf.fd = f.fileno()
            return _inspect_input(name, buf, f, limits, sink, budget or limits.budget())


def inspect_data(name: str, data: bytes, limits: Limits = DEFAULT_LIMITS, sink: Sink | None = None,
                 budget: Budget | None = None) -> InputReport:
    """The same as inspect_path for bytes already in memory (wheels included)."""
    if not data:
        raise FormatError(f"{name}: empty file")
    return _inspect_input(name, data, io.BytesIO(data), limits, sink, budget or limits.budget())


def _inspect_input(name: str, buf: Buffer, stream: IO[bytes], limits: Limits, sink: Sink | None,
                   budget: Budget) -> InputReport:
    if bytes(buf[:4]) == wheel.ZIP_MAGIC:
        files: list[FileReport] = []
        for member, data in wheel.elf_members(stream, name, limits, budget):
            files += inspect_buffer(f"{name}!{member}", data, limits, 1, sink, budget)
        return InputReport(name, "wheel", tuple(files))
    return InputReport(name, _format(buf), tuple(inspect_buffer(name, buf, limits, 0, sink, budget)))


def _format(buf: Buffer) -> str:
    if codeobject.is_elf(buf):
        return "elf"
    if archive.is_archive(buf):
        return "archive"
    if bundle.is_bundle(buf):
        return "bundle"
    if offloadbinary.is_offload_binary(buf):
        return "offload-binary"
    if spirv.is_spirv(buf):
        return "spirv"
    return "unknown"


def _bare(name: str, buf: Buffer, what: str, sink: Sink | None, limits: Limits = DEFAULT_LIMITS) -> FileReport:
    """A code object or SPIR-V module on its own (bundler -type=a archives hold code objects)."""
    base = name.rsplit("(", 1)[-1].rstrip(")").rsplit("/", 1)[-1]
    co = None
    if spirv.is_spirv(buf):
        ident = "hip-spirv64-amd-amdhsa--amdgcnspirv"
    else:
        co = codeobject.parse_code_object(buf, 0, len(buf), f"{name}: {what}", limits)
        ident = f"hip-amdgcn-amd-amdhsa--{co.target_id}"
    # Member names of unbundled archives carry the id: kernels-hip-amdgcn-amd-amdhsa-gfx906.o
    for kind in ("hipv4-", "hip-"):
        at = base.find(kind)
        if at >= 0:
            ident = base[at:].removesuffix(".o").removesuffix(".spv")
            break
    entry = describe(ident, buf, 0, len(buf), "file", len(buf), f"{name}: {what}", limits, co)
    if sink is not None and entry.kind == SPIRV:
        sink[(name, 0)] = bytes(buf)
    return FileReport(name, what.replace(" ", "-").lower(), (entry,))


def inspect_buffer(name: str, buf: Buffer, limits: Limits = DEFAULT_LIMITS, depth: int = 0,
                   sink: Sink | None = None, budget: Budget | None = None) -> list[FileReport]:
    budget = budget or limits.budget()
    kind = _format(buf)
    if kind == "elf" and codeobject.is_code_object(buf, 0, len(buf)):
        return [_bare(name, buf, "code object", sink, limits)]
    if kind == "spirv":
        return [_bare(name, buf, "SPIR-V module", sink, limits)]
    if kind == "elf":
        return [inspect_elf(name, buf, limits, sink, budget)]
    if kind == "archive":
        if depth >= limits.max_depth:
            raise FormatError(f"{name}: archives nested deeper than {limits.max_depth}")
        out: list[FileReport] = []
        for m in archive.members(buf, name, limits):
            if _format(bytes(buf[m.offset : m.offset + min(m.size, 64)])) == "unknown":
                continue  # decided on the header: members that are not binaries are never copied
            # The copy is memory like a decompressed bundle (a sparse member can be 1 GiB on 4 KB of
            # disk), held while the member is read; members are read one at a time.
            with budget.held(m.size, f"{name}({m.name})"):
                member = bytes(buf[m.offset : m.offset + m.size])
                release(buf, m.offset, m.offset + m.size)
                out += inspect_buffer(f"{name}({m.name})", member, limits, depth + 1, sink, budget)
                del member
        return out
    if kind == "bundle":
        bundles = bundle.find_bundles(buf, 0, len(buf), limits, budget)
        return [_report(name, "bundle", "", bundles, [], sink=sink, limits=limits)]
    if kind == "offload-binary":
        images = offloadbinary.parse_offload_binaries(buf, 0, len(buf), limits)
        return [_report(name, "offload-binary", "", [], [_image_entry(buf, i, name, limits) for i in images],
                        sink=sink, extra_buf=[(buf, i.offset, i.size) for i in images], limits=limits)]
    raise NotBinary(f"{name}: not an ELF file, static archive, offload bundle or wheel")


def inspect_elf(name: str, buf: Buffer, limits: Limits = DEFAULT_LIMITS, sink: Sink | None = None,
                budget: Budget | None = None) -> FileReport:
    budget = budget or limits.budget()
    host = elf.read_host_elf(buf, name)
    notes: list[str] = []
    bundles: list[bundle.Bundle] = []
    fat = host.section(elf.FATBIN)
    if fat is not None:
        bundles = bundle.find_bundles(buf, fat.offset, fat.offset + fat.size, limits, budget)
    starts = {b.offset for b in bundles}
    for ptr in host.wrappers:
        if ptr == 0:
            continue  # relocatable object: the pointer is filled in by a relocation
        where = host.file_offset(ptr)
        if where is None:
            raise FormatError(f"{name}: {elf.SEGMENT} points at 0x{ptr:x}, which no section holds")
        sec, off = where
        if off not in starts:
            if sec.name == elf.FATBIN:
                raise FormatError(f"{name}: {elf.SEGMENT} points into {elf.FATBIN} at 0x{ptr:x}, not at a bundle")
            found = bundle.bundle_at(buf, off, sec.offset + sec.size, limits, budget)
            bundles.append(found)
            starts.add(off)
            notes.append(f"bundle in {sec.name} (found via {elf.SEGMENT})")
    if host.wrappers:
        notes.append(f"{len(host.wrappers)} {elf.SEGMENT} record(s)")
    images: list[offloadbinary.OffloadImage] = []
    off_sec = host.section(elf.OFFLOADING)
    if off_sec is not None:
        images = offloadbinary.parse_offload_binaries(buf, off_sec.offset, off_sec.offset + off_sec.size, limits)
    return _report(name, "elf", elf.FATBIN, bundles, [_image_entry(buf, i, name, limits) for i in images], notes,
                   sink, [(buf, i.offset, i.size) for i in images], limits)


def _report(name: str, fmt: str, section: str, bundles: list[bundle.Bundle], extra: list[Entry],
            notes: list[str] | None = None, sink: Sink | None = None,
            extra_buf: list[tuple[Buffer, int, int]] | None = None, limits: Limits = DEFAULT_LIMITS) -> FileReport:
    entries: list[Entry] = []
    infos: list[BundleInfo] = []
    where: list[tuple[Buffer, int, int]] = []
    for index, b in enumerate(bundles):
        infos.append(BundleInfo(section, b.offset, b.size, b.stored_size, b.compression or "bundle"))
        for raw in b.entries:
            entry = describe(raw.id, b.data, raw.offset, raw.size, b.compression or "bundle",
                             None if b.compression else raw.size, f"{name}: entry {raw.id}", limits)
            entries.append(dataclasses.replace(entry, bundle=index))
            where.append((b.data, raw.offset, raw.size))
        if sink is None:
            release(b.data, b.offset, b.offset + b.stored_size)
    if sink is not None:
        for i, (e, (data, off, size)) in enumerate(zip(entries + extra, where + (extra_buf or []), strict=True)):
            if e.kind == SPIRV:
                sink[(name, i)] = bytes(data[off : off + size])
    return FileReport(name, fmt, tuple(entries + extra), tuple(infos), tuple(notes or ()))


def _image_entry(buf: Buffer, image: offloadbinary.OffloadImage, name: str,
                 limits: Limits = DEFAULT_LIMITS) -> Entry:
    return describe(image.id, buf, image.offset, image.size, "offload-binary", image.size,
                    f"{name}: image {image.id}", limits)


def describe(ident: str, buf: Buffer, off: int, size: int, container: str, stored: int | None,
             what: str, limits: Limits = DEFAULT_LIMITS, parsed: codeobject.CodeObjectInfo | None = None) -> Entry:
    """Kind from the payload's magic; SPIR-V and code objects read further and checked against the id."""
    eid = parse_entry_id(ident)
    problems: list[str] = []
    head = bytes(buf[off : off + 4]) if size >= 4 else b""
    if eid.is_host:
        return Entry(ident, HOST, "", size, stored, container)
    if spirv.is_spirv(buf, off, size):
        info = spirv.parse_spirv(buf, off, size, what)
        if not eid.is_spirv:
            problems.append(f"id names {eid.processor or eid.triple}, payload is SPIR-V")
        return Entry(ident, SPIRV, eid.processor, size, stored, container, spirv=info, problems=tuple(problems))
    if codeobject.is_code_object(buf, off, size):
        co = parsed or codeobject.parse_code_object(buf, off, size, what, limits)  # parsed: read once already
        if eid.is_spirv:
            problems.append("id names SPIR-V, payload is an AMDGPU code object")
        elif eid.processor and eid.processor != co.target:
            problems.append(f"id names {eid.processor}, e_flags say {co.target}")
        for feat, value in (("xnack", co.xnack), ("sramecc", co.sramecc)):
            want = eid.feature(feat)
            if want != "any" and {"+": "on", "-": "off"}[want] != value:
                problems.append(f"id says {feat}{want}, e_flags say {feat} {value}")
        return Entry(ident, CODE_OBJECT, eid.processor, size, stored, container, code_object=co,
                     problems=tuple(problems))
    kind = BITCODE if head in BITCODE_MAGIC else UNKNOWN
    if kind == UNKNOWN and size:
        problems.append("payload is neither SPIR-V nor an AMDGPU code object")
    return Entry(ident, kind, eid.processor, size, stored, container, problems=tuple(problems))
