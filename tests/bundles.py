"""Reading offload bundles in tests with the real clang-offload-bundler, independent of inspect."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from elftools.elf.elffile import ELFFile


def fatbin_sections(path: Path) -> list[bytes]:
    """.hip_fatbin payloads of an object or linked binary (archives: every member)."""
    data = path.read_bytes()
    if data.startswith(b"!<arch>\n"):
        return [blob for member in _ar_members(data) for blob in _elf_fatbins(member)]
    return _elf_fatbins(data)


def _elf_fatbins(data: bytes) -> list[bytes]:
    import io

    elf = ELFFile(io.BytesIO(data))
    sec = elf.get_section_by_name(".hip_fatbin")
    return [sec.data()] if sec is not None else []


def _ar_members(data: bytes) -> list[bytes]:
    out, pos = [], 8
    while pos + 60 <= len(data):
        size = int(data[pos + 48 : pos + 58].decode().strip())
        name = data[pos : pos + 16].decode(errors="replace").strip()
        body = data[pos + 60 : pos + 60 + size]
        # "/", "/SYM64/" and "//" are the symbol and name tables; "/<n>" is a member with a long name
        if name not in ("/", "/SYM64/", "//") and body[:4] == b"\x7fELF":
            out.append(body)
        pos += 60 + size + (size & 1)
    return out


MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"


def split_bundles(blob: bytes) -> list[bytes]:
    """A linked binary's .hip_fatbin holds one bundle per object, back to back."""
    starts = []
    pos = blob.find(MAGIC)
    while pos != -1:
        starts.append(pos)
        pos = blob.find(MAGIC, pos + len(MAGIC))
    return [blob[a:b] for a, b in zip(starts, [*starts[1:], len(blob)], strict=True)]


def bundle_entries(bundler: Path, blob: bytes) -> list[str]:
    with tempfile.NamedTemporaryFile(suffix=".hipfb") as f:
        f.write(blob)
        f.flush()
        out = subprocess.run([str(bundler), "--list", "-type=o", f"-input={f.name}"],
                             capture_output=True, text=True, check=True)
    return sorted(line.strip() for line in out.stdout.splitlines() if line.strip())


def device_entries(bundler: Path, path: Path) -> list[str]:
    """All non-host bundle entry ids of every .hip_fatbin in path, sorted."""
    entries: list[str] = []
    for section in fatbin_sections(path):
        for blob in split_bundles(section):
            entries += [e for e in bundle_entries(bundler, blob) if not e.startswith("host-")]
    return sorted(set(entries))


def unbundle(bundler: Path, blob: bytes, entry: str, out: Path) -> Path:
    with tempfile.NamedTemporaryFile(suffix=".hipfb") as f:
        f.write(blob)
        f.flush()
        subprocess.run([str(bundler), "-unbundle", "-type=o", f"-input={f.name}",
                        f"-targets={entry}", f"-output={out}"], check=True, capture_output=True)
    return out
