"""Turn a scan's edits into new file contents and unified diffs. Pure; the command does the writing."""

from __future__ import annotations

import difflib

from rocm_spirv.migrate.findings import Edit
from rocm_spirv.migrate.scan import Scan, encode

BOM_BYTES = b"\xef\xbb\xbf"
FIND_PACKAGE = "find_package(RocmSpirv REQUIRED)  # rocm-spirv migrate: ROCM_SPIRV_OFFLOAD, rocm_spirv_target()"


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
    if edits and not scan.any_find_package:
        top = scan.facts.get("CMakeLists.txt")
        if top is not None and top.project_end is not None:
            edits.setdefault("CMakeLists.txt", []).insert(0, Edit(top.project_end, top.project_end,
                                                                  top.newline + FIND_PACKAGE))
        else:  # no top-level project here (a subdirectory was scanned): each edited file finds the package
            for path, file_edits in edits.items():
                facts = scan.facts[path]
                at = facts.project_end if facts.project_end is not None else facts.minimum_end
                if at is None:
                    file_edits.insert(0, Edit(0, 0, FIND_PACKAGE + facts.newline))
                else:
                    file_edits.insert(0, Edit(at, at, facts.newline + FIND_PACKAGE))
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
    """The top-level CMakeLists.txt (the file that gains find_package(RocmSpirv)) first: then every
    state an interrupted apply can leave behind configures (a subdirectory's rocm_spirv_target()
    needs the package the top level finds)."""
    return sorted(changes, key=lambda p: (p != "CMakeLists.txt", p))


def _lines(data: bytes) -> list[bytes]:
    """Split on \n only, as patch and git apply do (a lone \r or \f is not a line end for them)."""
    parts = data.split(b"\n")
    lines = [p + b"\n" for p in parts[:-1]]
    return [*lines, parts[-1]] if parts[-1] else lines


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
