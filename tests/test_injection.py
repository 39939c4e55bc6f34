"""Values written into generated CMake code are data: a path holding ", \\, $, ${...}, ;, a line break or
[=[ neither runs CMake code nor breaks the file it lands in."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# A folder name that closes the quoted argument it is pasted into and runs its own commands.
HOSTILE = 'x")\nfile(TOUCH "${CMAKE_CURRENT_LIST_DIR}/PWNED")\nexecute_process(COMMAND true "$ENV{HOME};[=[\\q'

CMAKE = shutil.which("cmake")
NINJA = shutil.which("ninja")


@pytest.mark.skipif(CMAKE is None or NINJA is None,
                    reason="cmake and ninja are needed (apt-get install cmake ninja-build)")
def test_wheel_metadata_install_code_quotes_every_value(tmp_path: Path) -> None:
    assert CMAKE is not None
    weird = tmp_path / HOSTILE / "bin"
    weird.mkdir(parents=True)
    (weird / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')  # a link would leave the venv
    (weird / "python3").chmod(0o755)
    src = tmp_path / "src"
    src.mkdir()
    (src / "lib.cpp").write_text("int f() { return 1; }\n")
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES CXX)\n"
        # As find_package(Python3) leaves it (a normal variable): a cache entry could not hold a line break.
        f"set(Python3_EXECUTABLE [==[{weird / 'python3'}]==])\n"
        f'list(APPEND CMAKE_MODULE_PATH "{REPO / "cmake"}")\ninclude(RocmSpirvWheel)\n'
        "add_library(lib SHARED lib.cpp)\ninstall(TARGETS lib LIBRARY DESTINATION lib)\n"
        "rocm_spirv_wheel_metadata(lib DESTINATION lib)\n")
    build = tmp_path / "build"
    env = {**os.environ, "PYTHONPATH": str(REPO / "plugin")}
    subprocess.run([CMAKE, "-S", str(src), "-B", str(build), "-G", "Ninja"], check=True, capture_output=True, env=env)
    subprocess.run([CMAKE, "--build", str(build)], check=True, capture_output=True, env=env)
    done = subprocess.run([CMAKE, "--install", str(build), "--prefix", str(tmp_path / "inst")],
                          capture_output=True, text=True, env=env, check=False)
    pwned = list(tmp_path.rglob("PWNED"))
    assert not pwned, f"code from a folder name ran at install: {pwned}"
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "inst" / "share" / "rocm_spirv" / "p.json").is_file(), done.stdout


@pytest.mark.skipif(CMAKE is None, reason="cmake is needed (apt-get install cmake)")
def test_python_found_by_the_project_is_the_one_build_steps_run(tmp_path: Path) -> None:
    """FindPython3 leaves Python3_EXECUTABLE a normal variable (it caches only _Python3_EXECUTABLE):
    rocm_spirv_verify() and the wheel record must take it, not report "no Python found"."""
    assert CMAKE is not None
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES NONE)\n"
        'find_package(Python3 COMPONENTS Interpreter REQUIRED)\nfind_package(RocmSpirv REQUIRED)\n'
        '_rocm_spirv_python(test py pythonpath)\nmessage(STATUS "py=${py}")\n')
    done = subprocess.run([CMAKE, "-S", str(src), "-B", str(tmp_path / "b"), f"-DRocmSpirv_DIR={REPO / 'cmake'}",
                           f"-DPython3_EXECUTABLE={sys.executable}"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert f"py={sys.executable}" in done.stdout
    again = subprocess.run([CMAKE, "-S", str(src), "-B", str(tmp_path / "c"), f"-DRocmSpirv_DIR={REPO / 'cmake'}"],
                           capture_output=True, text=True, check=False)
    assert again.returncode == 0 and "no Python found" not in again.stderr, again.stderr
    assert "py=/" in again.stdout
