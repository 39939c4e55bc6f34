"""Target lists read from the environment (RSM111); also reported for presets (presets.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rocm_spirv.migrate.cmake_checks.topic import Topic
from rocm_spirv.migrate.cmake_lexer import Command
from rocm_spirv.migrate.cmake_words import ENV_VARS, env_names
from rocm_spirv.migrate.findings import Redirect, Rule, W

if TYPE_CHECKING:
    from rocm_spirv.migrate.cmake_rules import Analyzer

RSM111 = Rule("RSM111", "env-arch-list", W, "an environment variable supplies the target list",
              "PYTORCH_ROCM_ARCH / HCC_AMDGPU_TARGET / GPU_TARGETS from the environment feed the arch list.",
              example=('CMakeLists.txt', 'project(p)\nset(ARCHS $ENV{PYTORCH_ROCM_ARCH})\n'))


def env(file: Analyzer, cmd: Command) -> None:
    found = sorted(env_names(cmd) & ENV_VARS)
    if found and not (cmd.name == "set" and cmd.values()[:1] and cmd.values()[0].startswith("ENV{")):
        # The user's own list, as -DGPU_TARGETS= is: no arch of the project's, and unset unless the user
        # exports it. Reported as handled; a project that sets the variable (set(ENV{…}), a preset) is not.
        file.add(RSM111, cmd, f"reads the user's target list from $ENV{{{found[0]}}}: user input, "
                 "no arch of the project's", f"export {found[0]}=amdgcnspirv (or leave it unset) when "
                 "building for SPIR-V", Redirect.ENVIRONMENT, handled=True)


TOPIC = Topic(rules=(RSM111,), every=env)
