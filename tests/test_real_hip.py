"""Real HIP code (hip_runtime.h, device libraries, the runtime API) in all three modes, through toolchain files.

samples/hip_library is a ROCm-shaped library (ocml math, atomics, LDS, warp shuffles with the
runtime warpSize, templates); samples/hip_app a runtime-API program; both built unmodified with
generated toolchain files for `native` (8 targets), `hybrid` (SPIR-V + gfx942) and `spirv`, then
read back: exactly the requested bundle entries, native code objects with no undefined device-library
symbols, SPIR-V that spirv-val accepts, the ROCm 7 runtime soname, and the app run to its
"no AMD GPU" line (the prefix's link-only runtime reports no device).

Expected time on 2 cores: hip_library ~50 s native (5 TUs x 8 targets), ~15 s spirv/hybrid.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from bundles import bundle_entries, device_entries, fatbin_sections, split_bundles, unbundle
from conftest import SAMPLES
from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile
from tcfile import SPIRV_ONLY, build, configure, generate
from test_migration_samples import MIGRATION, SAMPLE_LIST, Sample

NATIVE8 = ("gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1101", "gfx1200", "gfx1201")
EXPECTED = {
    "spirv": SPIRV_ONLY,
    "native": sorted(f"hipv4-amdgcn-amd-amdhsa--{a}" for a in NATIVE8),
    "hybrid": ["hipv4-amdgcn-amd-amdhsa--gfx942", "hipv4-spirv64-amd-amdhsa--amdgcnspirv"],
}
MODES = tuple(EXPECTED)


@pytest.fixture(scope="module")
def toolchain_files(toolchain: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("tcfiles")
    return {
        "spirv": generate(toolchain, d / "spirv.cmake"),
        "native": generate(toolchain, d / "native.cmake", "native", ",".join(NATIVE8)),
        "hybrid": generate(toolchain, d / "hybrid.cmake", "hybrid", "gfx942"),
    }


def needed(path: Path) -> list[str]:
    with path.open("rb") as f:
        dyn = ELFFile(f).get_section_by_name(".dynamic")
        assert isinstance(dyn, DynamicSection)
        return [t.needed for t in dyn.iter_tags() if t.entry.d_tag == "DT_NEEDED"]


def check_device_code(toolchain: Path, binary: Path, tmp: Path) -> None:
    """Native code objects link ocml/ockl (nothing left undefined); SPIR-V passes spirv-val."""
    bundler = toolchain / "bin" / "clang-offload-bundler"
    blobs = [b for s in fatbin_sections(binary) for b in split_bundles(s)]
    assert blobs, f"{binary} carries no offload bundle"
    for i, blob in enumerate(blobs):
        for entry in [e for e in bundle_entries(bundler, blob) if not e.startswith("host-")]:
            out = unbundle(bundler, blob, entry, tmp / f"{i}-{entry.rsplit('-', 1)[-1]}")
            if "amdgcnspirv" in entry:
                assert out.read_bytes()[:4] == b"\x03\x02\x23\x07"
                if shutil.which("spirv-val"):
                    val = subprocess.run(["spirv-val", str(out)], capture_output=True, text=True, check=False)
                    assert val.returncode == 0, (entry, val.stderr)
            else:
                undefined = subprocess.run([str(toolchain / "bin" / "llvm-nm"), "-u", str(out)],
                                           capture_output=True, text=True, check=True).stdout
                assert not [s for s in undefined.split() if s.startswith(("__ocml_", "__ockl_", "__oclc_"))], \
                    (entry, undefined)


# sample -> (its app, other artifacts carrying device code, the app's first line without a GPU)
APPS = {
    "hip_library": ("hiplib_app", ["libhiplib.a"], "hiplib_app: no AMD GPU (no ROCm-capable device is detected)"),
    "hip_app": ("hip_app", [], "hip_app: no AMD GPU present (no ROCm-capable device is detected)"),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("sample", sorted(APPS))
def test_real_hip_sample_builds_and_runs_to_no_gpu(sample: str, mode: str, toolchain: Path,
                                                   toolchain_files: dict[str, Path], tmp_path: Path) -> None:
    exe, artifacts, first_line = APPS[sample]
    b = tmp_path / "b"
    configure(SAMPLES / sample, b, toolchain_files[mode])
    build(b)
    app = b / exe
    for artifact in [app, *(b / a for a in artifacts)]:
        assert device_entries(toolchain / "bin" / "clang-offload-bundler", artifact) == EXPECTED[mode], artifact
    check_device_code(toolchain, app, tmp_path)
    assert "libamdhip64.so.7" in needed(app) and "libamdhip64.so.5" not in needed(app)
    run = subprocess.run([str(app)], capture_output=True, text=True, check=False, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(first_line), run.stdout


REDIRECTABLE = [s for s in SAMPLE_LIST if s.name != "unredirectable"]


@pytest.mark.parametrize("mode", ["native", "hybrid"])
@pytest.mark.parametrize("sample", REDIRECTABLE, ids=[s.name for s in REDIRECTABLE])
def test_migration_sample_builds_native_and_hybrid(sample: Sample, mode: str, toolchain: Path,
                                                   toolchain_files: dict[str, Path], tmp_path: Path) -> None:
    """The SPIR-V mode of these is tests/test_migration_toolchainfile.py."""
    b = tmp_path / "b"
    configure(MIGRATION / sample.name, b, toolchain_files[mode])
    build(b)
    bundler = toolchain / "bin" / "clang-offload-bundler"
    for rel, native in sample.fatbins.items():
        assert device_entries(bundler, b / rel) == (EXPECTED[mode] if native else []), rel


def test_nvidia_platform_hints_change_nothing(toolchain: Path, toolchain_files: dict[str, Path],
                                              tmp_path: Path) -> None:
    """With nvcc on PATH and a hipconfig saying "nvidia" (Debian's hipcc does), CMake would pick NVIDIA."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "hipconfig").write_text("#!/bin/sh\ncase \"$1\" in --platform) echo nvidia ;; *) echo /usr ;; esac\n")
    (fake / "hipconfig").chmod(0o755)
    if shutil.which("nvcc") is None:
        (fake / "nvcc").write_text("#!/bin/sh\necho 'nvcc: NVIDIA (R) Cuda compiler driver'\n")
        (fake / "nvcc").chmod(0o755)
    b = tmp_path / "b"
    env = {"PATH": f"{fake}:{os.environ['PATH']}", "HIP_PLATFORM": "nvidia"}
    configure(SAMPLES / "hip_app", b, toolchain_files["spirv"], env=env)
    # The AMD platform: clang (not nvcc) as the HIP compiler, the prefix as its ROCm root.
    (compiler_info,) = b.glob("CMakeFiles/*/CMakeHIPCompiler.cmake")
    info = compiler_info.read_text()
    assert 'set(CMAKE_HIP_COMPILER_ID "Clang")' in info and f'set(CMAKE_HIP_COMPILER_ROCM_ROOT "{toolchain}")' in info
    build(b)
    assert device_entries(toolchain / "bin" / "clang-offload-bundler", b / "hip_app") == SPIRV_ONLY


def test_unredirectable_sample_native_with_its_own_targets_hybrid_refused(toolchain: Path, tmp_path: Path) -> None:
    """Its own allow-list (gfx908..gfx1101) takes no gfx1200, so native mode gets two of its targets; with
    amdgcnspirv on the list the project refuses, as in SPIR-V mode (tests/test_migration_toolchainfile.py)."""
    sample = next(s for s in SAMPLE_LIST if s.name == "unredirectable")
    native = generate(toolchain, tmp_path / "n.cmake", "native", "gfx90a,gfx1100")
    configure(MIGRATION / sample.name, tmp_path / "n", native)
    build(tmp_path / "n")
    bundler = toolchain / "bin" / "clang-offload-bundler"
    for rel, entries in sample.fatbins.items():
        assert device_entries(bundler, tmp_path / "n" / rel) == entries, rel
    hybrid = generate(toolchain, tmp_path / "h.cmake", "hybrid", "gfx90a")
    out = configure(MIGRATION / sample.name, tmp_path / "h", hybrid, check=False)
    assert out.returncode != 0 and "'amdgcnspirv' is not a gfx target name" in " ".join(out.stderr.split())
