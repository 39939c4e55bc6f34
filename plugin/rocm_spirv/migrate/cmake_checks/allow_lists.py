"""Allow-lists and filters of target names (RSM108, RSM113). RSM108 is also reported where a
list is set (arch_lists) or tested (branches)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rocm_spirv.migrate.cmake_checks.topic import Topic
from rocm_spirv.migrate.cmake_lexer import Command, split_list
from rocm_spirv.migrate.cmake_words import GFX
from rocm_spirv.migrate.findings import E, Redirect, Rule

if TYPE_CHECKING:
    from rocm_spirv.migrate.cmake_rules import Analyzer

RSM108 = Rule("RSM108", "arch-allow-list", E, "an allow-list validates or filters target names",
              "Allow-lists and filters reject or silently drop `amdgcnspirv`.",
              example=('CMakeLists.txt', 'project(p)\nlist(FILTER GPU_TARGETS INCLUDE REGEX "^gfx9")\n'),
              unreachable=True)
RSM113 = Rule("RSM113", "rocm-check-target-ids", E, "rocm_check_target_ids over a hard-coded list",
              "rocm_check_target_ids keeps the targets the C++ compiler accepts with -xhip --offload-arch=: over "
              "the target list it keeps amdgcnspirv (clang 22 accepts it), over gfx names it yields native targets.",
              example=('CMakeLists.txt', 'project(p)\nrocm_check_target_ids(DEFAULTS TARGETS "gfx90a;gfx942")\n'))


def check_target_ids(file: Analyzer, cmd: Command) -> None:
    values = cmd.values()
    if values:  # its output is a list derived from the target list: branches on it are per-arch
        file.arch_lists.add(values[0])
    checked = values[values.index("TARGETS") + 1:] if "TARGETS" in values else []
    gfx = [t for v in checked for t in split_list(v) if GFX.search(t)]
    if gfx:
        file.add(RSM113, cmd, f"rocm_check_target_ids checks a hard-coded list ({', '.join(gfx)}): what it keeps are "
                 "native targets",
                 "take the list from GPU_TARGETS (the toolchain file's amdgcnspirv), or skip it when "
                 "ROCM_SPIRV_OFFLOAD is spirv", Redirect.BUILD_FILE)
        return
    # rocm-cmake's ROCMCheckTargetIds probes `-xhip --offload-arch=<t>` with the C++ compiler: the toolchain
    # file's clang accepts amdgcnspirv (tests/test_toolchainfile.py configures rocm-cmake's module), so the
    # filter keeps it
    file.add(RSM113, cmd, "rocm_check_target_ids filters the target list by what the C++ compiler accepts; the "
             "toolchain file's clang accepts amdgcnspirv, so the list keeps it", "nothing to do: it follows the "
             "target list", Redirect.TOOLCHAIN, handled=True)


TOPIC = Topic(rules=(RSM108, RSM113), commands={"rocm_check_target_ids": check_target_ids})
