"""The link-only libamdhip64.so.7 and libhiprtc.so.7: exports from the ROCm 7 headers, no-GPU answers, real
HIP programs (libhiprtc also through a CMake project's find_library and the generated toolchain file)."""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection
from rocm_spirv.errors import UserError
from rocm_spirv.toolchain import triton
from rocm_spirv.toolchain.headers import hiprtc_header, version_from_header
from rocm_spirv.toolchain.paths import cache_dir, default_prefix
from rocm_spirv.toolchain.runtime_stub import (
    AMDHIP64,
    HIPRTC,
    HeaderApi,
    StubResult,
    build_stub,
    definitions,
    file_names,
    split_function_type,
)
from tcfile import build, configure, generate

SPECIAL = AMDHIP64.special
HIPRTC_ERROR_INTERNAL_ERROR = 11  # ROCm's value of the stub's answer
STUB_MESSAGE = "HIPRTC_ERROR_INTERNAL_ERROR: this libhiprtc is rocm-spirv's link-only stub"

LLVM_BIN = Path("/usr/lib/llvm-22/bin")
HIP_ERROR_NO_DEVICE = 100  # ROCm's value; executables compare against the constant compiled into them
# What clang 22's HIP codegen and offload wrapper call with no header declaring them.
CLANG_ENTRY_POINTS = ("__hipRegisterFatBinary", "__hipUnregisterFatBinary", "__hipRegisterFunction",
                      "__hipRegisterVar", "__hipRegisterManagedVar", "__hipRegisterSurface",
                      "__hipRegisterTexture", "__hipPushCallConfiguration", "__hipPopCallConfiguration",
                      "hipLaunchKernel", "hipLaunchByPtr", "hipSetupArgument", "hipConfigureCall")

PROGRAM = r"""
#include <hip/hip_runtime.h>
#include <cstdio>

__device__ int bias;

__global__ void scale(float* x) { x[threadIdx.x] = x[threadIdx.x] * 2.0f + bias; }

int main() {
  int count = -1;
  hipError_t err = hipGetDeviceCount(&count);
  hipDeviceProp_t props;
  hipError_t perr = hipGetDeviceProperties(&props, 0);
  if (err != hipSuccess || count == 0 || perr != hipSuccess) {
    printf("no AMD GPU (%s: %s)\n", hipGetErrorName(err), hipGetErrorString(err));
    scale<<<1, 64>>>(nullptr);
    printf("launch: %s\n", hipGetErrorName(hipGetLastError()));
    return 0;
  }
  float* d = nullptr;
  if (hipMalloc(&d, 64 * sizeof(float)) != hipSuccess) return 1;
  scale<<<1, 64>>>(d);
  return hipDeviceSynchronize() == hipSuccess ? 0 : 1;
}
"""

# Just enough of hip_runtime_api.h for the stub's hand-written entry points.
MINI_API = """\
#pragma once
#include <stddef.h>
#include <outside/outside.h>
typedef enum hipError_t { hipSuccess = 0, hipErrorOutOfMemory = 2, hipErrorMemoryAllocation = 2,
                          hipErrorNoDevice = 100 } hipError_t;
typedef struct dim3 { unsigned x, y, z; } dim3;
typedef struct ihipStream_t *hipStream_t;
struct hipTriple { int a; long b; double c; };
hipError_t hipMalloc(void **ptr, size_t size);
struct hipTriple hipMakeTriple(int seed);
unsigned long long hipTicks(void);
static inline int hipInlineHelper(void) { return 1; }
{extra}
"""


def dynamic_exports(path: Path) -> tuple[str | None, set[str], bool]:
    """(DT_SONAME, defined dynamic symbols, has version definitions) of a shared library."""
    with path.open("rb") as f:
        elf = ELFFile(f)
        dynamic = elf.get_section_by_name(".dynamic")
        dynsym = elf.get_section_by_name(".dynsym")
        assert isinstance(dynamic, DynamicSection) and isinstance(dynsym, SymbolTableSection), path
        soname = next((vars(t)["soname"] for t in dynamic.iter_tags() if t.entry.d_tag == "DT_SONAME"), None)
        names = {s.name for s in dynsym.iter_symbols() if s.name and s["st_shndx"] != "SHN_UNDEF"}
        return soname, names, elf.get_section_by_name(".gnu.version_d") is not None


def undefined_imports(path: Path) -> set[str]:
    with path.open("rb") as f:
        dynsym = ELFFile(f).get_section_by_name(".dynsym")
        assert isinstance(dynsym, SymbolTableSection), path
        return {s.name for s in dynsym.iter_symbols() if s.name and s["st_shndx"] == "SHN_UNDEF"}


@pytest.fixture(scope="module")
def clang22() -> Path:
    if not os.access(LLVM_BIN / "clang", os.X_OK):
        pytest.skip(f"{LLVM_BIN}/clang is not installed (apt-get install clang-22)")
    return LLVM_BIN / "clang"


@pytest.fixture(scope="module")
def hip_include(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ROCm 7 HIP headers: fresh from the cached triton wheel, else a provisioned prefix's."""
    wheels = sorted((cache_dir() / "wheels").glob("triton-*.whl"))
    if wheels:
        include = tmp_path_factory.mktemp("hip") / "include"
        triton.extract(wheels[-1], triton.INCLUDE, include)
        return include
    provisioned = default_prefix() / "include"
    if (provisioned / "hip" / "hip_runtime_api.h").is_file():
        return provisioned
    pytest.skip(f"no ROCm 7 HIP headers: no {cache_dir()}/wheels/triton-*.whl and no "
                f"{provisioned}/hip/hip_runtime_api.h (run `rocm-spirv toolchain provision`)")


@pytest.fixture(scope="module")
def hip_version(hip_include: Path) -> str:
    version = version_from_header((hip_include / "hip" / "hip_version.h").read_text())
    assert version is not None and version.startswith("7.")
    return version


@pytest.fixture(scope="module")
def stub(clang22: Path, hip_include: Path, hip_version: str, tmp_path_factory: pytest.TempPathFactory) -> StubResult:
    return build_stub(AMDHIP64, [str(clang22)], hip_include, tmp_path_factory.mktemp("stub") / "lib", hip_version)


def build_runtime_stub(cc: list[str], include: Path, lib_dir: Path, version: str) -> StubResult:
    return build_stub(AMDHIP64, cc, include, lib_dir, version)


def mini_headers(root: Path, extra: str = "") -> Path:
    include = root / "include"
    (include / "hip").mkdir(parents=True)
    (include / "outside").mkdir()
    (include / "outside" / "outside.h").write_text("int outsideFunction(void);\n")
    (include / "hip" / "hip_runtime_api.h").write_text(MINI_API.replace("{extra}", extra))
    (include / "hip" / "hip_runtime.h").write_text("#include <hip/hip_runtime_api.h>\n")
    return include


def test_stub_has_the_rocm7_soname_and_exports(stub: StubResult, hip_version: str) -> None:
    lib = stub.path.parent
    assert stub.path.name == f"libamdhip64.so.{hip_version}" and stub.soname == "libamdhip64.so.7"
    assert os.readlink(lib / "libamdhip64.so.7") == stub.path.name
    assert os.readlink(lib / "libamdhip64.so") == "libamdhip64.so.7"
    soname, names, versioned = dynamic_exports(lib / "libamdhip64.so")
    assert soname == "libamdhip64.so.7"
    for name in ("hipGetDevicePropertiesR0600", "hipMalloc", "hipLaunchKernel", *CLANG_ENTRY_POINTS):
        assert name in names, name
    assert stub.symbol_count == len(names) > 400
    # Unversioned on purpose (see runtime_stub's docstring).
    assert not versioned


def test_stub_answers_like_a_runtime_that_finds_no_gpu(stub: StubResult) -> None:
    lib = ctypes.CDLL(str(stub.path))
    count = ctypes.c_int(-1)
    assert lib.hipGetDeviceCount(ctypes.byref(count)) == HIP_ERROR_NO_DEVICE and count.value == 0
    version = ctypes.c_int(-1)
    assert lib.hipRuntimeGetVersion(ctypes.byref(version)) == HIP_ERROR_NO_DEVICE and version.value == 0
    ptr = ctypes.c_void_p()
    assert lib.hipMalloc(ctypes.byref(ptr), ctypes.c_size_t(64)) == HIP_ERROR_NO_DEVICE
    assert lib.hipGetLastError() == lib.hipPeekAtLastError() == HIP_ERROR_NO_DEVICE
    for fn in ("hipGetErrorName", "hipGetErrorString"):
        getattr(lib, fn).restype = ctypes.c_char_p
    assert lib.hipGetErrorName(HIP_ERROR_NO_DEVICE) == b"hipErrorNoDevice"
    assert lib.hipGetErrorString(HIP_ERROR_NO_DEVICE) == b"no ROCm-capable device is detected"
    assert lib.hipGetErrorName(1) == b"hipErrorInvalidValue"  # every name of the headers' enum
    assert lib.hipGetErrorString(1) and lib.hipGetErrorName(123456) == b"unrecognized hipError_t"
    lib.__hipRegisterFatBinary.restype = ctypes.c_void_p
    assert lib.__hipRegisterFatBinary(None)


def test_stub_build_is_deterministic(stub: StubResult, clang22: Path, hip_include: Path, hip_version: str,
                                     tmp_path: Path) -> None:
    again = build_runtime_stub([str(clang22)], hip_include, tmp_path / "lib", hip_version)
    assert again.path.read_bytes() == stub.path.read_bytes()


def test_hip_program_links_against_the_stub_and_reports_no_gpu(stub: StubResult, hip_include: Path,
                                                                tmp_path: Path) -> None:
    src = tmp_path / "prog.hip"
    src.write_text(PROGRAM)
    exe = tmp_path / "prog"
    # amdgcnspirv needs no device libraries (the runtime's JIT links them), so
    # the whole program compiles and links here; gfx942 with -nogpulib leaves
    # __ockl_* undefined in the device link, and --cuda-host-only leaves
    # __hip_fatbin_* undefined in the host link. -nogpuinc plus -isystem keeps
    # Debian's HIP 5.2 /usr/include/hip out (--hip-path adds -idirafter only).
    argv = [str(LLVM_BIN / "clang++"), "-x", "hip", "--offload-arch=amdgcnspirv", "-use-spirv-backend",
            "-fvisibility=default", "-nogpulib", "-nogpuinc", "-isystem", str(hip_include),
            "-include", "__clang_hip_runtime_wrapper.h", "-D__HIP_PLATFORM_AMD__", str(src),
            "-L", str(stub.path.parent), "-lamdhip64", "-o", str(exe)]
    build = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=120)
    assert build.returncode == 0, build.stderr
    assert {"hipGetDevicePropertiesR0600", "__hipRegisterFatBinary"} <= undefined_imports(exe)
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=False, timeout=60,
                         env={**os.environ, "LD_LIBRARY_PATH": str(stub.path.parent)})
    assert run.returncode == 0, run.stderr
    assert "no AMD GPU (hipErrorNoDevice: no ROCm-capable device is detected)" in run.stdout
    assert "launch: hipErrorNoDevice" in run.stdout


def test_exports_are_exactly_the_hip_folders_c_functions(clang22: Path, tmp_path: Path) -> None:
    include = mini_headers(tmp_path)
    stub = build_runtime_stub([str(clang22)], include, tmp_path / "lib", "7.0.1")
    _, names, _ = dynamic_exports(stub.path)
    assert names == {"hipMalloc", "hipMakeTriple", "hipTicks", "hipGetErrorName", *SPECIAL}
    assert stub.symbol_count == len(names)

    class Triple(ctypes.Structure):
        _fields_ = [("a", ctypes.c_int), ("b", ctypes.c_long), ("c", ctypes.c_double)]

    lib = ctypes.CDLL(str(stub.path))
    lib.hipMakeTriple.restype = Triple  # returned in memory: needs the real prototype
    triple = lib.hipMakeTriple(7)
    assert (triple.a, triple.b, triple.c) == (0, 0, 0.0)
    assert lib.hipTicks() == 0


def test_a_conflicting_header_declaration_fails_naming_the_step(clang22: Path, tmp_path: Path) -> None:
    include = mini_headers(tmp_path, extra="hipError_t hipGetDeviceCount(float count);")
    with pytest.raises(UserError, match="compiling the libamdhip64 stub failed"):
        build_runtime_stub([str(clang22)], include, tmp_path / "lib", "7.0.1")
    assert not (tmp_path / "lib").exists()


def test_a_missing_compiler_fails_naming_the_step(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"reading the HIP API .* cannot run"):
        build_runtime_stub([str(tmp_path / "no-clang")], mini_headers(tmp_path), tmp_path / "lib", "7.0.1")


def test_split_function_type() -> None:
    assert split_function_type("hipError_t (int *)") == ("hipError_t", "(int *)")
    assert split_function_type("const char *(hipError_t)") == ("const char *", "(hipError_t)")
    assert split_function_type("hipError_t (void (*)(void *), void *)") == ("hipError_t", "(void (*)(void *), void *)")
    with pytest.raises(ValueError):
        split_function_type("void (*(int))(void)")


def test_file_names_follow_rocm() -> None:
    assert file_names(AMDHIP64, "7.1.25424") == ("libamdhip64.so.7.1.25424", "libamdhip64.so.7")
    assert file_names(HIPRTC, "7.1.25424") == ("libhiprtc.so.7.1.25424", "libhiprtc.so.7")
    with pytest.raises(UserError):
        file_names(AMDHIP64, "7.1")


def test_headers_without_no_device_error_are_refused() -> None:
    with pytest.raises(UserError, match="hipErrorNoDevice"):
        definitions(HeaderApi(functions=(), errors=("hipSuccess",)), AMDHIP64)


# A program like AMD's runtime_compilation example: create a program, report what hiprtc answered.
RTC_PROGRAM = r"""
#include <hip/hip_runtime.h>
#include <hip/hiprtc.h>
#include <cstdio>
static const char *kSource = "extern \"C\" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }";
int main() {
  hiprtcProgram prog = reinterpret_cast<hiprtcProgram>(1);
  hiprtcResult r = hiprtcCreateProgram(&prog, kSource, "k.hip", 0, nullptr, nullptr);
  std::printf("hiprtcCreateProgram: %d %s\n%s\n", static_cast<int>(r), prog ? "set" : "null", hiprtcGetErrorString(r));
  return r == HIPRTC_SUCCESS ? 1 : 0;
}
"""

RTC_PROJECT = """\
cmake_minimum_required(VERSION 3.21)
project(rtc LANGUAGES CXX HIP)
find_package(hip REQUIRED)
# As AMD's HIP examples find it (HIP-Basic/runtime_compilation).
find_library(HIPRTC_LIB hiprtc REQUIRED)
message(STATUS "HIPRTC_LIB=${HIPRTC_LIB}")
add_executable(rtc main.hip)
target_link_libraries(rtc PRIVATE hip::host ${HIPRTC_LIB})
"""


@pytest.fixture(scope="module")
def rtc_stub(clang22: Path, hip_include: Path, hip_version: str, tmp_path_factory: pytest.TempPathFactory
             ) -> StubResult:
    """libhiprtc from the ROCm 7 headers plus the hip/hiprtc.h a prefix writes (the wheel has none)."""
    include = tmp_path_factory.mktemp("rtc") / "include"
    shutil.copytree(hip_include / "hip", include / "hip")
    (include / "hip" / "hiprtc.h").write_text(hiprtc_header(hip_version))
    return build_stub(HIPRTC, [str(clang22)], include, include.parent / "lib", hip_version)


def declared_functions(header: Path) -> set[str]:
    """The functions a header declares, read from its text (not through the stub generator's scan)."""
    return set(re.findall(r"^(?:const char \*|hiprtcResult )(hiprtc\w+)\(", header.read_text(), re.M))


def nm_defined(path: Path) -> set[str]:
    out = subprocess.run([str(LLVM_BIN / "llvm-nm"), "-D", "--defined-only", "--format=just-symbols", str(path)],
                         capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_hiprtc_stub_exports_every_function_hiprtc_h_declares(rtc_stub: StubResult, hip_version: str) -> None:
    lib = rtc_stub.path.parent
    assert rtc_stub.path.name == f"libhiprtc.so.{hip_version}" and rtc_stub.soname == "libhiprtc.so.7"
    assert os.readlink(lib / "libhiprtc.so.7") == rtc_stub.path.name
    assert os.readlink(lib / "libhiprtc.so") == "libhiprtc.so.7"
    declared = declared_functions(lib.parent / "include" / "hip" / "hiprtc.h")
    assert {"hiprtcCreateProgram", "hiprtcGetErrorString", "hiprtcLinkCreate", "hiprtcVersion"} <= declared
    assert nm_defined(lib / "libhiprtc.so") == declared and rtc_stub.symbol_count == len(declared)
    soname, _, versioned = dynamic_exports(lib / "libhiprtc.so")
    assert soname == "libhiprtc.so.7" and not versioned
    # --no-undefined holds: the library calls nothing and needs no other library.
    assert undefined_imports(rtc_stub.path) == set()
    dynamic = subprocess.run([str(LLVM_BIN / "llvm-readelf"), "-d", str(rtc_stub.path)], capture_output=True,
                             text=True, check=True).stdout
    assert "(NEEDED)" not in dynamic and "[libhiprtc.so.7]" in dynamic


def test_hiprtc_stub_answers_like_hiprtc_without_rocm(rtc_stub: StubResult) -> None:
    lib = ctypes.CDLL(str(rtc_stub.path))
    prog = ctypes.c_void_p(1)
    assert lib.hiprtcCreateProgram(ctypes.byref(prog), b"", b"k.hip", 0, None, None) == HIPRTC_ERROR_INTERNAL_ERROR
    assert prog.value is None
    major, minor = ctypes.c_int(-1), ctypes.c_int(-1)
    assert lib.hiprtcVersion(ctypes.byref(major), ctypes.byref(minor)) == HIPRTC_ERROR_INTERNAL_ERROR
    assert (major.value, minor.value) == (0, 0)
    assert lib.hiprtcCompileProgram(None, 0, None) == lib.hiprtcLinkDestroy(None) == HIPRTC_ERROR_INTERNAL_ERROR
    lib.hiprtcGetErrorString.restype = ctypes.c_char_p
    assert lib.hiprtcGetErrorString(HIPRTC_ERROR_INTERNAL_ERROR).decode().startswith(STUB_MESSAGE)
    assert lib.hiprtcGetErrorString(0) == b"HIPRTC_SUCCESS" and lib.hiprtcGetErrorString(100) == b"HIPRTC_ERROR_LINKING"


def test_cmake_finds_hiprtc_through_the_toolchain_file_and_the_call_gets_the_stub_error(
        toolchain: Path, tmp_path: Path) -> None:
    """find_library(HIPRTC_LIB hiprtc REQUIRED) in a project configured with a generated toolchain file
    finds the prefix's stub; the program links with the prefix's clang++ and, run, gets its error."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(RTC_PROJECT)
    (src / "main.hip").write_text(RTC_PROGRAM)
    tc = generate(toolchain, tmp_path / "toolchain.cmake")
    out = configure(src, tmp_path / "build", tc).stdout
    assert f"HIPRTC_LIB={toolchain}/lib/libhiprtc.so" in out
    build(tmp_path / "build")
    exe = tmp_path / "build" / "rtc"
    needed = subprocess.run([str(LLVM_BIN / "llvm-readelf"), "-d", str(exe)], capture_output=True, text=True,
                            check=True).stdout
    assert "[libhiprtc.so.7]" in needed
    # No LD_LIBRARY_PATH: the toolchain file's build RPATH reaches the prefix's lib/.
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=False, timeout=60, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"hiprtcCreateProgram: {HIPRTC_ERROR_INTERNAL_ERROR} null\n{STUB_MESSAGE}" in run.stdout


def _c_api(clang: Path, header: Path, include: Path) -> tuple[dict[str, str], dict[str, int]]:
    """A header's C functions (name -> clang's spelling of the type) and enumerators (name -> value)."""
    import json

    done = subprocess.run([str(clang), "-x", "c", "-std=c2x", "-D__HIP_PLATFORM_AMD__", "-I", str(include),
                           "-fsyntax-only", "-Xclang", "-ast-dump=json", str(header)],
                          capture_output=True, text=True, check=True)
    functions: dict[str, str] = {}
    values: dict[str, int] = {}
    stack = [json.loads(done.stdout)]
    while stack:
        node = stack.pop()
        if node.get("kind") == "FunctionDecl" and node.get("name", "").startswith("hiprtc"):
            functions[node["name"]] = node["type"]["qualType"]
        if node.get("kind") == "EnumConstantDecl" and node.get("name", "").startswith("HIPRTC_"):
            value = [c for c in node.get("inner", ()) if c.get("kind") == "ConstantExpr"]
            values[node["name"]] = int(value[0]["value"]) if value else -1
        stack.extend(node.get("inner", ()))
    return functions, values


def test_hiprtc_declarations_match_a_real_hip_header_where_they_overlap(clang22: Path, toolchain: Path) -> None:
    """The prefix's own hip/hiprtc.h against AMD's hiprtc.h of Debian's HIP 5.2 (libamdhip64-dev): every
    function and result code 5.2 has is declared with the same type and value (ROCm 7 only adds)."""
    debian = Path("/usr/include/hip/hiprtc.h")
    if not debian.is_file():
        pytest.skip("no /usr/include/hip/hiprtc.h (apt-get install libamdhip64-dev; .ci/setup does)")
    ours_f, ours_v = _c_api(clang22, toolchain / "include" / "hip" / "hiprtc.h", toolchain / "include")
    real_f, real_v = _c_api(clang22, debian, Path("/usr/include"))
    assert real_f and real_v, "Debian's hiprtc.h parsed to nothing"
    assert {n: ours_f.get(n) for n in real_f} == real_f
    assert {n: ours_v.get(n) for n in real_v} == real_v
