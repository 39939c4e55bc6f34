"""HIP targets not handed to rocm_spirv_target() (RSM120), and the edits that retarget them; the
hip::device of find_package(hip) is an RSM103."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from rocm_spirv.migrate.cmake_checks.flags import RSM103
from rocm_spirv.migrate.cmake_checks.topic import Topic
from rocm_spirv.migrate.cmake_lexer import Command
from rocm_spirv.migrate.cmake_targets import hip_language_sources, is_hip_source
from rocm_spirv.migrate.cmake_words import (
    ARCH_FLAG,
    GFX,
    HIP_DEVICE,
    HOST_ONLY_FLAGS,
    compiles_as_hip,
    flag_words,
    line_begin,
    line_end,
    snippet,
)
from rocm_spirv.migrate.findings import Edit, Finding, N, Redirect, Rule

RETARGET_DIRECTORY_MIN = 4  # this many HIP targets in one file: one rocm_spirv_retarget_directory() call

if TYPE_CHECKING:
    from rocm_spirv.migrate.cmake_rules import Analyzer

RSM120 = Rule("RSM120", "hip-target", N, "a HIP target is not retargeted",
              "Add find_package(RocmSpirv REQUIRED) and rocm_spirv_target(<target>) so ROCM_SPIRV_OFFLOAD picks "
              "spirv, native or hybrid.",
              example=('CMakeLists.txt', 'project(p LANGUAGES HIP)\nadd_library(k k.hip)\n'), opt_in=True)


def target_facts(file: Analyzer, cmd: Command) -> None:
    """What makes a target HIP, host-only or already retargeted."""
    name = cmd.name
    values = cmd.values()
    if name == "find_package" and values[:1] == ["hip"]:
        file.find_hip = cmd
        file.find_hip_guarded = file.guarded()
    elif name == "target_link_libraries" and HIP_DEVICE in values[1:]:
        file.device_links.setdefault(file.target(values[0]), cmd)
    elif name == "target_compile_options" and values:
        words = flag_words(cmd)
        if compiles_as_hip(words) or any(ARCH_FLAG.match(w) for w in words):
            file.option_targets.setdefault(file.target(values[0]), cmd)
        host = sorted(set(words) & HOST_ONLY_FLAGS)
        if host:
            file.host_only.setdefault(file.target(values[0]), []).extend(host)
    elif name == "rocm_spirv_target":
        file.retargeted.update(file.target(v) for v in values if v not in (
            "OFFLOAD", "ARCHS", "spirv", "native", "hybrid") and not GFX.fullmatch(v))
    elif name == "rocm_spirv_retarget_directory":
        file.retarget_directory = True


def hip_sources(file: Analyzer, cmd: Command) -> None:
    """Sources made HIP by set_source_files_properties() or set_property(SOURCE …), LANGUAGE ${VAR} included."""
    if "LANGUAGE" in cmd.values():
        file.hip_sources.update(hip_language_sources(cmd, file.variables))


def target_sources(file: Analyzer, cmd: Command) -> None:
    values = cmd.values()
    if values:
        file.more_sources.setdefault(file.target(values[0]), []).extend(file.variables.items(values[1:]))


def target_def(file: Analyzer, cmd: Command) -> None:
    values = cmd.values()
    if not values or values[1:2] in (["IMPORTED"], ["ALIAS"], ["INTERFACE"]):
        return  # add_library(k) alone is a target too: target_sources() gives it sources
    file.target_defs.append((cmd, file.target(values[0]), file.variables.items(values[1:]), file.function()))
    file.labels[file.target(values[0])] = file.variables.label(values[0])


def hip_target_findings(file: Analyzer) -> None:
    # (command to report at, definition, name, how it becomes HIP, the function() defining it)
    hip: list[tuple[Command, Command, str, str, str]] = []
    for cmd, name, items, fn in file.target_defs:
        if any(is_hip_source(i, file.hip_sources) for i in [*items, *file.more_sources.get(name, [])]):
            why = "HIP target"
        elif name in file.property_targets:
            why = "HIP target (HIP_ARCHITECTURES set)"
        elif name in file.option_targets:
            why = "C++ target compiled as HIP (-x hip / --offload-arch in its options)"
        elif name in file.device_links:
            why = "C++ target compiled as HIP (it links hip::device)"
        else:
            continue
        if name in file.host_only:
            file.report.findings.append(Finding(
                RSM120, file.path, cmd.line, cmd.start - line_begin(file.src, cmd.start) + 1,
                f"{why} {name} is host-only ({', '.join(file.host_only[name])}): no device code, so it is "
                "not handed to rocm_spirv_target()", "nothing to do: it stays host-only under SPIR-V",
                Redirect.TOOLCHAIN, True, snippet(file.src, cmd)))
            continue
        at = file.device_links[name] if why.endswith("hip::device)") else cmd
        hip.append((at, cmd, name, why, fn))
    file.facts.hip_targets = [h[2] for h in hip]
    done = {h[2] for h in hip if file.retarget_directory or h[2] in file.retargeted}
    users = sorted(file.device_links)
    if users and all(u in done for u in users):  # each user gets a copy of hip::device without arch flags
        done.add(HIP_DEVICE)
    for index, targets in file.target_findings.items():  # the retargeting replaces these options/properties
        if targets <= done:
            f = file.report.findings[index]
            file.report.findings[index] = replace(f, handled=True)
    if file.find_hip is not None:
        # hip::device turns GPU_TARGETS into flags: the list's origin is that finding, and each target that
        # links hip::device has its own RSM120 (rocm_spirv_target swaps in a copy without the flags), so
        # this one is reported as handled (JSON and SARIF keep it with include_handled).
        handled = True
        file.add(RSM103, file.find_hip, "find_package(hip): its hip::device adds one --offload-arch= per "
                 f"GPU_TARGETS entry to every target linking it ({', '.join(users) or 'none in this file'})",
                 "rocm_spirv_target() on those targets swaps in a copy of hip::device without the arch flags "
                 "(--apply adds it); a toolchain GPU_TARGETS of amdgcnspirv also redirects it",
                 Redirect.TOOLCHAIN, handled=handled)
    pending = [(h[0], h[1], h[2]) for h in hip if h[2] not in done]
    _note(file, hip, done)
    if not pending:
        return
    if len(hip) >= RETARGET_DIRECTORY_MIN:
        pos = len(file.src)
        nl = file.facts.newline
        lead = "" if file.src.endswith("\n") or not file.src else nl
        file.report.edits.append(Edit(pos, pos, f"{lead}rocm_spirv_retarget_directory()  # rocm-spirv migrate{nl}"))
        return
    for _, cmd, _ in pending:
        end = line_end(file.src, cmd.end)
        indent = cmd.indent
        call = f"rocm_spirv_target({cmd.values()[0]})"
        file.report.edits.append(Edit(end, end, f"{file.facts.newline}{indent}{call}"))


def _note(file: Analyzer, hip: list[tuple[Command, Command, str, str, str]], done: set[str]) -> None:
    """One RSM120 per file, where its first HIP target still to retarget is (or its first one, handled, when
    all are retargeted), naming them all: an adoption note, not a per-arch construct, so a file defining 33
    targets gets one line, not 33 (--apply still adds one rocm_spirv_target() after each definition). A
    target defined in several if() branches (CMake allows one definition) is one target; the same spelling
    in two functions (`${TARGET_NAME}` of hip_add_library and of hip_add_executable) is two."""
    targets: dict[tuple[str, str], tuple[Command, Command, str, str, str]] = {}
    for h in hip:
        targets.setdefault((h[4], h[2]), h)
    if not targets:
        return
    todo = [t for t in targets.values() if t[2] not in done]
    at, cmd, name, why, _ = todo[0] if todo else next(iter(targets.values()))
    if len(todo) > 1:
        names = ", ".join(file.labels.get(n, n) + (f" (in {fn}())" if fn else "") for _, _, n, _, fn in todo)
        message = f"{len(todo)} HIP targets are not handed to rocm_spirv_target(): {names}"
        call = "rocm_spirv_target(<each>)"
    else:  # the call is written as the definition spells the name
        message = f"{why} {file.labels.get(name, name)} is not handed to rocm_spirv_target()"
        call = f"rocm_spirv_target({cmd.values()[0]})"
    file.report.findings.append(Finding(
        RSM120, file.path, at.line, at.start - line_begin(file.src, at.start) + 1, message,
        f"find_package(RocmSpirv REQUIRED) and {call} (--apply adds both)", Redirect.BUILD_FILE, not todo,
        snippet(file.src, at)))


TOPIC = Topic(rules=(RSM120,), seen=target_facts, end=hip_target_findings,
              commands={"add_library": target_def, "add_executable": target_def,
                        "set_source_files_properties": hip_sources, "set_property": hip_sources,
                        "target_sources": target_sources})
