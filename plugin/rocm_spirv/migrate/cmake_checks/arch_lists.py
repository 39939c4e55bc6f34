"""Target lists set, appended to or read by index (RSM101, RSM114); allow-list and FindHIP
settings met on the way are reported under their own rules."""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from rocm_spirv.migrate.cmake_checks.allow_lists import RSM108
from rocm_spirv.migrate.cmake_checks.env import RSM111
from rocm_spirv.migrate.cmake_checks.findhip import RSM110
from rocm_spirv.migrate.cmake_checks.fixes import GUARD_OPEN, wrap
from rocm_spirv.migrate.cmake_checks.topic import Topic
from rocm_spirv.migrate.cmake_conditions import REF
from rocm_spirv.migrate.cmake_lexer import Command, refs, split_list
from rocm_spirv.migrate.cmake_words import ALLOW_NAME, ARCH_ITEM, DETECT, ENV_VARS, FINDHIP_LIST, GFX, TARGET_VARS
from rocm_spirv.migrate.findings import Redirect, Rule, W
from rocm_spirv.offload import ARCH_OPTION_PATTERN, SPIRV_TARGET, TOOLCHAIN_LISTS

if TYPE_CHECKING:
    from rocm_spirv.migrate.cmake_rules import Analyzer

RSM101 = Rule("RSM101", "arch-list", W, "a per-arch target list is set or defaulted",
              "GPU_TARGETS, AMDGPU_TARGETS, CMAKE_HIP_ARCHITECTURES and friends decide which code objects are built; "
              "under SPIR-V the list is `amdgcnspirv`.",
              example=('CMakeLists.txt', 'project(p LANGUAGES HIP)\nset(GPU_TARGETS gfx90a gfx942)\n'))
RSM114 = Rule("RSM114", "arch-list-entry", W, "a file or setting is named after the target list",
              "list(GET GPU_TARGETS 0 …) or \"lib/${GPU_TARGETS}\" names a file or setting after a gfx target; "
              "under SPIR-V the entry is `amdgcnspirv`.",
              example=('CMakeLists.txt', 'project(p)\nlist(GET GPU_TARGETS 0 first)\n'
                       'install(FILES k.hsaco DESTINATION lib/${first})\n'),
              unreachable=True)


ENV_REF = re.compile(r"\$ENV\{[A-Za-z0-9_]+\}")


def redirect_for_set(file: Analyzer, var: str, cache: bool, force: bool) -> tuple[Redirect, str]:
    if file.starts_configure and not file.project_seen:
        return Redirect.TOOLCHAIN, ("set before project(); the toolchain file, read at project(), sets "
                                    "a normal variable that shadows it")
    if any(var in b.defaults for b in file.stack):
        return Redirect.TOOLCHAIN, "only a default: skipped when the toolchain file has set it"
    if force:
        return Redirect.BUILD_FILE, "CACHE … FORCE after project() overrides any toolchain file"
    if cache:
        pv = file.facts.policy_version
        if pv is not None and pv < (3, 21):
            return (Redirect.TOOLCHAIN_FORCE,
                    f"policy version {pv[0]}.{pv[1]} < 3.21 (CMP0126 OLD): set(CACHE) drops a normal variable, "
                    f"so the toolchain must use set({var} amdgcnspirv CACHE STRING \"\" FORCE)")
        return Redirect.TOOLCHAIN, f"a cache default: set({var} amdgcnspirv) in the toolchain file wins"
    return Redirect.BUILD_FILE, "a plain set() after project() replaces the toolchain file's value"


def _read_later(file: Analyzer, var: str, cmd: Command) -> bool:
    """Whether the file reads var after cmd: `${var}`, `LISTS var`, `IN_LIST var`, or a test in if()."""
    rest = file.src[cmd.end:]
    return f"${{{var}}}" in rest or re.search(
        rf"\b(?:LISTS|IN_LIST|DEFINED)\s+{var}\b|\bif\s*\(\s*(?:NOT\s+)?\"?{var}\b", rest) is not None


def _filled_later(file: Analyzer, var: str, cmd: Command) -> bool:
    """Whether the file appends to var after cmd: `set(GPU_ARCHS "")` then `list(APPEND GPU_ARCHS ${arch})` over
    what rocm-smi reports is an accumulator the project fills itself, not a target list emptied."""
    return re.search(rf"\blist\s*\(\s*(?:APPEND|PREPEND|INSERT)\s+{re.escape(var)}\b", file.src[cmd.end:]) is not None


def _only_compared(file: Analyzer, var: str, cmd: Command) -> bool:
    """Whether every other mention of var in the file is `IN_LIST var` in a condition or `list(FIND var …)`:
    the gfx names an if(<x> IN_LIST <list>) test compares against are part of that test, which is the construct (RSM106,
    or RSM108 for an allow-list); the list builds nothing and passes nothing."""
    compared = False
    for other in file.commands:
        if other.start == cmd.start:
            continue
        for i, a in enumerate(other.args):
            if any(r.name == var for r in refs(a.value) if r.kind in ("var", "cache")):
                return False  # ${var}: copied, passed or expanded somewhere
            if a.kind == "unquoted" and a.value == var:
                if other.name == "list" and i == 1 and other.args[0].value == "FIND":
                    compared = True  # list(FIND <list> "${arch}" idx): a membership test, as IN_LIST
                    continue
                if other.name not in ("if", "elseif", "while") or i == 0 or other.args[i - 1].value != "IN_LIST":
                    return False  # set()/list()/foreach(… LISTS var) or a test of the list itself
                compared = True
    return compared


# commands that hand the file's scope to code of the project elsewhere, which may read the list; a package config
# reads the conventional target lists of its caller (GPU_TARGETS, never dropped here), not a project's own name
_HANDS_ON = frozenset({"include", "add_subdirectory", "subdirs", "fetchcontent_makeavailable"})


def _never_read(file: Analyzer, var: str, cmd: Command) -> bool:
    """Whether no other command of the file names var (`${var}`, `LISTS var`, or as a word: a set(), list() or
    a test) and the file hands its scope to no other file (include(), add_subdirectory()), which might read it.
    A message()'s text is no read. Only in a CMakeLists.txt: a module's variables are read by the file that
    include()s it."""
    if posixpath.basename(file.path) != "CMakeLists.txt":
        return False
    for other in file.commands:
        if other.name in _HANDS_ON:
            return False
        if other.start == cmd.start or other.name == "message":
            continue
        for a in other.args:
            if a.value == var or any(r.name == var for r in refs(a.value) if r.kind in ("var", "cache")):
                return False
    return True


# Uses of a gfx name that name nothing: conditions (reported as RSM106), messages, loops.
_READS = frozenset({"if", "elseif", "while", "message", "foreach"})
_ARCH_PROPERTY = frozenset({"HIP_ARCHITECTURES", "CUDA_ARCHITECTURES", "AMDGPU_TARGETS", "GPU_TARGETS"})
_ARCH_WORD = re.compile(rf"^(?:{ARCH_OPTION_PATTERN}=)?\$\{{(\w+)\}}$")


def _names_after(file: Analyzer, var: str, cmd: Command) -> bool:
    """Whether a command after cmd (until var is set again or the function ends) names a file, a directory,
    a define or a setting after ${var}: `lib/${arch}`, `-DARCH_${arch}`. Tests of var are RSM106 where they
    are, a copy (`set(OUT "${var}" PARENT_SCOPE)`) or an arch use (HIP_ARCHITECTURES, --offload-arch=${var})
    is judged where its value is used; none of them names anything after the entry."""
    depth = 0
    for other in file.commands:
        if other.start <= cmd.start:
            continue
        if other.name in ("function", "macro"):
            depth += 1
        elif other.name in ("endfunction", "endmacro"):
            if depth == 0:
                return False
            depth -= 1
        values = other.values()
        if other.name in _READS:
            if other.name == "foreach" and values[:1] == [var]:
                return False  # a loop variable of the same name: another value from here on
            continue
        for i, a in enumerate(other.args):
            if not any(r.name == var for r in refs(a.value) if r.kind == "var"):
                continue
            m = _ARCH_WORD.match(a.value.strip())
            if m and m.group(1) == var and (
                    other.name == "set" or (i > 0 and other.args[i - 1].value in _ARCH_PROPERTY) or m.group(0) !=
                    f"${{{var}}}"):
                continue  # a copy, an arch property or an arch flag
            return True
        if (values[:1] == [var] and other.name in ("set", "unset")) or (
                other.name == "list" and values[-1:] == [var] and values[:1] == ["GET"]):
            return False
    return False


# `${GPU_TARGETS}_${NIC}`, `lib/${GPU_TARGETS}`: one word (no space, no flag) with the list in a name
_NAME_PART = re.compile(r"^[^\s\-][^\s]*$")


def _named_after_list(values: list[str]) -> tuple[str, str]:
    """The value of set(<var> …) when it is a name or path built around a whole target list, and that list."""
    for v in values:
        if not _NAME_PART.match(v) or REF.fullmatch(v):
            continue
        lists = sorted({r.name for r in refs(v) if r.kind == "var"} & TARGET_VARS)
        if lists:
            return v, lists[0]
    return "", ""


def _user_option(file: Analyzer, items: list[str]) -> bool:
    """Items that are only references to variables the enclosing if() tests (DEFINED, or the bare name) and
    this file never sets: the user's own -DPROJ_ARCH=… list, no project default (as -DGPU_TARGETS= is user
    input)."""
    names = [m.group(1) for i in items if (m := REF.fullmatch(i))]
    ifs = [b for b in file.stack if b.kind == "if" and b.prior]
    if not names or len(names) != len(items) or not ifs:
        return False
    cond = ifs[-1].prior[-1].values()
    tested = {cond[i + 1] for i, word in enumerate(cond[:-1]) if word == "DEFINED"}
    if len(cond) == 1:
        tested.add(cond[0])  # if(PROJ_ARCH): set only when the user gave one
    known = file.arch_names()
    # set(PROJ_ARCH "" CACHE STRING …) before it is the option's empty default: still only the user's value
    return all(n in tested and not file.variables.values.get(n, "") and n not in known for n in names)


def _copied_from(file: Analyzer, name: str) -> list[str] | None:
    """The variables name copies in this file (`set(L ${A})`, `string(REPLACE " " ";" L ${A})`), or None
    when some command gives it anything else."""
    found: list[str] = []
    for cmd in file.commands:
        values = cmd.values()
        if cmd.name == "set" and values[:1] == [name]:
            inputs = [v for v in values[1:] if v not in ("CACHE", "INTERNAL", "STRING", "FORCE", "PARENT_SCOPE")]
            inputs = inputs[:1] if "CACHE" in values[1:] else inputs  # the docstring follows the type
            if "CACHE" in values[1:] and inputs in ([], [""]):
                continue  # set(HIP_ARCH "" CACHE STRING …): the option's empty default, the user gives the value
        elif cmd.name == "string" and values[:1] == ["REPLACE"] and len(values) >= 5 and values[3] == name:
            inputs = values[4:]
        elif cmd.name in ("if", "elseif", "while"):
            continue  # `if(NOT GPU_ARCH) message(FATAL_ERROR …)`: a test gives no value (a branch is its own rule)
        elif cmd.name == "list" and values[:2] == ["REMOVE_ITEM", name] and len(values) > 2 and all(
                GFX.fullmatch(v) and v != SPIRV_TARGET for v in values[2:]):
            continue  # list(REMOVE_ITEM L gfx906 gfx1010): drops GPUs by name; what stays is still the copy
        elif name in values:
            return None  # list(APPEND name …), option(name …): set here
        else:
            continue
        refs_ = [m.group(1) for i in inputs if (m := REF.fullmatch(i))]
        if not refs_ or len(refs_) != len(inputs):
            return None
        found.extend(refs_)
    return found


def toolchain_copy(file: Analyzer, names: list[str]) -> bool:
    """Whether each of names is, through this file's copies (and removals of named GPUs), a copy of a list the
    toolchain file sets: `set(K ${CMAKE_HIP_ARCHITECTURES})` `list(REMOVE_ITEM K gfx906)` is amdgcnspirv under
    SPIR-V."""
    todo, seen = list(names), set()
    while todo:
        n = todo.pop()
        if n in TOOLCHAIN_LISTS:
            continue
        if n in seen:
            return False
        seen.add(n)
        copied = _copied_from(file, n)
        if not copied:
            return False
        todo.extend(copied)
    return bool(names)


def user_input(file: Analyzer, items: list[str]) -> list[str]:
    """The variables items copy, through this file's copies and `string(REPLACE)` reformatting, when each is one
    this file never sets (it may test it: `if(NOT GPU_ARCH) message(FATAL_ERROR …)`), nor does a project module
    it include()s (FlexFlow's cmake/hip.cmake sets HIP_ARCH_LIST), its parent directories give no value and no
    known list holds (qiskit-aer's `${AER_ROCM_ARCH}`, documented as `-DAER_ROCM_ARCH=…`): the
    user's list, or one another file sets, whose own set() is the construct there. [] otherwise."""
    names = [m.group(1) for i in items if (m := REF.fullmatch(i))]
    if not names or len(names) != len(items):
        return []
    known = file.arch_names() | file.function_params() | set(file.detected)
    origins: list[str] = []
    todo, seen = list(names), set()
    while todo:
        n = todo.pop()
        if n in seen or n in known or file.variables.values.get(n, "") or n in file.ctx.module_vars or \
                n.startswith("CMAKE_"):
            return []
        seen.add(n)
        copied = _copied_from(file, n)
        if copied is None:
            return []
        if copied:
            todo.extend(copied)
        else:
            origins.append(n)
    return sorted(origins)


def _value_of(file: Analyzer, item: str) -> str:
    """`${name}`'s value where this file set it (as written when it was unknown then), else ""."""
    m = REF.fullmatch(item)
    return file.variables.values.get(m.group(1), "") if m else ""


def _comma_list(item: str) -> list[str]:
    """"gfx801,gfx90a,gfx942": a project's comma-separated GPU list (split by its own code) is its items."""
    parts = [p.strip() for p in item.split(",")]
    return parts if len(parts) > 1 and all(ARCH_ITEM.match(p) for p in parts) else [item]


_SWITCH_VALUE = frozenset({"ON", "OFF", "TRUE", "FALSE", "YES", "NO", "1", "0"})


def _from_tool(file: Analyzer, items: list[str], copied: list[str]) -> str | None:
    """The GPU-listing tool whose output the items are, when every item is `${X}` of such an output."""
    if items and len(copied) == len(items) and all(c in file.detected for c in copied):
        return file.detected[copied[0]]
    return None


def _carry(file: Analyzer, var: str, items: list[str], copied: list[str]) -> None:
    """What a set() carries to var: a switch set in a branch on the target list (`set(HAS_MI50 TRUE)` under
    `if(${arch} STREQUAL "gfx906")`) or copied from one (`set(ROCM_HAS_MI50 ${HAS_MI50} PARENT_SCOPE)`); a copy
    of a list a GPU-listing tool printed. Only a switch's on/off value: a flag string set there is not one."""
    if var in TARGET_VARS:
        return
    switch = len(items) == 1 and items[0].upper() in _SWITCH_VALUE
    if (switch and file.arch_branch()) or (copied and len(copied) == len(items) and set(copied) & file.arch_switches):
        file.arch_switches.add(var)
    tool = _from_tool(file, items, copied)
    if tool is not None:
        file.detected[var] = tool


def _copied_into_targets(file: Analyzer, var: str, cmd: Command) -> str:
    """The target list a later `set(CMAKE_HIP_ARCHITECTURES ${var})` copies var into, or ""."""
    for other in file.commands:
        values = other.values()
        if other.start > cmd.start and other.name == "set" and values[:1] and values[0] in TARGET_VARS and any(
                (m := REF.fullmatch(v)) is not None and m.group(1) == var for v in values[1:]):
            return values[0]
    return ""


# CUDA architectures as CMAKE_CUDA_ARCHITECTURES spells them (60, 70-real, 90a) or nvcc does (sm_80): two-digit
# numbers, or three with a -real/-virtual suffix; AMD's bare numbers (906, 1030) are three or four digits
CUDA_ARCH = re.compile(r"(?:sm_|compute_)\d{2,3}[af]?|\d{2}[af]?(?:-real|-virtual)?|\d{3}[af]?-(?:real|virtual)")
SYCL_VAR = re.compile(r"(?i)(?:^|_)SYCL(?:_|$)")


def set_command(file: Analyzer, cmd: Command) -> None:
    values = cmd.values()
    if not values:
        return
    var = values[0]
    if var.startswith("ENV{") and var.endswith("}"):
        env = var[4:-1]
        if env in ENV_VARS:
            file.add(RSM111, cmd, f"sets the environment list {env} for child processes",
                     "set it to amdgcnspirv under ROCM_SPIRV_OFFLOAD=spirv", Redirect.BUILD_FILE)
        return
    if SYCL_VAR.search(var):
        return  # set(SYCL_HIP_TARGET gfx906): a SYCL compiler's AMD target (DPC++, AdaptiveCpp), no HIP compile's
    rest = values[1:]
    force = "FORCE" in rest and "CACHE" in rest
    cache = "CACHE" in rest
    if cache:
        rest = rest[: rest.index("CACHE")]
    if "PARENT_SCOPE" in rest:
        rest = [v for v in rest if v != "PARENT_SCOPE"]
    items = [part for v in rest for i in split_list(v) for part in _comma_list(i)]
    gfx_items = [i for i in items if GFX.search(i)]
    copied = [m.group(1) for i in items if (m := REF.match(i))]
    _carry(file, var, items, copied)
    if items and len(copied) == len(items) and set(copied) <= file.arch_names():
        file.arch_lists.add(var)
        out = REF.fullmatch(var)
        params = file.function_params()
        if out is not None and "PARENT_SCOPE" in values and out.group(1) in params - {"ARGN", "ARGV0", "ARGV1"} \
                and all(_listed_in_function(file, c, cmd) for c in copied):
            # function(default_archs out_var) … set(${out_var} "${_result}" PARENT_SCOPE): a call's output is
            # a copy of the list too
            block = file.function_block()
            assert block is not None  # out names one of its parameters
            file.fn_arch_outputs[file.function()] = block.cmd.values()[1:].index(out.group(1))
        return  # a copy of a list: the list's origin is the finding
    if gfx_items and var not in TARGET_VARS:
        file.arch_lists.add(var)
    spirv = f"set({var} amdgcnspirv{' PARENT_SCOPE' if 'PARENT_SCOPE' in values else ''})"
    if var == FINDHIP_LIST:
        if items and all(i.lower() == SPIRV_TARGET for i in items):
            return
        redirect, why = redirect_for_set(file, var, cache, force)
        source = ", ".join(gfx_items) if gfx_items else " ".join(rest)
        file.add(RSM110, cmd, f"HCC_AMDGPU_TARGET, FindHIP's per-arch list, set to {source or 'an empty list'} "
                 f"({why})", "guard it with ROCM_SPIRV_OFFLOAD (--apply does this, with amdgcnspirv under "
                 "SPIR-V), or redirect it from the toolchain file; better, port to enable_language(HIP)", redirect)
        if gfx_items and not file.guarded():
            wrap(file, cmd, spirv)
        return
    if var in TARGET_VARS:
        if items and all(i.lower() == SPIRV_TARGET for i in items):
            return
        if items and all(i.lower() == "all" for i in items) and cache and not force and "INTERNAL" not in values:
            # set(GPU_TARGETS "all" CACHE STRING …) (rocRAND, hipRAND): a sentinel naming no GPU, as a cache
            # default the toolchain file's value wins over; the list the project makes of it is the construct
            return
        numbers = [i for i in items if i != f"${{{var}}}"]
        if numbers and all(CUDA_ARCH.fullmatch(i) for i in numbers):
            return  # set(GPU_ARCHS ${GPU_ARCHS} "70-real"): a CUDA backend's sm numbers (hipCOMP), no AMD GPU
        if items and all(ENV_REF.fullmatch(i) or ENV_REF.fullmatch(_value_of(file, i)) for i in items):
            # set(GPU_TARGETS $ENV{GPU_ARCHS} CACHE …), or through a variable set so: the user's list from the
            # environment (env.py)
            return
        detected = [m.group(1) for i in items if (m := REF.fullmatch(i)) and m.group(1) in file.detected]
        if items and len(detected) == len(items):
            redirect, why = redirect_for_set(file, var, cache, force)
            kind = "defaulted" if any(var in b.defaults for b in file.stack) else "set"
            file.add(RSM101, cmd, f"{var} {kind} to the build machine's GPUs (${{{detected[0]}}}, from "
                     f"{file.detected[detected[0]]}) ({why})", "build with the target list given "
                     "(-DGPU_TARGETS=amdgcnspirv or the toolchain file), not detected", redirect)
            return
        if _user_option(file, items) or _picked_by_user(file, items):
            return  # set(CMAKE_HIP_ARCHITECTURES ${PROJ_ARCH}) under if(DEFINED PROJ_ARCH): the user's -D list
        user = user_input(file, items)
        if user:
            file.add(RSM101, cmd, f"{var} set to {' '.join(rest)}, a copy of {', '.join(user)}, which this file "
                     "never sets: the user's -D list, or another file's (reported where it is set)",
                     f"configure with -D{user[0]}=amdgcnspirv under SPIR-V", Redirect.USER_VARIABLE, handled=True)
            return
        if items and all(i.upper() in ("OFF", "FALSE", "NO", "0") for i in items):
            return  # CMAKE_HIP_ARCHITECTURES OFF: CMake passes no arch flag at all
        if not items and cache and not _read_later(file, var, cmd):
            return  # an empty cache default nothing here reads (set before find_package so it keeps none)
        if not items and var not in TOOLCHAIN_LISTS:
            return  # set(HIP_ARCHITECTURES "" CACHE …): the project's own option, empty; no toolchain sets it
        if not items and not cache and _filled_later(file, var, cmd):
            return
        redirect, why = redirect_for_set(file, var, cache, force)
        source = ", ".join(gfx_items) if gfx_items else " ".join(rest)
        kind = "defaulted" if any(var in b.defaults for b in file.stack) else "set"
        file.add(RSM101, cmd, f"{var} {kind} to {source or 'an empty list'} ({why})",
                 f"{GUARD_OPEN.split('  #')[0]} … endif() around it (--apply does this), or redirect it from "
                 "the toolchain file", redirect)
        if gfx_items and not file.guarded():
            wrap(file, cmd, spirv)
        return
    into = _copied_into_targets(file, var, cmd) if _from_tool(file, items, copied) else ""
    if into:  # set(ROCM_ARCH "${ROCM_DETECTED_ARCHS}") … set(CMAKE_HIP_ARCHITECTURES ${ROCM_ARCH})
        kind = "defaulted" if any(b.kind == "if" for b in file.stack) else "set"
        file.add(RSM101, cmd, f"{var} {kind} to the build machine's GPUs ({file.detected[var]}), then copied into "
                 f"{into}", "build with the target list given (-DGPU_TARGETS=amdgcnspirv or the toolchain file), "
                 "not detected", Redirect.BUILD_FILE)
        file.arch_lists.add(var)  # the copy into the target list is then a copy: this is the origin
        return
    named, target_list = _named_after_list(rest)
    if named:
        file.add(RSM114, cmd, f"{var} is named after the target list ({named}); under SPIR-V it holds "
                 f"{SPIRV_TARGET}, not a gfx name", f"do not name files or settings after {target_list} "
                 "under SPIR-V (branch on ROCM_SPIRV_OFFLOAD)", Redirect.BUILD_FILE)
        return
    # set(DEFAULT gfx900 gfx906:xnack- ${OPTIONAL_TARGETS}): arch names with lists spliced in is an arch list too
    if gfx_items and items and all(ARCH_ITEM.match(i) or REF.fullmatch(i) for i in items):
        if _only_compared(file, var, cmd):
            return  # the IN_LIST test is reported (the list stays in arch_lists for it)
        if _never_read(file, var, cmd):
            return  # set(DEFAULT_TARGET "gfx803") that nothing reads: it builds nothing
        if ALLOW_NAME.search(var):
            file.add(RSM108, cmd, f"{var} is an allow-list of {len(gfx_items)} arch names; amdgcnspirv is "
                     "not in it", "add amdgcnspirv to the list, or skip the check under SPIR-V",
                     Redirect.BUILD_FILE)
        elif _picked_by_user(file, items):
            return
        elif var not in TARGET_VARS and file.arch_branch():
            # set(EXPECTED_ARCH "gfx942:sramecc+:xnack-") in `if(TARGET STREQUAL "gfx942")`: the value that branch
            # picks, one construct with the branch (RSM106); a target list set there is a construct of its own
            return
        else:
            # a list set to gfx names only where the toolchain file's lists skip; one live set of them pins it
            (file.toolchain_dead_lists if file.toolchain_dead() else file.live_literal_lists).add(var)
            file.add(RSM101, cmd, f"{var} holds arch names ({', '.join(gfx_items)})",
                     "check where it is passed; under SPIR-V the list is amdgcnspirv", Redirect.BUILD_FILE)


def _picked_by_user(file: Analyzer, items: list[str]) -> bool:
    """XSigma's menu: `elseif(XSIGMA_HIP_ARCH_OPTIONS STREQUAL "gfx906")` / `set(CMAKE_HIP_ARCHITECTURES "gfx906")`:
    the one name the user chose, passed on. The option's default (or a list no one chose) is the construct."""
    picked = file.picked()
    return picked is not None and GFX.fullmatch(picked) is not None and [i.lower() for i in items] == [picked.lower()]


def _listed_in_function(file: Analyzer, name: str, cmd: Command) -> bool:
    """Whether every set() of name in the function() around cmd, before it, gives it gfx names or lists of them
    (and one does): `set(_result "${_required_archs}")`. The file's arch lists are not scoped, so a `_result`
    another function sets to a path must not make this one's output an arch list."""
    block = file.function_block()
    if block is None:
        return False
    start = block.cmd.start
    found = False
    entries: set[str] = set()  # foreach(_arch IN LISTS _optional_archs): an entry of a gfx list
    for c in file.commands:
        if not start < c.start < cmd.start or c.name not in ("set", "list", "foreach"):
            continue
        values = c.values()
        if c.name == "foreach":
            lists = {r.name for a in c.args[1:] for r in refs(a.value) if r.kind == "var"} | {
                v for v in values[1:] if v in file.literal_lists}
            if values and lists and lists <= file.literal_lists | file.arch_names():
                entries.add(values[0])
            continue
        if c.name == "list":
            if values[1:2] != [name] or values[0].upper() not in ("APPEND", "PREPEND", "INSERT"):
                continue
            items = values[2:]
        elif values[:1] == [name]:
            items = values[1:]
        else:
            continue
        parts = [i for v in items for i in split_list(v)]
        if not parts or not all(GFX.search(i) or ((m := REF.fullmatch(i)) and (
                m.group(1) in file.literal_lists or m.group(1) == name or m.group(1) in file.arch_names() or
                m.group(1) in entries))
                for i in parts):
            return False
        found = True
    return found


def function_output(file: Analyzer, cmd: Command) -> None:
    """`katago_default_hip_archs(_default_archs)`: the output of a project function handing back an arch list
    is a copy of that list (reported where its gfx names are set), and so is what copies it later
    (`set(CMAKE_HIP_ARCHITECTURES "${_default_archs}" CACHE …)`)."""
    at = file.fn_arch_outputs.get(cmd.name.lower(), -1)
    values = cmd.values()
    if 0 <= at < len(values) and re.fullmatch(r"[A-Za-z_]\w*", values[at]):
        file.arch_lists.add(values[at])


def list_command(file: Analyzer, cmd: Command) -> None:
    values = cmd.values()
    if len(values) < 2:
        return
    op, var = values[0].upper(), values[1]
    # a list of arch names: a target list, one set to gfx names here, or an allow-list the command
    # itself feeds arch names (list(FIND SUPPORTED ${arch} …)); not list(FIND CURL_KNOWN_PROTOCOLS …)
    others = {r.name for v in values[2:] for r in refs(v) if r.kind == "var"}
    is_target = var in TARGET_VARS or var in file.arch_lists or (
        bool(ALLOW_NAME.search(var)) and bool(others & file.arch_names() or any(GFX.search(v) for v in values)))
    if op == "REMOVE_ITEM" and len(values) > 2 and all(GFX.fullmatch(v) and v != SPIRV_TARGET for v in values[2:]):
        return  # list(REMOVE_ITEM AOT gfx803 gfx900): removes those GPUs by name; amdgcnspirv stays in the list
    if op in ("FILTER", "REMOVE_ITEM") and is_target:
        file.add(RSM108, cmd, f"list({op} {var} …) filters target names; it can drop amdgcnspirv",
                 "skip the filter when ROCM_SPIRV_OFFLOAD is spirv", Redirect.BUILD_FILE)
    elif op == "FIND" and is_target:
        file.add(RSM108, cmd, f"list(FIND {var} …) validates target names", "accept amdgcnspirv",
                 Redirect.BUILD_FILE)
    elif op == "GET" and var in TARGET_VARS:
        out = values[-1] if len(values) > 3 else ""
        if out and not _names_after(file, out, cmd):
            return  # tested (RSM106 there), printed, copied or passed as an arch: those uses are the findings
        file.add(RSM114, cmd, f"list(GET {var} {' '.join(values[2:-1])} {out}) takes one entry of the target "
                 "list; under SPIR-V it is amdgcnspirv, not a gfx name", "do not name files or settings after "
                 f"{out or 'the entry'} under SPIR-V (branch on ROCM_SPIRV_OFFLOAD)", Redirect.BUILD_FILE)
    elif op in ("APPEND", "PREPEND", "INSERT") and var not in TARGET_VARS:
        items = [i for v in values[2:] for i in split_list(v)]
        tool = next((file.detected[m.group(1)] for i in items
                     if (m := REF.fullmatch(i)) and m.group(1) in file.detected), None)
        if tool is not None:  # list(APPEND DETECTED_ARCHS ${ARCH}) in a loop over what rocminfo printed
            file.detected.setdefault(var, tool)
        copied = [m.group(1) for i in items if (m := REF.fullmatch(i))]
        if items and len(copied) == len(items) and set(copied) <= file.arch_lists:
            file.arch_lists.add(var)  # list(APPEND TARGET_DEVICES ${DEFAULT_TARGETS}): a copy; the origin is reported
        gfx = [i for i in items if GFX.search(i)]
        if gfx and all(ARCH_ITEM.match(i) for i in items):
            file.arch_lists.add(var)
            file.add(RSM101, cmd, f"appends arch names to {var} ({', '.join(gfx)})",
                     "check where it is passed; under SPIR-V the list is amdgcnspirv", Redirect.BUILD_FILE)
    elif op in ("APPEND", "PREPEND", "INSERT") and var in TARGET_VARS:
        items = [i for v in values[2:] for i in split_list(v)]
        gfx = [i for i in items if GFX.search(i)]
        if gfx:
            file.add(RSM101, cmd, f"appends {', '.join(gfx)} to {var}; a toolchain value is extended, "
                     "not replaced", "guard it with ROCM_SPIRV_OFFLOAD (--apply does this)", Redirect.BUILD_FILE)
            if not file.guarded():
                wrap(file, cmd)


def string_command(file: Analyzer, cmd: Command) -> None:
    """`string(REPLACE "," ";" OUT "${CMAKE_HIP_ARCHITECTURES}")` reformats the target list: OUT is a copy of it
    (hypre joins the list with commas and splits it again, then sets CMAKE_HIP_ARCHITECTURES to the copy); of a
    GPU-listing tool's output, OUT is what the tool detected.
    A regex over what a GPU-listing tool printed (`string(REGEX MATCHALL "gfx[0-9a-f]+" OUT "${ROCMINFO_OUT}")`)
    is what it detected."""
    values = cmd.values()
    if values[:1] == ["REGEX"] and len(values) >= 5 and values[1] in ("MATCH", "MATCHALL", "REPLACE"):
        out = values[4] if values[1] == "REPLACE" else values[3]
        read = {r.name for v in values[4 + (values[1] == "REPLACE"):] for r in refs(v) if r.kind == "var"}
        tool = next((file.detected[n] for n in sorted(read) if n in file.detected), None)
        if tool is not None:
            file.detected[out] = tool
    if values[:1] == ["REPLACE"] and len(values) >= 5:
        out, inputs = values[3], values[4:]
    elif values[:1] in (["TOLOWER"], ["TOUPPER"], ["STRIP"]) and len(values) == 3:
        out, inputs = values[2], values[1:2]  # string(TOLOWER "${CMAKE_HIP_ARCHITECTURES}" _gfxlist): KataGo
    elif values[:2] == ["REGEX", "REPLACE"] and len(values) >= 6:
        out, inputs = values[4], values[5:]
    else:
        return
    copied = [m.group(1) for i in inputs if (m := REF.fullmatch(i))]
    if len(copied) == len(inputs) and set(copied) <= file.arch_names():
        file.arch_lists.add(out)
    elif copied and len(copied) == len(inputs) and all(c in file.detected for c in copied):
        # string(REPLACE "\n" ";" ARCHS "${AMDGPU_ARCH_OUT}"): amdgpu-arch's lines made a list, still what it detected
        file.detected.setdefault(out, file.detected[copied[0]])


def detected_output(file: Analyzer, cmd: Command) -> None:
    """execute_process(COMMAND … rocminfo … OUTPUT_VARIABLE X): X holds the build machine's GPUs."""
    values = cmd.values()
    if "OUTPUT_VARIABLE" in values and values.index("OUTPUT_VARIABLE") + 1 < len(values):
        tool = next((m.group(0) for v in values if (m := DETECT.search(v))), None) or next(
            (file.detect_programs[r.name] for a in cmd.args for r in refs(a.value)
             if r.kind == "var" and r.name in file.detect_programs), None)
        if tool is not None:
            file.detected[values[values.index("OUTPUT_VARIABLE") + 1]] = tool


def detect_program(file: Analyzer, cmd: Command) -> None:
    """find_program(ROCMINFO rocminfo PATHS …): ${ROCMINFO} runs a GPU-listing tool."""
    values = cmd.values()
    names = values[values.index("NAMES") + 1:] if "NAMES" in values else values[1:2]
    tool = next((m.group(0) for v in names if (m := DETECT.fullmatch(v))), None)
    if values and tool is not None:
        file.detect_programs[values[0]] = tool


TOPIC = Topic(rules=(RSM101, RSM114), every=function_output, commands={"set": set_command, "list": list_command,
                                                "string": string_command, "execute_process": detected_output,
                                                "find_program": detect_program})
