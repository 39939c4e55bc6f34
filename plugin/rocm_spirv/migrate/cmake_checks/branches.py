"""Conditions that branch on the target list (RSM106) or validate it against an allow-list (RSM108)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rocm_spirv.migrate.cmake_checks.allow_lists import RSM108
from rocm_spirv.migrate.cmake_checks.topic import Topic
from rocm_spirv.migrate.cmake_lexer import Command
from rocm_spirv.migrate.cmake_words import (
    ALLOW_NAME,
    GFX,
    GFX_LOOSE,
    GPU_OPTION,
    GUARD_VAR,
    TARGET_VARS,
    arg_names,
    env_names,
)
from rocm_spirv.migrate.findings import Redirect, Rule, W

if TYPE_CHECKING:
    from rocm_spirv.migrate.cmake_rules import Analyzer

RSM106 = Rule("RSM106", "arch-branch", W, "the build branches on the target list",
              "A condition such as `GPU_TARGETS MATCHES gfx90a` is false under amdgcnspirv, so its branch is lost.",
              example=('CMakeLists.txt', 'project(p)\n'
                       'if(GPU_TARGETS MATCHES "gfx90a")\n'
                       '  add_definitions(-DMI200)\n'
                       'endif()\n'),
              unreachable=True)


# a project option naming the GPU to build for: PROJ_AMD_ARCH, MY_GPU_ARCHS, QUICK_USER_ARCH (only ever a branch
# when it is compared with a gfx name)
ARCH_OPTION = re.compile(r"(?:^|_)(?:[A-Z0-9]+_?)?ARCH(?:S|ITECTURES?)?$")


def _chain_reported(file: Analyzer, what: str) -> bool:
    """Whether an earlier branch of the enclosing if() chain was reported as branching on the same lists."""
    top = file.stack[-1] if file.stack and file.stack[-1].kind == "if" else None
    if top is None:
        return False
    lines = {c.line for c in top.prior}
    return any(f.rule is RSM106 and f.line in lines and f.message.startswith(f"branches on {what};")
               for f in file.report.findings)


def _stops_next(file: Analyzer, cmd: Command) -> bool:
    """Whether the branch this condition opens starts with message(FATAL_ERROR|SEND_ERROR …)."""
    later = (c for c in file.commands if c.start > cmd.start)
    first = next(later, None)
    return first is not None and first.name == "message" and first.values()[:1] in (["FATAL_ERROR"], ["SEND_ERROR"])


def condition(file: Analyzer, cmd: Command) -> None:
    values = cmd.values()
    names = {n for a in cmd.args for n in arg_names(a)}
    upper = {v.upper() for v in values}
    if GUARD_VAR in names:
        return
    arch = file.arch_names()
    # a project's own arch option (PROJ_AMD_ARCH, MY_GPU_ARCHS), tested against gfx names below; in a
    # function body its parameters too (`${arch} MATCHES "gfx90[a-z0-9]+"` in a helper a per-arch loop calls)
    targets = (names & arch) | {n for n in names if ARCH_OPTION.search(n)} | (names & file.function_params())
    # `if("$ENV{MY_HIP_ARCH}" MATCHES "gfx908|gfx90a")` (NWQ-Sim): an arch setting read from the environment
    targets |= {f"ENV{{{n}}}" for n in env_names(cmd) if ARCH_OPTION.search(n) or n in arch}
    targets |= _entries_of_arch_lists(file, cmd, names - targets, arch)
    targets |= _compared_with_gfx(file, cmd)
    allow = {n for n in names if ALLOW_NAME.search(n) and n not in TARGET_VARS}
    if "IN_LIST" in upper and allow and (targets or allow & file.arch_lists):
        file.add(RSM108, cmd, f"the condition validates target names against {', '.join(sorted(allow))}",
                 "accept amdgcnspirv (or skip the check when ROCM_SPIRV_OFFLOAD is spirv)", Redirect.BUILD_FILE)
        return
    switches = names & file.arch_switches
    if switches and "NOT" in upper and _stops_next(file, cmd):
        # QUICK: three `if(ARCH STREQUAL "gfx9…") set(FOUND TRUE)` branches, then `if(NOT ${FOUND})
        # message(FATAL_ERROR …)`: an allow-list of the names those branches test
        file.add(RSM108, cmd, f"the configure stops unless a branch on the target list set "
                 f"{', '.join(sorted(switches))}", "accept amdgcnspirv (or skip the check when ROCM_SPIRV_OFFLOAD "
                 "is spirv)", Redirect.BUILD_FILE)
        return
    # Per-arch only when a gfx name is compared: `if(GPU_TARGETS STREQUAL "all")` holds under SPIR-V too. An
    # option named for one GPU (`if(Kokkos_ARCH_AMD_GFX942 OR …)`) is that comparison made at configure time.
    # Not one this file sets itself (`set(ARCH_GFX940 1)` in a branch on the list): a switch, whose test the
    # branch that set it covers.
    gpu_options = {n for n in names if GPU_OPTION.match(n) and n not in file.assigned}
    targets |= gpu_options
    compared = any(GFX_LOOSE.search(v) for v in values) or ("IN_LIST" in upper and bool(names & file.arch_lists)) \
        or bool(gpu_options)
    if targets and compared:
        what = ", ".join(sorted(targets))
        if cmd.name == "elseif" and _chain_reported(file, what):
            return  # one chain picking one setting from the list is one construct, reported where it opens
        file.add(RSM106, cmd, f"branches on {what}; under amdgcnspirv the per-arch branch is not taken",
                 "decide at JIT time with __builtin_amdgcn_processor_is in device code, or branch on "
                 "ROCM_SPIRV_OFFLOAD", Redirect.BUILD_FILE)


_COMPARISONS = frozenset({"MATCHES", "STREQUAL"})
_CPU_AGENT = re.compile(r"\^?gfx000\$?")


def _compared_with_gfx(file: Analyzer, cmd: Command) -> set[str]:
    """Variables compared with a gfx name or pattern (`if(${X} MATCHES "gfx1[01].*")`, `X STREQUAL gfx90a`,
    `"gfx90a" IN_LIST X`): what the variable is called does not matter, the gfx name on the other side says it
    holds a GPU target. Not gfx000, rocm_agent_enumerator's entry for the CPU agent that detection loops skip;
    not in a loop, whose own variable is an arch name only over an arch list (kokkos' table loop tests its
    flags one by one)."""
    if any(b.kind == "foreach" for b in file.stack):
        return set()
    args = cmd.args
    out: set[str] = set()
    for i in range(1, len(args) - 1):
        other = args[i + 1].value
        op = args[i].value.upper() if args[i].kind == "unquoted" else ""
        if op in _COMPARISONS and GFX_LOOSE.search(other) and not _CPU_AGENT.fullmatch(other):
            out |= arg_names(args[i - 1])
        elif op == "IN_LIST" and GFX.fullmatch(args[i - 1].value):  # if("gfx90a" IN_LIST X)
            out |= arg_names(args[i + 1])
    return out


def _entries_of_arch_lists(file: Analyzer, cmd: Command, names: set[str], arch: set[str]) -> set[str]:
    """Names an earlier `list(GET <list> <i> <name>)` took out of an arch list or a project arch option
    (qmcpack's `list(GET QMC_GPU_ARCHS 0 GPU_ARCH_0)`, then `elseif(GPU_ARCH_0 MATCHES "^gfx")`)."""
    if not names or any(b.kind == "foreach" for b in file.stack):
        return set()  # in a loop the entry is the loop's (kokkos' detection loop over its table of gfx flags)
    return {out for start, source, out in file.list_gets if start < cmd.start and out in names and
            (source in arch or ARCH_OPTION.search(source))}


DEFINE_COMMANDS = frozenset({"add_compile_definitions", "add_definitions", "target_compile_definitions"})
_DEFINE_WORD = re.compile(r"^(?:-D)?([A-Za-z_]\w*)(?:=.*)?$")


def regex_match(file: Analyzer, cmd: Command) -> None:
    """`string(REGEX MATCH "gfx11[0-9a-z]+" HAS_WMMA "${CMAKE_HIP_ARCHITECTURES}")`: a gfx pattern looked for in
    the target list, which under amdgcnspirv holds none; what the result decides is this test's (RSM106), and
    the result is an arch list for the branches on it."""
    values = cmd.values()
    if values[:2] != ["REGEX", "MATCH"] or len(values) < 5 or not GFX_LOOSE.search(values[2]):
        return
    if not file.mentions_targets(cmd) or file.in_loop_over_targets() is not None:
        return  # over a loop's entry: the loop is the construct (RSM107)
    file.arch_lists.add(values[3])
    file.add(RSM106, cmd, f"looks for {values[2]} in the target list; under amdgcnspirv it finds none",
             "decide at JIT time with __builtin_amdgcn_processor_is in device code, or branch on "
             "ROCM_SPIRV_OFFLOAD", Redirect.BUILD_FILE)


def arch_define(file: Analyzer, cmd: Command) -> None:
    """A macro defined for the compile only in a branch on the target list (`if(NOT HAS_WMMA)
    add_compile_definitions(WMMA_WAVE32_DISABLED)`), or on a switch such a branch set (`if(ROCM_HAS_MI50)`):
    recorded, so the sources' tests of it are arch tests."""
    arch = file.arch_names() | file.arch_switches  # if(HAS_MI50): a switch an arch branch set
    if not any(b.kind == "if" and ({n for a in b.cmd.args for n in arg_names(a)} & arch or b.arch_branch)
               for b in file.stack):
        return
    file.arch_defines.update(defined_macros(cmd))


def defined_macros(cmd: Command) -> list[str]:
    """The macros a DEFINE_COMMANDS command defines for the compile (`add_compile_definitions(X Y=1)`,
    `add_definitions(-DX)`: only its -D words define, the rest are flags; `target_compile_definitions(t PRIVATE X)`)."""
    values = cmd.values()
    words = values[1:] if cmd.name == "target_compile_definitions" else values
    return [m.group(1) for w in words if (m := _DEFINE_WORD.match(w)) and w not in ("PRIVATE", "PUBLIC", "INTERFACE")
            and (cmd.name != "add_definitions" or w.startswith("-D"))]


TOPIC = Topic(rules=(RSM106,), condition=condition,
              commands={"string": regex_match, **dict.fromkeys(DEFINE_COMMANDS, arch_define)})
