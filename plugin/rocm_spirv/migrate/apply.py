"""Turn a scan's edits into new file contents and unified diffs. Pure; the command does the writing."""

from __future__ import annotations

import difflib

from rocm_spirv.migrate.findings import Edit
from rocm_spirv.migrate.scan import Scan

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


def unified_diff(changes: dict[str, tuple[str, str]]) -> str:
    chunks: list[str] = []
    for path in sorted(changes):
        old, new = changes[path]
        chunks.extend(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                           f"a/{path}", f"b/{path}"))
        if chunks and not chunks[-1].endswith("\n"):
            chunks[-1] += "\n\\ No newline at end of file\n"
    return "".join(chunks)
