"""`rocm-spirv presets generate`: presets merged into a project's file, then used by real cmake."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cmakebuild import tool
from conftest import SAMPLES
from rocm_spirv.cli import main
from tcfile import SPIRV_ONLY, entries, run

USER_PRESETS = """{
    "version": 2,
    "configurePresets": [
        {"name": "dev", "generator": "Ninja", "binaryDir": "${sourceDir}/build/dev"}
    ]
}
"""


def gen(project: Path, toolchain: Path, *extra: str) -> int:
    return main(["presets", "generate", "--output", str(project / "CMakePresets.json"),
                 "--compiler", str(toolchain / "bin" / "clang++"), *extra])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    dst = tmp_path / "kernels"
    shutil.copytree(SAMPLES / "kernels", dst)
    return dst


def test_merges_beside_user_presets_and_is_idempotent(project: Path, toolchain: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    (project / "CMakePresets.json").write_text(USER_PRESETS)
    assert gen(project, toolchain, "--native-archs", "gfx942", "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["added"] == ["native", "spirv", "hybrid"] and report["version_raised_from"] == 2
    doc = json.loads((project / "CMakePresets.json").read_text())
    assert doc["version"] == 3
    assert [p["name"] for p in doc["configurePresets"]] == ["dev", "native", "spirv", "hybrid"]
    assert doc["configurePresets"][0] == json.loads(USER_PRESETS)["configurePresets"][0]
    assert (project / "CMakePresets.json").read_text().startswith('{\n    "version"'), "user indent kept"
    for mode in ("native", "spirv", "hybrid"):
        assert (project / ".rocm-spirv" / f"{mode}.cmake").is_file()
    assert "*" in (project / ".rocm-spirv" / ".gitignore").read_text().splitlines()
    text = (project / "CMakePresets.json").read_text()
    assert gen(project, toolchain, "--native-archs", "gfx942", "--json") == 0
    again = json.loads(capsys.readouterr().out)
    assert again["added"] == [] and again["written"] == []
    assert (project / "CMakePresets.json").read_text() == text


def test_a_user_preset_with_our_name_is_refused_and_nothing_is_written(project: Path, toolchain: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    mine = USER_PRESETS.replace('"dev"', '"spirv"')
    (project / "CMakePresets.json").write_text(mine)
    assert gen(project, toolchain) == 2
    err = capsys.readouterr().err
    assert "already has a configurePreset named 'spirv' that rocm-spirv did not write" in err
    assert "--name-prefix" in err and err.count("\n") == 1
    assert (project / "CMakePresets.json").read_text() == mine
    assert not (project / ".rocm-spirv").exists()
    # The remedy works.
    assert gen(project, toolchain, "--name-prefix", "rs-") == 0
    names = [p["name"] for p in json.loads((project / "CMakePresets.json").read_text())["configurePresets"]]
    assert names == ["spirv", "rs-native", "rs-spirv", "rs-hybrid"]


def test_invalid_presets_json_is_one_line(project: Path, toolchain: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "CMakePresets.json").write_text('{"version": 3,\n  "configurePresets": [}\n')
    assert gen(project, toolchain) == 2
    err = capsys.readouterr().err
    assert "CMakePresets.json is not valid JSON" in err and "line 2" in err


def test_cmake_builds_the_spirv_and_hybrid_presets(project: Path, toolchain: Path) -> None:
    assert gen(project, toolchain, "--native-archs", "gfx942") == 0
    cmake = tool("cmake")
    for preset, expected in (("spirv", SPIRV_ONLY),
                             ("hybrid", ["hipv4-amdgcn-amd-amdhsa--gfx942", "hipv4-spirv64-amd-amdhsa--amdgcnspirv"])):
        run([cmake, "--preset", preset, f"-DCMAKE_MAKE_PROGRAM={tool('ninja')}"], cwd=project)
        run([cmake, "--build", "--preset", preset], cwd=project)
        assert entries(toolchain, project / "build" / preset / "librk_kernels.so") == expected


NATIVE_PROJECT = """cmake_minimum_required(VERSION 3.21)
set(CMAKE_HIP_ARCHITECTURES "gfx90a;gfx942" CACHE STRING "")
project(pkg LANGUAGES CXX HIP)
add_library(mylib SHARED saxpy.hip)
target_compile_options(mylib PRIVATE -nogpuinc -nogpulib)
find_package(RocmSpirv REQUIRED)
rocm_spirv_target(mylib)
rocm_spirv_verify(mylib)
"""


def test_native_preset_without_native_archs_builds_and_verifies_per_arch_code(tmp_path: Path, toolchain: Path) -> None:
    """A plain `presets generate`: the native preset finds the package, keeps the project's list
    and rocm_spirv_verify requires a code object for each of its targets."""
    project = tmp_path / "pkg"
    project.mkdir()
    (project / "CMakeLists.txt").write_text(NATIVE_PROJECT)
    shutil.copy(SAMPLES / "cmake" / "common" / "saxpy.hip", project / "saxpy.hip")
    assert gen(project, toolchain) == 0
    cmake = tool("cmake")
    run([cmake, "--preset", "native", f"-DCMAKE_MAKE_PROGRAM={tool('ninja')}"], cwd=project)
    out = run([cmake, "--build", "--preset", "native"], cwd=project).stdout
    build = project / "build" / "native"
    assert "verifying mylib" in out
    assert "--require native:gfx90a,gfx942" in (build / "build.ninja").read_text()
    assert entries(toolchain, build / "libmylib.so") == ["hipv4-amdgcn-amd-amdhsa--gfx90a",
                                                          "hipv4-amdgcn-amd-amdhsa--gfx942"]
