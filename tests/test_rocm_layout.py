"""The prefix looks like a ROCm install to projects that search one: `llvm/bin/` tools and a
`bin/hipconfig` that answers like ROCm's; debug builds of real projects yield valid SPIR-V."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, SAMPLES
from tcfile import build, configure, generate

ROCM_LLVM_TOOLS = ("clang", "clang++", "lld", "ld.lld", "llvm-mc", "llvm-dis", "llvm-objcopy",
                   "clang-offload-bundler", "llvm-readelf")
FIXTURE = REPO / "tests" / "data" / "rocm_layout"


def hipconfig(prefix: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("ROCM_PATH", "HIP_PATH", "HIP_PLATFORM")}
    return subprocess.run([str(prefix / "bin" / "hipconfig"), *args], capture_output=True, text=True,
                          check=False, env={**base, **(env or {})}, timeout=60)


def test_llvm_bin_holds_the_tools_rocm_ships_there(toolchain: Path) -> None:
    for tool in ROCM_LLVM_TOOLS:
        path = toolchain / "llvm" / "bin" / tool
        assert path.is_file() and os.access(path, os.X_OK), path
    # clang++ there is the prefix's wrapper (the ROCm installation clang sees), not the bare LLVM.
    ver = subprocess.run([str(toolchain / "llvm" / "bin" / "clang++"), "--version"], capture_output=True,
                         text=True, check=True).stdout
    assert "rocm-spirv.cfg" in ver
    mc = subprocess.run([str(toolchain / "llvm" / "bin" / "llvm-mc"), "--version"], capture_output=True,
                        text=True, check=True).stdout
    assert "amdgcn" in mc  # the AMDGPU assembler the examples use


def test_hipconfig_answers_like_rocm(toolchain: Path) -> None:
    # Values come without a newline (ROCm's hipconfig prints them so; -n adds one).
    assert hipconfig(toolchain, "--platform").stdout == "amd"
    assert hipconfig(toolchain, "-P").stdout == "amd"
    assert hipconfig(toolchain, "--path").stdout == str(toolchain)
    assert hipconfig(toolchain, "--rocmpath").stdout == str(toolchain)
    assert hipconfig(toolchain, "--compiler").stdout == "clang"
    assert hipconfig(toolchain, "--runtime").stdout == "rocclr"
    assert hipconfig(toolchain, "--hipclangpath").stdout == str(toolchain / "llvm" / "bin")
    version = hipconfig(toolchain, "--version").stdout
    major, minor, patch = (toolchain / "share" / "hip" / "version").read_text().split()
    assert re.fullmatch(rf"{major[-1]}\.{minor.split('=')[1]}\.{patch.split('=')[1]}-[0-9a-f]+", version), version
    assert hipconfig(toolchain, "--platform", "-n").stdout == "amd\n"
    assert hipconfig(toolchain, "-Pn").stdout == "amd\n"
    # Several options print in hipconfig's fixed order: path, rocmpath, ..., platform, ..., version.
    assert hipconfig(toolchain, "--version", "--platform").stdout == f"amd{version}"
    cpp = hipconfig(toolchain, "--cpp_config").stdout
    assert "-D__HIP_PLATFORM_AMD__=" in cpp and f"-I{toolchain}/include" in cpp
    # The environment wins, as in ROCm's hipvars.
    assert hipconfig(toolchain, "--rocmpath", env={"ROCM_PATH": "/elsewhere"}).stdout == "/elsewhere"
    assert hipconfig(toolchain, "--platform", env={"HIP_PLATFORM": "nvidia"}).stdout == "nvidia"
    full = hipconfig(toolchain)
    assert full.returncode == 0 and f"HIP_PATH     : {toolchain}" in full.stdout and "HIP_PLATFORM : amd" in full.stdout
    bad = hipconfig(toolchain, "--bogus")
    assert bad.returncode == 0 and "Unknown option: bogus" in bad.stderr  # as Getopt::Long reports it


def inspect_validate(path: Path) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-m", "rocm_spirv", "inspect", str(path), "--validate", "--json"],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    data: dict[str, object] = json.loads(out.stdout)
    return data


def debug_sections(prefix: Path, path: Path) -> bool:
    out = subprocess.run([str(prefix / "llvm" / "bin" / "llvm-readelf"), "-S", str(path)], capture_output=True,
                         text=True, check=True).stdout
    return ".debug_info" in out


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["spirv", "hybrid"])
def test_project_using_rocm_tools_by_path(mode: str, toolchain: Path, tmp_path: Path) -> None:
    """A project in the example collection's shape finds ${ROCM_ROOT}/llvm/bin/{llvm-dis,llvm-mc,
    clang-offload-bundler,...} and ${ROCM_PATH}/bin/hipconfig through a generated toolchain file alone,
    builds RelWithDebInfo, and its SPIR-V validates."""
    tc = generate(toolchain, tmp_path / "tc.cmake", mode, "gfx942" if mode == "hybrid" else "")
    conf = configure(FIXTURE, tmp_path / "b", tc, "CMAKE_BUILD_TYPE=RelWithDebInfo")
    out = conf.stdout
    for tool in ("llvm-dis", "llvm-mc", "clang-offload-bundler", "llvm-objcopy", "llvm-readelf"):
        assert f"-- {tool}: {toolchain}/llvm/bin/{tool}" in out, out
    assert "-- hipconfig --platform: [amd]" in out
    assert f"-- hipconfig --rocmpath: [{toolchain}]" in out
    build(tmp_path / "b")
    b = tmp_path / "b"
    entries = (b / "entries.txt").read_text().split()
    assert ("hipv4-spirv64-amd-amdhsa--amdgcnspirv" if mode == "hybrid" else "hip-spirv64-amd-amdhsa--amdgcnspirv") \
        in entries
    if mode == "hybrid":
        assert "hipv4-amdgcn-amd-amdhsa--gfx942" in entries
    assert 'target triple = "spirv64-amd-amdhsa"' in (b / "device.ll").read_text()
    assert (b / "incbin.o").stat().st_size > (b / "fatbin.bin").stat().st_size
    inspect_validate(b / "rocm_layout")
    assert debug_sections(toolchain, b / "rocm_layout")  # host debug info kept
    ran = subprocess.run([str(b / "rocm_layout")], capture_output=True, text=True, check=False, timeout=60)
    assert ran.returncode == 0 and "no AMD GPU" in ran.stdout


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["spirv", "hybrid"])
def test_relwithdebinfo_library_yields_valid_spirv(mode: str, toolchain: Path, tmp_path: Path) -> None:
    """samples/hip_library (five kernel files, a library and an app) built RelWithDebInfo through a
    generated toolchain file: every SPIR-V module passes spirv-val, host code keeps its debug info."""
    tc = generate(toolchain, tmp_path / "tc.cmake", mode, "gfx942" if mode == "hybrid" else "")
    configure(SAMPLES / "hip_library", tmp_path / "b", tc, "CMAKE_BUILD_TYPE=RelWithDebInfo",
              "BUILD_SHARED_LIBS=ON")
    build(tmp_path / "b")
    ninja = (tmp_path / "b" / "build.ninja").read_text()
    assert " -g" in ninja  # the configuration really asks for debug info
    outputs = [tmp_path / "b" / "libhiplib.so", tmp_path / "b" / "hiplib_app"]
    for path in outputs:
        data = inspect_validate(path) if path.name.endswith(".so") else None
        if data is not None:
            text = json.dumps(data)
            assert "amdgcnspirv" in text and '"ok": true' in text and '"ok": false' not in text, text[:2000]
        assert debug_sections(toolchain, path), path
