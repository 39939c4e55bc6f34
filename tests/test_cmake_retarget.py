"""Retargeting corner cases on real projects: transitive interfaces, static libraries,
list-valued generator expressions, verify against per-target modes, the probe's candidates."""

from __future__ import annotations

from pathlib import Path

from bundles import device_entries
from conftest import SAMPLES
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
