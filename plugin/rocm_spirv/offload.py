"""The offload vocabulary: modes, GPU target names (the target-id grammar and the table of known
targets), what counts as an AMD arch flag, target lists and the SPIR-V device flags.

cmake/RocmSpirvOffload.cmake spells the same rules for the CMake package and templates/bazel/*.bzl
for Bazel; tests/test_offload_vocabulary.py runs them on the same inputs so they cannot drift.

Adding a GPU family is one row per processor in TARGETS (its EF_AMDGPU_MACH value from LLVM's
AMDGPUUsage); the generic names and `inspect`'s code-object table follow, and the CMake fallback
list is held to them by a test (docs/developing.md walks through one).
Which targets a compiler accepts comes from the compiler itself (the probe's gfx_targets, from
`-print-supported-cpus`); TARGETS is the fallback for reading binaries and checking name shapes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeGuard

from rocm_spirv import settings

Mode = Literal["native", "spirv", "hybrid"]
MODES: tuple[Mode, ...] = ("native", "spirv", "hybrid")
SPIRV_TARGET = "amdgcnspirv"
# The GPU-target lists the generated toolchain file sets to the offload list (CACHE … FORCE;
# templates/cmake/toolchain.cmake.j2 iterates this tuple): CMake's own, ROCm's package's two, FindHIP's.
TOOLCHAIN_LISTS = ("CMAKE_HIP_ARCHITECTURES", "GPU_TARGETS", "AMDGPU_TARGETS", "HCC_AMDGPU_TARGET")

# Target ids (LLVM AMDGPUUsage "Target ID"): a processor, then features each + or -. A processor is
# gfx + 2-4 digits + an optional letter (gfx90a, gfx1151) or a generic ISA (gfx9-4-generic).
FEATURES: tuple[str, ...] = ("sramecc", "xnack")
PROCESSOR_PATTERN = r"gfx[0-9]{2,4}[a-z]?"
# clang's device macros spell a generic name with '_' for '-' (__gfx9_4_generic__): one template for both.
_GENERIC_TEMPLATE = r"gfx[0-9]{{1,2}}(?:{sep}[0-9]{{1,2}})?{sep}generic"
GENERIC_PATTERN = _GENERIC_TEMPLATE.format(sep="-")
GPU_NAME_PATTERN = f"(?:{GENERIC_PATTERN}|{PROCESSOR_PATTERN})"
# The name part of clang's per-target device macros: __gfx90a__ for a processor, __gfx9_4_generic__ for a
# generic ISA, __GFX9__ for the family; none is defined for amdgcnspirv.
ARCH_MACRO_NAME_PATTERN = f"(?:{PROCESSOR_PATTERN}|{_GENERIC_TEMPLATE.format(sep='_')}|GFX[0-9]{{1,2}})"
FEATURE_SUFFIX_PATTERN = r"(?::[a-z]+[+-])*"  # any feature name: a typo is still a target id to report
# clang's names for the GCN 1-3 processors before gfx numbering (`clang --target=amdgcn-amd-amdhsa
# -print-supported-cpus`, LLVM 22): aliases of gfx600-gfx810 that old build files still pass (kotekan's
# `-mcpu=fiji`). No ROCm release serves them; a build naming one is native code all the same.
LEGACY_PROCESSORS: frozenset[str] = frozenset({
    "bonaire", "carrizo", "fiji", "hainan", "hawaii", "iceland", "kabini", "kaveri", "mullins", "oland", "pitcairn",
    "polaris10", "polaris11", "stoney", "tahiti", "tonga", "tongapro", "verde"})
LEGACY_PROCESSOR_PATTERN = rf"(?:{'|'.join(sorted(LEGACY_PROCESSORS))})"
LEGACY_PROCESSOR = re.compile(rf"{LEGACY_PROCESSOR_PATTERN}{FEATURE_SUFFIX_PATTERN}", re.IGNORECASE)
# Compilers spell them in lower case; readers of build files (migrate) add re.IGNORECASE.
GPU_NAME = re.compile(GPU_NAME_PATTERN)
TARGET_ID = re.compile(f"{GPU_NAME_PATTERN}{FEATURE_SUFFIX_PATTERN}")
# An AMD arch flag's option names; CUDA's sm_*/compute_* and MUSA's mp_* share --offload-arch.
ARCH_FLAG_OPTIONS: tuple[str, ...] = ("--offload-arch", "--amdgpu-target", "-amdgpu-target", "--cuda-gpu-arch")
NON_AMD_ARCH_PREFIXES: tuple[str, ...] = ("sm_", "compute_", "mp_")
# Those options and -mcpu (a GPU's when its value names one) as one regex alternation: the build-file readers'
# arch flags in every spelling the compiler takes
ARCH_OPTION_PATTERN = "(?:" + "|".join(re.escape(o) for o in (*ARCH_FLAG_OPTIONS, "-mcpu")) + ")"


@dataclass(frozen=True)
class GpuTarget:
    name: str  # gfx942, gfx9-4-generic
    mach: int  # EF_AMDGPU_MACH_* in a code object's e_flags (llvm/BinaryFormat/ELF.h)

    @property
    def generic(self) -> bool:
        return self.name.endswith("-generic")


# Every AMDGPU target LLVM names an EF_AMDGPU_MACH value for (AMDGPUUsage "AMDGPU EF_AMDGPU_MACH Values").
TARGETS: tuple[GpuTarget, ...] = tuple(GpuTarget(n, m) for m, n in (
    (0x20, "gfx600"), (0x21, "gfx601"), (0x22, "gfx700"), (0x23, "gfx701"), (0x24, "gfx702"), (0x25, "gfx703"),
    (0x26, "gfx704"), (0x28, "gfx801"), (0x29, "gfx802"), (0x2A, "gfx803"), (0x2B, "gfx810"), (0x2C, "gfx900"),
    (0x2D, "gfx902"), (0x2E, "gfx904"), (0x2F, "gfx906"), (0x30, "gfx908"), (0x31, "gfx909"), (0x32, "gfx90c"),
    (0x33, "gfx1010"), (0x34, "gfx1011"), (0x35, "gfx1012"), (0x36, "gfx1030"), (0x37, "gfx1031"),
    (0x38, "gfx1032"), (0x39, "gfx1033"), (0x3A, "gfx602"), (0x3B, "gfx705"), (0x3C, "gfx805"),
    (0x3D, "gfx1035"), (0x3E, "gfx1034"), (0x3F, "gfx90a"), (0x40, "gfx940"), (0x41, "gfx1100"),
    (0x42, "gfx1013"), (0x43, "gfx1150"), (0x44, "gfx1103"), (0x45, "gfx1036"), (0x46, "gfx1101"),
    (0x47, "gfx1102"), (0x48, "gfx1200"), (0x49, "gfx1250"), (0x4A, "gfx1151"), (0x4B, "gfx941"),
    (0x4C, "gfx942"), (0x4E, "gfx1201"), (0x4F, "gfx950"), (0x50, "gfx1310"), (0x51, "gfx9-generic"),
    (0x52, "gfx10-1-generic"), (0x53, "gfx10-3-generic"), (0x54, "gfx11-generic"), (0x55, "gfx1152"),
    (0x57, "gfx1154"), (0x58, "gfx1153"), (0x59, "gfx12-generic"), (0x5A, "gfx1251"),
    (0x5B, "gfx12-5-generic"), (0x5C, "gfx1172"), (0x5D, "gfx1170"), (0x5E, "gfx1171"),
    (0x5F, "gfx9-4-generic"), (0x62, "gfx11-7-generic"), (0x63, "gfx13-generic"),
))


def mach_table(targets: Sequence[GpuTarget]) -> dict[int, str]:
    """EF_AMDGPU_MACH value -> target name: how `inspect` names a code object's processor."""
    return {t.mach: t.name for t in targets}


def generic_targets(targets: Sequence[GpuTarget]) -> tuple[str, ...]:
    """Generic ISA names, oldest family first (the order CMake's fallback list gives them)."""
    return tuple(sorted((t.name for t in targets if t.generic),
                        key=lambda n: tuple(int(x) for x in re.findall(r"[0-9]+", n))))


# The views of TARGETS every other module reads (docs/developing.md: adding a GPU family).
MACH: dict[int, str] = mach_table(TARGETS)
GENERIC_TARGETS: tuple[str, ...] = generic_targets(TARGETS)


def is_gpu_name(text: str) -> bool:
    """gfx942, gfx90a, gfx9-4-generic: a processor or generic ISA name, without features."""
    return GPU_NAME.fullmatch(text) is not None


def is_target_id(text: str) -> bool:
    """A GPU name with optional features (gfx90a:xnack+:sramecc-)."""
    return TARGET_ID.fullmatch(text) is not None


def is_amd_arch_flag(flag: str) -> bool:
    """--offload-arch=gfx942 (or amdgcnspirv, or a variable) is one; --offload-arch=sm_80 is CUDA's."""
    option, eq, value = flag.partition("=")
    return bool(eq) and option in ARCH_FLAG_OPTIONS and not value.startswith(NON_AMD_ARCH_PREFIXES)


def is_mode(text: str) -> TypeGuard[Mode]:
    return text in MODES


def parse_archs(text: str | None) -> tuple[str, ...]:
    """`gfx942, gfx1100;gfx90a:xnack+` -> the names, split on commas or semicolons."""
    return tuple(a.strip() for a in (text or "").replace(";", ",").split(",") if a.strip())


def offload_list(mode: Mode, native_archs: Sequence[str]) -> tuple[str, ...]:
    """What --offload-arch= gets, each target once; empty when the mode needs
    native targets and none are known (the project's own list decides later)."""
    native = tuple(dict.fromkeys(a for a in native_archs if a != SPIRV_TARGET))
    if mode == "spirv":
        return (SPIRV_TARGET,)
    if not native:
        return ()
    return (SPIRV_TARGET, *native) if mode == "hybrid" else native


# Opting in to device debug info for the in-tree SPIR-V backend (docs/toolchain.md):
# the wrappers read this environment variable, the CMake package its cache option.
DEVICE_DEBUG_ENV = settings.DEVICE_DEBUG.name
IN_TREE_BACKEND = "-use-spirv-backend"


def device_debug_opted_in(environ: Mapping[str, str]) -> bool:
    """The wrappers' test of ROCM_SPIRV_DEVICE_DEBUG (1, on, yes, true in any case)."""
    return settings.switch(settings.DEVICE_DEBUG, False, environ)


def spirv_device_flags(probed: Sequence[str], device_debug: bool = False) -> list[str]:
    """Compile flags for the SPIR-V target from what the compiler probe found.

    Default visibility is a device-code need (calls into device libraries the
    runtime links at JIT time), so it is scoped to the SPIR-V target: the host
    and native code keep whatever visibility the project chose.

    The in-tree backend (LLVM 22) writes NonSemantic.Shader.DebugInfo.100 that
    spirv-val rejects (DebugCompilationUnit's Language is a literal, not an
    OpConstant id), and ROCm's runtime translator reads the .200 form its own
    llvm-spirv writes; so under -g the SPIR-V device pass alone gets -g0 unless
    the user opts in. Host and native device code keep their debug info.

    The opt-in also goes on the command line as -DROCM_SPIRV_DEVICE_DEBUG=1: a
    prefix's clang++ (probed with no flags) drops device debug info itself unless
    it sees that definition, and a compiler cache keys on it."""
    out: list[str] = []
    for f in probed:
        out += [f"-Xarch_{SPIRV_TARGET}", f] if f.startswith("-fvisibility") else [f]
    if device_debug:
        out.append(f"-D{DEVICE_DEBUG_ENV}=1")
    elif IN_TREE_BACKEND in probed:
        out += [f"-Xarch_{SPIRV_TARGET}", "-g0"]
    return out
