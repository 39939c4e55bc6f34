"""Turn a scan's edits into new file contents and unified diffs. Pure; the command does the writing."""

from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import Literal

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


Opcode = tuple[Literal["replace", "delete", "insert", "equal"], int, int, int, int]
DIFF_WINDOW = 256  # lines on each side a change is resynchronised within, before the window grows


def _opcodes(a: list[bytes], b: list[bytes]) -> list[Opcode]:
    """difflib-style opcodes found change by change: equal lines are skipped at C speed, and each change
    ends where a window of DIFF_WINDOW lines after it first has lines in common again (the window grows
    when it has none). Matching whole files at once is quadratic in the repeated lines of a large file
    (a 4 MiB CMakeLists.txt with 719 edits: 83 s); the migrate edits are local, so this is linear."""
    ops: list[Opcode] = []
    i = j = 0
    n, m = len(a), len(b)
    while i < n or j < m:
        i0, j0 = i, j
        while i < n and j < m and a[i] == b[j]:
            i += 1
            j += 1
        if i > i0:
            ops.append(("equal", i0, i, j0, j))
        if i == n and j == m:
            break
        w = DIFF_WINDOW
        while True:
            blocks = [blk for blk in difflib.SequenceMatcher(None, a[i : i + w], b[j : j + w],
                                                             autojunk=False).get_matching_blocks() if blk.size]
            if blocks or (i + w >= n and j + w >= m):
                break
            w *= 4
        di, dj = (blocks[0].a, blocks[0].b) if blocks else (n - i, m - j)
        ops.append(("replace" if di and dj else "delete" if di else "insert", i, i + di, j, j + dj))
        i, j = i + di, j + dj
    return ops


class _Changes(difflib.SequenceMatcher[bytes]):
    """A SequenceMatcher whose opcodes come from _opcodes: its get_grouped_opcodes makes the hunks."""

    def __init__(self, a: list[bytes], b: list[bytes]) -> None:
        super().__init__(None, [], [], autojunk=False)  # nothing to index: the opcodes are given
        self._ops = _opcodes(a, b)

    def get_opcodes(self) -> list[Opcode]:
        return self._ops


def _range(start: int, stop: int) -> bytes:
    """A hunk's line range as unified diffs write it (difflib's form)."""
    length = stop - start
    if length == 1:
        return b"%d" % (start + 1)
    return b"%d,%d" % (start if not length else start + 1, length)


def unified_diff(changes: dict[str, tuple[bytes, bytes]]) -> bytes:
    """A patch that `patch -p1` and `git apply` apply to the original bytes, giving the new ones."""
    out: list[bytes] = []
    for path in sorted(changes):
        old, new = changes[path]
        a, b = _lines(old), _lines(new)
        name = encode(path)
        lines: list[bytes] = []
        for group in _Changes(a, b).get_grouped_opcodes(3):
            if not lines:
                lines += [b"--- a/" + name + b"\n", b"+++ b/" + name + b"\n"]
            first, last = group[0], group[-1]
            lines.append(b"@@ -" + _range(first[1], last[2]) + b" +" + _range(first[3], last[4]) + b" @@\n")
            for tag, i1, i2, j1, j2 in group:
                if tag == "equal":
                    lines += [b" " + x for x in a[i1:i2]]
                    continue
                lines += [b"-" + x for x in a[i1:i2]]
                lines += [b"+" + x for x in b[j1:j2]]
        for line in lines:
            if line.endswith(b"\n"):
                out.append(line)
            else:  # the last line of a file without a final newline
                out.append(line + b"\n\\ No newline at end of file\n")
    return b"".join(out)
