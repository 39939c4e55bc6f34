"""The wavefront size taken as known at compile time: __AMDGCN_WAVEFRONT_SIZE (RSM202) and warpSize as a
constant (RSM203)."""

from __future__ import annotations

import re

from rocm_spirv.migrate.findings import E, Finding, Rule
from rocm_spirv.migrate.source_checks import finding

RSM202 = Rule("RSM202", "wavefront-size-macro", E, "__AMDGCN_WAVEFRONT_SIZE is used",
              "The wavefront size is not known when SPIR-V is generated; the macro is undefined.",
              example=('k.hip', '__global__ void k(int* o) { o[0] = __AMDGCN_WAVEFRONT_SIZE; }\n'))
RSM203 = Rule("RSM203", "constexpr-warpsize", E, "warpSize is used as a compile-time constant",
              "Under SPIR-V warpSize is a runtime value: not usable in constexpr, template arguments or array bounds.",
              example=('k.hip', '__global__ void k() { __shared__ float tile[warpSize]; }\n'))
RULES = (RSM202, RSM203)

WAVEFRONT = re.compile(r"\b__AMDGCN_WAVEFRONT_SIZE(__)?\b")
WAVEFRONT_NAMES = frozenset({"__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__"})
# What a macro's body takes the wave size from at compile time: it is then a wave-size alias
# (`#define LIB_DEVICE_WARP_THREADS ::prim::device_warp_size()`).
WAVE_SOURCE = re.compile(r"warp_size\s*\(|wavefront_size\s*\(|\bwarpSize\b|\b__AMDGCN_WAVEFRONT_SIZE")
CONSTEXPR_WARP = re.compile(
    r"\bconstexpr\b[^;{]*=\s*[^;]*\bwarpSize\b"
    r"|<[^<>;]*\bwarpSize\b[^<>;]*>"
    # an array bound: `[…warpSize…]` after a declarator (`float tile[`, `T* p[2][`), not a subscript
    # (`out[threadIdx.x / warpSize] = v`, `return data[warpSize - 1]`): a type word must come before the name
    r"|(?<![\w\])])(?!(?:return|else|do|case|new|delete|throw|co_return|co_yield|goto|sizeof)\b)"
    r"[A-Za-z_][\w:]*(?:<[^<>;]*>)?[\s*&]+[A-Za-z_]\w*\s*(?:\[[^\[\];]*\]\s*)*\[[^\[\];]*\bwarpSize\b[^\[\];]*\]"
    r"|\bstatic_assert\s*\([^;]*\bwarpSize\b"
    r"|\bcase\s+[^:]*\bwarpSize\b")
CONSTEXPR_FN = re.compile(r"\bconstexpr\b[^;=(]*\(")  # a constexpr function's head: constexpr int f(
RETURN_WARP = re.compile(r"\breturn\s+warpSize\s*;")
WAVE_USE = "has no value under amdgcnspirv"
WAVE_DEFINED = "the project defines the wavefront-size macro when the compiler does not, as"
FALLBACK_GUARD = re.compile(r"^\s*!\s*defined\s*\(?\s*__AMDGCN_WAVEFRONT_SIZE(__)?\s*\)?\s*$")
WARP_FIX = ("read warpSize at run time; size shared memory for 64 lanes, or template on both 32 and 64 and "
            "dispatch at run time")


def defines_wave_size(path: str, no: int, m: re.Match[str], value: str, snippet: str,
                      conds: tuple[str, ...]) -> Finding:
    """The project's own #define of the wavefront macro: the one finding for every use of it."""
    return finding(RSM202, path, no, m.start() + 1, f"{WAVE_DEFINED} {value.strip() or 'empty'}: "
                   "clang 22 defines the macro for no target (it was removed upstream), so every use sees that "
                   "value, under amdgcnspirv and in native wave32 builds alike",
                   "drop the fallback; read warpSize (or __builtin_amdgcn_wavefrontsize()) at run time and "
                   "size storage for 64 lanes", snippet, conds)


def wave_use(path: str, no: int, m: re.Match[str], snippet: str, conds: tuple[str, ...]) -> Finding:
    return finding(RSM202, path, no, m.start() + 1, f"{m.group(0)} {WAVE_USE}",
                   "use warpSize at run time (or __builtin_amdgcn_wavefrontsize())", snippet, conds)


def build_wave_use(path: str, no: int, col: int, name: str, snippet: str, conds: tuple[str, ...]) -> Finding:
    """A wave size the project's build defines (no source does): per target from the target list, or once at
    configure time (RAJA_HIP_WAVESIZE, a CMake cache value): either way not one an amdgcnspirv binary can have."""
    return finding(RSM202, path, no, col, f"{name}, a wave size the build defines (per target or once at "
                   "configure time), has no right value under amdgcnspirv: one binary runs on wave32 and wave64 "
                   "GPUs", "use warpSize at run time (or __builtin_amdgcn_wavefrontsize())", snippet, conds)


def warp_alias_use(path: str, no: int, col: int, name: str, snippet: str, conds: tuple[str, ...]) -> Finding:
    return finding(RSM203, path, no, col, f"{name}, a compile-time wave size, is a template argument's default",
                   WARP_FIX, snippet, conds)


def warp_returned(path: str, no: int, m: re.Match[str], snippet: str, conds: tuple[str, ...]) -> Finding:
    return finding(RSM203, path, no, m.start() + 1, "a constexpr function returns warpSize", WARP_FIX, snippet,
                   conds)


def warp_constant(path: str, no: int, m: re.Match[str], snippet: str, conds: tuple[str, ...]) -> Finding:
    return finding(RSM203, path, no, m.start() + 1, "warpSize used as a compile-time constant", WARP_FIX, snippet,
                   conds)
