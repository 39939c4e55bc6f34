"""Retargeting corner cases on real projects: transitive interfaces, static libraries,
list-valued generator expressions, verify against per-target modes, the probe's candidates."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from bundles import device_entries
from cmakebuild import tool
from conftest import REPO, SAMPLES
from elftools.elf.elffile import ELFFile
from test_cmake_package import SPIRV, build, configure

CM = SAMPLES / "cmake"


def native(*gfx: str) -> list[str]:
    return sorted(f"hipv4-amdgcn-amd-amdhsa--{g}" for g in gfx)


def entries(toolchain: Path, path: Path) -> list[str]:
    return device_entries(toolchain / "bin" / "clang-offload-bundler", path)


def defines(path: Path, symbol: str) -> bool:
    """The shared object defines symbol (so the archive member holding it was linked in)."""
    with path.open("rb") as f:
        dynsym = ELFFile(f).get_section_by_name(".dynsym")
        return any(s.name == symbol and s["st_shndx"] != "SHN_UNDEF" for s in dynsym.iter_symbols())


# 1. Interfaces that carry arch flags only through the interfaces they link.

def test_transitive_interface_flags_are_shadowed(toolchain: Path, tmp_path: Path) -> None:
    out = configure(CM / "transitive", tmp_path, toolchain)
    assert "compiles no GPU code" not in out.stderr
    build(tmp_path)
    assert entries(toolchain, tmp_path / "libmylib.so") == SPIRV
    assert entries(toolchain, tmp_path / "libcyclic.so") == SPIRV
    # Other users of the same interfaces keep the per-arch list.
    assert entries(toolchain, tmp_path / "libother.so") == native("gfx90a", "gfx942")


def test_transitive_interface_archs_feed_native_mode(toolchain: Path, tmp_path: Path) -> None:
    out = configure(CM / "transitive", tmp_path, toolchain, "ROCM_SPIRV_OFFLOAD=native")
    assert "compiles no GPU code" not in out.stderr
    build(tmp_path)
    assert entries(toolchain, tmp_path / "libmylib.so") == native("gfx90a", "gfx942")


# 2. A static library whose PUBLIC options carry the arch to its consumers.

@pytest.mark.parametrize("how", ["directory", "library"])
def test_static_library_and_consumers_are_spirv_only(how: str, toolchain: Path, tmp_path: Path) -> None:
    configure(CM / "static_lib", tmp_path, toolchain, f"ROCM_SPIRV_SAMPLE_RETARGET={how}")
    build(tmp_path)
    assert entries(toolchain, tmp_path / "libsaxpy_static.a") == SPIRV
    for consumer in ("libapp.so", "libbyfile.so"):
        assert entries(toolchain, tmp_path / consumer) == SPIRV, consumer
        assert defines(tmp_path / consumer, "lib_marker"), consumer


def test_retargeted_consumer_still_links_the_static_library(toolchain: Path, tmp_path: Path) -> None:
    # Only app is retargeted: its own kernel is SPIR-V, the archive stays gfx90a,
    # and the archive is still linked (not swapped for a copy of its interface).
    configure(CM / "static_lib", tmp_path, toolchain, "ROCM_SPIRV_SAMPLE_RETARGET=consumer")
    build(tmp_path)
    assert entries(toolchain, tmp_path / "libsaxpy_static.a") == native("gfx90a")
    assert entries(toolchain, tmp_path / "libapp.so") == sorted(SPIRV + native("gfx90a"))
    assert defines(tmp_path / "libapp.so", "lib_marker")


def test_imported_static_library_consumer(toolchain: Path, tmp_path: Path) -> None:
    configure(CM / "static_lib", tmp_path / "lib", toolchain)
    build(tmp_path / "lib")
    archive = tmp_path / "lib" / "libsaxpy_static.a"
    configure(CM / "imported_static", tmp_path / "app", toolchain, f"SAXPY_ARCHIVE={archive}")
    build(tmp_path / "app")
    assert entries(toolchain, tmp_path / "app" / "libapp.so") == SPIRV
    assert defines(tmp_path / "app" / "libapp.so", "lib_marker")


# 3. Arch flags inside list-valued generator expressions.

def test_list_valued_genex_builds_spirv_only(toolchain: Path, tmp_path: Path) -> None:
    configure(CM / "list_genex", tmp_path, toolchain)
    build(tmp_path)
    assert entries(toolchain, tmp_path / "libmylib.so") == SPIRV
    assert entries(toolchain, tmp_path / "libonly_archs.so") == SPIRV
    ninja = (tmp_path / "build.ninja").read_text()
    assert "gfx90a" not in ninja and "gfx942" not in ninja and "gfx1100" not in ninja


def test_list_valued_genex_archs_feed_native_mode(toolchain: Path, tmp_path: Path) -> None:
    configure(CM / "list_genex", tmp_path, toolchain, "ROCM_SPIRV_OFFLOAD=native")
    build(tmp_path)
    assert entries(toolchain, tmp_path / "libmylib.so") == native("gfx90a", "gfx942", "gfx1100")
    assert entries(toolchain, tmp_path / "libonly_archs.so") == native("gfx90a", "gfx942")


# 4. rocm_spirv_verify() checks each target against the mode it ends up with.

def test_verify_follows_the_target_offload_mode(toolchain: Path, tmp_path: Path) -> None:
    configure(CM / "verify_modes", tmp_path, toolchain, "ROCM_SPIRV_OFFLOAD=spirv")
    out = build(tmp_path).stdout
    assert "verifying nat" in out and "verifying spv" in out
    # SPIR-V is validated; native code (no SPIR-V) needs no spirv-val.
    ninja = (tmp_path / "build.ninja").read_text()
    verify = [ln for ln in ninja.splitlines() if "rocm_spirv inspect" in ln]
    assert any("libspv.so --require spirv-only --validate" in ln for ln in verify), verify
    assert any("libnat.so" in ln and "--validate" not in ln for ln in verify), verify
    assert entries(toolchain, tmp_path / "libnat.so") == native("gfx90a", "gfx942")
    assert entries(toolchain, tmp_path / "libspv.so") == SPIRV


def test_verify_fails_when_a_native_target_misses_an_arch(toolchain: Path, tmp_path: Path) -> None:
    configure(CM / "verify_modes", tmp_path, toolchain, "ROCM_SPIRV_SAMPLE_BREAK=ON")
    out = build(tmp_path, check=False)
    assert out.returncode != 0
    assert "no native code object for gfx942" in out.stdout + out.stderr


# 5. The probe tries the llvm-spirv translator only when there is one.

PROBE_COMPILE = re.compile(r"RocmSpirvProbe\.cmake\(\d+\):\s*execute_process\(", re.MULTILINE)


def configure_traced(build_dir: Path, prefix: Path, path_env: str) -> subprocess.CompletedProcess[str]:
    cmd = [tool("cmake"), "-S", str(CM / "hip_language"), "-B", str(build_dir), "-G", "Ninja",
           f"-DCMAKE_MAKE_PROGRAM={tool('ninja')}", f"-DCMAKE_CXX_COMPILER={prefix / 'bin' / 'clang++'}",
           f"-DCMAKE_HIP_COMPILER={prefix / 'bin' / 'clang++'}", f"-DRocmSpirv_DIR={REPO / 'cmake'}",
           f"-DROCM_SPIRV_PYTHON={sys.executable}", "--trace-expand", "--trace-source=RocmSpirvProbe.cmake"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env={**os.environ, "PATH": path_env})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def path_without_translator(tmp: Path) -> str:
    """PATH with every llvm-spirv* hidden: a folder holding one (/usr/bin, with Debian's
    llvm-spirv-15) is replaced by a folder of links to the rest of it."""
    out = []
    for i, d in enumerate(p for p in os.environ.get("PATH", "").split(os.pathsep) if p):
        if not any(Path(d).glob("llvm-spirv*")):
            out.append(d)
            continue
        shadow = tmp / f"path-{i}"
        shadow.mkdir(parents=True, exist_ok=True)
        for f in Path(d).iterdir():
            if not f.name.startswith("llvm-spirv") and not (shadow / f.name).exists():
                (shadow / f.name).symlink_to(f)
        out.append(str(shadow))
    return os.pathsep.join(out)


def test_probe_skips_an_absent_translator(toolchain: Path, tmp_path: Path) -> None:
    if list((toolchain / "bin").glob("llvm-spirv*")):
        pytest.skip("the toolchain ships llvm-spirv")
    path = path_without_translator(tmp_path / "path")
    first = configure_traced(tmp_path, toolchain, path)
    assert len(PROBE_COMPILE.findall(first.stderr)) == 1
    # The prefix's clang++ picks the in-tree backend itself: one probe, no flags from the package.
    assert "its clang++ adds -use-spirv-backend" in first.stdout and "emits amdgcnspirv" in first.stdout
    again = configure_traced(tmp_path, toolchain, path)
    assert not PROBE_COMPILE.findall(again.stderr) and "emits amdgcnspirv" not in again.stdout
    cache = (tmp_path / "CMakeCache.txt").read_text()
    assert "ROCM_SPIRV_SPIRV_FLAGS:INTERNAL=\n" in cache


def test_probe_leaves_the_path_to_a_prefix_wrapper_with_a_translator_on_path(toolchain: Path,
                                                                                tmp_path: Path) -> None:
    # A translator on PATH (one that fails): the prefix's wrapper applies the path its prefix
    # recorded at provision, so the package neither tries the translator again nor adds flags.
    fake = tmp_path / "bin" / "llvm-spirv"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'llvm-spirv: refusing in this test' >&2\nexit 1\n")
    fake.chmod(0o755)
    path = path_without_translator(tmp_path / "path")
    out = configure_traced(tmp_path / "b", toolchain, f"{fake.parent}{os.pathsep}{path}")
    assert len(PROBE_COMPILE.findall(out.stderr)) == 1
    assert "its clang++ adds -use-spirv-backend" in out.stdout and str(fake) not in out.stdout
    assert "ROCM_SPIRV_SPIRV_FLAGS:INTERNAL=\n" in (tmp_path / "b" / "CMakeCache.txt").read_text()
