"""Per-arch macros that ROCm libraries' public headers define for the device pass. A project that includes
<ck/ck.hpp> and tests `defined(CK_USE_AMD_V_DOT2_F32_F16)` tests the GPU, though no file of its tree names
an arch: the header lives outside the tree (an installed library), so the scan knows its macros from this
table. Where the header is in the scanned tree (the library itself), the scan reads it and the table yields
to it (a macro some scanned file defines is the project's own).

The table is what clang 22's preprocessor answers, not a reading of the header: a macro is per-arch when its
definition device-only under amdgcnspirv (defined or not, and its value) differs from one on some target of
pp.ROCM_TARGET_FAMILIES, for a TU that only includes the header. Names the compiler itself predefines (an
empty TU's) and clang-shaped names (`__gfx9__`, which the scan reads as arch macros anyway) are left out.
Regenerate from the library's include folder at the commit recorded in the entry:

    python -m rocm_spirv.migrate.source_checks.library_macros ck/ck.hpp INCLUDE_DIR -DCK_DONT_USE_HIP_RUNTIME_HEADERS
    python -m rocm_spirv.migrate.source_checks.library_macros hip/amd_detail/amd_hip_fp8.h CLR/hipamd/include \
        -D__HIPCC_RTC__
    python -m rocm_spirv.migrate.source_checks.library_macros rocwmma/internal/config.hpp ROCWMMA/library/include

(CK_DONT_USE_HIP_RUNTIME_HEADERS keeps HIP's own headers out, they are not the library's; ck/config.h, which
CK's configure generates, may be an empty file in INCLUDE_DIR). tests/test_migrate_library_macros.py checks
the table's shape and, where the pinned header is on the machine, asks clang again.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from rocm_spirv.migrate.pp import ROCM_TARGET_FAMILIES


@dataclass(frozen=True)
class LibraryHeader:
    # A project that #includes one of these gets the macros: a name ending in `/` is a folder (any header
    # under `ck/`, e.g. `ck/utility/data_type.hpp`), any other name is one header.
    reached_by: tuple[str, ...]
    include: str  # the header that defines them, as an #include names it
    upstream: str  # owner/name of the public repository
    commit: str
    path: str  # in that repository
    sha256: str  # of the header at that commit
    macros: tuple[str, ...]  # per-arch, sorted
    args: tuple[str, ...] = ()  # the clang arguments, besides -I<include folder>, it was generated with


LIBRARY_HEADERS: tuple[LibraryHeader, ...] = (
    LibraryHeader(
        ("ck/",), "ck/ck.hpp", "ROCm/composable_kernel", "8e22e1ae31bbf7086f69d8724e027676791d351a",
        "include/ck/ck.hpp", "a33abfed266ad62eed839dab2dd9da37835c5042234068a8ff1d0f7a62812a3e",
        (
            "CK_BUFFER_RESOURCE_3RD_DWORD",
            "CK_USE_AMD_BUFFER_ATOMIC_ADD_FLOAT",
            "CK_USE_AMD_BUFFER_ATOMIC_MAX_FLOAT64",
            "CK_USE_AMD_MFMA",
            "CK_USE_AMD_MFMA_BF16_1K_OP",
            "CK_USE_AMD_MFMA_GFX940",
            "CK_USE_AMD_V_DOT2_F32_F16",
            "CK_USE_AMD_V_DOT4_I32_I8",
            "CK_USE_AMD_V_DOT4_I32_I8_GFX11",
            "CK_USE_AMD_V_FMAC_F32",
            "CK_USE_AMD_V_MAC_F32",
        ),
        ("-DCK_DONT_USE_HIP_RUNTIME_HEADERS",),
    ),
    # HIP's own fp8 header picks the conversion path and the fp8 flavour per GPU (FNUZ on gfx94x, OCP on
    # gfx12 and gfx950, both in the generic pass, fast path 0 under amdgcnspirv); not reached from
    # hip_runtime.h. Generated with -D__HIPCC_RTC__, whose branch of the header includes nothing, so the
    # macro block is preprocessed without the rest of HIP's headers (the ENABLE_*_HIPRTC pair exists
    # only under hipRTC, and is per-arch there).
    LibraryHeader(
        ("hip/hip_fp8.h", "hip/amd_detail/amd_hip_fp8.h"), "hip/amd_detail/amd_hip_fp8.h", "ROCm/clr",
        "f9f995c6d0aecec28debd3db0f41df0c15ec003d", "hipamd/include/hip/amd_detail/amd_hip_fp8.h",
        "b57ff27e43a35095b43a5154e8d7c6bfd7d1a6e306dd94bd411bb0060bad29b0",
        ("ENABLE_FNUZ_HIPRTC", "ENABLE_OCP_HIPRTC", "HIP_FP8_CVT_FAST_PATH", "HIP_FP8_TYPE_FNUZ", "HIP_FP8_TYPE_OCP"),
        ("-D__HIPCC_RTC__",),
    ),
    # rocWMMA's arch flags (ROCWMMA_ARCH_GFX9 is 1 in a gfx9 device pass, 0 elsewhere) and wave mode
    LibraryHeader(
        ("rocwmma/",), "rocwmma/internal/config.hpp", "ROCm/rocWMMA", "fa7e8ee6f1ad43261fe5a66abddfe7c4ef8e7d6e",
        "library/include/rocwmma/internal/config.hpp",
        "b9577b4e2fa7ce0e9104df46a2e2b28874366f0949606e932a022e18f9321144",
        (
            "ROCWMMA_ARCH_GFX11", "ROCWMMA_ARCH_GFX1100", "ROCWMMA_ARCH_GFX1101", "ROCWMMA_ARCH_GFX12",
            "ROCWMMA_ARCH_GFX1200", "ROCWMMA_ARCH_GFX1201", "ROCWMMA_ARCH_GFX9", "ROCWMMA_ARCH_GFX908",
            "ROCWMMA_ARCH_GFX90A", "ROCWMMA_ARCH_GFX942", "ROCWMMA_ARCH_GFX94X", "ROCWMMA_BLOCK_DIM_16_SUPPORTED",
            "ROCWMMA_BLOCK_DIM_32_SUPPORTED", "ROCWMMA_WAVE32_MODE", "ROCWMMA_WAVE64_MODE",
        ),
    ),
)


# A library's device wave size under a name of its own, a compile-time constant on a native target: used as
# one (an array bound, a template argument) it is what `warpSize` so used is, RSM203. Not a preprocessor
# fact (the macro expands to a constexpr function call), so read from the header, not asked of -dM:
# PyTorch's `#define C10_WARP_SIZE (C10_WARP_SIZE_INTERNAL())`, whose __device__ overload returns 64 under
# `__GFX9__` and 32 otherwise (32 under amdgcnspirv, wrong on every wave64 GPU; newer PyTorch returns the
# run-time warpSize under __SPIRV__, and a compile-time use then does not compile).
@dataclass(frozen=True)
class WaveSizeName:
    name: str
    include: str  # the header that defines it, as an #include names it
    upstream: str
    commit: str
    path: str
    read: str  # how the definition was read (no local copy of a 4 GB repository to hash)


WAVE_SIZE_NAMES: tuple[WaveSizeName, ...] = (
    WaveSizeName("C10_WARP_SIZE", "c10/macros/Macros.h", "pytorch/pytorch", "c0af3789ea02dfd7d3999b69fb7b2c2ebfc95439",
                 "torch/headeronly/macros/Macros.h", "the code index's copy at that commit (read_file)"),
    # rocPRIM's `constexpr unsigned int device_warp_size()` returns ROCPRIM_WAVEFRONT_SIZE, which config.hpp sets
    # to __AMDGCN_WAVEFRONT_SIZE: per target natively, none under amdgcnspirv (hipCUB and RAFT ports use it)
    WaveSizeName("device_warp_size", "rocprim/rocprim.hpp", "ROCm/rocPRIM", "0ce43c037bd90b88b90ac15ebf697307ca5a932d",
                 "rocprim/include/rocprim/intrinsics/thread.hpp", "a mirror of the repository at that commit"),
)


# What a file that reaches some table entry's header holds: `#include <ck/…` or `#include "hip/hip_fp8.h`
# (the scan's prefilter: such a file may test a per-arch macro while naming no arch itself).
INCLUDE_TOKENS = tuple(f"{q}{r}" for h in LIBRARY_HEADERS for r in h.reached_by for q in '<"')


def included(includes: tuple[str, ...]) -> dict[str, str]:
    """Per-arch macro -> the library header defining it, for a file with these #includes (as written)."""
    out: dict[str, str] = {}
    for h in LIBRARY_HEADERS:
        if any(inc.startswith(r) if r.endswith("/") else inc == r for inc in includes for r in h.reached_by):
            out.update(dict.fromkeys(h.macros, h.include))
    return out

_DEFINE = re.compile(r"^#define ([A-Za-z_]\w*)(?:\(.*?\))?(?: (.*))?$", re.M)


def defined(clang: str, text: str, target: str, args: list[str]) -> dict[str, str]:
    """Name -> body of every macro defined device-only for target (an --offload-arch value) after text."""
    cmd = [clang, "-x", "hip", f"--offload-arch={target}", "--cuda-device-only", "-nogpuinc", "-nogpulib",
           "-E", "-dM", *args, "-"]
    out = subprocess.run(cmd, input=text, capture_output=True, text=True, check=True, timeout=300).stdout
    return {m.group(1): (m.group(2) or "") for m in _DEFINE.finditer(out)}


def per_arch(clang: str, include: str, args: list[str]) -> tuple[str, ...]:
    """The macros the header defines differently for some ROCm target than for amdgcnspirv."""
    text = f'#include "{include}"\n'
    spirv = defined(clang, text, "amdgcnspirv", args)
    builtin = set(defined(clang, "", "amdgcnspirv", args))
    differ: set[str] = set()
    for target, _family in ROCM_TARGET_FAMILIES:
        builtin |= set(defined(clang, "", target, args))
        native = defined(clang, text, target, args)
        differ |= {n for n in spirv.keys() | native.keys() if spirv.get(n) != native.get(n)}
    return tuple(sorted(n for n in differ - builtin if not n.startswith("__")))


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: python -m rocm_spirv.migrate.source_checks.library_macros INCLUDE INCLUDE_DIR [CLANG_ARG ...]",
              file=sys.stderr)
        return 2
    include, folder, *rest = argv
    header = Path(folder) / include
    macros = per_arch("clang-22", include, [f"-I{folder}", *rest])
    print(f"{include}: sha256 {hashlib.sha256(header.read_bytes()).hexdigest()}")
    for name in macros:
        print(name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
