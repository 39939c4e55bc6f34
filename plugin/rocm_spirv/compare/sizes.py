"""Sizes of what a build produced: files, .hip_fatbin bytes, bytes per device entry."""

from __future__ import annotations

import struct
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile

from rocm_spirv.compare.model import Artifact

BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
ARTIFACT_SUFFIXES = (".so", ".a", ".o")


def bundle_entry_sizes(blob: bytes) -> dict[str, int]:
    """Entry id -> payload size for every uncompressed bundle in a .hip_fatbin section."""
    sizes: dict[str, int] = {}
    pos = blob.find(BUNDLE_MAGIC)
    while pos != -1:
        at = pos + len(BUNDLE_MAGIC)
        try:
            (count,) = struct.unpack_from("<Q", blob, at)
            at += 8
            for _ in range(min(count, 4096)):
                _off, size, idlen = struct.unpack_from("<QQQ", blob, at)
                at += 24
                eid = blob[at : at + idlen].decode(errors="replace")
                at += idlen
                if not eid.startswith("host-"):
                    sizes[eid] = sizes.get(eid, 0) + size
        except struct.error:
            break
        pos = blob.find(BUNDLE_MAGIC, at)
    return sizes


def artifact(path: Path) -> Artifact:
    fatbin = 0
    entries: dict[str, int] = {}
    try:
        with path.open("rb") as f:
            sec = ELFFile(f).get_section_by_name(".hip_fatbin")
            if sec is not None:
                data = sec.data()
                fatbin = len(data)
                entries = bundle_entry_sizes(data)
    except ELFError:
        pass  # not an ELF (an archive): its size still counts
    return Artifact(str(path), path.stat().st_size, fatbin, entries)


def find_artifacts(build_dir: Path) -> list[Artifact]:
    """Linked libraries and executables with GPU code, outside CMake's own scratch dirs."""
    found = []
    for p in sorted(build_dir.rglob("*")):
        if "CMakeFiles" in p.parts or not p.is_file() or p.is_symlink():
            continue
        if p.suffix in (".so", ".a") or (p.suffix == "" and p.stat().st_mode & 0o111):
            a = artifact(p)
            if a.fatbin_bytes or p.suffix == ".a":
                found.append(a)
    return found
