"""The prefix's own `hip` / `hip-lang` CMake packages, loaded by real CMake 3.25 and 4.x.

A fake prefix (HIP headers' hip_version.h and a tiny real libamdhip64 with the
ROCm 7 soname) is enough for `find_package(hip)` from a C++ project; the host
compiler is `c++` and nothing needs a GPU compiler, except the one HIP-language
test, which runs only when the provisioned clang wrapper is there.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile
from rocm_spirv.errors import UserError
from rocm_spirv.toolchain.cmake_packages import write_cmake_packages

HIP_VERSION = "7.1.25424"
REAL_PREFIX = Path("/root/.local/share/rocm-spirv/toolchain")
STUB = "libamdhip64.so.7.1.0"
SONAME = "libamdhip64.so.7"
CMAKES = {"cmake-3.25": Path("/usr/bin/cmake"), "cmake-4.x": Path(sys.executable).parent / "cmake"}
# What the packages must not lean on: the system's HIP 5 package and ROCm's other packages.
FORBIDDEN = ("/usr", "debian", "amd_comgr", "amddevicelibs", "hsa")

HIP_VERSION_H = """\
#ifndef HIP_VERSION_H
#define HIP_VERSION_H
#define HIP_VERSION_MAJOR 7
#define HIP_VERSION_MINOR 1
#define HIP_VERSION_PATCH 25424
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH)
#endif
"""


# -- helpers --------------------------------------------------------------------------------------

def _ninja() -> str | None:
    beside = Path(sys.executable).parent / "ninja"
    return str(beside) if beside.is_file() else shutil.which("ninja")


def _env() -> dict[str, str]:
    """The caller's environment without what would hide a policy problem or change the platform."""
    drop = {"CMAKE_POLICY_VERSION_MINIMUM", "HIP_PLATFORM", "ROCM_PATH", "CMAKE_GENERATOR", "CMAKE_TOOLCHAIN_FILE"}
    return {k: v for k, v in os.environ.items() if k not in drop}


def _stub(lib: Path) -> None:
    """A real shared library with ROCm 7's soname, as lib/libamdhip64.so.7.1.0 and its two links."""
    cc = shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler `cc` on PATH to build the libamdhip64 stub")
    lib.mkdir(parents=True, exist_ok=True)
    src = lib / "stub.c"
    src.write_text("int hipGetDeviceCount(int *count) { *count = 0; return 0; }\n")
    subprocess.run([cc, "-shared", "-fPIC", f"-Wl,-soname,{SONAME}", "-o", str(lib / STUB), str(src)], check=True)
    src.unlink()
    (lib / SONAME).symlink_to(STUB)
    (lib / "libamdhip64.so").symlink_to(SONAME)


def _fake_prefix(root: Path) -> Path:
    header = root / "include" / "hip" / "hip_version.h"
    header.parent.mkdir(parents=True)
    real = REAL_PREFIX / "include" / "hip" / "hip_version.h"
    header.write_text(real.read_text() if real.is_file() else HIP_VERSION_H)
    _stub(root / "lib")
    write_cmake_packages(root, HIP_VERSION)
    return root


@pytest.fixture
def prefix(tmp_path: Path) -> Path:
    return _fake_prefix(tmp_path / "prefix")


@pytest.fixture(params=sorted(CMAKES))
def cmake(request: pytest.FixtureRequest) -> str:
    exe = CMAKES[request.param]
    if not (exe.is_file() and os.access(exe, os.X_OK)):
        pytest.skip(f"{exe} is not there ({request.param}: the system CMake is /usr/bin/cmake, "
                    f"the dev extra's is {CMAKES['cmake-4.x']})")
    return str(exe)


def _configure(cmake: str, src: Path, build: Path, *defs: str) -> subprocess.CompletedProcess[str]:
    ninja = _ninja()
    gen = ["-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={ninja}"] if ninja else ["-G", "Unix Makefiles"]
    cmd = [cmake, "-S", str(src), "-B", str(build), *gen, "-Wdev", "-Wdeprecated",
           "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", *(f"-D{d}" for d in defs)]
    return subprocess.run(cmd, capture_output=True, text=True, env=_env(), check=False)


def _build(cmake: str, build: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    cmd = [cmake, "--build", str(build), *(a for t in targets for a in ("--target", t))]
    return subprocess.run(cmd, capture_output=True, text=True, env=_env(), check=False)


def _ok(proc: subprocess.CompletedProcess[str]) -> str:
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    return out


def _assert_quiet(out: str) -> None:
    """No warning at all: in particular none about policies, deprecation or the policy minimum."""
    assert "CMAKE_POLICY_VERSION_MINIMUM" not in out, out
    assert "CMake Warning" not in out, out
    assert "CMake Deprecation Warning" not in out, out
    assert not re.search(r"polic(y|ies)", out, re.IGNORECASE), out


def _probes(stdout: str) -> dict[tuple[str, str], str]:
    """`message(STATUS "PROBE <scope> <name>=[<value>]")` lines."""
    return {(m[1], m[2]): m[3] for m in re.finditer(r"^-- PROBE (\S+) (\S+)=\[(.*)\]$", stdout, re.MULTILINE)}


def _commands(build: Path) -> dict[str, list[str]]:
    """Compile command arguments by source file name."""
    entries = json.loads((build / "compile_commands.json").read_text())
    return {Path(e["file"]).name: shlex.split(e["command"]) if "command" in e else e["arguments"] for e in entries}


def _link_text(build: Path) -> str:
    """Whatever the generator wrote link lines into (build.ninja, or the Makefiles' link.txt)."""
    files = [build / "build.ninja", *build.rglob("link.txt")]
    return "\n".join(f.read_text() for f in files if f.is_file())


def _dynamic(path: Path, tag: str) -> list[str]:
    with path.open("rb") as f:
        dyn = ELFFile(f).get_section_by_name(".dynamic")
        assert isinstance(dyn, DynamicSection), path
        attr = {"DT_NEEDED": "needed", "DT_SONAME": "soname"}[tag]
        return [str(getattr(t, attr)) for t in dyn.iter_tags() if t.entry.d_tag == tag]


FIND = 'find_package(hip {args} CONFIG PATHS "${{HIPTEST_PREFIX}}/lib/cmake" NO_DEFAULT_PATH)'
VARIABLES = ["hip_FOUND", "hip_VERSION", "HIP_VERSION", "HIP_VERSION_MAJOR", "HIP_VERSION_MINOR",
             "HIP_VERSION_PATCH", "HIP_INCLUDE_DIRS", "HIP_INCLUDE_DIR", "hip_INCLUDE_DIRS", "HIP_LIBRARIES",
             "hip_LIBRARIES", "HIP_COMPILER", "HIP_RUNTIME", "HIP_PLATFORM", "HIP_ROOT_DIR", "ROCM_PATH",
             "GPU_TARGETS", "HIP_PACKAGE_PREFIX_DIR", "_hip_prefix", "_hip_lib"]


def _probe_lines(scope: str, names: list[str]) -> str:
    return "".join(f'message(STATUS "PROBE {scope} {n}=[${{{n}}}]")\n' for n in names)


def _project(src: Path) -> Path:
    """find_package(hip 7) from two sibling folders (twice in the first), version checks in a third."""
    src.mkdir(parents=True)
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(x LANGUAGES CXX)\n"
        "add_subdirectory(a)\nadd_subdirectory(b)\nadd_subdirectory(c)\n")
    (src / "a").mkdir()
    (src / "a" / "host.cpp").write_text(
        "#include <hip/hip_version.h>\nextern \"C\" int hipGetDeviceCount(int *count);\n"
        "int host_devices() { int n = HIP_VERSION_MAJOR; return hipGetDeviceCount(&n) + n; }\n")
    (src / "a" / "CMakeLists.txt").write_text(
        FIND.format(args="7 REQUIRED") + "\n" + FIND.format(args="7 REQUIRED") + "\n"
        "add_library(host_user SHARED host.cpp)\ntarget_link_libraries(host_user PRIVATE hip::host)\n"
        + _probe_lines("a", VARIABLES)
        + "".join(f'get_target_property(_v hip::amdhip64 {p})\nmessage(STATUS "PROBE a {p}=[${{_v}}]")\n'
                  for p in ("TYPE", "IMPORTED_LOCATION", "IMPORTED_SONAME"))
        + "".join(f'get_target_property(_v hip::{t} INTERFACE_LINK_LIBRARIES)\n'
                  f'message(STATUS "PROBE a {t}_links=[${{_v}}]")\n' for t in ("host", "device")))
    (src / "b").mkdir()
    (src / "b" / "device.cpp").write_text("__global__ void k(float *x) { x[0] = 1.0f; }\n")
    (src / "b" / "CMakeLists.txt").write_text(
        'set(ROCM_PATH "/opt/rocm-chosen-by-the-project")\n' + FIND.format(args="7 REQUIRED") + "\n"
        "add_library(device_user SHARED device.cpp)\ntarget_link_libraries(device_user PRIVATE hip::device)\n"
        + _probe_lines("b", ["hip_FOUND", "ROCM_PATH", "HIP_VERSION"]))
    (src / "c").mkdir()
    checks = {"v5_2_exact": "5.2 EXACT", "v5": "5", "v8": "8", "v7": "7", "v7_1": "7.1", "v7_1_exact": "7.1 EXACT",
              "full_exact": f"{HIP_VERSION} EXACT", "newer": "7.2", "range_in": "7.0...7.5",
              "range_across": "6...<8", "range_upto_next": "7...<8"}
    (src / "c" / "CMakeLists.txt").write_text("".join(
        f'{FIND.format(args=args + " QUIET")}\nmessage(STATUS "PROBE c {name}=[${{hip_FOUND}}]")\n'
        for name, args in checks.items()))
    return src


# -- rendering ------------------------------------------------------------------------------------

def test_writes_four_relocatable_files(tmp_path: Path) -> None:
    root = tmp_path / "prefix"
    paths = write_cmake_packages(root, HIP_VERSION)
    cm = root / "lib" / "cmake"
    assert paths == [cm / "hip" / "hip-config.cmake", cm / "hip" / "hip-config-version.cmake",
                     cm / "hip-lang" / "hip-lang-config.cmake", cm / "hip-lang" / "hip-lang-config-version.cmake"]
    for path in paths:
        text = path.read_text()
        assert path.stat().st_mode & 0o777 == 0o644
        assert str(tmp_path) not in text  # nothing absolute baked in
        lowered = text.lower()
        assert not [word for word in FORBIDDEN if word in lowered], path
        assert "cmake_minimum_required" not in text
        code = "\n".join(line.split("#", 1)[0] for line in text.splitlines())  # -mllvm only in comments
        assert "-mllvm" not in code and "amdgpu-" not in code
        assert text.endswith(")\n") and not text.endswith("\n\n")
    for config in paths[0], paths[2]:
        text = config.read_text()
        assert "cmake_policy(PUSH)" in text and "cmake_policy(VERSION 3.21...4.4)" in text
        assert text.count("cmake_policy(PUSH)") == text.count("cmake_policy(POP)") == 1
        assert '"${CMAKE_CURRENT_LIST_DIR}/../../.."' in text
    for version in paths[1], paths[3]:
        assert f'set(PACKAGE_VERSION "{HIP_VERSION}")' in version.read_text()
    assert 'set(_CMAKE_HIP_DEVICE_RUNTIME_TARGET "hip-lang::device")' in paths[2].read_text()
    # Rewriting gives the same bytes.
    before = [p.read_bytes() for p in paths]
    assert write_cmake_packages(root, HIP_VERSION) == paths
    assert [p.read_bytes() for p in paths] == before


def test_replaces_a_link_to_another_package_without_touching_it(tmp_path: Path) -> None:
    system = tmp_path / "system" / "hip-lang"
    system.mkdir(parents=True)
    (system / "hip-lang-config.cmake").write_text("# someone else's\n")
    cm = tmp_path / "prefix" / "lib" / "cmake"
    cm.mkdir(parents=True)
    (cm / "hip-lang").symlink_to(system)
    write_cmake_packages(tmp_path / "prefix", HIP_VERSION)
    assert not (cm / "hip-lang").is_symlink() and (cm / "hip-lang").is_dir()
    assert "rocm-spirv" in (cm / "hip-lang" / "hip-lang-config.cmake").read_text()
    assert (system / "hip-lang-config.cmake").read_text() == "# someone else's\n"
    assert sorted(p.name for p in system.iterdir()) == ["hip-lang-config.cmake"]


def test_refuses_to_write_out_of_the_prefix(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "prefix" / "lib").mkdir(parents=True)
    (tmp_path / "prefix" / "lib" / "cmake").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(UserError, match="leads out of the prefix"):
        write_cmake_packages(tmp_path / "prefix", HIP_VERSION)
    assert list((tmp_path / "elsewhere").iterdir()) == []


@pytest.mark.parametrize("bad", ["7.1", "7", "7.1.x", "", "v7.1.25424", "7.1.25424.0"])
def test_rejects_a_version_that_is_not_major_minor_patch(tmp_path: Path, bad: str) -> None:
    with pytest.raises(UserError, match=r"MAJOR\.MINOR\.PATCH"):
        write_cmake_packages(tmp_path, bad)
    assert not (tmp_path / "lib").exists()


# -- find_package(hip) from a C++ project ---------------------------------------------------------

SCENARIOS = {
    "default": ([], []),
    "GPU_TARGETS": (["GPU_TARGETS=gfx90a;gfx942"], ["gfx90a", "gfx942"]),
    "AMDGPU_TARGETS": (["AMDGPU_TARGETS=gfx1100"], ["gfx1100"]),
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_find_package_hip(cmake: str, prefix: Path, tmp_path: Path, scenario: str) -> None:
    defs, archs = SCENARIOS[scenario]
    build = tmp_path / "build"
    proc = _configure(cmake, _project(tmp_path / "src"), build, "CMAKE_CXX_COMPILER=c++",
                      f"HIPTEST_PREFIX={prefix}", *defs)
    out = _ok(proc)
    _assert_quiet(out)
    got = _probes(proc.stdout)
    inc, lib = f"{prefix}/include", f"{prefix}/lib"
    want = {
        "hip_FOUND": "1", "hip_VERSION": HIP_VERSION, "HIP_VERSION": HIP_VERSION, "HIP_VERSION_MAJOR": "7",
        "HIP_VERSION_MINOR": "1", "HIP_VERSION_PATCH": "25424", "HIP_INCLUDE_DIRS": inc, "HIP_INCLUDE_DIR": inc,
        "hip_INCLUDE_DIRS": inc, "HIP_LIBRARIES": "hip::host;hip::device", "hip_LIBRARIES": "hip::host;hip::device",
        "HIP_COMPILER": "clang", "HIP_RUNTIME": "rocclr", "HIP_PLATFORM": "amd", "HIP_ROOT_DIR": str(prefix),
        "ROCM_PATH": str(prefix), "GPU_TARGETS": ";".join(archs), "HIP_PACKAGE_PREFIX_DIR": str(prefix),
        "_hip_prefix": "", "_hip_lib": "",  # no temporaries leak
        "TYPE": "SHARED_LIBRARY", "IMPORTED_LOCATION": f"{lib}/{STUB}", "IMPORTED_SONAME": SONAME,
        "host_links": "hip::amdhip64", "device_links": "hip::host",
    }
    assert {name: got.get(("a", name)) for name in want} == want
    # The second directory got its own targets and kept the ROCM_PATH it chose.
    assert got[("b", "hip_FOUND")] == "1" and got[("b", "HIP_VERSION")] == HIP_VERSION
    assert got[("b", "ROCM_PATH")] == "/opt/rocm-chosen-by-the-project"
    # SameMajorVersion: 7.x up to 7.1.25424 and ranges within 7; never 5.2, 8 or a newer 7.
    found = {name: value for (scope, name), value in got.items() if scope == "c"}
    assert found == {"v5_2_exact": "0", "v5": "0", "v8": "0", "v7": "1", "v7_1": "1", "v7_1_exact": "0",
                     "full_exact": "1", "newer": "0", "range_in": "1", "range_across": "0", "range_upto_next": "1"}

    commands = _commands(build)
    host, device = commands["host.cpp"], commands["device.cpp"]
    for args in host, device:
        assert "-isystem" in args and args[args.index("-isystem") + 1] == inc
        assert "-D__HIP_PLATFORM_AMD__=1" in args
        assert not [a for a in args if a.startswith("-mllvm") or a.startswith("-amdgpu")]
    assert "-xhip" not in host and not [a for a in host if a.startswith("--offload-arch")]
    assert "-xhip" in device
    assert [a for a in device if a.startswith("--offload-arch")] == [f"--offload-arch={g}" for g in archs]

    links = _link_text(build)
    assert f"{lib}/{STUB}" in links and f"{lib}/libamdhip64.so " not in links
    assert "--hip-link" in links and "-no-hip-rt" in links and "-mllvm" not in links
    assert all(f"--offload-arch={g}" in links for g in archs)
    if not archs:
        assert "--offload-arch" not in links

    # hip::host links for real (g++ is enough): the soname, not the file name, is recorded.
    _ok(_build(cmake, build, "host_user"))
    needed = _dynamic(build / "a" / "libhost_user.so", "DT_NEEDED")
    assert [n for n in needed if n.startswith("libamdhip64")] == [SONAME]
    assert _dynamic(prefix / "lib" / STUB, "DT_SONAME") == [SONAME]


def test_moved_prefix_is_found_where_it_now_is(cmake: str, prefix: Path, tmp_path: Path) -> None:
    moved = tmp_path / "somewhere" / "else"
    moved.parent.mkdir()
    shutil.copytree(prefix, moved, symlinks=True)
    shutil.rmtree(prefix)
    proc = _configure(cmake, _project(tmp_path / "src"), tmp_path / "build", "CMAKE_CXX_COMPILER=c++",
                      f"HIPTEST_PREFIX={moved}")
    _assert_quiet(_ok(proc))
    got = _probes(proc.stdout)
    assert got[("a", "HIP_INCLUDE_DIRS")] == f"{moved}/include"
    assert got[("a", "IMPORTED_LOCATION")] == f"{moved}/lib/{STUB}"


@pytest.mark.parametrize(("remove", "says"), [
    ("lib/libamdhip64.so", "lib/libamdhip64.so (the HIP runtime library) is missing"),
    (f"lib/{STUB}", "lib/libamdhip64.so (the HIP runtime library) is missing or a broken link"),
    (f"lib/{SONAME}", f"lib/{SONAME} (the soname link"),
    ("include/hip/hip_version.h", "hip_version.h (the HIP headers) is missing"),
])
def test_incomplete_prefix_is_not_found_and_says_why(cmake: str, prefix: Path, tmp_path: Path, remove: str,
                                                      says: str) -> None:
    (prefix / remove).unlink()
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(x LANGUAGES NONE)\n"
        + FIND.format(args="QUIET") + '\nmessage(STATUS "PROBE top hip_FOUND=[${hip_FOUND}]")\n'
        + FIND.format(args="REQUIRED") + "\n")
    proc = _configure(cmake, src, tmp_path / "build", f"HIPTEST_PREFIX={prefix}")
    assert proc.returncode != 0
    assert _probes(proc.stdout)[("top", "hip_FOUND")] == "0"
    assert says in " ".join((proc.stdout + proc.stderr).split())  # CMake wraps long messages


def test_hip_platform_other_than_amd_is_not_found(cmake: str, prefix: Path, tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(x LANGUAGES NONE)\n"
        + FIND.format(args="QUIET") + '\nmessage(STATUS "PROBE top hip_FOUND=[${hip_FOUND}]")\n')
    proc = _configure(cmake, src, tmp_path / "build", f"HIPTEST_PREFIX={prefix}", "HIP_PLATFORM=nvidia")
    _ok(proc)
    assert _probes(proc.stdout)[("top", "hip_FOUND")] == "0"


def test_hip_lang_package_from_plain_cxx(cmake: str, prefix: Path, tmp_path: Path) -> None:
    """hip-lang as CMake's HIP language sees it, and `find_package(HIP CONFIG)` spelled upper-case."""
    src = tmp_path / "src"
    find = 'find_package({} CONFIG REQUIRED PATHS "${{HIPTEST_PREFIX}}/lib/cmake" NO_DEFAULT_PATH)\n'
    props = [("amdhip64", "IMPORTED_LOCATION"), ("amdhip64", "IMPORTED_SONAME"), ("host", "INTERFACE_LINK_LIBRARIES"),
             ("device", "INTERFACE_LINK_LIBRARIES"), ("device", "INTERFACE_COMPILE_OPTIONS"),
             ("device", "INTERFACE_LINK_OPTIONS")]
    for sub in ("a", "b"):
        (src / sub).mkdir(parents=True)
        (src / sub / "u.cpp").write_text("int u() { return 0; }\n")
        (src / sub / "CMakeLists.txt").write_text(
            find.format("hip-lang 7") + find.format("hip-lang")
            + f"add_library(u_{sub} SHARED u.cpp)\ntarget_link_libraries(u_{sub} PRIVATE hip-lang::device)\n"
            + _probe_lines(sub, ["hip-lang_FOUND", "hip-lang_VERSION", "_CMAKE_HIP_DEVICE_RUNTIME_TARGET",
                                 "HIP_COMPILER", "HIP_RUNTIME", "_hip_lang_prefix"])
            + "".join(f'get_target_property(_v hip-lang::{t} {p})\nmessage(STATUS "PROBE {sub} {t}.{p}=[${{_v}}]")\n'
                      for t, p in props))
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(x LANGUAGES CXX)\nadd_subdirectory(a)\nadd_subdirectory(b)\n"
        + find.format("HIP 7") + _probe_lines("top", ["HIP_FOUND", "HIP_VERSION", "hip_FOUND"]))
    build = tmp_path / "build"
    proc = _configure(cmake, src, build, "CMAKE_CXX_COMPILER=c++", f"HIPTEST_PREFIX={prefix}")
    _assert_quiet(_ok(proc))
    got = _probes(proc.stdout)
    for sub in ("a", "b"):
        assert {name: value for (scope, name), value in got.items() if scope == sub} == {
            "hip-lang_FOUND": "1", "hip-lang_VERSION": HIP_VERSION,
            "_CMAKE_HIP_DEVICE_RUNTIME_TARGET": "hip-lang::device", "HIP_COMPILER": "clang", "HIP_RUNTIME": "rocclr",
            "_hip_lang_prefix": "",
            "amdhip64.IMPORTED_LOCATION": f"{prefix}/lib/{STUB}", "amdhip64.IMPORTED_SONAME": SONAME,
            "host.INTERFACE_LINK_LIBRARIES": "hip-lang::amdhip64", "device.INTERFACE_LINK_LIBRARIES": "hip-lang::host",
            "device.INTERFACE_COMPILE_OPTIONS": "_v-NOTFOUND",  # no offload arch, no -mllvm: nothing at all
            "device.INTERFACE_LINK_OPTIONS": "$<$<LINK_LANGUAGE:HIP>:--hip-link>;$<$<LINK_LANGUAGE:HIP>:-no-hip-rt>",
        }
    assert got[("top", "HIP_FOUND")] == "1" and got[("top", "HIP_VERSION")] == HIP_VERSION
    # Its HIP-only usage requirements stay off C++ sources.
    for name, args in _commands(build).items():
        assert not [a for a in args if a.startswith(("-mllvm", "--offload-arch", "-D__HIP_ROCclr__"))], name
    assert f"{prefix}/lib/{STUB}" in _link_text(build) and "--hip-link" not in _link_text(build)


# -- CMake's HIP language with hip-lang (needs the provisioned clang wrapper) ---------------------

def _real_clang() -> Path:
    clang = REAL_PREFIX / "bin" / "clang++"
    if not os.access(clang, os.X_OK):
        pytest.skip(f"{clang} is not there (the provisioned toolchain's clang wrapper)")
    probe = subprocess.run([str(clang), "-v", "-print-targets"], capture_output=True, text=True, check=False)
    if f"Found HIP installation: {REAL_PREFIX}," not in probe.stderr:
        said = next((line for line in probe.stderr.splitlines() if "HIP installation" in line), "no HIP installation")
        pytest.skip(f"{clang} does not report the HIP installation {REAL_PREFIX} ({said})")
    for needed in ("include/hip/hip_runtime.h", "share/hip/version"):
        if not (REAL_PREFIX / needed).is_file():
            pytest.skip(f"{REAL_PREFIX / needed} is not there")
    return clang


@pytest.mark.slow
def test_hip_language_uses_hip_lang(cmake: str, tmp_path: Path) -> None:
    clang = _real_clang()
    # The provisioned prefix's headers and clang, with these packages and a stub runtime:
    # a clang++ that reports this prefix (a later --hip-path wins), so CMake finds it unaided.
    shim = tmp_path / "prefix"
    (shim / "bin").mkdir(parents=True)
    for part in ("include", "share", "amdgcn"):
        if (REAL_PREFIX / part).exists():
            (shim / part).symlink_to(REAL_PREFIX / part)
    _stub(shim / "lib")
    write_cmake_packages(shim, HIP_VERSION)
    compiler = shim / "bin" / "clang++"
    compiler.write_text(f'#!/bin/sh\nexec {shlex.quote(str(clang))} "$@" --hip-path={shlex.quote(str(shim))}\n')
    compiler.chmod(0o755)

    src = tmp_path / "src"
    src.mkdir()
    (src / "k.hip").write_text(
        "#include <hip/hip_runtime.h>\n__global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }\n"
        'extern "C" void run(float *x) { scale<<<1, 32>>>(x, 2.0f); }\n')
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(y LANGUAGES HIP)\n"
        + _probe_lines("top", ["CMAKE_HIP_COMPILER_ROCM_ROOT", "_CMAKE_HIP_DEVICE_RUNTIME_TARGET",
                               "hip-lang_VERSION", "CMAKE_HIP_RUNTIME_LIBRARIES_SHARED"])
        + "add_library(k SHARED k.hip)\n")
    build = tmp_path / "build"
    proc = _configure(cmake, src, build, f"CMAKE_HIP_COMPILER={compiler}", "CMAKE_HIP_ARCHITECTURES=amdgcnspirv")
    _assert_quiet(_ok(proc))
    got = _probes(proc.stdout)
    assert got[("top", "CMAKE_HIP_COMPILER_ROCM_ROOT")] == str(shim)
    assert got[("top", "_CMAKE_HIP_DEVICE_RUNTIME_TARGET")] == "hip-lang::device"
    assert got[("top", "hip-lang_VERSION")] == HIP_VERSION
    assert got[("top", "CMAKE_HIP_RUNTIME_LIBRARIES_SHARED")] == "hip-lang::device"

    _ok(_build(cmake, build))
    args = _commands(build)["k.hip"]
    assert "--offload-arch=amdgcnspirv" in args and not [a for a in args if a.startswith("-mllvm")]
    assert f"{shim}/lib/{STUB}" in _link_text(build)
    # Only this prefix's runtime: clang's own -lamdhip64 (-no-hip-rt) would find a system one first.
    needed = _dynamic(build / "libk.so", "DT_NEEDED")
    assert [n for n in needed if n.startswith("libamdhip64")] == [SONAME]
