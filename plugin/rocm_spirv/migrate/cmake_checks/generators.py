"""Kernel generators handed the target list (RSM109)."""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING

from rocm_spirv.migrate.cmake_checks.topic import Topic
from rocm_spirv.migrate.cmake_conditions import REF
from rocm_spirv.migrate.cmake_lexer import Arg, Command, refs
from rocm_spirv.migrate.cmake_words import (
    ARCH_FLAG,
    CMAKE_TRUE,
    CUSTOM_COMMAND_KEYWORDS,
    GFX,
    GPU_OPTION,
    GPU_OPTION_NAME,
)
from rocm_spirv.migrate.findings import Redirect, Rule, W
from rocm_spirv.offload import SPIRV_TARGET, TOOLCHAIN_LISTS

GENERATOR_BUILTINS = frozenset({
    "set", "list", "if", "elseif", "while", "foreach", "message", "string", "option", "set_property",
    "set_target_properties", "unset", "math", "return", "cmake_parse_arguments", "separate_arguments",
    "target_compile_options", "add_compile_options", "target_link_options", "add_link_options",
    "rocm_check_target_ids", "hip_add_library", "hip_add_executable", "set_source_files_properties",
    "get_property", "get_target_property", "file", "include", "configure_file",
    "rocm_spirv_target", "rocm_spirv_retarget_directory", "target_compile_definitions", "add_definitions",
    "target_sources", "add_library", "add_executable", "function", "macro",
})
GENERATOR_COMMANDS = frozenset({"add_custom_command", "add_custom_target", "execute_process"})
# CMake commands whose first argument names a project, package or target, never a GPU to build for
NAMING_BUILTINS = frozenset({"project", "find_package", "install", "export", "add_dependencies",
                             "target_link_libraries", "source_group", "set_tests_properties", "enable_language"})
# A project variable named like a generator's arch input, set from the target list: the generator's call
# sits in a file the project does not always ship (rocBLAS and hipBLASLt hand Tensile_ARCHITECTURE to
# TensileCreateLibraryFiles elsewhere), so the set() is where the list reaches it.
GENERATOR_ARCH_INPUT = re.compile(r"(?i)(?:tensile(?:lite)?|ck|composable_kernel|kernel_?gen\w*|codegen)_"
                                  r"(?:architectures?|archs?|targets)")

if TYPE_CHECKING:
    from rocm_spirv.migrate.cmake_rules import Analyzer

# A project command that prints (block_print, print_status, log_summary, ecbuild_info): what it gets is shown, not
# generated.
PRINTER = re.compile(r"(?i)print|message|log|status|summary|banner|echo|display|info|warn|debug|notice")

RSM109 = Rule("RSM109", "kernel-generator", W, "the target list is handed to a kernel generator",
              "Generators invoked per arch (Tensile, CK, custom scripts) emit native objects, not SPIR-V.",
              example=('CMakeLists.txt', 'project(p)\ntensile_create_library(ARCHITECTURE "${GPU_TARGETS}")\n'),
              unreachable=True)


# A keyword argument of a project command that names the GPU to build for: `GPU_ARCH gfx90a`, `ARCHS gfx942`
_ARCH_WORD = r"[A-Z0-9_]*(?:ARCH|ARCHS|ARCHITECTURES?|GPUS?|TARGETS?)"
ARCH_KEYWORD = re.compile(f"^{_ARCH_WORD}$")


# A sub-build's cache option naming one GPU: `-DKokkos_ARCH_AMD_GFX90A=ON`, `-DGPU_TARGETS=gfx90a`, and Kokkos'
# older AMD names (`-DKokkos_ARCH_VEGA90A=On`, `-DKokkos_ARCH_NAVI1030=ON`), still in machine files
ARCH_DEFINE = re.compile(rf"^-D(?:{GPU_OPTION_NAME}(?::BOOL)?=(?:ON|TRUE|1)|"
                         rf"{_ARCH_WORD}(?::STRING)?=gfx\d\w*)$", re.IGNORECASE)
# Commands that collect words into a variable: `string(APPEND KOKKOS_OPTIONS " -DKokkos_ARCH_VEGA90A=On …")`
_COLLECTING = {"set": None, "string": frozenset({"APPEND", "PREPEND", "CONCAT"}),
               "list": frozenset({"APPEND", "PREPEND", "INSERT"})}


def literal_arch(cmd: Command) -> str:
    """`iree_amdgpu_bitcode_library(NAME … GPU_ARCH gfx90a …)`: the keyword and gfx name a call builds for (or
    the gfx name it takes first: `therock_add_amdgpu_target(gfx942 …)`);
    `ExternalProject_Add(… CMAKE_ARGS -DKokkos_ARCH_AMD_GFX90A=ON)`: the option a sub-build is configured with."""
    values = cmd.values()
    for key, value in itertools.pairwise(values):
        # `ARCHS gfx942`, or a quoted list of gfx names (clpeak's `embed_rocm_kernels(… ARCHS "gfx942;gfx950" …)`)
        if ARCH_KEYWORD.match(key) and value and all(GFX.fullmatch(v) for v in value.split(";")):
            return f"{key} {value}"
    if values and GFX.fullmatch(values[0]) and cmd.name not in NAMING_BUILTINS:
        # `therock_add_amdgpu_target(gfx942 "MI300A/MI300X" FAMILY …)`: the GPU the call is for, positional
        return values[0]
    return next((v for v in values if ARCH_DEFINE.match(v)), "")


def sub_build_options(cmd: Command) -> str:
    """`string(APPEND KOKKOS_OPTIONS " -DKokkos_ENABLE_HIP=On -DKokkos_ARCH_VEGA90A=On -DAMDGPU_TARGETS=gfx90a")`:
    the first word of a variable's value that configures a sub-build for one named GPU ("" if none). Such
    strings are handed whole to another project's configure (E3SM's and CESM's machine files), so the gfx name
    is in no list of this project and no flag of its compiles."""
    if cmd.name not in _COLLECTING:
        return ""
    values = cmd.values()
    subcommands = _COLLECTING[cmd.name]
    if subcommands is not None:
        if not values or values[0].upper() not in subcommands:
            return ""
        values = values[1:]
    return next((w for v in values[1:] for w in v.split() if ARCH_DEFINE.match(w)), "")


def gpu_option_on(cmd: Command) -> str:
    """`set(Kokkos_ARCH_AMD_GFX942_APU ON CACHE BOOL "" FORCE)`, `option(MYLIB_ARCH_GFX90A "…" ON)`: the option
    for one GPU a command turns on ("" if none)."""
    values = cmd.values()
    if not values or not GPU_OPTION.match(values[0]):
        return ""
    value = values[1] if cmd.name == "set" and len(values) > 1 else values[2] if cmd.name == "option" and \
        len(values) > 2 else ""
    return values[0] if value.upper() in CMAKE_TRUE else ""


def command_gpu(cmd: Command) -> str:
    """The first gfx name a custom command's COMMAND lines pass as a word of their own (`--target gfx1250`)."""
    in_command = False
    for a in cmd.args:
        v = a.value
        if a.kind == "unquoted" and v == "COMMAND":
            in_command = True
        elif a.kind == "unquoted" and v in CUSTOM_COMMAND_KEYWORDS:
            in_command = False
        elif in_command and GFX.fullmatch(v) and v.lower() != SPIRV_TARGET:
            return v
    return ""


def generator(file: Analyzer, cmd: Command) -> None:
    # in a loop or a branch on the list the option is derived (Kokkos' own table turning KOKKOS_ARCH_${ARCH} into
    # KOKKOS_ARCH_AMD_GFX90A, `set(ARCH_GFX940 1)` under a test of the list): the loop or branch is the construct
    if cmd.name in ("set", "option") and (on := gpu_option_on(cmd)) and \
            not any(b.kind == "foreach" for b in file.stack) and not file.arch_branch():
        file.add(RSM109, cmd, f"{cmd.name}() turns on {on}, an option that builds for one GPU",
                 "under SPIR-V (ROCM_SPIRV_OFFLOAD) leave it off and configure for amdgcnspirv if the package "
                 "supports SPIR-V; otherwise keep it native (hybrid)", Redirect.BUILD_FILE)
        return
    options = sub_build_options(cmd)
    if options and not file.in_loop_over_targets():
        file.add(RSM109, cmd, f"{cmd.values()[0 if cmd.name == 'set' else 1]} collects {options}, a sub-build's "
                 "option for one GPU",
                 "under SPIR-V (ROCM_SPIRV_OFFLOAD) configure the sub-build for amdgcnspirv if it supports "
                 "SPIR-V; otherwise keep it native (hybrid)", Redirect.BUILD_FILE)
        return
    if cmd.name == "set":
        generator_input(file, cmd)
        return
    if not (cmd.name in GENERATOR_COMMANDS or cmd.name not in GENERATOR_BUILTINS):
        return
    if cmd.name not in GENERATOR_COMMANDS and file.in_loop_over_targets() is None:
        built = literal_arch(cmd)
        if built:  # a project function building for one named GPU: one construct per call
            file.add(RSM109, cmd, f"{cmd.name}() builds for {built}",
                     "skip the call under SPIR-V (ROCM_SPIRV_OFFLOAD) and build one amdgcnspirv variant if the "
                     "function can; otherwise keep it native (hybrid)", Redirect.BUILD_FILE)
            return
    if cmd.name in GENERATOR_COMMANDS and file.in_loop_over_targets() is None and \
            (named := command_gpu(cmd)):
        # `COMMAND bulk_unbundle --gfx-arch gfx1250 …`: a build step for one named GPU (a flag with `=` is RSM103's)
        file.add(RSM109, cmd, f"{cmd.name}() runs a step for {named}",
                 "skip the step under SPIR-V (ROCM_SPIRV_OFFLOAD), or keep that GPU native (hybrid)",
                 Redirect.BUILD_FILE)
        return
    if not _receives_targets(file, cmd) or file.in_loop_over_targets() or _printed(file, cmd) or \
            _as_arch_flag(file, cmd) or _own_lists_only(file, cmd):
        return
    values = cmd.values()
    if cmd.name not in GENERATOR_COMMANDS and cmd.args and cmd.args[0].kind == "unquoted" and \
            re.fullmatch(r"[A-Za-z_]\w*", values[0]) and values[0] not in file.arch_names():
        file.arch_lists.add(values[0])  # get_archs(OUT ${GPU_TARGETS}): branches on OUT are per-arch
    file.add(RSM109, cmd, f"{cmd.name}() receives the target list",
             "pass amdgcnspirv only if the generator supports SPIR-V; otherwise keep its kernels native "
             "(rocm_spirv_target(<t> OFFLOAD hybrid ARCHS …))", Redirect.BUILD_FILE)


def _receives_targets(file: Analyzer, cmd: Command) -> bool:
    """Whether the list reaches what the command runs: not only the text a custom command prints while it runs
    (`COMMENT "Compiling HIP kernel for architectures: ${HIP_ARCH}"`, sha1-miner's hipcc command)."""
    if not file.mentions_targets(cmd):
        return False
    if cmd.name not in ("add_custom_command", "add_custom_target"):
        return True
    # an Arg carries its offsets, so the COMMENT text is told apart from an equal argument elsewhere
    shown = {cmd.args[i + 1] for i, a in enumerate(cmd.args[:-1]) if a.kind == "unquoted" and a.value == "COMMENT"}
    return any(a not in shown for a in _mentioning(file, cmd))


def _mentioning(file: Analyzer, cmd: Command) -> list[Arg]:
    """The command's arguments that reference an arch list."""
    arch = file.arch_names()
    return [a for a in cmd.args if {r.name for r in refs(a.value) if r.kind in ("var", "cache")} & arch]


def _own_lists_only(file: Analyzer, cmd: Command) -> bool:
    """`embed_rocm_kernels(… ARCHS "${CLPEAK_ROCM_CDNA}" …)` with CLPEAK_ROCM_CDNA a set() of gfx names this file
    reports (RSM101): the list is the construct where it is written, the project function's call passing it on is
    part of it (what the function does per arch is reported in its body). The target lists the toolchain file sets
    are not (their set() is handled there, the call is what stays), nor is a custom command running a tool on the
    list (no body of the project's to report: `COMMAND gen.py --archs ${HIP_ARCH}` is the construct)."""
    if cmd.name in GENERATOR_COMMANDS:
        return False
    names = {r.name for a in _mentioning(file, cmd) for r in refs(a.value) if r.kind in ("var", "cache")}
    own = file.literal_lists
    return bool(names) and names <= own and names.isdisjoint(TOOLCHAIN_LISTS)


def _as_arch_flag(file: Analyzer, cmd: Command) -> bool:
    """`hipcc --genco "--offload-arch=${GPU_TARGETS}"`: the list reaches the command only as arch flags, which
    RSM103 reports on the same line; one construct, one finding."""
    mentions = [a.value for a in _mentioning(file, cmd)]
    # `${HIP_GENERIC_TARGET_ARCHS}`, a list of --offload-arch= words whose set() RSM103 reported: that construct
    return bool(mentions) and all(ARCH_FLAG.match(m) or ((r := REF.fullmatch(m)) and r.group(1) in file.flag_lists)
                                  for m in mentions)


def _printed(file: Analyzer, cmd: Command) -> bool:
    """`block_print("AMDGPU_TARGETS : ${AMDGPU_TARGETS}")`: a project's printing command shows the list inside
    quoted text; nothing builds from it."""
    mentions = _mentioning(file, cmd)
    return cmd.name not in GENERATOR_COMMANDS and PRINTER.search(cmd.name) is not None and all(
        a.kind == "quoted" for a in mentions)


def generator_input(file: Analyzer, cmd: Command) -> None:
    """set(Tensile_ARCHITECTURE "${GPU_TARGETS}" … FORCE): the list handed to the generator."""
    values = cmd.values()
    if not values or GENERATOR_ARCH_INPUT.fullmatch(values[0]) is None or not file.mentions_targets(cmd) or \
            file.in_loop_over_targets():
        return
    file.add(RSM109, cmd, f"{values[0]} (a kernel generator's arch input) is set from the target list",
             "pass amdgcnspirv only if the generator supports SPIR-V; otherwise keep its kernels native "
             "(rocm_spirv_target(<t> OFFLOAD hybrid ARCHS …))", Redirect.BUILD_FILE)


TOPIC = Topic(rules=(RSM109,), every=generator)
