"""Real code from a PyPI sdist, built unmodified in spirv, native and hybrid mode, every SPIR-V module validated.

hip-quant (PyPI sdist, pinned by sha256, downloaded once into the benchmark cache) carries 35 hand-written
HIP quantization kernels for RDNA and CDNA GPUs (warp shuffles, shared memory, fp16/fp8 conversions, the
i-quant grids). tests/data/real_projects/hip_quant_kernels builds four of them as one shared library with the
flags of the sdist's build.sh, through toolchain files from `rocm-spirv toolchain generate` (the way a user
tries a project without editing it), and `rocm-spirv inspect --require <mode> --validate` must pass on
the library: the entries its mode promises and every SPIR-V module accepted by spirv-val. RelWithDebInfo
(device debug info) is built too: debug builds are where clang 22's SPIR-V once failed validation.

The full matrix of upstream example collections (57 projects, fetched, never committed) is the benchmark
benchmarks/real_projects.py; its results are in benchmarks/results/real_projects*.md.

Expected time on an idle 2-core machine: four configures of ~6 s CPU and four builds of 4 kernels (~10 to
20 s CPU each); about 90 s.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import tcfile

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from sdist_cache import Sdist, Unavailable, default_cache, fetch

PROJECT = Path(__file__).resolve().parent / "data" / "real_projects" / "hip_quant_kernels"
HIP_QUANT = Sdist("hip-quant", "2.2.4.post215", "hip_quant-2.2.4.post215.tar.gz",
                  "12aeee1557ce310f03c497295a05e4c616568bbb181b28f2388c2d7185d10242")
# One plain kernel, a K-quant, an i-quant with its lookup grids (hip_iquant_util.h), an fp8 expander.
KERNELS = ("quant_q4_0.cu", "quant_q4_K.cu", "quant_iq2_xxs.cu", "fp8_expand.cu")
NATIVE = "gfx942"
REQUIRE = {"spirv": "spirv-only", "native": f"native:{NATIVE}", "hybrid": f"hybrid:{NATIVE}"}


@pytest.fixture(scope="module")
def hip_quant() -> Path:
    try:
        return fetch(HIP_QUANT, default_cache())
    except Unavailable as err:
        pytest.skip(f"the pinned hip-quant sdist is neither in {default_cache()} nor downloadable: {err}")


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "build_type"), [
    ("spirv", "Release"), ("native", "Release"), ("hybrid", "Release"), ("spirv", "RelWithDebInfo")])
def test_hip_quant_kernels_build_and_validate(mode: str, build_type: str, hip_quant: Path, toolchain: Path,
                                              tmp_path: Path) -> None:
    tc = tcfile.generate(toolchain, tmp_path / f"{mode}.cmake", mode, "" if mode == "spirv" else NATIVE)
    build = tmp_path / "build"
    tcfile.configure(PROJECT, build, tc, f"CMAKE_BUILD_TYPE={build_type}", f"HIP_QUANT_SOURCE={hip_quant}",
                     "HIP_QUANT_KERNELS=" + ";".join(KERNELS))
    tcfile.build(build)
    lib = build / "libhip_quant_kernels.so"
    proc = subprocess.run([sys.executable, "-m", "rocm_spirv", "inspect", "--json", "--validate",
                           "--require", REQUIRE[mode], str(lib)], capture_output=True, text=True, check=False)
    report = json.loads(proc.stdout)
    entries = [e for i in report["inputs"] for f in i["files"] for e in f["entries"] if e["kind"] != "host"]
    spirv = [e for e in entries if e["kind"] == "spirv"]
    native = [e for e in entries if e["kind"] != "spirv"]
    # One bundle per kernel file: the mode decides what each carries.
    assert len(spirv) == (0 if mode == "native" else len(KERNELS)), entries
    assert len(native) == (0 if mode == "spirv" else len(KERNELS)), entries
    assert all(e["target"] == NATIVE for e in native)
    assert report["requirement"]["met"], report["requirement"]
    rejected = [f"{e['id']}: {e['validation']['message']}" for e in spirv if not e["validation"]["ok"]]
    assert not rejected, f"spirv-val rejects {len(rejected)} of {len(spirv)} modules: {rejected}"
    assert report["validation"]["passed"] and proc.returncode == 0, proc.stderr
    kernels = {k for e in spirv for k in e["spirv"]["entry_points"]}
    if spirv:
        assert {"quantize_q4_0_kernel", "quantize_q4_K_kernel"} <= kernels, kernels
