"""benchmarks/migrate_metamorphic.py renames a tree's own names consistently, and only those it may."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import migrate_metamorphic as mm
from rocm_spirv.migrate.scan import scan

TREE = {
    "CMakeLists.txt": ("project(p LANGUAGES HIP)\n"
                       "set(MYLIB_AMD_TARGETS gfx90a gfx942)\n"
                       "set(OpenMP_Fortran_FLAGS \"-fopenmp\")\n"  # read by FindOpenMP, not by the tree
                       "function(MYLIB_ADD_KERNEL arch)\n"
                       "  add_custom_command(OUTPUT k_${arch}.co COMMAND hipcc --offload-arch=${arch} k.hip)\n"
                       "endfunction()\n"
                       "foreach(a ${MYLIB_AMD_TARGETS})\n"
                       "  mylib_add_kernel(${a})\n"  # CMake calls a function in any case
                       "endforeach()\n"
                       "add_compile_definitions(-DMYLIB_WAVE64)\n"),
    "mylib_config.h": "#define MYLIB_DEVICE __device__\n#define MYLIB_GFX9 1\n#define MYLIB_LANES 64\n",
    "k.hip": ('#include "mylib_config.h"\n'
              "#if defined(__gfx90a__) && MYLIB_GFX9\n"
              "MYLIB_DEVICE int lanes() { return MYLIB_LANES; }\n"
              "#endif\n"
              "#ifdef MYLIB_WAVE64\n#endif\n"),
}


def _write(root: Path) -> None:
    for rel, text in TREE.items():
        (root / rel).write_text(text)


def test_names_the_tree_defines_and_reads_and_commands_in_any_case(tmp_path: Path) -> None:
    _write(tmp_path)
    names, commands, stems = mm.defined_names(tmp_path)
    assert {"MYLIB_AMD_TARGETS", "MYLIB_ADD_KERNEL", "MYLIB_DEVICE", "MYLIB_GFX9", "MYLIB_LANES",
            "MYLIB_WAVE64"} <= names  # the last defined by -D in CMake, read by the source
    assert "OpenMP_Fortran_FLAGS" not in names  # set, never read here: FindOpenMP's input
    assert commands == {"MYLIB_ADD_KERNEL"}
    assert "mylib_config" in stems


def test_a_renamed_copy_keeps_lines_and_renames_consistently(tmp_path: Path) -> None:
    src, dest = tmp_path / "src", tmp_path / "dest"
    src.mkdir()
    _write(src)
    names, commands, stems = mm.defined_names(src)
    for variant in mm.VARIANTS:
        table = mm.renames(names, mm.vocabulary() | stems, variant)
        assert table and len(set(table.values())) == len(table)
        mm.renamed_copy(src, dest / variant, table, commands)
        cmake = (dest / variant / "CMakeLists.txt").read_text()
        source = (dest / variant / "k.hip").read_text()
        assert cmake.count("\n") == TREE["CMakeLists.txt"].count("\n")
        assert "MYLIB" not in cmake and "mylib_add_kernel" not in cmake  # the call in lower case followed too
        assert f"-D{table['MYLIB_WAVE64']}" in cmake and f"#ifdef {table['MYLIB_WAVE64']}" in source
        assert '#include "mylib_config.h"' in source  # a file name is no name
        assert "GFX9" in table["MYLIB_GFX9"]  # a GPU name stays in every variant
    assert mm.renames(names, mm.vocabulary() | stems, "prefix")["MYLIB_LANES"].endswith("_LANES")


def test_the_scan_finds_the_same_lines_in_the_renamed_copy(tmp_path: Path) -> None:
    """The property the benchmark measures, on a tree where no finding may depend on a name."""
    src = tmp_path / "src"
    src.mkdir()
    _write(src)
    names, commands, stems = mm.defined_names(src)
    before = {(f.path, f.line, f.rule.id) for f in scan(src).result.remaining}
    assert {("CMakeLists.txt", 2), ("CMakeLists.txt", 7), ("k.hip", 2)} <= {(p, n) for p, n, _ in before}
    for variant in mm.VARIANTS:
        mm.renamed_copy(src, tmp_path / variant, mm.renames(names, mm.vocabulary() | stems, variant), commands)
        assert {(f.path, f.line, f.rule.id) for f in scan(tmp_path / variant).result.remaining} == before
