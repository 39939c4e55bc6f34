"""A plain `pip wheel .` of a new pybind11 + HIP project: rocm-spirv in build-system.requires is the
whole setup (scikit-build-core's `scikit-build-core.config.default` entry point, docs/wheels.md)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bundles import device_entries
from conftest import REPO
from rocm_spirv.wheel import provider
from wheelhouse import dist_info_file, make_venv, offline_env, shared_objects

PROJECT = REPO / "tests" / "data" / "pybind_hip"
SPIRV_ENTRY = "hip-spirv64-amd-amdhsa--amdgcnspirv"
KERNELS = {"_ZN12_GLOBAL__N_112saxpy_kernelEifPKfPf", "_ZN12_GLOBAL__N_122softplus_rotate_kernelEiPf",
           "_ZN12_GLOBAL__N_115warp_sum_kernelEPKfPfi"}


def pip_wheel(project: Path, out: Path, wheelhouse: Path, *settings: str,
              **env: str) -> subprocess.CompletedProcess[str]:
    """`pip wheel PROJECT` from a user's plain shell (isolated, offline), verbose so the log shows
    what CMake was given."""
    out.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "wheel", str(project), "-w", str(out), "--no-deps", "-v",
           *(f"-C{s}" for s in settings)]
    return subprocess.run(cmd, capture_output=True, text=True, env=offline_env(wheelhouse, False, **env),
                          cwd=out, check=False, timeout=900)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, wheelhouse: Path,
          user_prefix: Path) -> tuple[Path, subprocess.CompletedProcess[str]]:
    out = tmp_path_factory.mktemp("dist")
    proc = pip_wheel(PROJECT, out, wheelhouse)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    (whl,) = out.glob("pybind_hip-*.whl")
    return whl, proc


def test_plain_pip_wheel_configures_through_rocm_spirv(built: tuple[Path, subprocess.CompletedProcess[str]],
                                                        user_prefix: Path) -> None:
    _, proc = built
    log = proc.stdout + proc.stderr
    # The provider's toolchain file, a CMake new enough for HIP (Debian's 3.25 is not), the
    # provisioned clang for CXX and HIP alike (pybind11's LTO flags included), the AMD platform.
    assert re.search(r"rocm-spirv: toolchain \S+/toolchains/skbuild-[0-9a-f]{16}\.cmake", log), log[-3000:]
    version = re.search(r"scikit-build-core [\d.]+ using CMake (\d+)\.(\d+)", log)
    assert version and (int(version[1]), int(version[2])) >= (3, 28), log[-3000:]
    clang = str(user_prefix / "bin" / "clang++")
    assert f"Check for working CXX compiler: {clang}" in log and f"Check for working HIP compiler: {clang}" in log
    assert "Performing Test HAS_FLTO_THIN - Success" in log


def test_the_wheel_is_spirv_only(built: tuple[Path, subprocess.CompletedProcess[str]], toolchain: Path,
                                 tmp_path: Path) -> None:
    whl, _ = built
    proc = subprocess.run([sys.executable, "-m", "rocm_spirv", "inspect", str(whl), "--require", "spirv-only"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (so,) = shared_objects(whl, tmp_path)
    assert device_entries(toolchain / "bin" / "clang-offload-bundler", so) == [SPIRV_ENTRY]
    record = json.loads(dist_info_file(whl, "rocm_spirv.json"))
    (obj,) = record["shared_objects"]
    assert record["offload"] == "spirv" and obj["spirv_only"] and obj["targets"] == ["amdgcnspirv"]
    assert set(obj["device_entries"][0]["kernels"]) == KERNELS


def test_installed_into_a_fresh_venv_imports_and_reports_no_device(
        built: tuple[Path, subprocess.CompletedProcess[str]], wheelhouse: Path, toolchain: Path,
        tmp_path: Path) -> None:
    """The module loads the machine's ROCm 7 runtime (libamdhip64.so.7); this machine has none, so
    the prefix's link-only runtime stands in through LD_LIBRARY_PATH and reports no device."""
    whl, _ = built
    py = make_venv(tmp_path / "venv", wheelhouse, str(whl))
    code = ("import pybind_hip\n"
            "print('devices', pybind_hip.device_count())\n"
            "try:\n"
            "    print(pybind_hip.saxpy_device(2.0, [1.0, 2.0], [3.0, 4.0]))\n"
            "except RuntimeError as err:\n"
            "    print('error', err)\n")
    env = {**offline_env(tmp_path), "LD_LIBRARY_PATH": str(toolchain / "lib")}
    proc = subprocess.run([str(py), "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    if lines[0] == "devices 0":
        assert lines[1].startswith("error HIP: "), lines
    else:  # a machine with a GPU: the kernels ran
        assert lines[1].startswith("[") and len(lines) == 2, lines


def test_a_projects_own_toolchain_file_wins(wheelhouse: Path, toolchain: Path, tmp_path: Path) -> None:
    own = tmp_path / "own.cmake"
    clang = toolchain / "bin" / "clang++"
    own.write_text(f'message(STATUS "the project\'s own toolchain file")\n'
                   f'set(CMAKE_CXX_COMPILER "{clang}")\nset(CMAKE_HIP_COMPILER "{clang}")\n'
                   f'set(CMAKE_HIP_PLATFORM amd)\nlist(PREPEND CMAKE_PREFIX_PATH "{toolchain}")\n')
    proc = pip_wheel(PROJECT, tmp_path / "dist", wheelhouse, f"cmake.toolchain-file={own}", "cmake.version=>=3.28")
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-4000:]
    assert "the project's own toolchain file" in log and "rocm-spirv: toolchain" not in log


def test_opt_out_leaves_the_build_alone(wheelhouse: Path, user_prefix: Path, tmp_path: Path) -> None:
    proc = pip_wheel(PROJECT, tmp_path / "dist", wheelhouse, ROCM_SPIRV_SKBUILD="0")
    log = proc.stdout + proc.stderr
    assert "rocm-spirv: toolchain" not in log
    if not Path("/opt/rocm").exists():
        # Nothing names a HIP compiler or a ROCm then: CMake's own HIP detection decides, and
        # without a ROCm install fails the way an unconfigured build does.
        assert proc.returncode != 0 and "Failed to find ROCm root directory" in log, log[-3000:]


def test_no_usable_compiler_is_one_line_before_cmake(wheelhouse: Path, tmp_path: Path) -> None:
    proc = pip_wheel(PROJECT, tmp_path / "dist", wheelhouse, ROCM_SPIRV_COMPILER=str(tmp_path / "no-clang++"))
    log = proc.stdout + proc.stderr
    assert proc.returncode != 0
    lines = [ln.strip() for ln in log.splitlines() if "rocm-spirv: cannot set up this wheel build" in ln]
    assert len(lines) == 1 and "ROCM_SPIRV_SKBUILD=0" in lines[0], log[-3000:]
    assert "Configuring CMake" not in log and "Traceback" not in log


@pytest.mark.parametrize(("requires", "ours"), [
    ('["scikit-build-core>=1.1", "rocm-spirv"]', True),
    ('["rocm_spirv>=0.1", "pybind11"]', True),
    ('["Rocm.Spirv[plot] @ file:///x"]', True),
    ('["rocm-spirv-extras", "scikit-build-core"]', False),
    ('["not a requirement ((", "scikit-build-core"]', False),
    ('"rocm-spirv"', False),
])
def test_only_projects_that_require_rocm_spirv_get_settings(tmp_path: Path, requires: str, ours: bool) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[build-system]\nrequires = {requires}\n")
    assert provider.requires_rocm_spirv(tmp_path / "pyproject.toml") is ours


def test_provider_stays_out_of_sdists_opt_outs_and_own_toolchains(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copy(PROJECT / "pyproject.toml", tmp_path / "pyproject.toml")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(provider, "toolchain_file", lambda env, launcher="": tmp_path / "tc.cmake")
    assert provider.defaults(state="wheel", env={}) == {
        "cmake": {"toolchain-file": str(tmp_path / "tc.cmake"), "version": ">=3.28"}}
    assert provider.defaults(state="sdist", env={}) == {}
    assert provider.defaults(state="metadata_wheel", env={}) == {}
    assert provider.defaults(state="wheel", env={"ROCM_SPIRV_SKBUILD": "OFF"}) == {}
    assert provider.defaults(state="wheel", env={"CMAKE_ARGS": "-DCMAKE_TOOLCHAIN_FILE=/x.cmake"}) == {}
    (tmp_path / "pyproject.toml").write_text('[build-system]\nrequires = ["scikit-build-core"]\n')
    assert provider.defaults(state="wheel", env={}) == {}


def test_the_providers_file_edited_by_the_user_is_theirs(toolchain: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROCM_SPIRV_PREFIX", str(toolchain))
    path = provider.toolchain_file({})
    assert path.parent == toolchain.parent / "toolchains" and path.name.startswith("skbuild-")
    assert provider.toolchain_file({}) == path  # unchanged: written once
    path.write_text(path.read_text() + "set(MY_OWN_SETTING ON)\n")
    shutil.copy(PROJECT / "pyproject.toml", tmp_path / "pyproject.toml")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        provider.defaults(state="wheel", env={})
    said = str(exc.value)
    assert "\n" not in said and "edited since, so it is yours now" in said and f"remove {path}" in said
    assert path.read_text().endswith("set(MY_OWN_SETTING ON)\n")


@pytest.mark.parametrize(("requires", "ours"), [
    ('["rocm-spirv; python_version < \\"3\\""]', False),
    ('["rocm-spirv; python_version >= \\"3\\""]', True),
    ('["rocm-spirv; extra == \\"gpu\\""]', False),
])
def test_a_requirement_whose_marker_is_false_asks_for_nothing(tmp_path: Path, requires: str, ours: bool) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[build-system]\nrequires = {requires}\n")
    assert provider.requires_rocm_spirv(tmp_path / "pyproject.toml") is ours


@pytest.mark.parametrize("content", ['build-system = "rocm-spirv"\n', "build-system = 3\n", None])
def test_a_bad_or_blocking_pyproject_is_one_line(tmp_path: Path, content: str | None,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "pyproject.toml"
    if content is None:
        os.mkfifo(path)  # read, it would block the build for ever
    else:
        path.write_text(content)
    with pytest.raises(SystemExit) as exc:
        provider.requires_rocm_spirv(path)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and err.startswith("rocm-spirv: error: ")
    assert ("not a table" if content else "FIFO") in err


@pytest.mark.parametrize(("cmake_args", "own"), [
    ("-DCMAKE_TOOLCHAIN_FILE=/x.cmake", True),
    ("-G Ninja -D CMAKE_TOOLCHAIN_FILE:FILEPATH=/x.cmake", True),
    ("--toolchain /x.cmake", True),
    ("-DMY_NOTE=see_CMAKE_TOOLCHAIN_FILE=docs", False),
    ('-DCMAKE_CXX_FLAGS="-DCMAKE_TOOLCHAIN_FILE_USED=1"', False),
])
def test_only_a_real_define_names_a_toolchain(cmake_args: str, own: bool) -> None:
    assert provider.own_toolchain({"CMAKE_ARGS": cmake_args}) is own
