"""Read `cmake --trace-expand --trace-format=json-v1` output: each command as CMake ran it, with the calls
that led to it. Pure: lines in, records out.

json-v1 (CMake >= 3.17) gives every command its file, line, expanded arguments and `frame`: the depth of
function, macro and include() nesting. It has no call stack (CMake 3.25 - 4.x), so the stack is rebuilt
from the order of the records: a record at frame n was reached through the latest record at each frame
below n. `else()`, `endif()`, `endforeach()` and `endfunction()` are not recorded.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    cmd: str  # as written, lowercased (CMake commands are case-insensitive)
    file: str
    line: int
    args: tuple[str, ...]
    frame: int


@dataclass(frozen=True)
class Record:
    """A command and the commands that reached it, outermost first (function and macro calls, include(),
    add_subdirectory(), find_package(): whatever was running one frame further out)."""

    command: Command
    stack: tuple[Command, ...]


def records(lines: Iterable[str]) -> Iterator[Record]:
    """Every command of a trace in order. Lines that are not trace records (a truncated last line of a
    killed configure) are skipped."""
    stack: list[Command] = []
    for raw in lines:
        if not raw.startswith('{"args"') and '"cmd"' not in raw:
            continue
        try:
            data = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(data, dict) or "cmd" not in data or "frame" not in data:
            continue
        frame = int(data["frame"])
        command = Command(str(data["cmd"]).lower(), str(data.get("file", "")), int(data.get("line", 0)),
                          tuple(str(a) for a in data.get("args", [])), frame)
        while stack and stack[-1].frame >= frame:
            stack.pop()
        yield Record(command, tuple(stack))
        stack.append(command)


def defined_commands(recs: Iterable[Record]) -> set[str]:
    """Names of the functions and macros the configure defined (lowercased)."""
    return {r.command.args[0].lower() for r in recs
            if r.command.cmd in ("function", "macro") and r.command.args}
