"""Real code from PyPI sdists, built unmodified in spirv, native and hybrid mode, every SPIR-V module validated.

Four sdists (pinned by version and sha256, downloaded once into the benchmark cache) whose HIP device
code is hand-written, each built through toolchain files from `rocm-spirv toolchain generate` (the way a
user tries a project without editing it):

- hip-quant: 35 HIP quantization kernels for RDNA and CDNA GPUs (warp shuffles, shared memory, fp16/fp8
  conversions, the i-quant grids); tests/data/real_projects/hip_quant_kernels builds four of them as one
  shared library with the flags of the sdist's build.sh. RelWithDebInfo (device debug info) is built
  too: debug builds are where clang 22's SPIR-V once failed validation.
- vapoursynth-bm3dhip: the BM3D denoiser's HIP plugin (a kernel template in 8 instantiations, 64-lane
  transforms, __launch_bounds__ per gfx family), built by the sdist's own CMakeLists.txt, which finds
  the `hip` package (hip::device) and adds -mno-wavefrontsize64 -mcumode: only its options are set.
- gafime-rocm: the GAFIME feature-search backend, one 2,800-line kernels.hip (5 kernels, 3 of them
  templates), built by tests/data/real_projects/gafime_rocm as its setup.py's one hipcc call does.
- xerv-crayon: a CPython extension module written in HIP (a tokenizer kernel and the module's methods
  in one file), built by tests/data/real_projects/crayon_rocm as a Python module.

`rocm-spirv inspect --require <mode> --validate` must pass on the built library: the entries its mode
promises and every SPIR-V module accepted by spirv-val. Every device module must carry the project's
kernels, all instances of them, and in hybrid mode the SPIR-V module and the gfx942 code object the
same ones. Offline and without the cached sdist a project's tests are skipped with the reason.

The full matrix of upstream example collections (57 projects, fetched, never committed) is the benchmark
benchmarks/real_projects.py; its results are in benchmarks/results/real_projects*.md.

Expected time on an idle 2-core machine, CPU: a configure ~6 s each; builds: hip-quant's 4 kernels 10 to
20 s, bm3dhip 8 to 19 s, gafime 4 to 10 s, crayon 3 to 5 s; about 4 minutes for the 13 builds.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import tcfile

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from sdist_cache import Sdist, Unavailable, default_cache, fetch

DATA = Path(__file__).resolve().parent / "data" / "real_projects"
NATIVE = "gfx942"
REQUIRE = {"spirv": "spirv-only", "native": f"native:{NATIVE}", "hybrid": f"hybrid:{NATIVE}"}


@dataclass(frozen=True)
class Project:
    sdist: Sdist
    cmake: str  # the CMake project: a folder of DATA, or "" for the sdist's own top-level CMakeLists.txt
    defs: tuple[str, ...]  # cache entries; {src} is the unpacked sdist
    library: str  # the built library, relative to the build dir
    bundles: int  # device bundles in it: one per HIP translation unit
    kernels: tuple[str, ...]  # __global__ functions (source names) every mode must carry
    instances: int  # kernel symbols in each kind of device module (template instances count apiece)


# One plain kernel, a K-quant, an i-quant with its lookup grids (hip_iquant_util.h), an fp8 expander.
HIP_QUANT_KERNELS = ("quant_q4_0.cu", "quant_q4_K.cu", "quant_iq2_xxs.cu", "fp8_expand.cu")
HIP_QUANT = Project(
    Sdist("hip-quant", "2.2.4.post215", "hip_quant-2.2.4.post215.tar.gz",
          "12aeee1557ce310f03c497295a05e4c616568bbb181b28f2388c2d7185d10242"),
    "hip_quant_kernels", ("HIP_QUANT_SOURCE={src}", "HIP_QUANT_KERNELS=" + ";".join(HIP_QUANT_KERNELS)),
    "libhip_quant_kernels.so", len(HIP_QUANT_KERNELS),
    ("quantize_q4_0_kernel", "quantize_q4_K_kernel", "quantize_iq2_xxs_kernel", "fp8_to_f32_expand_kernel",
     "fp8_e5m2_to_f32_expand_kernel"), 5)
BM3DHIP = Project(
    Sdist("vapoursynth-bm3dhip", "2.17.5", "vapoursynth_bm3dhip-2.17.5.tar.gz",
          "5d9ccd5d2686d25ea48bb7d8195fcda8d0d99574adb143f02deac2d04732841b"),
    "", ("ENABLE_CUDA=OFF", "ENABLE_CPU=OFF", "ENABLE_HIP=ON"),
    "VapourSynth-BM3DCUDA/hip_source/libbm3dhip.so", 1, ("bm3d",), 8)
GAFIME = Project(
    Sdist("gafime-rocm", "0.4.7", "gafime_rocm-0.4.7.tar.gz",
          "ab8109fe7edee841db601e0d19861272a1406fd94c3192ad433e659dc33a88a2"),
    "gafime_rocm", ("GAFIME_SOURCE={src}",), "libgafime_rocm.so", 1,
    ("gafime_global_continuous_kernel", "gafime_batched_kernel", "gafime_discrete_soft_batch_kernel",
     "gafime_discrete_selection_batch_kernel", "gafime_discrete_selection_adaptive_kernel"), 19)
CRAYON = Project(
    Sdist("xerv-crayon", "5.7.16", "xerv_crayon-5.7.16.tar.gz",
          "d1436c25f4552225a7eb155b59e4cc0bc294f4a8c9583493a9a1d628c3035a38"),
    "crayon_rocm", ("CRAYON_SOURCE={src}", f"Python3_EXECUTABLE={sys.executable}"), "crayon_rocm.so", 1,
    ("tokenize_kernel_hip",), 1)

MODES = ("spirv", "native", "hybrid")
CASES = [
    *(pytest.param(HIP_QUANT, mode, "Release", id=f"hip-quant-{mode}") for mode in MODES),
    pytest.param(HIP_QUANT, "spirv", "RelWithDebInfo", id="hip-quant-spirv-RelWithDebInfo"),
    *(pytest.param(p, mode, "Release", id=f"{p.sdist.name}-{mode}")
      for p in (BM3DHIP, GAFIME, CRAYON) for mode in MODES),
]


def unpacked(sdist: Sdist) -> Path:
    try:
        return fetch(sdist, default_cache())
    except Unavailable as err:
        pytest.skip(f"the pinned {sdist.name} sdist is neither in {default_cache()} nor downloadable: {err}")


def names(entries: list[dict[str, object]], kind: str) -> set[str]:
    """The kernel symbols of the device entries of one kind (spirv or code-object)."""
    out: set[str] = set()
    for e in entries:
        if e["kind"] == kind:
            info = e["spirv"] if kind == "spirv" else e["code_object"]
            assert isinstance(info, dict), e
            out.update(info["entry_points" if kind == "spirv" else "kernels"])
    return out


def carries(symbols: set[str], kernel: str) -> bool:
    """A kernel's symbol: its own name (extern "C") or an Itanium-mangled name holding <length><name>."""
    return kernel in symbols or any(f"{len(kernel)}{kernel}" in s for s in symbols if s.startswith("_Z"))


@pytest.mark.slow
@pytest.mark.parametrize(("project", "mode", "build_type"), CASES)
def test_real_project_builds_and_validates(project: Project, mode: str, build_type: str, toolchain: Path,
                                           tmp_path: Path) -> None:
    src = unpacked(project.sdist)
    tc = tcfile.generate(toolchain, tmp_path / f"{mode}.cmake", mode, "" if mode == "spirv" else NATIVE)
    build = tmp_path / "build"
    tcfile.configure(DATA / project.cmake if project.cmake else src, build, tc, f"CMAKE_BUILD_TYPE={build_type}",
                     *(d.format(src=src) for d in project.defs))
    tcfile.build(build)
    lib = build / project.library
    proc = subprocess.run([sys.executable, "-m", "rocm_spirv", "inspect", "--json", "--validate",
                           "--require", REQUIRE[mode], str(lib)], capture_output=True, text=True, check=False)
    report = json.loads(proc.stdout)
    entries = [e for i in report["inputs"] for f in i["files"] for e in f["entries"] if e["kind"] != "host"]
    spirv = [e for e in entries if e["kind"] == "spirv"]
    native = [e for e in entries if e["kind"] != "spirv"]
    # One bundle per HIP translation unit: the mode decides what each carries.
    assert len(spirv) == (0 if mode == "native" else project.bundles), entries
    assert len(native) == (0 if mode == "spirv" else project.bundles), entries
    assert all(e["target"] == NATIVE for e in native)
    assert report["requirement"]["met"], report["requirement"]
    rejected = [f"{e['id']}: {e['validation']['message']}" for e in spirv if not e["validation"]["ok"]]
    assert not rejected, f"spirv-val rejects {len(rejected)} of {len(spirv)} modules: {rejected}"
    assert report["validation"]["passed"] and proc.returncode == 0, proc.stderr
    for kind, modules in (("spirv", spirv), ("code-object", native)):
        if not modules:
            continue
        symbols = names(modules, kind)
        missing = [k for k in project.kernels if not carries(symbols, k)]
        assert not missing, f"{kind} lacks {missing}: {sorted(symbols)}"
        assert len(symbols) == project.instances, sorted(symbols)
    if spirv and native:
        assert names(spirv, "spirv") == names(native, "code-object")
