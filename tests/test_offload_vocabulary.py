"""One offload vocabulary: cmake/RocmSpirvOffload.cmake (run with `cmake -P`) and
rocm_spirv.offload give the same modes, target lists and SPIR-V device flags."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from cmakebuild import tool
from conftest import REPO
from rocm_spirv import offload
from rocm_spirv.bazel import BazelConfig
from rocm_spirv.generate import presets
from rocm_spirv.generate.toolchain_file import ToolchainRequest, _lists
from rocm_spirv.toolchain.llvm import gfx_targets
from rocm_spirv.toolchain.probe import ProbeResult

ARCH_TEXTS = ["", "gfx942", "gfx942,gfx1100", " gfx90a:xnack+ ; gfx11-generic ,", "gfx942;gfx942;amdgcnspirv",
              ",,;", "amdgcnspirv"]
# Flags that name GPU targets, and options that do not. CUDA's and MUSA's values (sm_80, mp_21) are
# left out: CMake's regex still strips them from a retargeted HIP target, Python does not count them.
FLAG_WORDS = ["--offload-arch=gfx942", "--offload-arch=gfx90a:xnack+,gfx1100", "--amdgpu-target=gfx906",
              "-amdgpu-target=gfx9-4-generic", "--cuda-gpu-arch=gfx1030", "--offload-arch=amdgcnspirv",
              "-mcpu=gfx942", "--offload-arch", "-fgpu-rdc", "-Xarch_amdgcnspirv"]
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
_rocm_spirv_generic_archs(g)
emit(generic ${{g}})
_rocm_spirv_arch_flag_re(re)
foreach(flag IN ITEMS {flags})
  if(flag MATCHES "^${{re}}$")
    list(APPEND amd "${{flag}}")
  endif()
endforeach()
emit(archflags ${{amd}})
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
                                    body="\n".join(body), flags=" ".join(FLAG_WORDS)))
    proc = subprocess.run([tool("cmake"), "-P", str(script)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    out: dict[str, list[str]] = {}
    for line in proc.stderr.splitlines():
        key, _, value = line.partition("=")
        out[key] = [v for v in value.split("\t") if v]
    return out


def python_side() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"modes": list(offload.MODES), "spirv": [offload.SPIRV_TARGET],
                                 "generic": list(offload.GENERIC_TARGETS),
                                 "archflags": [f for f in FLAG_WORDS if offload.is_amd_arch_flag(f)]}
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
    assert py["flags2True"] == ["-use-spirv-backend", "-Xarch_amdgcnspirv", "-fvisibility=default",
                                "-DROCM_SPIRV_DEVICE_DEBUG=1"]
    assert py["flags3False"] == ["-Xarch_amdgcnspirv", "-fvisibility=protected"]
    assert {"gfx9-4-generic", "gfx11-7-generic", "gfx12-5-generic", "gfx13-generic"} <= set(py["generic"])
    assert py["archflags"] == FLAG_WORDS[:6]
    assert not any(offload.is_amd_arch_flag(f) for f in ("--offload-arch=sm_80", "--offload-arch=mp_21",
                                                         "--cuda-gpu-arch=compute_90"))


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


# Never empty: flags.bzl fails analysis on an empty --@rocm_spirv//:archs.
BAZEL_ARCHS = [["gfx942"], ["gfx90a:xnack+", "gfx1100"]]


def bazel_side(tmp_path: Path, bazel: str, cases: dict[str, tuple[str, list[str], list[str]]]) -> dict[str, list[str]]:
    """toolchain.bzl's offload_flags, evaluated by Bazel itself: a BUILD file prints each case at load time."""
    ws = tmp_path / "ws"
    ws.mkdir()
    for name in ("flags.bzl", "toolchain.bzl"):
        shutil.copy(REPO / "templates" / "bazel" / name, ws / name)
    (ws / "WORKSPACE").write_text("")
    lines = ['load(":toolchain.bzl", "offload_flags")']
    for key, (mode, archs, flags) in cases.items():
        lines.append(f"print({json.dumps(key + '=')} + json.encode(offload_flags({json.dumps(mode)}, "
                     f"{json.dumps(archs)}, {json.dumps(flags)})))")
    (ws / "BUILD.bazel").write_text("\n".join(lines) + "\n")
    proc = subprocess.run([bazel, f"--output_user_root={tmp_path / 'root'}", "--max_idle_secs=5", "query",
                           "--noshow_progress", "//:all"], cwd=ws, capture_output=True, text=True, check=False,
                          timeout=300)
    subprocess.run([bazel, f"--output_user_root={tmp_path / 'root'}", "shutdown"], cwd=ws, capture_output=True,
                   check=False, timeout=120)
    out: dict[str, list[str]] = {}
    for line in proc.stderr.splitlines():
        m = re.search(r"DEBUG: .*?: (\w+)=(\[.*\])$", line)
        if m:
            out[m.group(1)] = json.loads(m.group(2))
    assert out.keys() == cases.keys(), proc.stderr[-2000:]
    return out


@pytest.mark.slow
def test_bazel_and_python_agree(tmp_path: Path) -> None:
    """The generated @rocm_spirv repository puts the same device code and SPIR-V flags on a compile
    as the Python and CMake homes: in hybrid mode -fvisibility=default reaches only the SPIR-V pass."""
    bazel = shutil.which("bazel") or shutil.which("bazelisk")
    if bazel is None:
        pytest.skip("bazel is not on PATH (apt-get install bazel-bootstrap)")
    cases: dict[str, tuple[str, list[str], list[str]]] = {}
    expected: dict[str, list[str]] = {}
    for i, probed in enumerate(PROBED):
        cfg = BazelConfig.from_probe(ProbeResult(path="/x/clang++", source="explicit", argv=["/x/clang++"],
                                                 version="22.1.8", hip=True, spirv_path="in-tree",
                                                 spirv_flags=probed, gfx_targets=["gfx90a", "gfx942"]))
        assert cfg.spirv_flags is not None
        for j, archs in enumerate(BAZEL_ARCHS):
            for mode in offload.MODES:
                key = f"k{i}x{j}{mode}"
                cases[key] = (mode, archs, cfg.spirv_flags)
                targets = offload.offload_list(mode, archs)
                flags = offload.spirv_device_flags(probed, offload.device_debug_opted_in(os.environ)) \
                    if offload.SPIRV_TARGET in targets else []
                expected[key] = [f"--offload-arch={t}" for t in targets] + flags
    got = bazel_side(tmp_path, bazel, cases)
    for key, want in expected.items():
        # Bazel orders SPIR-V flags after the amdgcnspirv entry; what reaches the compiler is the same set.
        arch_of = [w for w in got[key] if w.startswith("--offload-arch=")]
        assert arch_of == [w for w in want if w.startswith("--offload-arch=")], (key, got[key], want)
        assert [w for w in got[key] if w not in arch_of] == [w for w in want if w not in arch_of], (key, got[key])
    hybrid = got["k2x0hybrid"]
    assert hybrid == ["--offload-arch=amdgcnspirv", "-use-spirv-backend", "-Xarch_amdgcnspirv",
                      "-fvisibility=default", "-Xarch_amdgcnspirv", "-g0", "--offload-arch=gfx942"]


def test_the_compilers_targets_are_in_the_table() -> None:
    """What the compiler lists (-print-supported-cpus, parsed once by the probe) is the truth for
    building; the static table, which reads binaries, must know every name of it."""
    clang = shutil.which("clang++-22")
    if clang is None:
        pytest.skip("clang++-22 is not on PATH (apt-get install clang-22)")
    listed = gfx_targets([clang])
    assert "gfx942" in listed and "gfx9-4-generic" in listed
    assert all(offload.is_gpu_name(n) for n in listed)
    assert set(listed) <= {t.name for t in offload.TARGETS}
    assert set(offload.GENERIC_TARGETS) >= {n for n in listed if n.endswith("-generic")}
    assert len(set(offload.MACH)) == len(offload.TARGETS) == len({t.name for t in offload.TARGETS})


def test_every_view_follows_the_table() -> None:
    """Adding a GPU family is rows in offload.TARGETS (its docstring): every other view is
    derived from it or held to it here (CMake's generic list by test_cmake_and_python_agree)."""
    from rocm_spirv.inspect import codeobject
    from rocm_spirv.migrate import cmake_words

    assert codeobject.MACH is offload.MACH
    derived = sorted((t.name for t in offload.TARGETS if t.generic),
                     key=lambda n: [int(x) for x in re.findall("[0-9]+", n)])
    assert list(offload.GENERIC_TARGETS) == derived
    for t in offload.TARGETS:
        assert offload.is_gpu_name(t.name), t.name
        assert cmake_words.ARCH_ITEM.match(t.name) and cmake_words.ARCH_ITEM.match(f"{t.name}:xnack+"), t.name
        assert cmake_words.GFX.search(f"set(SUPPORTED_ARCHS {t.name})"), t.name
    for wrong in ("gfx9", "gfx", "gfx90abc", "gfx-generic", "sm_80", "GFX942"):
        assert not offload.is_gpu_name(wrong), wrong


# docs/developing.md's worked example: a hypothetical family, one processor and its generic ISA, with
# EF_AMDGPU_MACH values LLVM does not use.
NEW_FAMILY = (offload.GpuTarget("gfx1400", 0x70), offload.GpuTarget("gfx14-generic", 0x71))


def test_adding_a_gpu_family_is_rows_in_the_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The worked example done at test time: two rows in offload.TARGETS, and every Python view
    follows; the CMake fallback list is the one edit beside it, and test_cmake_and_python_agree
    names it until it is made."""
    from rocm_spirv.cli import main
    from rocm_spirv.inspect import codeobject
    from rocm_spirv.migrate import cmake_words

    assert not {t.mach for t in NEW_FAMILY} & set(offload.MACH)
    table = (*offload.TARGETS, *NEW_FAMILY)
    generic = offload.generic_targets(table)
    assert generic == (*offload.GENERIC_TARGETS, "gfx14-generic")  # newest family last
    monkeypatch.setattr(offload, "TARGETS", table)
    monkeypatch.setattr(offload, "GENERIC_TARGETS", generic)
    for mach, name in offload.mach_table(NEW_FAMILY).items():
        monkeypatch.setitem(offload.MACH, mach, name)  # the one dict inspect reads
    # inspect names a code object of the new processor (a bare ELF header, code object v6, xnack any)
    flags = 0x70 | 1 << 8 | 1 << 10
    header = codeobject.ELF_HEADER.pack(b"\x7fELF" + bytes([2, 1, 1, codeobject.ELFOSABI_AMDGPU_HSA, 4]) + bytes(7),
                                        3, codeobject.EM_AMDGPU, 1, 0, 0, 0, flags, 64, 0, 0, 64, 0, 0)
    info = codeobject.parse_code_object(header, 0, len(header))
    assert (info.target_id, info.code_object_version) == ("gfx1400", 6)
    # The name checks take the new names, with features.
    for t in NEW_FAMILY:
        assert offload.is_gpu_name(t.name) and offload.is_target_id(f"{t.name}:xnack-")
        assert cmake_words.ARCH_ITEM.match(t.name) and cmake_words.GFX.search(f"set(SUPPORTED_ARCHS {t.name})")
    # migrate reports an allow-list of only the new family.
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES CXX HIP)\n"
        "set(SUPPORTED_ARCHS gfx1400 gfx14-generic)\n"
        "foreach(t IN LISTS GPU_TARGETS)\n  if(NOT t IN_LIST SUPPORTED_ARCHS)\n"
        "    message(FATAL_ERROR \"${t} is not one of ${SUPPORTED_ARCHS}\")\n  endif()\nendforeach()\n")
    assert main(["migrate", str(tmp_path / "p"), "--json", "--select", "RSM108"]) == 0
    found = json.loads(capsys.readouterr().out)["findings"]
    assert [f["line"] for f in found if f["rule"] == "RSM108"] == [3, 5], found  # the list and its test
    # CMake's fallback list is not generated: the vocabulary test fails on exactly that list.
    cm, py = cmake_side(tmp_path), python_side()
    assert [k for k in py if cm[k] != py[k] and not k.startswith("flags")] == ["generic"]
    assert py["generic"] == [*cm["generic"], "gfx14-generic"]
