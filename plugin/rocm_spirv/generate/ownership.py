"""Which files are rocm-spirv's to replace, decided by content, not by name.

Every generated file ends with a marker line holding the sha256 of everything above it. A file is
rocm-spirv's own unmodified output only while that hash matches; edited, it is the user's, and a
file without the marker was never ours. Generators overwrite only their own unmodified output.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from rocm_spirv.errors import UserError
from rocm_spirv.fsutil import check_target, write_atomic

MARK = "rocm-spirv-generated sha256="
_LINE = re.compile(rb"^[^\n]*" + re.escape(MARK.encode()) + rb"([0-9a-f]{64})[^\n]*(?:\n|\Z)", re.MULTILINE)

# Comment syntax by file name: what wraps the marker so each language ignores it.
_COMMENTS: dict[str, tuple[str, str]] = {".c": ("// ", ""), ".h": ("// ", ""), ".md": ("<!-- ", " -->")}

State = Literal["absent", "ours", "edited", "foreign"]


def comment_for(name: str) -> tuple[str, str]:
    return _COMMENTS.get(os.path.splitext(name)[1], ("# ", ""))


def stamp(text: str, name: str) -> str:
    """text with the marker line appended; text must end with a newline."""
    body = text if text.endswith("\n") else text + "\n"
    open_, close = comment_for(name)
    digest = hashlib.sha256(body.encode()).hexdigest()
    return f"{body}{open_}{MARK}{digest}{close}\n"


def split(data: bytes) -> tuple[bytes, str] | None:
    """(what the marker covers: every byte but its own line, the hash it records), or None without
    a marker line. Lines a user adds after the marker count as edits too."""
    found = list(_LINE.finditer(data))
    if not found:
        return None
    m = found[-1]
    return data[: m.start()] + data[m.end():], m.group(1).decode()


def state_of(data: bytes | None) -> State:
    if data is None:
        return "absent"
    parts = split(data)
    if parts is None:
        return "foreign"
    return "ours" if hashlib.sha256(parts[0]).hexdigest() == parts[1] else "edited"


def _read(path: Path, what: str) -> bytes | None:
    target = check_target(path, what)
    if target.existing is None:
        return None
    with open(target.path, "rb") as f:
        return f.read()


@dataclass(frozen=True)
class Plan:
    path: Path
    text: str  # stamped
    write: bool  # False: the file already holds exactly this


def plan_write(path: Path, stamped: str, force: bool, remedy: str, what: str = "") -> Plan:
    """Check path may take stamped (a stamp() result); raises UserError naming the file and the
    remedy if not. Checks only, so a caller can check every file before it writes any."""
    label = what or str(path)
    data = _read(path, label)
    state = state_of(data)
    if data == stamped.encode():
        return Plan(path, stamped, False)
    parts = split(stamped.encode())
    if parts is not None and data == parts[0]:
        return Plan(path, stamped, True)  # the same output from a version that wrote no marker
    if state == "edited" and not force:
        raise UserError(f"{label} was written by rocm-spirv and edited since, so it is yours now; "
                        "refusing to replace it", remedy)
    if state == "foreign" and not force:
        raise UserError(f"{label} was not written by rocm-spirv; refusing to replace it", remedy)
    return Plan(path, stamped, True)


def write_planned(plan: Plan, mode: int | None = None) -> bool:
    if plan.write:
        write_atomic(plan.path, plan.text, mode)
    return plan.write
