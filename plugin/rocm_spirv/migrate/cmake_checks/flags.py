"""Arch flags and AMDGPU backend options in compile options and flag variables (RSM103, RSM104,
RSM105)."""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING

from rocm_spirv.migrate.cmake_checks.arch_lists import user_input
from rocm_spirv.migrate.cmake_checks.branches import DEFINE_COMMANDS, defined_macros
from rocm_spirv.migrate.cmake_checks.findhip import FINDHIP_COMMANDS
from rocm_spirv.migrate.cmake_checks.fixes import wrap
from rocm_spirv.migrate.cmake_checks.generators import GENERATOR_COMMANDS
from rocm_spirv.migrate.cmake_checks.topic import Topic
from rocm_spirv.migrate.cmake_conditions import REF
from rocm_spirv.migrate.cmake_lexer import Command, refs, split_list
from rocm_spirv.migrate.cmake_words import ARCH_FLAG, FLAGS_VAR, GFX, cmd_words, compiler_flag, option_target
from rocm_spirv.migrate.findings import E, Redirect, Rule, W
from rocm_spirv.migrate.pp import HAND_ARCH_DEFINE, HAND_ARCH_MACRO
from rocm_spirv.offload import SPIRV_TARGET, TOOLCHAIN_LISTS

if TYPE_CHECKING:
    from rocm_spirv.migrate.cmake_rules import Analyzer

# FindHIP's flag variables (and their _<CONFIG> forms): read by its hip_add_* commands and nothing else
FINDHIP_FLAGS = re.compile(r"HIP_(?:HIPCC|HCC|CLANG)_FLAGS(?:_[A-Z]+)?")
RSM103 = Rule("RSM103", "offload-arch-flag", W, "--offload-arch=gfx… is passed in options or flags",
              "Explicit --offload-arch flags add native code objects next to (or instead of) SPIR-V.",
              example=('CMakeLists.txt', 'project(p LANGUAGES HIP)\nadd_compile_options(--offload-arch=gfx90a)\n'))
RSM104 = Rule("RSM104", "legacy-target-flag", E, "legacy --amdgpu-target= / -amdgpu-target= spelling",
              "The legacy HCC spelling is not accepted for amdgcnspirv; use --offload-arch= or, better, the "
              "target list.",
              example=('CMakeLists.txt', 'project(p)\n'
                       'set(CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS} --amdgpu-target=gfx906")\n'))
BACKEND_OPTION_FIX = "drop it under SPIR-V (the JIT does not see it), or keep the kernel native (hybrid)"
RSM105 = Rule("RSM105", "amdgpu-backend-option", W, "-mllvm -amdgpu-* backend option",
              "AMDGPU backend options do not reach the runtime's JIT compile of SPIR-V; they are dropped or rejected.",
              example=('CMakeLists.txt', 'project(p)\nadd_compile_options(-mllvm -amdgpu-early-inline-all=true)\n'))


# HIP compiled for NVIDIA GPUs in the same command: its --cuda-gpu-arch= names an sm_ GPU
CUDA_COMPILE = re.compile(r"^(?:-xcuda|--cuda-path=.*|-D__HIP_PLATFORM_(?:NVIDIA|NVCC)__)$")
PROBE = re.compile(r"^check_\w*_(?:compiler_flag|source_compiles|source_runs)$")

# string() sub-commands that only read: string(REGEX MATCHALL "--offload-arch=(gfx[0-9a-z]+)" out ${FLAGS})
# parses flags someone else passes, and what the parsed names feed (an IN_LIST test, a loop) is the construct.
READ_ONLY_STRING: frozenset[tuple[str, ...]] = frozenset({("REGEX", "MATCH"), ("REGEX", "MATCHALL"), ("FIND",),
                                                         ("COMPARE",)})


def probe_compile(cmd: Command) -> bool:
    """`execute_process(COMMAND hipcc --offload-arch=gfx90a … -o /dev/null RESULT_VARIABLE ok OUTPUT_QUIET
    ERROR_QUIET)`: a configure-time compile of which only the exit code is kept (gromacs checks flags, KataGo
    its Windows toolset). The gfx name only makes the compile run; nothing it makes ships."""
    values = cmd.values()
    return cmd.name == "execute_process" and ("RESULT_VARIABLE" in values or "RESULTS_VARIABLE" in values) and (
        "OUTPUT_QUIET" in values or "ERROR_QUIET" in values or any(v == "/dev/null" for v in values))


def _words(file: Analyzer, cmd: Command) -> list[str]:
    """The flag words a command passes: none for a string() that only reads, not the pattern
    string(REGEX REPLACE) removes; inside a function body, with the file's variables expanded
    (`${AMDGPU_ARCH_FLAG}=${FLAG}` is `--offload-arch=${FLAG}`)."""
    values = cmd.values()
    if cmd.name == "string" and (tuple(values[:1]) in READ_ONLY_STRING or tuple(values[:2]) in READ_ONLY_STRING):
        return []
    if cmd.name == "string" and values[:2] == ["REGEX", "REPLACE"]:
        values = values[:2] + values[3:]
    elif cmd.name == "string" and values[:1] == ["REPLACE"]:
        values = values[:1] + values[2:]
    if file.function():
        # a variable whose set() this file reported for its arch flags is that construct wherever it is passed
        values = [file.variables.expand(v) for v in values
                  if not ((m := REF.fullmatch(v)) and m.group(1) in file.flag_lists)]
    return [compiler_flag(w) for v in values for item in split_list(v) for w in item.split()]


# `--offload-arch=${GPU_TARGETS}`: a flag made of a list the toolchain file sets
COMPILE_OPTIONS = frozenset({"target_compile_options", "add_compile_options"})
# set_source_files_properties(${srcs} PROPERTIES COMPILE_FLAGS "${_flags}") (ectrans): per-source options
PROPERTY_COMMANDS = frozenset({"set_source_files_properties", "set_target_properties", "set_property"})
FLAG_LISTS = frozenset({"set", "list"})  # list(APPEND ROCM_HIPCC_FLAGS --offload-arch=${CMAKE_HIP_ARCHITECTURES})
VARIABLE_FLAG = re.compile(r"--offload-arch=\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
OF_VARIABLE = re.compile(r"[^=]+=\$\{([A-Za-z0-9_]+)\}")  # an arch flag of one variable: -mcpu=${arch}
TOOLCHAIN_FLAG = re.compile(r"--offload-arch=\$\{(" + "|".join(TOOLCHAIN_LISTS) + r")\}")


def _set_variable(cmd: Command) -> str:
    """The variable a set() or string(APPEND …) writes, "" for other commands."""
    values = cmd.values()
    return values[0] if cmd.name == "set" and values else values[1] if cmd.name == "string" and len(values) > 1 \
        else ""


def _c_flags(cmd: Command) -> bool:
    """set()/string(APPEND) of CMAKE_C_FLAGS*, CMAKE_Fortran_FLAGS* or OpenMP_<lang>_FLAGS: the C compiler
    compiles no HIP, and a Fortran or OpenMP `-fopenmp --offload-arch=gfx90a` offloads OpenMP target regions
    (dwarf-p-cloudsc's amdflang toolchain), not HIP kernels."""
    return bool(re.match(r"CMAKE_C_FLAGS|CMAKE_Fortran_FLAGS|OpenMP_\w+_FLAGS", _set_variable(cmd)))


def _cuda_flags(cmd: Command) -> bool:
    """set()/string(APPEND) of CMAKE_CUDA_FLAGS*: the CUDA language's flags."""
    return _set_variable(cmd).startswith("CMAKE_CUDA_FLAGS")


def _openmp_flags(file: Analyzer, cmd: Command) -> bool:
    """Flags for OpenMP offloading, not HIP: a set() whose variable name or CACHE docstring says OpenMP
    (llvm-test-suite's `set(TEST_SUITE_OFFLOADING_FLAGS --offload-arch=native CACHE STRING "Compiler arguments for
    OpenMP offloading")`), and a command passing such a variable on."""
    values = cmd.values()
    if cmd.name == "set" and values:
        doc = values[values.index("CACHE") + 1:] if "CACHE" in values else []
        if re.search(r"(?i)openmp", values[0]) or any(re.search(r"(?i)\bopenmp\b", d) for d in doc):
            file.openmp_flags.add(values[0])
            return True
    return bool(file.openmp_flags) and any(r.name in file.openmp_flags for a in cmd.args for r in refs(a.value)
                                           if r.kind == "var")


def _mcpu_of_param(file: Analyzer, words: list[str]) -> bool:
    """`-target amdgcn-amd-amdhsa … -mcpu=${TARG_DEV}` in a function taking TARG_DEV: a compile for the GPU the
    caller names (rocrtst's OpenCL kernels, one code object per entry of its device list). Only beside an
    amdgcn target: `-mcpu=${cpu}` alone is as often a host CPU."""
    if not any("amdgcn" in w for w in words):
        return False
    params = file.function_params()
    return any("-mcpu=" in w and {r.name for r in refs(w.split("-mcpu=", 1)[1]) if r.kind == "var"} & params
               for w in words)


_D_WORD = re.compile(r"^-D([A-Za-z_]\w*)=(.*\$\{.*)$")
_ASSIGNS = frozenset({"set", "string", "list", "math"})


def _param_defines(file: Analyzer, cmd: Command, words: list[str]) -> None:
    """`-D ROCRTST_GPU=0x${gfxNum}` in the same per-arch compile, gfxNum cut from the GPU parameter
    (`string(SUBSTRING ${TARG_DEV} 3 -1 gfxNum)`): a macro with one value per GPU, so the sources' tests of it
    are arch tests. Only values made from the function's parameters, not `-DVERSION=${PROJECT_VERSION}`."""
    joined = [f"-D{words[i + 1]}" if w == "-D" and i + 1 < len(words) else w for i, w in enumerate(words)]
    pairs = [(m.group(1), m.group(2)) for w in joined if (m := _D_WORD.match(w))]
    if not pairs:
        return
    derived = set(file.function_params())
    body = next((b.cmd for b in reversed(file.stack) if b.kind in ("function", "macro")), None)
    for other in file.commands:
        if body is None or other.start <= body.start or other.start >= cmd.start or other.name not in _ASSIGNS:
            continue
        if {r.name for a in other.args for r in refs(a.value) if r.kind == "var"} & derived:
            derived |= {a.value for a in other.args if a.kind == "unquoted" and re.fullmatch(r"[A-Za-z_]\w*", a.value)}
    for name, value in pairs:
        if {r.name for r in refs(value) if r.kind == "var"} & derived:
            file.arch_defines.add(name)


def _removes(cmd: Command) -> bool:
    """A command that takes words out of a list or a string: list(REMOVE_ITEM …), list(FILTER … EXCLUDE …),
    string([REGEX ]REPLACE <match> "" …)."""
    values = cmd.values()
    if cmd.name == "list":
        return values[:1] == ["REMOVE_ITEM"] or (values[:1] == ["FILTER"] and "EXCLUDE" in values[2:3])
    if cmd.name == "string":
        at = 2 if values[:2] == ["REGEX", "REPLACE"] else 1 if values[:1] == ["REPLACE"] else 0
        return bool(at) and len(values) > at + 1 and values[at + 1] == ""
    return False


_HAND_MACRO = re.compile(HAND_ARCH_MACRO)


def hand_arch_define(file: Analyzer, cmd: Command) -> bool:
    """`add_compile_definitions(__gfx90a__)`, `add_definitions(-D__HIP_ARCH_GFX908__)`: a macro clang (or old hipcc)
    defines for one GPU, defined by hand for every compile, so the SPIR-V device pass takes that GPU's branches too.
    Reported where no arch flag rides on the same command (one command, one construct); in a branch on the target
    list or a loop over it, that branch or loop is the construct."""
    if cmd.name in DEFINE_COMMANDS:
        names = [n for n in defined_macros(cmd) if _HAND_MACRO.fullmatch(n)]
    elif cmd.name in COMPILE_OPTIONS or cmd.name in ("set", "string", "list"):
        if not any("-D" in v for v in cmd.evaluated):
            return False
        words = _words(file, cmd)
        if any(ARCH_FLAG.match(w) for w in words):
            return False
        names = [m.group("name") for w in words if (m := HAND_ARCH_DEFINE.fullmatch(w.split("=", 1)[0]))]
    else:
        return False
    if not names or file.in_loop_over_targets() is not None or file.arch_branch() or _removes(cmd):
        return False
    file.add(RSM103, cmd, f"defines {names[0]} by hand for every compile: the SPIR-V device pass takes that GPU's "
             "branches too", "drop it; the compiler defines each native target's arch macros itself (under SPIR-V "
             "none: branch at JIT time in device code)", Redirect.BUILD_FILE)
    return True


def flags(file: Analyzer, cmd: Command) -> None:
    start = len(file.report.findings)
    _flags(file, cmd)
    values = cmd.values()
    if cmd.name == "set" and values and FINDHIP_FLAGS.fullmatch(values[0]) and "CACHE" in values:
        # Only FindHIP's hip_add_library()/hip_add_executable() read these: a cache entry of them (SAMRAI's
        # host-config files, for projects built with BLT) in a tree where no CMake file calls one reaches no
        # compile. Only the cache entry: a list(APPEND HIP_CLANG_FLAGS …) in a module is the project's own, whose
        # hip_add_library() may be in a file a partial scan lacks (OneFlow's cmake/oneflow.cmake)
        for f in file.report.findings[start:]:
            file.report.needs.setdefault((f.line, f.column), ("caller", frozenset(FINDHIP_COMMANDS)))


def _flags(file: Analyzer, cmd: Command) -> None:
    if cmd.name == "message":
        return  # message(STATUS "flags: ${ROCM_HIPCC_FLAGS}") in a macro, expanded: printed, not passed
    if PROBE.match(cmd.name):
        # check_cxx_compiler_flag("-amdgpu-target=gfx906 -Werror" OK), check_cxx_compiler_flag("-mllvm --amdgpu-…"):
        # a configure-time probe whose compile ships nothing; where the flag is then used is the finding
        return
    if hand_arch_define(file, cmd):
        return
    if not any("-" in v for v in cmd.evaluated) and not file.function():
        return  # every flag this looks for starts with '-' (most commands of a large file pass none)
    if _removes(cmd):
        return  # list(REMOVE_ITEM opts "--offload-arch=gfx906"), string(REPLACE "-mllvm …" "" …): taking flags out
    if _c_flags(cmd) or _openmp_flags(file, cmd):
        return
    words = _words(file, cmd)
    if any(w.startswith(("-fsycl", "-Xsycl")) for w in words):
        return  # a SYCL compile (Kokkos' SYCL backend on AMD or NVIDIA GPUs), not HIP
    if any(CUDA_COMPILE.match(w) for w in words) or any(p == ("-x", "cuda") for p in itertools.pairwise(words)):
        return  # HIP on NVIDIA (-xcuda, --cuda-path=): --cuda-gpu-arch names an sm_ GPU, not an AMD one
    if _cuda_flags(cmd) and not any(GFX.search(w) for w in words):
        return  # CMAKE_CUDA_FLAGS "… --cuda-gpu-arch=${CUDA_ARCH}": clang's CUDA build (miniBUDE), no gfx name
    legacy = [w for w in words if re.match(r"--?amdgpu-target=", w)]
    if legacy:
        file.add(RSM104, cmd, f"legacy spelling {legacy[0]}", "replace with the target list (GPU_TARGETS / "
                 "rocm_spirv_target); --offload-arch=amdgcnspirv if a flag is unavoidable", Redirect.BUILD_FILE)
    for i, w in enumerate(words):
        option = words[i + 1] if w == "-mllvm" and i + 1 < len(words) else w[len("-mllvm="):] if \
            w.startswith("-mllvm=") else ""
        # `list(APPEND FLAGS -mllvm)` then `list(APPEND FLAGS -amdgpu-early-inline-all=true)`: the option alone in
        # its own command is still one (no clang driver option is spelled -amdgpu-…, but hipcc's old -target=)
        if not option and w.startswith("-amdgpu-") and not w.startswith("-amdgpu-target="):
            option = w
        if option.startswith(("-amdgpu-", "--amdgpu-")):
            file.add(RSM105, cmd, f"backend option -mllvm {option}", BACKEND_OPTION_FIX, Redirect.BUILD_FILE)
            break
    arch = [w for w in words if ARCH_FLAG.match(w) and SPIRV_TARGET not in w]
    arch += [words[i + 1] for i, w in enumerate(words[:-1]) if w == "--offload-arch" and
             words[i + 1] != SPIRV_TARGET]
    mcpu = [w for w in words if file.amd_mcpu(w)]
    fn = file.function()
    loop = file.in_loop_over_targets()
    of_vars = [m.group(1) for a in arch if (m := OF_VARIABLE.fullmatch(a))]
    if arch and len(of_vars) == len(arch) and loop is None and set(of_vars) <= file.spent_arch_loops - \
            file.function_params():
        # list(APPEND CPPFLAGS ${_ArchFlags}) after `foreach(a IN LISTS AMDGPU_ARCHS) list(APPEND _ArchFlags
        # --offload-arch=${a})`: words built from the arch list, which is the construct where it is set
        return
    # Per arch where a loop calls the function: that loop is the construct; a loop over the target list
    # inside the function is one itself.
    # (Only where the flag is written in the function or names a parameter: SeisSol's file-scope
    # `set(SEISSOL_HIPCC … --offload-arch=${DEVICE_ARCH})`, expanded in a function's hip_add_library, is that
    # set()'s construct, DEVICE_ARCH being no argument of the function.)
    if fn and loop is None and arch and len(of_vars) == len(arch) and \
            not all(TOOLCHAIN_FLAG.fullmatch(a) for a in arch) and \
            (set(of_vars) & file.function_params() or any("-arch=" in a.raw for a in cmd.args)):
        file.fn_arch.setdefault(fn, cmd)
        _param_defines(file, cmd, words)
        return
    if fn and loop is None and not arch and _mcpu_of_param(file, words):
        file.fn_arch.setdefault(fn, cmd)  # clang -target amdgcn-amd-amdhsa -mcpu=${TARG_DEV}: per arch, as above
        _param_defines(file, cmd, words)
        return
    if fn and loop is None and fn in file.fn_arch and (arch or mcpu) and \
            set(arch + mcpu) <= set(_words(file, file.fn_arch[fn])):
        # hcc2's `add_custom_command(… COMMAND ${cu_cmd} …)` after `set(cu_cmd … --cuda-gpu-arch=${mcpu})` in one
        # macro: the flag that set() made, one construct with it (reported there, or at the loop that calls it)
        return
    if loop is not None:
        if not arch:
            return  # -mcpu= in a per-arch loop is the loop's finding (RSM107)
        on = option_target(cmd)
        if on:
            loop.flag_targets.add(file.target(on))
        if not all(re.fullmatch(r"[^=]+=\$\{[A-Za-z0-9_]+\}", a) for a in arch):
            loop.pinned_flags = True
        return  # one construct: the loop's finding at its foreach() names these flags
    if not (arch or mcpu) or probe_compile(cmd):
        return
    values = cmd.values()
    flags_var = cmd.name == "set" and bool(values) and bool(FLAGS_VAR.match(values[0]))
    what = (arch or mcpu)[0]
    where = f"{values[0]}" if flags_var else f"{cmd.name}()"
    fix = "remove it and let the target list decide (rocm_spirv_target / ROCM_SPIRV_OFFLOAD)"
    if flags_var:
        fix = (f"keep it out of {values[0]} under SPIR-V (--apply guards a set() that only adds arch flags): "
               "retargeting strips target options, not a directory's flags")
    lists = [m.group(1) for a in arch if (m := TOOLCHAIN_FLAG.fullmatch(a))]
    if arch and not mcpu and len(lists) == len(arch) and (cmd.name in COMPILE_OPTIONS or cmd.name in FLAG_LISTS or
                                                          cmd.name in PROPERTY_COMMANDS):
        # target_compile_options(lib PRIVATE --offload-arch=${CMAKE_HIP_ARCHITECTURES}): the flag follows the list
        # the toolchain file sets, amdgcnspirv under SPIR-V; no arch of the project's. A custom command's
        # `hipcc --genco --offload-arch=${GPU_TARGETS}` makes code objects, which amdgcnspirv is not: reported.
        file.add(RSM103, cmd, f"passes {what} in {where}: the toolchain file's list (amdgcnspirv under SPIR-V; a "
                 "hybrid list of several entries would make one broken flag of them)", "let the target list "
                 "decide instead (rocm_spirv_target / HIP_ARCHITECTURES), which splits a hybrid list",
                 Redirect.TOOLCHAIN, handled=True)
        return
    # A custom command's `hipcc --genco --offload-arch=${GPU_ARCH}` makes a code object whatever the list: not this
    user = [] if cmd.name in GENERATOR_COMMANDS else \
        user_input(file, [f"${{{m.group(1)}}}" for a in arch if (m := VARIABLE_FLAG.fullmatch(a))])
    if arch and not mcpu and len(user) == len(set(arch)):
        # set(DEVICE_HIPCC … --offload-arch=${DEVICE_ARCH}) with DEVICE_ARCH the user's required -D setting
        file.add(RSM103, cmd, f"passes {what} in {where}: {', '.join(user)} is set nowhere in this file, the "
                 "user's -D setting or another file's (reported where it is set)", f"configure with "
                 f"-D{user[0]}=amdgcnspirv under SPIR-V", Redirect.USER_VARIABLE, handled=True)
        return
    index = len(file.report.findings)
    file.add(RSM103, cmd, f"passes {what} in {where}", fix, Redirect.BUILD_FILE)
    if cmd.name == "set" and values:
        file.flag_lists.add(values[0])  # set(HIP_GENERIC_TARGET_ARCHS --offload-arch=gfx9-generic …): passing it on
    if cmd.name == "target_compile_options" and values:
        file.target_findings.setdefault(index, set()).add(file.target(values[0]))
    start = 1 if cmd.name == "target_compile_options" else 0
    flag_only = cmd.name in ("add_compile_options", "target_compile_options") and all(
        v in ("PRIVATE", "PUBLIC", "INTERFACE", "BEFORE") or ARCH_FLAG.match(v) for v in values[start:])
    if flags_var:  # set(CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS} --offload-arch=gfx90a")
        own = {f"${{{values[0]}}}"}
        added = [w for w in cmd_words(cmd)[1:] if w not in own]
        flag_only = bool(added) and all(ARCH_FLAG.match(w) and GFX.search(w) for w in added) and \
            "CACHE" not in values
    if flag_only and not file.guarded():
        wrap(file, cmd)


def uncalled_functions(file: Analyzer) -> None:
    """A function passing --offload-arch=${param} that no per-arch loop here calls: the flag is the finding."""
    for fn, cmd in file.fn_arch.items():
        if fn not in file.fn_looped:
            words = _words(file, cmd)
            flag = "-mcpu=" if any("-mcpu=" in w for w in words) else \
                "--cuda-gpu-arch=" if any(w.startswith("--cuda-gpu-arch=") for w in words) else "--offload-arch="
            f = file.add(RSM103, cmd, f"passes {flag} of its argument in {fn}()",
                         "remove it and let the target list decide (rocm_spirv_target / ROCM_SPIRV_OFFLOAD)",
                         Redirect.BUILD_FILE)
            # dropped once the scan knows a per-arch loop of another file (the includer of this module) calls it
            at = (f.line, f.column)
            kind = "caller-loop" if file.report.needs.get(at, ("",))[0] == "caller" else "loop"
            file.report.needs[at] = (kind, frozenset({fn}))


TOPIC = Topic(rules=(RSM103, RSM104, RSM105), every=flags, end=uncalled_functions)
