"""Misuse of rocm_spirv_target / rocm_spirv_retarget_directory / rocm_spirv_verify stops the
configure with the cause and the remedy (or says plainly that nothing was done). Configure only:
one build dir is configured once, then reconfigured per case (no compiler detection again)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import SAMPLES
from test_cmake_package import configure


@pytest.fixture(scope="module")
def misuse(toolchain: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("misuse")
    src = root / "cmake" / "misuse"
    shutil.copytree(SAMPLES / "cmake" / "misuse", src)
    shutil.copytree(SAMPLES / "cmake" / "common", root / "cmake" / "common")
    build = root / "build"
    configure(src, build, toolchain, "ROCM_SPIRV_TEST_CALLS=")
    return src, build


def run(misuse: tuple[Path, Path], toolchain: Path, calls: str, *defs: str) -> tuple[int, str]:
    src, build = misuse
    # Each case starts from the same cache: an earlier case's -D does not leak.
    proc = configure(src, build, toolchain, f"ROCM_SPIRV_TEST_CALLS={calls}", "ROCM_SPIRV_NATIVE_ARCHS=",
                     "ROCM_SPIRV_OFFLOAD=spirv", *defs, check=False)
    return proc.returncode, " ".join((proc.stdout + proc.stderr).split())  # CMake wraps messages


FATAL = [
    # rocm_spirv_target
    ("rocm_spirv_target(gpu)\nrocm_spirv_target(gpu OFFLOAD native)",
     ["gpu was already retargeted with (OFFLOAD default, ARCHS default), now asked for (OFFLOAD native, ARCHS "
      "default)",
      "Remedy: keep one rocm_spirv_target(gpu"]),
    ("rocm_spirv_target(gpu OFFLOAD native ARCHS gfx942)\nrocm_spirv_target(gpu OFFLOAD native ARCHS gfx90a)",
     ["now asked for (OFFLOAD native, ARCHS gfx90a)", "Remedy:"]),
    ("rocm_spirv_target(gpu OFFLOAD native ARCHS gfx9999)",
     ["unknown GPU architecture 'gfx9999' in rocm_spirv_target(ARCHS)", "does not know gfx9999",
      "Remedy: name one the compiler accepts", "gfx942"]),
    ("rocm_spirv_target(gpu OFFLOAD hybrid ARCHS gfx942:xnack*)",
     ["unknown GPU architecture 'gfx942:xnack*'", "target features are sramecc+/-, xnack+/-"]),
    ("rocm_spirv_target(gpu::alias)", ["'gpu::alias' is an alias of 'gpu'", "Remedy: rocm_spirv_target(gpu"]),
    ("rocm_spirv_target(imp)", ["'imp' is an imported target",
                                "Remedy: name the targets of this project that link it"]),
    ("rocm_spirv_target(iface)", ["'iface' is an INTERFACE library and compiles nothing", "Remedy:"]),
    ("rocm_spirv_target(custom)", ["'custom' is a custom target and compiles nothing", "Remedy:"]),
    ("rocm_spirv_target(nosuch)", ["'nosuch' is not a target", "Remedy:"]),
    ("rocm_spirv_target()", ["rocm_spirv_target: no target named", "Remedy: rocm_spirv_target(<target>..."]),
    ("rocm_spirv_target(gpu OFFLOAD)", ["rocm_spirv_target: OFFLOAD given without a value", "Remedy:"]),
    # Values that name nothing: never a default nobody asked for
    ('rocm_spirv_target(gpu OFFLOAD hybrid ARCHS "")', ["rocm_spirv_target: ARCHS names no GPU target", "Remedy:"]),
    ('rocm_spirv_target(gpu OFFLOAD hybrid ARCHS ";;")', ["rocm_spirv_target: ARCHS names no GPU target", "Remedy:"]),
    ('rocm_spirv_target(gpu OFFLOAD "")', ["rocm_spirv_target: OFFLOAD is empty", "Remedy: OFFLOAD spirv"]),
    ('rocm_spirv_retarget_directory(ARCHS " , ")', ["rocm_spirv_retarget_directory: ARCHS names no GPU target"]),
    ("rocm_spirv_target(gpu OFFLOAD bogus)", ["offload mode 'bogus' in rocm_spirv_target(OFFLOAD) is not one of",
                                              "Remedy:"]),
    ("rocm_spirv_target(gpu OFFLOAD spirv ARCHS gfx942)",
     ["ARCHS names native targets, which OFFLOAD spirv does not build", "Remedy: drop ARCHS, or use OFFLOAD hybrid"]),
    # rocm_spirv_retarget_directory
    ("rocm_spirv_retarget_directory(DIRECTORY nowhere)", ["DIRECTORY", "nowhere does not exist", "Remedy:"]),
    ("rocm_spirv_retarget_directory(DIRECTORY unused)",
     ["unused is not a directory of this build", "Remedy: add_subdirectory() it"]),
    ("rocm_spirv_retarget_directory(RECURSIVE)", ["unknown argument(s) 'RECURSIVE'",
                                                 "Remedy: rocm_spirv_retarget_directory([DIRECTORY dir] [RECURSE]"]),
    ("rocm_spirv_retarget_directory(ARCHS gfx9999)", ["unknown GPU architecture 'gfx9999'"]),
    # rocm_spirv_verify
    ("rocm_spirv_verify(gpu::alias)", ["'gpu::alias' is an alias of 'gpu'", "Remedy: rocm_spirv_verify(gpu"]),
    ("rocm_spirv_verify(iface)", ["'iface' is an INTERFACE library", "Remedy:"]),
    ("rocm_spirv_verify(imp)", ["'imp' is an imported target", "Remedy:"]),
    ("rocm_spirv_verify(objs)", ["'objs' is an OBJECT library", "Remedy: verify the library or executable"]),
    ("rocm_spirv_verify(nosuch)", ["'nosuch' is not a target"]),
    ("rocm_spirv_verify(gpu EXPECT bogus)", ["EXPECT must be spirv-only, native or hybrid, not 'bogus'", "Remedy:"]),
    ("rocm_spirv_verify(gpu native)", ["unknown argument(s) 'native'", "Remedy: rocm_spirv_verify(<target> [EXPECT"]),
    ("rocm_spirv_verify(gpu)\nrocm_spirv_verify(gpu EXPECT native)",
     ["gpu is already verified against the target's own mode, now asked for EXPECT native", "Remedy: keep one"]),
]


@pytest.mark.parametrize(("calls", "needles"), FATAL, ids=[c.replace("\n", " | ") for c, _ in FATAL])
def test_misuse_is_a_fatal_error_with_a_remedy(calls: str, needles: list[str], misuse: tuple[Path, Path],
                                               toolchain: Path) -> None:
    rc, out = run(misuse, toolchain, calls)
    assert rc != 0, out
    assert "CMake Error" in out, out
    for needle in needles:
        assert needle in out, (needle, out[-2000:])


def test_unknown_arch_in_the_cache_option_is_a_configure_error(misuse: tuple[Path, Path], toolchain: Path) -> None:
    rc, out = run(misuse, toolchain, "rocm_spirv_target(gpu OFFLOAD native)", "ROCM_SPIRV_NATIVE_ARCHS=gfx9999")
    assert rc != 0 and "unknown GPU architecture 'gfx9999' in ROCM_SPIRV_NATIVE_ARCHS" in out, out


def test_same_request_twice_is_a_no_op(misuse: tuple[Path, Path], toolchain: Path) -> None:
    calls = ("rocm_spirv_target(gpu OFFLOAD hybrid ARCHS gfx942)\n"
             "rocm_spirv_target(gpu OFFLOAD hybrid ARCHS \"gfx942,\")\n"
             "rocm_spirv_verify(gpu)\nrocm_spirv_verify(gpu)")
    rc, out = run(misuse, toolchain, calls)
    assert rc == 0, out
    ninja = (misuse[1] / "build.ninja").read_text()
    assert ninja.count("-m rocm_spirv inspect") == 1 and "--require hybrid:gfx942" in ninja
    hip_lines = [ln for ln in ninja.splitlines() if "--offload-arch=amdgcnspirv" in ln]
    assert hip_lines and all(ln.count("--offload-arch=gfx942") == 1 for ln in hip_lines)


def test_comma_separated_archs_and_generic_names_are_accepted(misuse: tuple[Path, Path], toolchain: Path) -> None:
    rc, out = run(misuse, toolchain, "rocm_spirv_target(gpu OFFLOAD native)",
                  "ROCM_SPIRV_NATIVE_ARCHS=gfx90a:xnack+, gfx11-generic")
    assert rc == 0, out
    ninja = (misuse[1] / "build.ninja").read_text()
    assert "--offload-arch=gfx90a:xnack+" in ninja and "--offload-arch=gfx11-generic" in ninja


NOTHING_DONE = [
    ("rocm_spirv_target(host)", "rocm_spirv_target: host compiles no GPU code"),
    ("rocm_spirv_retarget_directory(DIRECTORY hostonly)",
     "no target in " + "{src}/hostonly itself compiles GPU code; nothing was retargeted"),
]


@pytest.mark.parametrize(("calls", "needle"), NOTHING_DONE)
def test_nothing_to_retarget_is_said_plainly(calls: str, needle: str, misuse: tuple[Path, Path],
                                            toolchain: Path) -> None:
    rc, out = run(misuse, toolchain, calls)
    assert rc == 0, out
    assert "CMake Warning" in out and needle.format(src=misuse[0]) in out and "nothing was" in out, out


def test_a_retargeted_directory_is_reported(misuse: tuple[Path, Path], toolchain: Path) -> None:
    rc, out = run(misuse, toolchain, "rocm_spirv_retarget_directory(RECURSE)")
    assert rc == 0, out
    # gpu and objs compile GPU code; host, host2 (below) and the rest do not.
    assert f"RocmSpirv: {misuse[0]}: 2 target(s) retargeted to spirv" in out, out
    assert "CMake Warning" not in out



def test_a_hip_platform_the_toolchain_file_replaces_is_said_once(toolchain: Path, tmp_path: Path) -> None:
    from tcfile import configure, generate
    tc = generate(toolchain, tmp_path / "tc.cmake")
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES NONE)\n"
                                        'message(STATUS "platform=${CMAKE_HIP_PLATFORM}")\n')
    done = configure(src, tmp_path / "b", tc, "CMAKE_HIP_PLATFORM=spirv")
    said = " ".join((done.stdout + done.stderr).split())
    assert said.count("CMAKE_HIP_PLATFORM=spirv is turned into amd") == 1, said
    assert "platform=amd" in said
    quiet = configure(src, tmp_path / "b2", tc)
    assert "turned into amd" not in quiet.stdout + quiet.stderr


def test_the_hip_architectures_cmake_detected_are_no_native_list(toolchain: Path, tmp_path: Path) -> None:
    """A project that names no GPU: CMake caches the compiler's default (gfx906) as
    CMAKE_HIP_ARCHITECTURES. native/hybrid with ROCM_SPIRV_NATIVE_ARCHS empty must not build for it."""
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(SAMPLES / "cmake" / "common" / "saxpy.hip", src)
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES CXX HIP)\n"
        "add_library(gpu SHARED saxpy.hip)\ntarget_compile_options(gpu PRIVATE -nogpuinc -nogpulib)\n"
        "find_package(RocmSpirv REQUIRED)\nrocm_spirv_target(gpu)\n")
    build = tmp_path / "b"
    for mode in ("native", "hybrid"):
        proc = configure(src, build, toolchain, f"ROCM_SPIRV_OFFLOAD={mode}", "ROCM_SPIRV_NATIVE_ARCHS=", check=False)
        out = " ".join((proc.stdout + proc.stderr).split())
        assert proc.returncode != 0 and "CMake Error" in out, out
        assert f"{mode} mode for target gpu needs native targets" in out and "gfx906 CMake detected" in out, out
        assert "Remedy: -DROCM_SPIRV_NATIVE_ARCHS=" in out, out
    configure(src, build, toolchain, "ROCM_SPIRV_OFFLOAD=spirv")
    ninja = (build / "build.ninja").read_text()
    assert "--offload-arch=amdgcnspirv" in ninja and "gfx906" not in ninja
    # Asked for by name, the same list is the project's.
    chosen = tmp_path / "b2"
    configure(src, chosen, toolchain, "ROCM_SPIRV_OFFLOAD=native", "CMAKE_HIP_ARCHITECTURES=gfx906")
    assert "--offload-arch=gfx906" in (chosen / "build.ninja").read_text()
