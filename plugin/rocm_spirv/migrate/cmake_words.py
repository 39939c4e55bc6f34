"""The vocabulary CMake checks share: target-list variables, arch names and flags, and how to read a
command's words as the compiler sees them. Pure."""

from __future__ import annotations

import itertools
import re

from rocm_spirv.migrate.cmake_lexer import Arg, Command, refs, split_list
from rocm_spirv.offload import LEGACY_PROCESSOR_PATTERN, SPIRV_TARGET, TARGET_ID

# TOOLCHAIN_LISTS (offload.py) are the ones the toolchain file sets; the others are conventional names a
# project reads as its own option, which no toolchain file sets.
TARGET_VARS = frozenset({
    "GPU_TARGETS", "AMDGPU_TARGETS", "CMAKE_HIP_ARCHITECTURES", "HIP_ARCHITECTURES", "AMDGPU_TARGET",
    "GPU_ARCHS", "GPU_ARCHITECTURES", "HIP_OFFLOAD_ARCHS", "ROCM_ARCHS",
})
ENV_VARS = frozenset({"PYTORCH_ROCM_ARCH", "HCC_AMDGPU_TARGET", "GPU_TARGETS", "AMDGPU_TARGETS", "HIP_ARCHITECTURES"})
# The tools that print the build machine's GPUs: a list taken from their output is that machine's
DETECT = re.compile(r"\b(?:amdgpu-arch|amdgpu-offload-arch|rocm_agent_enumerator|rocminfo|amd-smi)\b")
FINDHIP_LIST = "HCC_AMDGPU_TARGET"  # FindHIP's own list: its module and hip_add_* are RSM110's (findhip.py)
# A target id (offload.TARGET_ID: gfx942, gfx90a:xnack+, gfx9-4-generic) standing alone in a word; with a
# file extension after it (`gfx942.kdb.bz2`, a prebuilt database named per GPU) it is a file name, like k_gfx90a.co.
GFX = re.compile(f"(?<![A-Za-z0-9_]){TARGET_ID.pattern}(?![A-Za-z0-9_]|\\.[A-Za-z])", re.IGNORECASE)
ARCH_ITEM = re.compile(f"^(?:{TARGET_ID.pattern}|all|native|{SPIRV_TARGET})$", re.IGNORECASE)
# Kokkos' names for AMD GPUs (Kokkos_ARCH_AMD_GFX90A in CMake, KOKKOS_ARCH=AMD_GFX90A in its Makefile.kokkos build,
# and the older VEGA90A / NAVI1030 spellings still in machine files)
KOKKOS_AMD_ARCH = r"(?:AMD_GFX|VEGA|NAVI)\d\w*"
# A boolean option named for one GPU (Kokkos_ARCH_AMD_GFX942, MYLIB_ARCH_GFX90A, Kokkos_ARCH_VEGA90A): on, it
# builds for that GPU; a test of it is a branch on the target, whatever the project is called
GPU_OPTION_NAME = rf"\w*ARCH\w*_(?:GFX\d\w*|{KOKKOS_AMD_ARCH})"
GPU_OPTION = re.compile(f"^{GPU_OPTION_NAME}$", re.IGNORECASE)
CMAKE_TRUE = frozenset({"1", "ON", "YES", "TRUE", "Y"})  # if(<constant>) is true (a non-zero number too)
# add_custom_command / add_custom_target / execute_process keywords: COMMAND starts a tool's command line, the
# others end it
CUSTOM_COMMAND_KEYWORDS = frozenset({
    "COMMAND", "OUTPUT", "COMMENT", "DEPENDS", "BYPRODUCTS", "WORKING_DIRECTORY", "MAIN_DEPENDENCY", "IMPLICIT_DEPENDS",
    "DEPFILE", "JOB_POOL", "JOB_SERVER_AWARE", "SOURCES", "VERBATIM", "USES_TERMINAL", "APPEND", "COMMAND_EXPAND_LISTS",
    "DEPENDS_EXPLICIT_ONLY", "CODEGEN", "ALL", "PRE_BUILD", "PRE_LINK", "POST_BUILD", "TARGET", "OUTPUT_VARIABLE",
    "ERROR_VARIABLE", "RESULT_VARIABLE", "OUTPUT_QUIET", "ERROR_QUIET", "TIMEOUT"})
GFX_LOOSE = re.compile(r"gfx", re.IGNORECASE)  # in regexes too: MATCHES "^gfx9", "^gfx[0-9]+$"
ALLOW_NAME = re.compile(r"SUPPORTED|ALLOWED|VALID|KNOWN|WHITELIST|ALLOWLIST|ACCEPTED", re.IGNORECASE)
GUARD_VAR = "ROCM_SPIRV_OFFLOAD"
# An AMD GPU triple as a compiler's target: -target amdgcn-amd-amdhsa, --target=amdgcn-amd-amdhsa
AMDGCN_TRIPLE = re.compile(r"^(?:--?target=)?amdgcn-")
# AMD GPU arch flags only: --offload-arch=sm_80 is CUDA, --cuda-gpu-arch=mp_21 is MUSA.
# The value an AMD arch flag can carry: a gfx name, a reference ($\{…\}, $<…>, @…@, $ENV), native,
# amdgcnspirv or one of clang's legacy processor names; not CUDA's sm_*, nor a target of another vendor's
# clang (Vortex's --offload-arch=vortex, SYCL's pvc).
_AMD_VALUE = rf"(?:gfx|\$|@|native\b|amdgcnspirv|{LEGACY_PROCESSOR_PATTERN}\b)"
ARCH_FLAG = re.compile(rf"^(?:--offload-arch=({_AMD_VALUE}.*)|--cuda-gpu-arch=((?:gfx|\$\{{|\$<).+))$", re.IGNORECASE)
FLAGS_VAR = re.compile(r"^CMAKE_(CXX|HIP|C|CUDA)_FLAGS(_[A-Z]+)?$")
HOST_ONLY_FLAGS = frozenset({"--cuda-host-only", "--offload-host-only"})
HIP_DEVICE = "hip::device"


def line_end(src: str, pos: int) -> int:
    """Offset of the line ending after pos (before a CRLF's '\\r'), or the end of the text."""
    idx = src.find("\n", pos)
    if idx < 0:
        return len(src)
    return idx - 1 if idx > pos and src[idx - 1] == "\r" else idx


def line_begin(src: str, pos: int) -> int:
    return src.rfind("\n", 0, pos) + 1


def arg_names(arg: Arg) -> set[str]:
    """Variable names an argument mentions: bare words (as in if()) and ${…}/$CACHE{…} references."""
    out = {r.name for r in refs(arg.value) if r.kind in ("var", "cache")}
    if arg.kind == "unquoted" and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", arg.value):
        out.add(arg.value)
    return out


def env_names(cmd: Command) -> set[str]:
    if not any("$ENV{" in v for v in cmd.evaluated):
        return set()
    return {r.name for a in cmd.args for r in refs(a.value) if r.kind == "env"}


def cmd_words(cmd: Command) -> list[str]:
    return [w for v in cmd.values() for item in split_list(v) for w in item.split()]


_GENEX_PREFIX = re.compile(r"^(?:\$<(?:\$<[^<>]*>|[^:<>])*:)+")


def compiler_flag(word: str) -> str:
    """A compiler flag as the compiler sees it: `$<$<COMPILE_LANGUAGE:CXX>:SHELL:-mllvm` is `-mllvm`."""
    if word.startswith("$<"):
        word = _GENEX_PREFIX.sub("", word)
    word = word[len("SHELL:"):] if word.startswith("SHELL:") else word
    return word.rstrip(">") if word.startswith("-") else word


def flag_words(cmd: Command) -> list[str]:
    return [compiler_flag(w) for w in cmd_words(cmd)]


def option_target(cmd: Command) -> str:
    """The one target whose options or properties cmd sets, if any."""
    values = cmd.values()
    if cmd.name in ("target_compile_options", "target_link_options") and values:
        return values[0]
    if cmd.name == "set_property" and values[:1] == ["TARGET"] and len(values) > 2 and values[2] in (
            "APPEND", "APPEND_STRING", "PROPERTY"):
        return values[1]
    return ""


def compiles_as_hip(words: list[str]) -> bool:
    return "-xhip" in words or any(w == "-x" and nxt == "hip" for w, nxt in itertools.pairwise(words))


def snippet(src: str, cmd: Command) -> str:
    text = src[cmd.start : cmd.end]
    first = text.splitlines()[0] if text else ""
    return first if len(first) <= 120 else first[:117] + "..."
