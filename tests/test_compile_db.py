"""toolchain/compile_db.py: the one reader of compile_commands.json and the compile-line surgery that
compare's JIT proxy and migrate's oracle share."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rocm_spirv.toolchain import compile_db


def test_both_entry_forms_read_alike(tmp_path: Path) -> None:
    db = [{"directory": "/b", "file": "../s/k.hip", "output": "k.o",
           "arguments": ["clang++", "-x", "hip", "--offload-arch=gfx90a", "-c", "../s/k.hip", "-o", "k.o"]},
          {"directory": "/b", "file": "/s/host.cpp", "command": "clang++ -O2 -c /s/host.cpp -o 'host dir/h.o'"},
          "not an entry"]
    (tmp_path / "compile_commands.json").write_text(json.dumps(db))
    k, host = compile_db.read(tmp_path)
    assert (k.file, k.output, k.hip) == ("/s/k.hip", "k.o", True)
    assert (host.file, host.output, host.hip) == ("/s/host.cpp", "host dir/h.o", False)
    assert host.argv == ("clang++", "-O2", "-c", "/s/host.cpp", "-o", "host dir/h.o")


def test_what_is_not_a_database_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        compile_db.read(tmp_path)
    (tmp_path / "compile_commands.json").write_text('{"not": "a list"}')
    with pytest.raises(ValueError):
        compile_db.read(tmp_path)


@pytest.mark.parametrize(("argv", "file", "hip"), [
    (["clang++", "-x", "hip", "-c", "a.cpp"], "a.cpp", True),
    (["clang++", "-xhip", "-c", "a.cpp"], "a.cpp", True),
    (["clang++", "-c", "a.hip"], "a.hip", True),
    (["clang++", "--offload-arch=gfx942", "-c", "a.cpp"], "a.cpp", True),
    (["clang++", "-x", "c++", "-c", "a.cpp"], "a.cpp", False),
])
def test_hip_compiles(argv: list[str], file: str, hip: bool) -> None:
    assert compile_db.is_hip(argv, file) is hip


def test_retarget_drops_outputs_dependencies_targets_and_error_settings() -> None:
    argv = ["clang++", "-DX=1", "-I/inc", "-x", "hip", "--offload-arch=gfx90a", "--offload-arch", "gfx942",
            "--cuda-gpu-arch=gfx1100", "-MD", "-MT", "k.o", "-MF", "k.d", "-o", "k.o", "-c", "k.hip",
            "--offload-compress", "-save-temps=obj", "-Werror", "-Werror=format", "-fcolor-diagnostics",
            "-fdiagnostics-color=always", "-fgpu-rdc", "-O3"]
    kept = ["clang++", "-DX=1", "-I/inc", "-x", "hip", "k.hip", "-fgpu-rdc", "-O3"]
    assert compile_db.retarget(argv) == kept
    assert compile_db.retarget(argv, also=("-fgpu-rdc",)) == [a for a in kept if a != "-fgpu-rdc"]
