"""foreach() over the target list: per-arch sources, commands and bundles (RSM107), or one
--offload-arch= per entry (RSM103)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rocm_spirv.migrate.cmake_checks.flags import RSM103
from rocm_spirv.migrate.cmake_checks.topic import Topic
from rocm_spirv.migrate.cmake_lexer import Command, refs
from rocm_spirv.migrate.cmake_words import (
    AMDGCN_TRIPLE,
    ARCH_FLAG,
    CUSTOM_COMMAND_KEYWORDS,
    GFX_LOOSE,
    TARGET_VARS,
    cmd_words,
    flag_words,
)
from rocm_spirv.migrate.findings import Redirect, Rule, W

DEFINES_SOURCES = frozenset({"target_sources", "add_library", "add_executable", "add_definitions",
                             "target_compile_definitions", "add_compile_definitions", "configure_file",
                             "add_custom_command", "add_custom_target", "execute_process", "hip_add_library",
                             "hip_add_executable"})

if TYPE_CHECKING:
    from rocm_spirv.migrate.cmake_rules import Analyzer, Block

RSM107 = Rule("RSM107", "per-arch-loop", W, "a loop over targets adds per-arch sources, definitions or commands",
              "Loops over the target list run once for `amdgcnspirv`; per-arch sources or -mcpu= commands break.",
              example=('CMakeLists.txt', 'project(p)\n'
                       'foreach(arch ${GPU_TARGETS})\n'
                       '  add_custom_command(OUTPUT k_${arch}.co COMMAND clang -mcpu=${arch} -o k_${arch}.co k.cl)\n'
                       'endforeach()\n'),
              unreachable=True)


FLAG_BUILDERS = frozenset({"list", "set", "string"})
READS = frozenset({"foreach", "if", "elseif", "while", "message"})  # name a variable without assigning it
# Commands that put flags on a target (or a directory's targets), where a flag of the entry follows the list; a probe
# (check_cxx_compiler_flag("--offload-arch=${t}")) or a custom command is its own construct.
TARGET_OPTIONS = frozenset({"target_compile_options", "target_link_options", "target_link_libraries",
                            "add_compile_options", "add_link_options"})


_FILE_OPS = frozenset({"create_symlink", "copy", "copy_if_different", "copy_directory", "make_directory", "rm",
                       "remove", "remove_directory", "touch", "echo"})


def _file_operations(cmd: Command) -> bool:
    """A custom command or target whose every command is `${CMAKE_COMMAND} -E create_symlink|copy|…` (rocrtst's
    per-target folder of links to one executable): files named after the entry, no compile per arch."""
    if cmd.name not in ("add_custom_command", "add_custom_target"):
        return False
    words = [a.value for a in cmd.args]
    starts = [i + 1 for i, w in enumerate(words) if w == "COMMAND"]
    if cmd.name == "add_custom_target" and len(words) > 1 and words[1] not in CUSTOM_COMMAND_KEYWORDS:
        starts.insert(0, 1)  # add_custom_target(name cmd args… COMMAND …)
    return bool(starts) and all(words[i:i + 2] == ["${CMAKE_COMMAND}", "-E"] and len(words) > i + 2 and
                                words[i + 2] in _FILE_OPS for i in starts)


def _written_here(file: Analyzer, var: str) -> bool:
    """Whether a command of this file assigns var (set(), list(), string(… var …), OUTPUT_VARIABLE var)."""
    return any(c.name not in READS and any(a.kind == "unquoted" and a.value == var for a in c.args)
               for c in file.commands)


def _walks_arch_names(file: Analyzer, loop: Block, cmd: Command) -> bool:
    """Whether a foreach() over a list the walk does not know as one of arch names walks them, as this
    command of its body uses the entry: -mcpu= of it with an amdgcn triple (a GPU, whatever the list:
    amdgpu-arch autodetection, a list set in another file), or --offload-arch= of it put on a target over
    a list set in another file only (that list's origin is the finding there). -mcpu= alone may be a CPU's; flags made
    from a list this file detects itself are the construct (no toolchain list reaches them)."""
    entry = f"${{{loop.loop_var}}}"
    words = flag_words(cmd)
    if f"-mcpu={entry}" in words and any(AMDGCN_TRIPLE.match(w) for w in words):
        return True
    if cmd.name not in TARGET_OPTIONS or not any(
            (m := ARCH_FLAG.match(w)) and entry == (m.group(1) or m.group(2)) for w in words):
        return False
    lists = {r.name for a in loop.cmd.args[1:] for r in refs(a.value) if r.kind == "var"} | {
        a.value for i, a in enumerate(loop.cmd.args) if i > 1 and loop.cmd.args[i - 1].value == "LISTS"}
    return bool(lists) and not any(_written_here(file, v) for v in lists)


def loop_body(file: Analyzer, cmd: Command) -> None:
    """What a command inside a foreach() over the target list does per arch."""
    name = cmd.name
    values = cmd.values()
    fn = file.function()
    if fn and name not in ("function", "macro"):
        file.fn_calls.setdefault(fn, set()).add(name.lower())
        if name in DEFINES_SOURCES and {r.name for a in cmd.args for r in refs(a.value)} & file.function_params():
            file.fn_commands.add(fn)  # add_custom_command(OUTPUT k_${ARCH}.co …): per arch where a loop calls it
    inner = next((b for b in reversed(file.stack) if b.kind == "foreach"), None)
    if inner is not None and not inner.over_targets and _walks_arch_names(file, inner, cmd):
        inner.over_targets = True
    if inner is not None and not inner.over_targets and name == "list" and values[:1] == ["GET"] and \
            len(values) > 1 and values[1] in file.arch_lists:
        inner.over_targets = True  # list(GET <arch list> ${i} FLAG): each pass takes one arch name
    loop = file.in_loop_over_targets()
    chain = file.per_arch_function(name) if loop is not None else []
    if chain and loop is not None:
        file.fn_looped.update(chain)
        loop.body.append(f"{' -> '.join(chain)}()")
    if loop is not None and name == "list" and values[:1] in (["APPEND"], ["PREPEND"]) and len(values) > 2 and \
            any(re.search(r"\$\{" + re.escape(loop.loop_var) + r"\}:[a-z]+[+-]", v) for v in values[2:]):
        loop.body.append("target-ID feature suffixes (:xnack+)")  # amdgcnspirv:xnack+ is no target
        file.arch_lists.add(values[1])
    if loop is not None and name in DEFINES_SOURCES and not _file_operations(cmd):
        loop.body.append(name)
    if loop is not None and name == "string" and values[:1] == ["REGEX"] and len(values) > 2 and \
            GFX_LOOSE.search(values[2]) and any(f"${{{loop.loop_var}}}" in v for v in values[3:]):
        # string(REGEX MATCH "gfx([0-9a-f]+)" … "${arch}"): a number read out of each gfx name (hypre picks its
        # wave size by it); amdgcnspirv holds none
        loop.body.append("string(REGEX) reading each gfx name")
    if loop is not None and name in FLAG_BUILDERS and any(
            re.search(r"(?:^|\s)-D\S*\$\{" + re.escape(loop.loop_var) + r"\}", v) for v in values[1:]):
        # quickreduce: `set(CMAKE_HIP_FLAGS "${CMAKE_HIP_FLAGS} -D__${ARCH}__")` per entry: a macro per GPU, which
        # the sources test (`#if defined(__gfx942__)`); under amdgcnspirv it is __amdgcnspirv__
        loop.body.append("-D<macro of the entry>")
    if loop is not None and any(file.amd_mcpu(w) for w in cmd_words(cmd)):
        loop.body.append("-mcpu=")
    if loop is not None and any("clang-offload-bundler" in w or w.startswith("-targets=") for w in cmd_words(cmd)):
        loop.body.append("clang-offload-bundler")  # one bundle entry per arch: never a mere probe
    if loop is not None and any(ARCH_FLAG.match(w) for w in flag_words(cmd)):
        if name in FLAG_BUILDERS and "COMMAND" in cmd.values():
            # list(APPEND cmds COMMAND ${CMAKE_HIP_COMPILER} --offload-arch=${arch} … -o k_${arch}.ll), spliced
            # into an add_custom_command later: a compile per arch, not the list turned into words
            loop.body.append("compile commands")
        elif name in FLAG_BUILDERS:
            loop.var_flags = True  # list(APPEND flags --offload-arch=${t}): the user's own list, as words
            if "HIP_HIPCC_FLAGS" in values[:2] and loop.cmd.values()[1:2] and \
                    {r.name for a in loop.cmd.args[1:] for r in refs(a.value) if r.kind == "var"} & TARGET_VARS:
                file.hipcc_flags_from_targets = True
        else:
            loop.arch_flags = True


def loop_finding(file: Analyzer, b: Block) -> None:
    body = sorted(set(b.body))
    handled = any(x.guarded for x in file.stack) or b.guarded
    if not body and not b.arch_flags and b.var_flags and b.pinned_flags:
        file.add(RSM103, b.cmd, "foreach over the target list builds --offload-arch= words naming a gfx target",
                 "use the loop's entry (amdgcnspirv under SPIR-V), not a fixed target", Redirect.BUILD_FILE,
                 handled=handled)
        return
    if not body and b.arch_flags:
        if b.flag_targets:
            file.target_findings.setdefault(len(file.report.findings), set()).update(b.flag_targets)
        # Flags made only from the list's entries follow the list: the list's origin is the finding (an
        # RSM101 where the project sets it), and the toolchain's amdgcnspirv makes this loop add
        # --offload-arch=amdgcnspirv. Reported as handled; a flag pinned to a gfx name is not.
        file.add(RSM103, b.cmd, f"foreach over the target list adds one --offload-arch= per entry "
                 f"({b.loop_var}) to options or properties", "rocm_spirv_target() on the targets that get "
                 "these flags strips them (--apply adds it); a toolchain list of amdgcnspirv makes the loop "
                 "add --offload-arch=amdgcnspirv", Redirect.BUILD_FILE if b.pinned_flags else Redirect.TOOLCHAIN,
                 handled=handled or not b.pinned_flags)
        return
    if not body:
        return
    if body == ["execute_process"] and b.over_lists and b.over_lists <= file.literal_lists:
        # KataGo: foreach(_arch IN LISTS _optional_archs) execute_process(… --offload-arch=${_arch} …): a probe
        # filtering a list of gfx names the file sets, whose set() is the construct (RSM101 there)
        return
    if body == ["execute_process"]:
        # A configure-time probe or filter (one compile per target, keep what works) builds
        # nothing per arch: a redirected list hands it amdgcnspirv, which it must accept.
        file.add(RSM107, b.cmd, "foreach over the target list runs execute_process per arch at configure "
                 "time (a probe or filter)", "check the command accepts amdgcnspirv (the redirected list "
                 "hands it that one target)", Redirect.TOOLCHAIN, handled=handled)
        return
    if b.arch_flags:
        body.append("--offload-arch=")
    file.add(RSM107, b.cmd, f"foreach over the target list runs {', '.join(body)} per arch",
             "under SPIR-V generate one variant (skip the loop when ROCM_SPIRV_OFFLOAD is spirv) or keep these "
             "kernels native with rocm_spirv_target(<t> OFFLOAD hybrid ARCHS …)", Redirect.BUILD_FILE,
             handled=handled)


TOPIC = Topic(rules=(RSM107,), seen=loop_body, loop_end=loop_finding)
