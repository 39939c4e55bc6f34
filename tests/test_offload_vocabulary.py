"""One offload vocabulary: cmake/RocmSpirvOffload.cmake (run with `cmake -P`) and
rocm_spirv.offload give the same modes, target lists and SPIR-V device flags."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest
from cmakebuild import tool
from conftest import REPO
from rocm_spirv import offload
from rocm_spirv.generate import presets
from rocm_spirv.generate.toolchain_file import ToolchainRequest, _lists

ARCH_TEXTS = ["", "gfx942", "gfx942,gfx1100", " gfx90a:xnack+ ; gfx11-generic ,", "gfx942;gfx942;amdgcnspirv",
              ",,;", "amdgcnspirv"]
PROBED = [[], ["-use-spirv-backend"], ["-use-spirv-backend", "-fvisibility=default"], ["-fvisibility=protected"]]

SCRIPT = """
include("{module}")
function(emit key)
  string(REPLACE ";" "\\t" v "${{ARGN}}")
  message("${{key}}=${{v}}")
endfunction()
_rocm_spirv_modes(m)
emit(modes ${{m}})
_rocm_spirv_spirv_target(s)
emit(spirv ${{s}})
{body}
"""


def cmake_side(tmp_path: Path) -> dict[str, list[str]]:
    body: list[str] = []
    for i, text in enumerate(ARCH_TEXTS):
        body.append(f"_rocm_spirv_parse_archs(a [=[{text}]=])\nemit(parse{i} ${{a}})")
        for mode in offload.MODES:
            body.append(f"_rocm_spirv_offload_list(o {mode} ${{a}})\nemit(offload{i}{mode} ${{o}})")
    for i, flags in enumerate(PROBED):
        for debug in (False, True):
            body.append(f"_rocm_spirv_device_flags(f {'ON' if debug else 'OFF'} {' '.join(flags)})\n"
                        f"emit(flags{i}{debug} ${{f}})")
    script = tmp_path / "vocabulary.cmake"
    script.write_text(SCRIPT.format(module=(REPO / "cmake" / "RocmSpirvOffload.cmake").as_posix(),
                                    body="\n".join(body)))
    proc = subprocess.run([tool("cmake"), "-P", str(script)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    out: dict[str, list[str]] = {}
    for line in proc.stderr.splitlines():
        key, _, value = line.partition("=")
        out[key] = [v for v in value.split("\t") if v]
    return out


def python_side() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"modes": list(offload.MODES), "spirv": [offload.SPIRV_TARGET]}
    for i, text in enumerate(ARCH_TEXTS):
        archs = offload.parse_archs(text)
        out[f"parse{i}"] = list(archs)
        for mode in offload.MODES:
            out[f"offload{i}{mode}"] = list(offload.offload_list(mode, archs))
    for i, flags in enumerate(PROBED):
        for debug in (False, True):
            out[f"flags{i}{debug}"] = offload.spirv_device_flags(flags, device_debug=debug)
    return out


def command_line(items: list[str]) -> list[str]:
    """What CMake puts on the command line for target options: SHELL: items split like a shell."""
    words: list[str] = []
    for item in items:
        words += shlex.split(item[len("SHELL:"):]) if item.startswith("SHELL:") else [item]
    return words


def test_cmake_and_python_agree(tmp_path: Path) -> None:
    cm, py = cmake_side(tmp_path), python_side()
    assert cm.keys() == py.keys()
    for key, value in py.items():
        got = command_line(cm[key]) if key.startswith("flags") else cm[key]
        assert got == value, (key, got, value)


def test_the_vocabulary_says_something() -> None:
    """Guards the comparison above against two sides that agree by being empty."""
    py = python_side()
    assert py["modes"] == ["native", "spirv", "hybrid"]
    assert py["parse3"] == ["gfx90a:xnack+", "gfx11-generic"]
    assert py["offload4hybrid"] == ["amdgcnspirv", "gfx942"] and py["offload4native"] == ["gfx942"]
    assert py["offload0native"] == [] and py["offload0spirv"] == ["amdgcnspirv"]
    # Debug info leaves the SPIR-V device pass of the in-tree backend unless opted in.
    assert py["flags2False"] == ["-use-spirv-backend", "-Xarch_amdgcnspirv", "-fvisibility=default",
                                 "-Xarch_amdgcnspirv", "-g0"]
    assert py["flags2True"] == ["-use-spirv-backend", "-Xarch_amdgcnspirv", "-fvisibility=default"]
    assert py["flags3False"] == ["-Xarch_amdgcnspirv", "-fvisibility=protected"]


def test_python_users_share_the_vocabulary() -> None:
    assert presets.MODES is offload.MODES
    for mode in offload.MODES:
        assert _lists(ToolchainRequest(mode, ("gfx942",))) == list(offload.offload_list(mode, ("gfx942",)))


@pytest.mark.parametrize("name", ["RocmSpirvOptions.cmake", "RocmSpirvTarget.cmake", "RocmSpirvFlags.cmake",
                                  "RocmSpirvDirectory.cmake", "RocmSpirvVerify.cmake", "RocmSpirvScan.cmake",
                                  "RocmSpirvWheel.cmake", "RocmSpirvProbe.cmake"])
def test_no_module_keeps_state_in_plain_variables(name: str) -> None:
    """Plain variables set at a module's top level exist only in the directory that called
    find_package() first; a function reading them elsewhere sees nothing. Only cache entries."""
    text = (REPO / "cmake" / name).read_text()
    depth = 0
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("function(", "macro(")):
            depth += 1
        elif stripped.startswith(("endfunction(", "endmacro(")):
            depth -= 1
        elif depth == 0 and stripped.startswith("set(") and " CACHE " not in stripped:
            raise AssertionError(f"{name}: top-level plain variable: {stripped}")



def test_config_header_names_every_public_function_and_option() -> None:
    """RocmSpirvConfig.cmake's reference header cannot fall behind the modules it includes."""
    config = (REPO / "cmake" / "RocmSpirvConfig.cmake").read_text()
    header = config[: config.index("\nif(")]
    modules = "\n".join(p.read_text() for p in sorted((REPO / "cmake").glob("RocmSpirv*.cmake")))
    functions = set(re.findall(r"^function\((rocm_spirv_\w+)", modules, re.MULTILINE))
    options = set(re.findall(r"^set\((ROCM_SPIRV_\w+) [^\n]*CACHE (?!INTERNAL)", modules, re.MULTILINE))
    assert functions >= {"rocm_spirv_target", "rocm_spirv_retarget_directory", "rocm_spirv_verify"}
    assert options >= {"ROCM_SPIRV_OFFLOAD", "ROCM_SPIRV_NATIVE_ARCHS"}
    for name in functions | options:
        assert f"#   {name}" in header, name
    properties = header[header.index("# Target properties"):]
    assert "#   ROCM_SPIRV_OFFLOAD" in properties and "#   ROCM_SPIRV_ARCHS" in properties
