"""One SPIR-V path policy (toolchain/spirv_path.py), decided by a real compile: an llvm-spirv that
cannot read clang 22's output is not chosen by the probe, nor by a provisioned prefix's wrappers."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bundles import device_entries
from cmakebuild import tool
from conftest import REPO, SAMPLES
from rocm_spirv.toolchain.discover import explicit_candidate
from rocm_spirv.toolchain.probe import probe
from rocm_spirv.toolchain.provision import provision
from rocm_spirv.toolchain.spirv_path import IN_TREE_FLAGS

CLANG = shutil.which("clang++-22")


@pytest.fixture
def old_translator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Debian's llvm-spirv-15 (too old for clang 22) on PATH as plain `llvm-spirv`, which clang runs."""
    old = next((Path(p) for p in ("/usr/bin/llvm-spirv-15", "/usr/bin/llvm-spirv-14") if Path(p).is_file()), None)
    if old is None:
        pytest.skip("no old translator to refuse (apt-get install llvm-spirv-15)")
    if CLANG is None:
        pytest.skip("clang++-22 is not on PATH (apt-get install clang-22)")
    bindir = tmp_path / "old-bin"
    bindir.mkdir()
    (bindir / "llvm-spirv").symlink_to(old)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("ROCM_SPIRV_CACHE", str(tmp_path / "cache"))
    return bindir / "llvm-spirv"


def test_probe_takes_the_in_tree_backend_when_the_translator_fails(old_translator: Path) -> None:
    assert CLANG is not None
    res = probe(explicit_candidate(CLANG), use_cache=False)
    assert res.llvm_spirv == str(old_translator)
    assert res.spirv_path == "in-tree" and res.spirv_flags == list(IN_TREE_FLAGS)
    assert any(e.startswith(f"llvm-spirv translator {old_translator} failed: ") for e in res.errors), res.errors
    # The decision is what the cache holds: a second probe reads it back.
    again = probe(explicit_candidate(CLANG))
    assert (again.spirv_path, again.spirv_flags) == (res.spirv_path, res.spirv_flags)


@pytest.mark.slow
def test_provisioned_wrapper_applies_the_recorded_path(old_translator: Path, tmp_path: Path) -> None:
    """Provisioning decides once; the wrapper does not turn to a translator just because one is on PATH."""
    made = provision(tmp_path / "prefix")
    clang = tmp_path / "prefix" / "bin" / "clang++"
    out = tmp_path / "s.o"
    proc = subprocess.run([str(clang), "-x", "hip", "-nogpuinc", "--offload-arch=amdgcnspirv", "-c",
                           str(SAMPLES / "cmake" / "common" / "saxpy.hip"), "-o", str(out)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    entries = device_entries(tmp_path / "prefix" / "bin" / "clang-offload-bundler", out)
    assert [e.split("-", 1)[1] for e in entries] == ["spirv64-amd-amdhsa--amdgcnspirv"]
    assert made.manifest.spirv_path == "in-tree"
    res = probe(explicit_candidate(str(clang)), use_cache=False)
    assert res.provisioned_prefix == str(tmp_path / "prefix") and res.spirv_path == "in-tree"


def test_cmake_probe_follows_the_same_policy(old_translator: Path, toolchain: Path, tmp_path: Path) -> None:
    """RocmSpirvProbe.cmake and the prefix follow one decision: through a prefix's wrapper the
    package adds no SPIR-V flags (the wrapper applies the path its prefix recorded, behind any
    compiler launcher), and with llvm-spirv-15 on PATH that recorded path is the in-tree backend."""
    cmd = [tool("cmake"), "-S", str(SAMPLES / "cmake" / "hip_language"), "-B", str(tmp_path / "b"), "-G", "Ninja",
           f"-DCMAKE_MAKE_PROGRAM={tool('ninja')}", f"-DCMAKE_CXX_COMPILER={toolchain / 'bin' / 'clang++'}",
           f"-DCMAKE_HIP_COMPILER={toolchain / 'bin' / 'clang++'}", f"-DRocmSpirv_DIR={REPO / 'cmake'}",
           f"-DROCM_SPIRV_PYTHON={sys.executable}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "its clang++ adds -use-spirv-backend" in proc.stdout, proc.stdout[-3000:]
    cache = (tmp_path / "b" / "CMakeCache.txt").read_text()
    assert "ROCM_SPIRV_SPIRV_FLAGS:INTERNAL=\n" in cache
    python = probe(explicit_candidate(str(toolchain / "bin" / "clang++")), use_cache=False)
    assert python.spirv_flags == ["-use-spirv-backend", "-fvisibility=default"]
