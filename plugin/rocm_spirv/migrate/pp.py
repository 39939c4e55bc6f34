"""Preprocessor conditions as the AMD SPIR-V device pass sees them: a three-valued evaluator.

A branch is dead when its condition is false for `--offload-arch=amdgcnspirv` device compiles:
NVIDIA-only (`__HIP_PLATFORM_NVIDIA__`, `__CUDA_ARCH__`, `__NVCC__`), host-only
(`!defined(__HIP_DEVICE_COMPILE__)`, CPU ISA macros such as `__x86_64__` and `__powerpc__` — a device
function never holds host assembly) and per-arch (`__gfx*__`, `__GFX*__`, which are undefined under SPIR-V).
Anything the evaluator cannot decide (project macros, `__has_builtin`, include guards) is None and the
branch counts as live, so a finding is never hidden by a guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from rocm_spirv.offload import ARCH_MACRO_NAME_PATTERN

Value = int | None  # None: not known from the device environment
MAX_TOKENS = 2048

# Defined (with their value) for an amdgcnspirv device compile.
DEVICE_DEFINED: Mapping[str, int] = {
    "__HIP_PLATFORM_AMD__": 1, "__HIP_PLATFORM_HCC__": 1, "__HIP_DEVICE_COMPILE__": 1, "__HIP__": 1,
    "__HIPCC__": 1, "__SPIRV__": 1, "__SPIRV64__": 1, "__AMDGCN__": 1, "__AMDGPU__": 1, "__amdgcn__": 1,
    "__clang__": 1, "__HIP_ROCclr__": 1,
    # hip_version.h's, for the HIP the SPIR-V build compiles against: ROCm 7 (the prefix's headers are ROCm 7's,
    # and mixing amdgcnspirv with gfx targets needs LLVM 20, ROCm 7.0's). `#if HIP_VERSION_MAJOR >= 7` is taken.
    "HIP_VERSION_MAJOR": 7,
}
# Not defined for it. Arch macros are matched by ARCH_MACRO; CPU ISA macros mark host code.
DEVICE_UNDEFINED = frozenset({
    "__HIP_PLATFORM_NVIDIA__", "__HIP_PLATFORM_NVCC__", "__HIP_CPU_RT__", "__CUDA_ARCH__", "__NVCC__", "__NVCOMPILER",
    "__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__", "__amdgcn_processor__", "__AMDGCN_CUMODE__",
    "__x86_64__", "__x86_64", "__i386__", "__i386", "_M_X64", "_M_IX86", "__amd64__", "__amd64",
    "__aarch64__", "_M_ARM64", "__arm__", "_M_ARM", "__ARM_NEON", "__ARM_NEON__", "__ARM_FEATURE_SVE",
    "__powerpc__", "__powerpc64__", "__PPC__", "__PPC64__", "__ppc64__", "__ppc__", "_ARCH_PPC",
    "__POWERPC__", "__VSX__", "__ALTIVEC__",
    "__hexagon__", "__HEXAGON_ARCH__", "__riscv", "__riscv_vector", "__s390x__", "__s390__", "__loongarch64",
    "__loongarch_asx", "__loongarch_sx", "__mips__", "__wasm__", "__wasm_simd128__",
    "__SSE__", "__SSE2__", "__SSE3__", "__SSSE3__", "__SSE4_1__", "__SSE4_2__", "__AVX__", "__AVX2__",
    "__AVX512F__", "__AVX512BW__", "__AVX512VL__", "__AVX512VNNI__", "__AVXVNNI__", "__F16C__", "__FMA__",
    "__BMI2__", "__POPCNT__", "__AMX_INT8__", "__AMX_TILE__",
})
# clang also names the processor and target id in strings for generic targets (`__amdgcn_target_id__`).
ARCH_MACRO = re.compile(rf"\b__({ARCH_MACRO_NAME_PATTERN})__\b|\b__amdgcn_(?:processor|target_id)__\b")
_ARCH_NAME = re.compile(rf"^__({ARCH_MACRO_NAME_PATTERN})__$")
# Old hipcc defined __HIP_ARCH_GFX908__=1 per target. A build that defines one of those or clang's by hand
# (`CPPFLAGS += -D__HIP_ARCH_GFX908__`, `add_compile_definitions(__gfx90a__)`): every compile, the SPIR-V device pass
# included, takes that GPU's branches.
HIP_ARCH_MACRO = r"__HIP_ARCH_GFX[0-9]{1,4}[A-Z0-9]*__"
HAND_ARCH_MACRO = rf"__(?:{ARCH_MACRO_NAME_PATTERN})__|{HIP_ARCH_MACRO}"
HAND_ARCH_DEFINE = re.compile(rf"(?<![\w-])-D\s*(?P<name>{HAND_ARCH_MACRO})(?![\w])")

# Per-arch macros a project's build defines from its target list (KOKKOS_ARCH_AMD_GFX90A, PROJ_ARCH_GFX942):
# undefined for amdgcnspirv, where no gfx target is chosen. Only when no scanned source #defines them.
IDENT = re.compile(r"[A-Za-z_]\w*")  # a C identifier (a macro name in a condition or a body)
# So are the GPU-family switches a build passes (-DRDNA3 from a Makefile's ARCH choice, TEST_ON_RDNA4 from a
# submission script that compiles for gfx1201, a bare -DGFX9 from a gfx900 recipe, old hipcc's
# -D__HIP_ARCH_GFX900__=1 per target, a setup.py's -D__ROCM_ARCH_GFX942 from the detected GPU; not SYCL's
# __SYCL_TARGET_AMD_GPU_GFX90A__, no HIP compile's): named after RDNA/CDNA or a GFX generation, defined by no
# scanned source.
BUILD_ARCH_MACRO = re.compile(rf"(?<!\w)(?:{HIP_ARCH_MACRO}"
                              r"|_*(?!SYCL_)(?:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_)?GFX[0-9]{1,4}[a-z]?[A-Z0-9_]*"
                              r"|(?:[A-Z][A-Z0-9]*_)*[RC]DNA[1-4](?:_[A-Z0-9]+)*)\b")
# A project's configure-time copy of the wave size (PROJ_AMDGCN_WAVEFRONT_SIZE, RAJA_HIP_WAVESIZE): no value
# for SPIR-V.
# Not HSA's query keys (HSA_AGENT_INFO_WAVEFRONT_SIZE, HSA_ISA_INFO_…): enumerators of hsa.h a host passes to
# hsa_agent_get_info(), no size at all.
_NOT_HSA_KEY = r"(?!HSA_(?:[A-Z0-9]+_)*INFO_)"
BUILD_WAVE_MACRO = re.compile(rf"\b{_NOT_HSA_KEY}[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_WAVE(?:FRONT)?_?SIZE\b")
# In an #if, a project's warp size too (HYPRE_WARP_SIZE, from its configure's HYPRE_config.h).
# Or a switch naming one wave size (llm.c's `#ifdef WAVEFRONTSIZE64`, which its Makefile passes for gfx9 targets;
# hipDF's `#ifndef CUDF_USE_WARPSIZE_32`, a CMake option for its gfx1100 build).
BUILD_WAVE_TEST = re.compile(rf"\b{_NOT_HSA_KEY}[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:WAVE(?:FRONT)?|WARP)_?SIZE\b"
                             r"|\b(?:[A-Z][A-Z0-9]*_)*(?:WAVE(?:FRONT)?|WARP)_?SIZE_?(?:32|64)\b")

# One target per family ROCm supports (GFX9 to GFX12), with the macros clang defines for it: an arch test
# with the same answer on each and under SPIR-V (`!defined(__GFX6__) && !defined(__GFX7__)`) is no per-arch
# construct.
# The same targets decide which AMDGCN builtins every GPU has (source_checks/builtin_table.py).
ROCM_TARGET_FAMILIES: tuple[tuple[str, int], ...] = (
    ("gfx900", 9), ("gfx906", 9), ("gfx908", 9), ("gfx90a", 9), ("gfx942", 9), ("gfx950", 9),
    ("gfx1030", 10), ("gfx1100", 11), ("gfx1101", 11), ("gfx1151", 11), ("gfx1200", 12), ("gfx1201", 12))
ROCM_TARGETS: tuple[frozenset[str], ...] = tuple(
    frozenset({f"__{t}__", f"__GFX{family}__"}) for t, family in ROCM_TARGET_FAMILIES)

_TOKEN = re.compile(r"\s*(?:(?P<num>0[xX][0-9a-fA-F]+|\d+)[uUlL]*|(?P<id>[A-Za-z_]\w*)"
                    r"|(?P<op>&&|\|\||==|!=|<=|>=|<<|>>|[!()<>+\-*/%?:~&|^,]))")


# C++'s alternative spellings, which its preprocessor reads in #if as the operators (`defined(__gfx940__) or
# defined(__gfx942__)`); a C file gets the same from <iso646.h>.
ALTERNATIVE_TOKENS = {"and": "&&", "or": "||", "not": "!", "bitand": "&", "bitor": "|", "xor": "^", "compl": "~",
                      "not_eq": "!="}


def _tokens(text: str) -> list[str] | None:
    out: list[str] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            return None  # a string, a character literal or stray text: not decidable here
        tok = m.group(m.lastgroup or "op")
        out.append(ALTERNATIVE_TOKENS.get(tok, tok))
        pos = m.end()
    return out


def lookup_device(name: str) -> Value:
    """A macro's value for the device pass: a number when defined, 0 when known undefined, None when unknown."""
    if name in DEVICE_DEFINED:
        return DEVICE_DEFINED[name]
    if name in DEVICE_UNDEFINED or _ARCH_NAME.match(name):
        return 0
    return None


class _Parser:
    """Precedence climbing over C preprocessor operators, with None (unknown) propagated:
    `0 && x` is 0 and `1 || x` is 1 whatever x is."""

    _BINARY: Mapping[str, int] = {"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, ">": 7,
                                  "<=": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10}

    def __init__(self, toks: list[str], lookup: Callable[[str], Value]) -> None:
        self.toks = toks
        self.i = 0
        self.lookup = lookup

    def peek(self) -> str:
        return self.toks[self.i] if self.i < len(self.toks) else ""

    def take(self) -> str:
        tok = self.peek()
        if not tok:
            raise ValueError("unexpected end")
        self.i += 1
        return tok

    def expr(self, min_prec: int = 1) -> Value:
        left = self.unary()
        while True:
            op = self.peek()
            if op == "?" and min_prec <= 1:
                self.take()
                a = self.expr()
                if self.take() != ":":
                    raise ValueError("expected :")
                b = self.expr()
                left = None if left is None else (a if left else b)
                continue
            prec = self._BINARY.get(op)
            if prec is None or prec < min_prec:
                return left
            self.take()
            right = self.expr(prec + 1)
            left = _binary(op, left, right)

    def unary(self) -> Value:
        tok = self.take()
        if tok == "!":
            v = self.unary()
            return None if v is None else int(not v)
        if tok == "-":
            v = self.unary()
            return None if v is None else -v
        if tok in ("+", "~"):
            v = self.unary()
            return None if v is None else (v if tok == "+" else ~v)
        if tok == "(":
            v = self.expr()
            if self.take() != ")":
                raise ValueError("expected )")
            return v
        if tok == "defined":
            paren = self.peek() == "("
            if paren:
                self.take()
            name = self.take()
            if paren and self.take() != ")":
                raise ValueError("expected )")
            v = self.lookup(name)
            return None if v is None else int(v != 0)
        if tok[0].isdigit():
            return int(tok, 0) if not (tok.startswith("0") and len(tok) > 1 and tok[1].isdigit()) else int(tok, 8)
        if tok[0].isalpha() or tok[0] == "_":
            if self.peek() == "(":  # a function-like macro or __has_builtin(...): skip its arguments
                depth = 0
                while True:
                    t = self.take()
                    depth += t == "("
                    depth -= t == ")"
                    if depth == 0:
                        break
                return None
            return self.lookup(tok)
        raise ValueError(f"unexpected {tok}")


def _binary(op: str, a: Value, b: Value) -> Value:
    if op == "&&":
        return 0 if a == 0 or b == 0 else None if a is None or b is None else 1
    if op == "||":
        return 1 if (a is not None and a != 0) or (b is not None and b != 0) else None if a is None or b is None else 0
    if a is None or b is None:
        return None
    if op in ("/", "%") and b == 0:
        return None
    result: int = {
        "|": lambda: a | b, "^": lambda: a ^ b, "&": lambda: a & b, "==": lambda: int(a == b),
        "!=": lambda: int(a != b), "<": lambda: int(a < b), ">": lambda: int(a > b), "<=": lambda: int(a <= b),
        ">=": lambda: int(a >= b), "<<": lambda: a << min(b, 64), ">>": lambda: a >> min(b, 64),
        "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: int(a / b), "%": lambda: a % b,
    }[op]()
    return result


def evaluate(condition: str, lookup: Callable[[str], Value] = lookup_device) -> Value:
    """The value of an #if/#elif condition (comments already blanked), None when undecidable."""
    toks = _tokens(condition)
    # Bounded work on generated or hostile input: a long or deeply nested condition is undecided.
    if not toks or len(toks) > MAX_TOKENS or toks.count("(") > MAX_TOKENS // 8:
        return None
    p = _Parser(toks, lookup)
    try:
        v = p.expr()
    except (ValueError, IndexError, RecursionError):
        return None
    return v if p.i == len(toks) else None


# Defined per target by some compilers (not for amdgcnspirv): unknown on a GPU.
PER_TARGET = frozenset({"__amdgcn_processor__", "__amdgcn_target_id__", "__AMDGCN_WAVEFRONT_SIZE",
                        "__AMDGCN_WAVEFRONT_SIZE__", "__AMDGCN_CUMODE__"})
_TARGET = re.compile(r"^gfx(?:[6-9][0-9][0-9a-f]|1[0-2][0-9][0-9a-f])$")


def _family(name: str) -> int:
    return int(name[3]) if len(name) == 6 else int(name[3:5])


def _target(name: str) -> frozenset[str]:
    return frozenset({f"__{name}__", f"__GFX{_family(name)}__"})


def arch_dependent(condition: str, lookup: Callable[[str], Value] = lookup_device) -> bool:
    """Whether an arch test can answer differently for some ROCm GPU than for SPIR-V; undecidable counts as
    yes. lookup is the SPIR-V view (arch-derived macros undefined)."""
    spirv = evaluate(condition, lookup)
    if spirv is None:
        return True
    named = set(ARCH_MACRO.findall(condition))
    if any(not _TARGET.match(n) for n in named if n.startswith("gfx")):
        return True  # `__gfx12__` names no target: whatever it means, it is no test this can decide
    # and each target or family the condition names, from GFX8 on (GFX6/7 are in no ROCm release)
    targets = [*ROCM_TARGETS, *(_target(n) for n in named if _TARGET.match(n) and _family(n) >= 8),
               *(frozenset({f"__{n}__"}) for n in named if n.startswith("GFX") and int(n[3:]) >= 8)]
    for macros in targets:
        # on a GPU, a macro the SPIR-V view takes as undefined for being arch-derived or build-defined may
        # well be defined: only the device environment is known there
        def on_target(name: str, macros: frozenset[str] = macros) -> Value:
            if _ARCH_NAME.match(name):
                return 1 if name in macros else 0
            return None if name in PER_TARGET else lookup_device(name)
        if evaluate(condition, on_target) != spirv:
            return True
    return False


def directive_condition(word: str, rest: str) -> str:
    """#ifdef X / #ifndef X as an #if expression."""
    name = rest.strip().split(maxsplit=1)[0] if rest.strip() else ""
    if word in ("ifdef", "elifdef"):
        return f"defined({name})"
    if word in ("ifndef", "elifndef"):
        return f"!defined({name})"
    return rest
