"""find_package(RocmSpirv) from an installed wheel the way pybind11 is found: a venv on
CMAKE_PREFIX_PATH, or an activated venv's bin/ on PATH (<prefix>/share/cmake/RocmSpirv)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from wheelhouse import make_venv

PROJECT = """cmake_minimum_required(VERSION 3.21)
project(probe LANGUAGES NONE)
find_package(RocmSpirv 0.1 REQUIRED)
if(NOT COMMAND rocm_spirv_target)
  message(FATAL_ERROR "rocm_spirv_target is not defined")
endif()
message(STATUS "RocmSpirv_DIR=${RocmSpirv_DIR}")
message(STATUS "RocmSpirv_CMAKE_DIR=${RocmSpirv_CMAKE_DIR}")
"""


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory, wheelhouse: Path) -> Path:
    where = tmp_path_factory.mktemp("venv") / "v"
    make_venv(where, wheelhouse, str(next(wheelhouse.glob("rocm_spirv-*.whl"))))
    return where


def configure(src: Path, cmake_exe: str, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    (src / "CMakeLists.txt").write_text(PROJECT)
    return subprocess.run([cmake_exe, "-S", str(src), "-B", str(src / "b"), *args], capture_output=True,
                          text=True, env=env, check=False)


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("CMAKE_", "RocmSpirv"))}


def test_the_venv_as_cmake_prefix_path(venv: Path, cmake_exe: str, tmp_path: Path) -> None:
    proc = configure(tmp_path, cmake_exe, clean_env(), f"-DCMAKE_PREFIX_PATH={venv}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"RocmSpirv_DIR={venv}/share/cmake/RocmSpirv" in proc.stdout
    # The forwarder hands over to the package's own copy, which finds its Python beside it.
    real = next(venv.glob("lib/python3*/site-packages/rocm_spirv/cmake")).resolve()
    assert f"RocmSpirv_CMAKE_DIR={real}" in proc.stdout


def test_an_activated_venv_needs_no_setting(venv: Path, cmake_exe: str, tmp_path: Path) -> None:
    env = clean_env()
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    proc = configure(tmp_path, cmake_exe, env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"RocmSpirv_DIR={venv}/share/cmake/RocmSpirv" in proc.stdout


def test_a_prefix_whose_package_is_gone_says_so(venv: Path, cmake_exe: str, tmp_path: Path) -> None:
    broken = tmp_path / "prefix"
    (broken / "share" / "cmake").mkdir(parents=True)
    import shutil

    shutil.copytree(venv / "share" / "cmake" / "RocmSpirv", broken / "share" / "cmake" / "RocmSpirv")
    proc = configure(tmp_path, cmake_exe, clean_env(), f"-DCMAKE_PREFIX_PATH={broken}")
    assert proc.returncode != 0
    said = " ".join(proc.stderr.split())  # CMake wraps messages
    assert "rocm-spirv install whose Python package is gone. Remedy: pip install rocm-spirv" in said, said


def test_site_packages_as_cmake_prefix_path(venv: Path, cmake_exe: str, tmp_path: Path) -> None:
    site = next(venv.glob("lib/python3*/site-packages"))
    proc = configure(tmp_path, cmake_exe, clean_env(), f"-DCMAKE_PREFIX_PATH={site}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"RocmSpirv_DIR={site}/RocmSpirv/cmake" in proc.stdout
    assert f"RocmSpirv_CMAKE_DIR={(site / 'rocm_spirv' / 'cmake').resolve()}" in proc.stdout


VERIFY_PROJECT = """cmake_minimum_required(VERSION 3.21)
project(verify LANGUAGES C)
find_package(Python3 COMPONENTS Interpreter REQUIRED)
find_package(RocmSpirv REQUIRED)
add_library(k SHARED k.c)
rocm_spirv_verify(k EXPECT spirv-only)
"""


@pytest.mark.parametrize("route", ["CMAKE_PREFIX_PATH", "activated venv", "RocmSpirv_DIR"])
def test_rocm_spirv_verify_configures_through_every_discovery_route(venv: Path, cmake_exe: str, tmp_path: Path,
                                                                     route: str) -> None:
    """docs/cmake.md's find_package + rocm_spirv_verify(): the project's own find_package(Python3) is the
    Python the check runs with (FindPython3 caches only _Python3_EXECUTABLE), whichever way the package
    was found."""
    (tmp_path / "CMakeLists.txt").write_text(VERIFY_PROJECT)
    (tmp_path / "k.c").write_text("int k(void) { return 0; }\n")
    env, args = clean_env(), []
    if route == "CMAKE_PREFIX_PATH":
        args = [f"-DCMAKE_PREFIX_PATH={venv}"]
    elif route == "activated venv":
        env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    else:
        args = [f"-DRocmSpirv_DIR={venv}/share/cmake/RocmSpirv"]
    proc = subprocess.run([cmake_exe, "-S", str(tmp_path), "-B", str(tmp_path / "b"), *args], capture_output=True,
                          text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no Python found" not in proc.stdout + proc.stderr
