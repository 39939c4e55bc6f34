"""HIP_ARCHITECTURES set on targets (RSM102); set to FALSE/OFF it is a host-only RSM120 note."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from rocm_spirv.migrate.cmake_checks.arch_lists import toolchain_copy, user_input
from rocm_spirv.migrate.cmake_checks.fixes import wrap
from rocm_spirv.migrate.cmake_checks.hip_targets import RSM120
from rocm_spirv.migrate.cmake_checks.topic import Topic
from rocm_spirv.migrate.cmake_conditions import REF
from rocm_spirv.migrate.cmake_lexer import Command, split_list
from rocm_spirv.migrate.cmake_words import GFX
from rocm_spirv.migrate.findings import Redirect, Rule, W
from rocm_spirv.offload import SPIRV_TARGET, TOOLCHAIN_LISTS

if TYPE_CHECKING:
    from rocm_spirv.migrate.cmake_rules import Analyzer

RSM102 = Rule("RSM102", "hip-architectures-property", W, "HIP_ARCHITECTURES is set on a target",
              "A target property overrides CMAKE_HIP_ARCHITECTURES, so no toolchain file can redirect it.",
              example=('CMakeLists.txt', 'project(p LANGUAGES HIP)\n'
                       'add_library(k k.hip)\n'
                       'set_target_properties(k PROPERTIES HIP_ARCHITECTURES gfx90a)\n'))


def properties(file: Analyzer, cmd: Command) -> None:
    values = cmd.values()
    if "HIP_ARCHITECTURES" not in values:
        return  # set_property(CACHE GPU_TARGETS PROPERTY STRINGS …) is only a GUI hint
    if cmd.name == "set_target_properties":
        targets = values[: values.index("PROPERTIES")] if "PROPERTIES" in values else []
    elif values[:1] == ["TARGET"]:
        end = values.index("PROPERTY") if "PROPERTY" in values else len(values)
        targets = [v for v in values[1:end] if v not in ("APPEND", "APPEND_STRING")]
    else:
        targets = []
    targets = [file.target(t) for t in targets]
    idx = values.index("HIP_ARCHITECTURES")
    if cmd.name == "set_property":  # PROPERTY HIP_ARCHITECTURES <value>...
        arch = ";".join(values[idx + 1 :])
    else:  # PROPERTIES <name> <value> pairs
        arch = values[idx + 1] if idx + 1 < len(values) else ""
    archs = split_list(arch)
    if archs and all(a.lower() == SPIRV_TARGET for a in archs):
        return
    if arch.upper() in ("FALSE", "OFF"):  # host-only: CMake adds no --offload-arch, retargeting keeps it so
        for t in targets:
            file.host_only.setdefault(t, []).append(f"HIP_ARCHITECTURES {arch}")
        file.add(RSM120, cmd, f"HIP_ARCHITECTURES {arch} keeps {', '.join(targets) or 'a target'} host-only; "
                 "retargeting leaves it so", "nothing to do: no device code, under SPIR-V as before",
                 Redirect.TOOLCHAIN, handled=True)
        return
    for t in targets:
        file.property_targets.setdefault(t, cmd)
    copied = [m.group(1) for a in archs if (m := REF.match(a))]
    if archs and len(copied) == len(archs) and (set(copied) <= set(TOOLCHAIN_LISTS) or toolchain_copy(file, copied)):
        # HIP_ARCHITECTURES "${CMAKE_HIP_ARCHITECTURES}": the target list the toolchain sets, copied; its
        # origin is the construct (an RSM101 where the project sets it). A project's own list
        # (`${HIP_ARCHITECTURES}`, `${GPU_ARCHS}`) is no toolchain's: the property pins the target to it.
        file.add(RSM102, cmd, f"HIP_ARCHITECTURES of {', '.join(targets) or 'a target'} copies "
                 f"{', '.join(copied)}", "nothing to do: it follows the target list", Redirect.TOOLCHAIN,
                 handled=True)
        return
    # HIP_ARCHITECTURES "${DEFAULT_AMDGPU_TARGETS}" in a CMakeLists.txt that never sets it, nor do its parent
    # directories (rocHPL): the user's list. A .cmake module's variable comes from whoever includes it, and the
    # property pins the target to that list (HeCBench's ${HECBENCH_HIP_ARCH}): still RSM102.
    user = user_input(file, archs) if posixpath.basename(file.path) == "CMakeLists.txt" else []
    if user:
        file.add(RSM102, cmd, f"HIP_ARCHITECTURES of {', '.join(targets) or 'a target'} copies {', '.join(user)}, "
                 "which this file never sets: the user's -D list, or another file's (reported where it is set)",
                 f"configure with -D{user[0]}=amdgcnspirv under SPIR-V", Redirect.USER_VARIABLE, handled=True)
        return
    if archs and len(copied) == len(archs) and set(copied) <= file.toolchain_dead_lists - file.live_literal_lists:
        # lucebox: HIP_ARCHITECTURES "${_dflash_archs}" on each target, a list whose gfx names are set only in a
        # branch the toolchain file's lists skip (`else()` of the user's and AMDGPU_TARGETS' branches): under
        # SPIR-V it holds the toolchain's list. The gfx default is reported where it is set.
        file.add(RSM102, cmd, f"HIP_ARCHITECTURES of {', '.join(targets) or 'a target'} copies "
                 f"{', '.join(copied)}, whose gfx names are set only where the toolchain file's lists skip",
                 "nothing to do: it follows the target list", Redirect.TOOLCHAIN, handled=True)
        return
    for t in targets:
        file.target_findings.setdefault(len(file.report.findings), set()).add(t)
    file.add(RSM102, cmd, f"HIP_ARCHITECTURES of {', '.join(targets) or 'a target'} set to "
             f"{' '.join(archs) or 'an empty list'}",
             "let rocm_spirv_target() own HIP_ARCHITECTURES (--apply guards this)", Redirect.BUILD_FILE)
    only_arch = cmd.name == "set_property" or (
        "PROPERTIES" in values and len(values) - values.index("PROPERTIES") == 3)
    if only_arch and GFX.search(arch) and not file.guarded():
        wrap(file, cmd)


TOPIC = Topic(rules=(RSM102,), commands={"set_target_properties": properties, "set_property": properties})
