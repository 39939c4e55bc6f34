"""Allow-lists and filters of target names (RSM108, RSM113). RSM108 is also reported where a
list is set (arch_lists) or tested (branches)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rocm_spirv.migrate.cmake_checks.topic import Topic
from rocm_spirv.migrate.cmake_lexer import Command
from rocm_spirv.migrate.findings import E, Redirect, Rule

if TYPE_CHECKING:
    from rocm_spirv.migrate.cmake_rules import Analyzer

RSM108 = Rule("RSM108", "arch-allow-list", E, "an allow-list validates or filters target names",
              "Allow-lists and filters reject or silently drop `amdgcnspirv`.",
              example=('CMakeLists.txt', 'project(p)\nlist(FILTER GPU_TARGETS INCLUDE REGEX "^gfx9")\n'),
              unreachable=True)
RSM113 = Rule("RSM113", "rocm-check-target-ids", E, "rocm_check_target_ids filters the list",
              "rocm_check_target_ids keeps only targets the compiler accepts as code objects; it can drop amdgcnspirv.",
              example=('CMakeLists.txt', 'project(p)\nrocm_check_target_ids(GPU_TARGETS TARGETS "${GPU_TARGETS}")\n'))


def check_target_ids(file: Analyzer, cmd: Command) -> None:
    if cmd.values():  # its output is a list derived from the target list: branches on it are per-arch
        file.arch_lists.add(cmd.values()[0])
    file.add(RSM113, cmd, "rocm_check_target_ids filters the target list against code-object targets",
             "skip it when ROCM_SPIRV_OFFLOAD is spirv, or append amdgcnspirv after the check",
             Redirect.BUILD_FILE)


TOPIC = Topic(rules=(RSM108, RSM113), commands={"rocm_check_target_ids": check_target_ids})
