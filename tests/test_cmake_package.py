"""The CMake package on real projects: every way of picking targets x every offload mode."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bundles import device_entries
from cmakebuild import tool
from conftest import REPO, SAMPLES

EIGHT = ["gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1101", "gfx1200", "gfx1201"]
SPIRV = ["hip-spirv64-amd-amdhsa--amdgcnspirv"]
HYBRID = sorted(["hipv4-amdgcn-amd-amdhsa--gfx942", "hipv4-spirv64-amd-amdhsa--amdgcnspirv"])
NATIVE = sorted(f"hipv4-amdgcn-amd-amdhsa--{g}" for g in EIGHT)


def configure(src: Path, build: Path, prefix: Path, *defs: str, compiler: Path | None = None,
              check: bool = True) -> subprocess.CompletedProcess[str]:
    clang = compiler or prefix / "bin" / "clang++"
    cmd = [tool("cmake"), "-S", str(src), "-B", str(build), "-G", "Ninja",
           f"-DCMAKE_MAKE_PROGRAM={tool('ninja')}", f"-DCMAKE_CXX_COMPILER={clang}",
           f"-DCMAKE_HIP_COMPILER={prefix / 'bin' / 'clang++'}", f"-DRocmSpirv_DIR={REPO / 'cmake'}",
           f"-DROCM_SPIRV_PYTHON={sys.executable}", *(f"-D{d}" for d in defs)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if check and proc.returncode != 0:
        raise AssertionError(proc.stdout[-3000:] + proc.stderr[-3000:])
    return proc


def build(build_dir: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([tool("cmake"), "--build", str(build_dir), "-j2"], capture_output=True, text=True,
                          check=False)
    if check and proc.returncode != 0:
        raise AssertionError(proc.stdout[-3000:] + proc.stderr[-3000:])
    return proc


@pytest.mark.parametrize("pattern", ["hip_language", "hip_device", "raw_flags"])
@pytest.mark.parametrize(("mode", "expected"), [("spirv", SPIRV), ("native", NATIVE), ("hybrid", HYBRID)])
def test_matrix(pattern: str, mode: str, expected: list[str], toolchain: Path, tmp_path: Path) -> None:
    defs = [f"ROCM_SPIRV_OFFLOAD={mode}"] + (["ROCM_SPIRV_NATIVE_ARCHS=gfx942"] if mode == "hybrid" else [])
    configure(SAMPLES / "cmake" / pattern, tmp_path, toolchain, *defs)
    build(tmp_path)
    assert device_entries(toolchain / "bin" / "clang-offload-bundler", tmp_path / "libmylib.so") == expected


def test_shared_interface_stays_per_arch_for_other_users(toolchain: Path, tmp_path: Path) -> None:
    configure(SAMPLES / "cmake" / "hip_device", tmp_path, toolchain)
    build(tmp_path)
    assert device_entries(toolchain / "bin" / "clang-offload-bundler", tmp_path / "libother.so") == NATIVE


def test_probe_runs_once_and_reconfigure_keeps_result(toolchain: Path, tmp_path: Path) -> None:
    first = configure(SAMPLES / "cmake" / "hip_language", tmp_path, toolchain)
    assert first.stdout.count("RocmSpirv:") == 1 and "emits amdgcnspirv" in first.stdout
    again = configure(SAMPLES / "cmake" / "hip_language", tmp_path, toolchain)
    assert "emits amdgcnspirv" not in again.stdout  # cached: no second probe
    cache = (tmp_path / "CMakeCache.txt").read_text()
    # A rocm-spirv prefix's clang++ chooses the SPIR-V path itself, behind any compiler launcher
    # (ccache drops -Xarch_<arch> pairs): the package adds no flags for it.
    assert "ROCM_SPIRV_SPIRV_FLAGS:INTERNAL=\n" in cache and "its clang++ adds" in first.stdout


def test_verify_post_build_passes_and_fails(toolchain: Path, tmp_path: Path) -> None:
    configure(SAMPLES / "cmake" / "hip_language", tmp_path / "ok", toolchain, "ROCM_SPIRV_SAMPLE_VERIFY=ON")
    assert "verifying mylib" in build(tmp_path / "ok").stdout
    # A project that asks to verify spirv-only but builds native must fail its build.
    src = tmp_path / "bad"
    shutil.copytree(SAMPLES / "cmake" / "hip_language", src)
    (src / "CMakeLists.txt").write_text((src / "CMakeLists.txt").read_text().replace(
        "rocm_spirv_verify(mylib)", "rocm_spirv_verify(mylib EXPECT spirv-only)").replace(
        "../common/saxpy.hip", str(SAMPLES / "cmake" / "common" / "saxpy.hip")))
    configure(src, tmp_path / "badb", toolchain, "ROCM_SPIRV_SAMPLE_VERIFY=ON", "ROCM_SPIRV_OFFLOAD=native")
    out = build(tmp_path / "badb", check=False)
    assert out.returncode != 0 and "native" in out.stdout + out.stderr


@pytest.mark.slow
def test_verify_validates_spirv_and_fails_on_what_spirv_val_rejects(toolchain: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """rocm_spirv_verify runs inspect --validate: device debug info kept on purpose
    (ROCM_SPIRV_DEVICE_DEBUG=ON) under RelWithDebInfo fails the post-build step, naming spirv-val."""
    configure(SAMPLES / "cmake" / "hip_language", tmp_path / "ok", toolchain, "ROCM_SPIRV_SAMPLE_VERIFY=ON",
              "CMAKE_BUILD_TYPE=RelWithDebInfo")
    assert "--validate" in (tmp_path / "ok" / "build.ninja").read_text()
    assert "verifying mylib" in build(tmp_path / "ok").stdout
    # The wrappers' own build-time check would stop the compile first: off, to reach the verify step.
    monkeypatch.setenv("ROCM_SPIRV_VALIDATE", "0")
    configure(SAMPLES / "cmake" / "hip_language", tmp_path / "bad", toolchain, "ROCM_SPIRV_SAMPLE_VERIFY=ON",
              "CMAKE_BUILD_TYPE=RelWithDebInfo", "ROCM_SPIRV_DEVICE_DEBUG=ON")
    out = build(tmp_path / "bad", check=False)
    text = out.stdout + out.stderr
    assert out.returncode != 0 and "spirv-val" in text and "DebugCompilationUnit" in text, text[-3000:]


def test_root_layout_of_the_wheel_is_found(toolchain: Path, tmp_path: Path) -> None:
    # scikit-build-core's cmake.root entry point sets RocmSpirv_ROOT to the package dir,
    # which holds cmake/ inside the wheel.
    root = tmp_path / "rocm_spirv"
    root.mkdir()
    (root / "cmake").symlink_to(REPO / "cmake")
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(p NONE)\nfind_package(RocmSpirv 0.1 REQUIRED)\n"
        "message(STATUS \"found at ${RocmSpirv_DIR}\")\n")
    env = {**os.environ, "RocmSpirv_ROOT": str(root)}
    out = subprocess.run([tool("cmake"), "-S", str(proj), "-B", str(tmp_path / "b")], capture_output=True,
                         text=True, env=env, check=False)
    assert out.returncode == 0, out.stderr
    assert "found at" in out.stdout


ERRORS = [
    (["ROCM_SPIRV_OFFLOAD=native", "ROCM_SPIRV_NATIVE_ARCHS=gfx940"], "unknown GPU architecture 'gfx940'"),
    (["ROCM_SPIRV_OFFLOAD=bogus"], "is not one of native, spirv, hybrid"),
    (["CMAKE_HIP_PLATFORM=spirv"], "chipStar"),
]


@pytest.mark.parametrize(("defs", "needle"), ERRORS)
def test_fatal_errors(defs: list[str], needle: str, toolchain: Path, tmp_path: Path) -> None:
    out = configure(SAMPLES / "cmake" / "raw_flags", tmp_path, toolchain, *defs, check=False)
    err = " ".join(out.stderr.split())  # CMake wraps messages
    assert out.returncode != 0 and needle in err and "Remedy" in err


def test_hybrid_without_native_archs(toolchain: Path, tmp_path: Path) -> None:
    # The project's only target is already amdgcnspirv: hybrid has no native list to keep.
    out = configure(SAMPLES / "cmake" / "hip_language", tmp_path, toolchain, "ROCM_SPIRV_OFFLOAD=hybrid",
                    "CMAKE_HIP_ARCHITECTURES=amdgcnspirv", check=False)
    assert out.returncode != 0 and "hybrid mode for target mylib needs native targets" in out.stderr


def test_target_without_gpu_code_is_warned_not_silent(toolchain: Path, tmp_path: Path) -> None:
    src = tmp_path / "s"
    src.mkdir()
    (src / "host.cpp").write_text("int host_only() { return 1; }\n")
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(s CXX)\nadd_library(h SHARED host.cpp)\n"
        "find_package(RocmSpirv REQUIRED)\nrocm_spirv_target(h)\n")
    out = configure(src, tmp_path / "b", toolchain)
    assert "h compiles no GPU code" in out.stderr


def test_compiler_without_spirv_is_refused(toolchain: Path, tmp_path: Path) -> None:
    clang19 = shutil.which("clang++-19")
    if clang19 is None:
        pytest.skip("clang++-19 (a clang without an in-tree SPIR-V backend) is not installed: apt-get install clang-19")
    out = configure(SAMPLES / "cmake" / "raw_flags", tmp_path, toolchain, compiler=Path(clang19), check=False)
    assert out.returncode != 0 and "cannot emit amdgcnspirv" in out.stderr and "rocm-spirv doctor" in out.stderr


def test_version_mismatch_fails_cleanly(tmp_path: Path) -> None:
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(p NONE)\nfind_package(RocmSpirv 99 REQUIRED)\n")
    out = subprocess.run([tool("cmake"), "-S", str(proj), "-B", str(tmp_path / "b"),
                          f"-DRocmSpirv_DIR={REPO / 'cmake'}"], capture_output=True, text=True, check=False)
    assert out.returncode != 0 and "0.1.0" in out.stderr


def test_cmake_version_matches_python_version() -> None:
    import rocm_spirv

    text = (REPO / "cmake" / "RocmSpirvConfigVersion.cmake").read_text()
    assert f'set(PACKAGE_VERSION "{rocm_spirv.__version__}")' in text


def test_default_visibility_reaches_only_the_spirv_device_code(toolchain: Path, tmp_path: Path) -> None:
    """A hidden-visibility library stays hidden on the host and in native code (hybrid mode)."""
    configure(SAMPLES / "cmake" / "hip_language", tmp_path, toolchain, "ROCM_SPIRV_OFFLOAD=hybrid",
              "ROCM_SPIRV_NATIVE_ARCHS=gfx942", "CMAKE_HIP_VISIBILITY_PRESET=hidden")
    build(tmp_path)
    flags = " ".join(ln for ln in (tmp_path / "build.ninja").read_text().splitlines()
                     if ln.strip().startswith("FLAGS"))
    # The prefix's clang++ adds -Xarch_amdgcnspirv -fvisibility=default itself (docs/caching.md);
    # no bare -fvisibility=default may reach the host or native compile.
    assert not re.search(r"(?<!-Xarch_amdgcnspirv) -fvisibility=default", flags), flags
    assert "-fvisibility=hidden" in flags
    # The SPIR-V device pass alone drops debug info (ROCM_SPIRV_DEVICE_DEBUG=OFF, the default):
    # the prefix's clang++ adds -Xarch_amdgcnspirv -g0 itself (tests/test_wrapper_steps.py), so
    # the package adds no -g0 of its own, scoped or not.
    assert "-g0" not in flags and "ROCM_SPIRV_DEVICE_DEBUG" not in flags, flags


def test_package_from_sibling_subdirectories_and_a_retargeted_subdirectory(toolchain: Path, tmp_path: Path) -> None:
    """find_package() in a/, b/ and c/ (never at the top), rocm_spirv_retarget_directory() in c/:
    every target is SPIR-V only and its verify step (inspect --require spirv-only) passes."""
    configure(SAMPLES / "cmake" / "subdirs", tmp_path, toolchain)
    out = build(tmp_path).stdout
    for name in ("liba", "libb", "libc"):
        assert f"verifying {name}" in out
        lib = tmp_path / name[3:] / f"lib{name}.so"
        assert device_entries(toolchain / "bin" / "clang-offload-bundler", lib) == SPIRV
    # c/'s CMAKE_HIP_FLAGS named gfx1100: the retargeted target resets clang's list after it.
    ninja = (tmp_path / "build.ninja").read_text()
    assert "--no-offload-arch=all" in ninja and "NOTFOUND" not in ninja


@pytest.mark.parametrize("mode", ["native", "spirv", "hybrid"])
def test_hidden_visibility_library_keeps_host_symbols_hidden(mode: str, toolchain: Path, tmp_path: Path) -> None:
    configure(SAMPLES / "cmake" / "visibility", tmp_path, toolchain, f"ROCM_SPIRV_OFFLOAD={mode}")
    build(tmp_path)
    nm = shutil.which("nm") or str(toolchain / "bin" / "llvm-nm")
    for lib in ("hiplang", "cxxhip"):
        proc = subprocess.run([nm, "-D", "--defined-only", str(tmp_path / f"lib{lib}.so")], capture_output=True,
                              text=True, check=True)
        exported = {line.split()[-1] for line in proc.stdout.splitlines() if line.strip()}
        assert f"{lib}_exported" in exported, (mode, lib, proc.stdout)
        # A bare -fvisibility=default on the host compile would export the internal function too.
        assert f"{lib}_internal" not in exported, (mode, lib, proc.stdout)


@pytest.mark.parametrize(("request_", "found"), [
    ("0.1 EXACT", True), ("0.1.0 EXACT", True), ("0.1.1 EXACT", False), ("0.2 EXACT", False),
    ("0", True), ("0.1", True), ("0.0.5", True), ("0.2", False), ("1", False),
    ("0.1...0.1.0", True), ("0.0.1...<0.1", False), ("0.0.1...0.0.9", False), ("0.1...<1", True),
    ("0.1...<2", False), ("0.1...1.0", False),
])
def test_version_requests_follow_same_major_semantics(tmp_path: Path, request_: str, found: bool) -> None:
    """As write_basic_package_version_file(SameMajorVersion) answers, but 0.1 EXACT is met by 0.1.0."""
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "CMakeLists.txt").write_text(
        f"cmake_minimum_required(VERSION 3.21)\nproject(p NONE)\nfind_package(RocmSpirv {request_} QUIET)\n"
        'message(STATUS "found=${RocmSpirv_FOUND}")\n')
    out = subprocess.run([tool("cmake"), "-S", str(proj), "-B", str(tmp_path / "b"),
                          f"-DRocmSpirv_DIR={REPO / 'cmake'}"], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert f"found={1 if found else 0}" in out.stdout, out.stdout
