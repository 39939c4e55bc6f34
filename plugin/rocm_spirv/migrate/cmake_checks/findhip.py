"""The FindHIP module: hip_add_* and HCC_AMDGPU_TARGET (RSM110), arch flags in their options (RSM115)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rocm_spirv.migrate.cmake_checks.topic import Topic
from rocm_spirv.migrate.cmake_lexer import Command, split_list
from rocm_spirv.migrate.cmake_words import ARCH_FLAG, compiler_flag
from rocm_spirv.migrate.findings import E, Finding, Redirect, Rule, W
from rocm_spirv.offload import SPIRV_TARGET

if TYPE_CHECKING:
    from rocm_spirv.migrate.cmake_rules import Analyzer

RSM110 = Rule("RSM110", "findhip", W, "FindHIP hip_add_* / HCC_AMDGPU_TARGET",
              "The FindHIP module compiles through hipcc with HCC_AMDGPU_TARGET: a toolchain file that forces it to "
              "amdgcnspirv redirects it; port to enable_language(HIP).",
              example=('CMakeLists.txt', 'project(p)\nhip_add_library(k k.cpp)\n'),
              unreachable=True)
RSM115 = Rule("RSM115", "findhip-arch-option", E, "hip_add_* passes an arch flag in HIPCC_OPTIONS/CLANG_OPTIONS",
              "Per-target options come after every flag a toolchain file can set, so --offload-arch= there always "
              "builds that native code object.",
              example=('CMakeLists.txt', 'project(p)\nhip_add_library(k k.cpp HIPCC_OPTIONS --offload-arch=gfx90a)\n'),
              unreachable=True)


def hip_add(file: Analyzer, cmd: Command) -> None:
    """FindHIP's hip_add_library/hip_add_executable: hipcc gets one --offload-arch= per HCC_AMDGPU_TARGET entry."""
    values = cmd.values()
    target = values[0] if values else ""
    options: list[str] = []
    mode = ""
    for v in values[1:]:
        if v in ("HIPCC_OPTIONS", "CLANG_OPTIONS", "NVCC_OPTIONS"):
            mode = v
        elif mode in ("HIPCC_OPTIONS", "CLANG_OPTIONS"):
            options += [compiler_flag(w) for item in split_list(v) for w in item.split()]
    pinned = [w for w in options if (ARCH_FLAG.match(w) or re.match(r"--?amdgpu-target=", w))
              and SPIRV_TARGET not in w]
    if pinned:
        file.add(RSM115, cmd, f"{cmd.name}({target}) passes {pinned[0]} in its options, after every flag a "
                 "toolchain file can set", "drop it from HIPCC_OPTIONS/CLANG_OPTIONS (the list belongs in "
                 "HCC_AMDGPU_TARGET), or port to enable_language(HIP) and rocm_spirv_target()",
                 Redirect.BUILD_FILE)
        return
    own = " and one per target-list entry the project adds to HIP_HIPCC_FLAGS" if file.hipcc_flags_from_targets \
        else ""
    # The call names no GPU: its per-arch flags come from HCC_AMDGPU_TARGET (and, at rocHPCG, from a project list
    # made of GPU_TARGETS), which the generated toolchain file forces to amdgcnspirv. Where a project sets that
    # list itself, the set() is the construct (RSM110 there); the call is reported as handled.
    file.add(RSM110, cmd, f"{cmd.name}({target}) compiles through FindHIP/hipcc with one --offload-arch= per "
             f"HCC_AMDGPU_TARGET entry{own}", "a toolchain file that sets HCC_AMDGPU_TARGET to amdgcnspirv (CACHE "
             "FORCE, as the generated one does) redirects it; better, port to enable_language(HIP) and "
             "rocm_spirv_target()", Redirect.TOOLCHAIN_FORCE, handled=True)


FINDHIP_COMMANDS = ("hip_add_library", "hip_add_executable")
TOPIC = Topic(rules=(RSM110, RSM115), commands=dict.fromkeys(FINDHIP_COMMANDS, hip_add))
_CALL = re.compile(r"\s*(\w+)\s*\(")


def project_own(f: Finding, defined: set[str]) -> bool:
    """A finding of this topic at a call of a hip_add_* the project defines itself (function(hip_add_library)
    in its own cmake/ helpers, on the HIP language): FindHIP's command is not the one that runs."""
    m = _CALL.match(f.snippet) if f.rule in TOPIC.rules else None
    return m is not None and m.group(1).lower() in defined
