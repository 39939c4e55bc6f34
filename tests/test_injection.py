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
