"""The edits --apply makes in a CMake file besides retargeting HIP targets: a ROCM_SPIRV_OFFLOAD guard
around a per-arch setting, and a note above each command only a hand edit can fix."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rocm_spirv.migrate.cmake_lexer import Command
from rocm_spirv.migrate.cmake_words import GUARD_VAR, line_begin, line_end
from rocm_spirv.migrate.findings import Edit, Redirect

if TYPE_CHECKING:
    from rocm_spirv.migrate.cmake_rules import Analyzer

GUARD_OPEN = f'if(NOT {GUARD_VAR} STREQUAL "spirv")  # rocm-spirv migrate: per-arch list, unused under SPIR-V'
GUARD_ELSE = "else()  # rocm-spirv migrate: what a SPIR-V toolchain file sets"
NOTE = "# rocm-spirv migrate: "


def wrap(file: Analyzer, cmd: Command, spirv: str = "") -> None:
    """Put cmd behind `if(NOT ROCM_SPIRV_OFFLOAD STREQUAL "spirv")`, leaving its text untouched.

    spirv, if given, is the command for the else() branch: the value a SPIR-V toolchain file
    would set, so later readers of the list (filters, hip::device, FindHIP) see amdgcnspirv.
    """
    begin = line_begin(file.src, cmd.start)
    prefix = file.src[begin : cmd.start]
    indent = cmd.indent if prefix.strip() == "" else re.match(r"[ \t]*", prefix).group(0)  # type: ignore[union-attr]
    nl = file.facts.newline
    file.report.edits.append(Edit(begin, begin, f"{indent}{GUARD_OPEN}{nl}"))
    end = line_end(file.src, cmd.end)
    other = f"{nl}{indent}{GUARD_ELSE}{nl}{indent}  {spirv}" if spirv else ""
    file.report.edits.append(Edit(end, end, f"{other}{nl}{indent}endif()"))


def notes(file: Analyzer) -> None:
    """A comment line above each command with a finding only a hand edit can fix (once: idempotent)."""
    lines = file.src.split("\n")  # CMake's lines: a lone \r or \f does not end one
    lines = [ln + "\n" for ln in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    starts = [0]
    for text in lines:
        starts.append(starts[-1] + len(text))
    by_line: dict[int, list[str]] = {}
    for f in file.report.findings:
        if not f.handled and f.redirect is Redirect.BUILD_FILE and f.rule.unreachable:
            by_line.setdefault(f.line, [])
            if f"{f.rule.id} {f.rule.name}" not in by_line[f.line]:
                by_line[f.line].append(f"{f.rule.id} {f.rule.name}")
    for line, rules in by_line.items():
        if line >= 2 and lines[line - 2].lstrip().startswith(NOTE):
            continue
        text = lines[line - 1]
        indent = text[: len(text) - len(text.lstrip(" \t"))]
        file.report.edits.append(Edit(starts[line - 1], starts[line - 1], f"{indent}{NOTE}{', '.join(rules)}: "
                                      f"needs an edit for SPIR-V (rocm-spirv migrate --check){file.facts.newline}"))
