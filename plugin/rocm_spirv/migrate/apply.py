"""Turn a scan's edits into new file contents and unified diffs. Pure; the command does the writing."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from rocm_spirv.migrate.findings import Edit
from rocm_spirv.migrate.projects import FIND_PACKAGE, package_edits
from rocm_spirv.migrate.scan import Scan, encode

BOM_BYTES = b"\xef\xbb\xbf"


def apply_edits(text: str, edits: list[Edit]) -> str:
    """Apply non-overlapping edits given against text; equal offsets keep their listed order."""
    ordered = sorted(enumerate(edits), key=lambda ie: (ie[1].start, ie[0]))
    out: list[str] = []
    pos = 0
    for _, e in ordered:
        if e.start < pos:
            raise ValueError(f"overlapping edits at offset {e.start}")
        out.append(text[pos : e.start])
        out.append(e.text)
        pos = e.end
    out.append(text[pos:])
    return "".join(out)


def plan(scan: Scan) -> dict[str, tuple[str, str]]:
    """{relative path: (old text, new text)} for every CMake file --apply would change."""
    edits: dict[str, list[Edit]] = {r.path: list(r.edits) for r in scan.result.files if r.edits and not r.error}
    for path, edit in package_edits(scan.facts, list(edits)).items():
        edits.setdefault(path, []).insert(0, edit)
    changes: dict[str, tuple[str, str]] = {}
    for path, file_edits in edits.items():
        old = scan.texts[path]
        new = apply_edits(old, file_edits)
        if new != old:
            changes[path] = (old, new)
    return changes


def as_bytes(changes: dict[str, tuple[str, str]], bom: set[str] | None = None) -> dict[str, tuple[bytes, bytes]]:
    """The exact bytes before and after: what --diff shows and --apply writes. Files in bom get
    their UTF-8 byte order mark back (the rules read the text without it)."""
    out: dict[str, tuple[bytes, bytes]] = {}
    for path, (old, new) in changes.items():
        head = BOM_BYTES if path in (bom or set()) else b""
        out[path] = (head + encode(old), head + encode(new))
    return out


def commit_order(changes: dict[str, tuple[bytes, bytes]]) -> list[str]:
    """The files that gain find_package(RocmSpirv) first, the top-level CMakeLists.txt before others:
    then every state an interrupted apply can leave behind configures (a subdirectory's
    rocm_spirv_target() needs the package its project finds)."""
    line = encode(FIND_PACKAGE)

    def gains(path: str) -> bool:
        old, new = changes[path]
        return new.count(line) > old.count(line)

    return sorted(changes, key=lambda p: (not gains(p), p != "CMakeLists.txt", p))


def _lines(data: bytes) -> list[bytes]:
    """Split on \n only, as patch and git apply do (a lone \r or \f is not a line end for them)."""
    parts = data.split(b"\n")
    lines = [p + b"\n" for p in parts[:-1]]
    return [*lines, parts[-1]] if parts[-1] else lines


def by_real_path(changes: dict[str, tuple[bytes, bytes]], base: Path) -> dict[str, tuple[bytes, bytes]]:
    """changes keyed by the file each path resolves to, relative to base, where that is inside base:
    patch and git apply edit a symlink itself, not the file it names."""
    inside = os.path.realpath(base)
    out: dict[str, tuple[bytes, bytes]] = {}
    for path, change in changes.items():
        real = os.path.relpath(os.path.realpath(os.path.join(inside, path)), inside)
        out[path if real.startswith("..") else real.replace(os.sep, "/")] = change
    return out


def unified_diff(changes: dict[str, tuple[bytes, bytes]]) -> bytes:
    """A patch that `patch -p1` and `git apply` apply to the original bytes, giving the new ones."""
    out: list[bytes] = []
    for path in sorted(changes):
        old, new = changes[path]
        name = encode(path)
        for line in difflib.diff_bytes(difflib.unified_diff, _lines(old), _lines(new),
                                       b"a/" + name, b"b/" + name, lineterm=b"\n"):
            if line.endswith(b"\n"):
                out.append(line)
            else:  # the last line of a file without a final newline
                out.append(line + b"\n\\ No newline at end of file\n")
    return b"".join(out)
