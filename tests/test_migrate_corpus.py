"""`migrate` on real ROCm code nobody here wrote: the headers and CMake modules Debian ships in
librocprim-dev, librocrand-dev, libhipsparse-dev, librocsparse-dev and rocm-cmake (installed by .ci/setup).

Every expected finding was checked by reading the code at that line:
- rocprim/config.hpp:93 `#if (__gfx1010__ || … || __gfx1031__)` picks ROCPRIM_NAVI: one finding for the line.
- rocprim/types.hpp:153 `#define __AMDGCN_WAVEFRONT_SIZE 64` when the compiler gives none: under SPIR-V every
  use (about 40 in warp/*.hpp) sees 64; that definition is the one finding.
- rocprim/intrinsics/thread.hpp:44 and :72: `constexpr unsigned int warp_size()`/`device_warp_size()` return
  warpSize, which is no constant under SPIR-V.
- rocprim/intrinsics/warp_shuffle.hpp:127 (mov_dpp): a feature builtin with no guard. (:149, ds_swizzle, is
  not one: every GCN/RDNA target and amdgcnspirv accept it.)
- rocprim/thread/thread_load.hpp:74 and thread_store.hpp:75: `asm volatile(#asm_operator …)` in the
  ROCPRIM_ASM_THREAD_LOAD/STORE macros, whose instruction comes in as a macro argument, in device functions
  marked ROCPRIM_DEVICE (one finding per macro, at its first assembly).
- rocrand/rocrand_common.h:56: the gfx8/gfx9 list that defines ROCRAND_ENABLE_INLINE_ASM; the v_mad_u64_u32
  assembly behind that macro (line 95) and the PTX under __HIP_PLATFORM_NVCC__ (line 103) are not reported.
And not reported: rocm-cmake's per-target probe compile (ROCMCheckTargetIds.cmake:24), the HIP-CPU branches of
rocprim/intrinsics/warp.hpp (std::bitset<warpSize>), the __AMDGCN_WAVEFRONT_SIZE uses the fallback feeds,
hipSPARSE's and rocSPARSE's host API headers.
"""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from rocm_spirv.migrate.scan import scan

Expected = list[tuple[str, int, str]]
CORPUS: dict[str, dict[str, Expected]] = {
    "librocprim-dev": {
        "/usr/include/rocprim": [
            ("config.hpp", 93, "RSM201"), ("intrinsics/thread.hpp", 44, "RSM203"),
            ("intrinsics/thread.hpp", 72, "RSM203"), ("intrinsics/warp_shuffle.hpp", 127, "RSM205"),
            ("thread/thread_load.hpp", 74, "RSM204"),
            ("thread/thread_store.hpp", 75, "RSM204"), ("types.hpp", 153, "RSM202")],
        "/usr/lib/cmake/rocprim": [],
    },
    "librocrand-dev": {
        "/usr/include/rocrand": [("rocrand_common.h", 56, "RSM201")],
        "/usr/lib/x86_64-linux-gnu/cmake/rocrand": [],
    },
    "libhipsparse-dev": {"/usr/include/hipsparse": [], "/usr/lib/x86_64-linux-gnu/cmake/hipsparse": []},
    "librocsparse-dev": {"/usr/include/rocsparse": [], "/usr/lib/x86_64-linux-gnu/cmake/rocsparse": []},
    # ROCMCheckTargetIds.cmake:24 probes each target with check_cxx_compiler_flag: a probe, no finding
    "rocm-cmake": {"/usr/share/rocm/cmake": []},
}


def installed(package: str) -> bool:
    if shutil.which("dpkg-query") is None:
        return False
    proc = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True,
                          check=False)
    return proc.returncode == 0 and proc.stdout.endswith("installed")


def found(path: str) -> Expected:
    return [(f.path, f.line, f.rule.id) for f in scan(Path(path)).result.findings]


@pytest.mark.parametrize("package", sorted(CORPUS))
def test_pinned_findings(package: str) -> None:
    if not installed(package):
        pytest.skip(f"{package} is not installed (apt-get install {package}; .ci/setup does)")
    for path, expected in CORPUS[package].items():
        assert Path(path).is_dir(), f"{package} no longer ships {path}"
        assert sorted(found(path)) == expected, path


def test_counts_per_rule_and_messages() -> None:
    missing = [p for p in ("librocprim-dev", "librocrand-dev") if not installed(p)]
    if missing:
        pytest.skip(f"{missing[0]} is not installed (apt-get install {missing[0]}; .ci/setup does)")
    prim = scan(Path("/usr/include/rocprim")).result
    assert Counter(f.rule.id for f in prim.findings) == {"RSM201": 1, "RSM202": 1, "RSM203": 2, "RSM204": 2,
                                                         "RSM205": 1}
    by = {(f.path, f.line): f.message for f in prim.findings}
    assert by[("config.hpp", 93)].startswith("__gfx1010__, __gfx1011__, __gfx1012__, __gfx1030__, __gfx1031__ are")
    assert "as 64" in by[("types.hpp", 153)]
    assert "macro ROCPRIM_ASM_THREAD_LOAD" in by[("thread/thread_load.hpp", 74)]
    (rand,) = scan(Path("/usr/include/rocrand")).result.findings
    assert "__gfx801__" in rand.message and "__gfx909__" in rand.message and "ROCRAND_ENABLE_INLINE_ASM" in rand.message
