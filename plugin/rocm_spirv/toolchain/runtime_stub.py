"""A link-only `libamdhip64.so.7` generated from the ROCm 7 HIP headers, like CUDA's `stubs/libcuda.so`.

Debian ships only HIP 5.2's runtime, whose ABI lacks ROCm 7 entry points such
as `hipGetDevicePropertiesR0600`, so programs built against the prefix's ROCm 7
headers could not link. The stub exports every C function the headers declare,
plus the registration and launch entry points clang's HIP codegen calls without
any header declaring them. On a machine without ROCm 7 the stub is also what
gets loaded at run time, so it behaves like a runtime that finds no GPU: calls
returning hipError_t return hipErrorNoDevice, hipGetDeviceCount stores 0,
pointer results are NULL, and the registration calls static constructors make
succeed so a program reaches main() and can report the missing GPU itself.

The API list comes from the headers, parsed by the compiler in C mode: C has
one linkage, so every declared function is an exported C symbol, and the dump
stays ~10 MB and ~0.2 s (C++ mode drags libstdc++ in: 50-180 MB, seconds).
Each stub is defined with the header's own prototype in a source that includes
those headers, so the compiler checks every definition against its declaration
and struct returns (hipCreateChannelDesc) get the right calling convention.

What clang 22 emits (llvm-nm -u of a host object with a kernel, a __device__
and a __managed__ variable): __hipRegisterFatBinary, __hipUnregisterFatBinary,
__hipRegisterFunction, __hipRegisterVar, __hipRegisterManagedVar,
__hipPushCallConfiguration, __hipPopCallConfiguration and hipLaunchKernel;
with -fno-hip-new-launch-api hipConfigureCall, hipSetupArgument and
hipLaunchByPtr instead of the push/pop/hipLaunchKernel trio. The offload
wrapper of --offload-new-driver links also call __hipRegisterSurface and
__hipRegisterTexture. Their signatures follow hip/amd_detail/hip_api_trace.hpp.

Symbol versions: ROCm's libamdhip64 is linked with a version script
(clr hipamd/src/hip_hcc.map.in: hip_4.2 ... hip_7.1, each symbol in exactly one
node, always the default `@@` version; hipGetDevicePropertiesR0600 is in
hip_6.0), so executables linked against it record Verneed entries. The stub is
deliberately unversioned: it cannot know which node each symbol belongs to,
and a wrong node would make an executable linked against the stub fail on a
real ROCm ("version not found"). Measured with glibc 2.36 on a mock pair of
libraries: an executable linked against the unversioned stub runs against a
versioned library (an unversioned reference binds to the symbol's only,
default version), and one linked against the versioned library runs against
the stub too, with ld.so printing "no version information available" on stderr.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rocm_spirv.errors import UserError
from rocm_spirv.fsutil import write_atomic
from rocm_spirv.term import traced

# Both headers: hip_runtime.h adds the few C functions of amd_hip_runtime.h
# (amd_dbgapi_get_build_name, ...) that ROCm's library also exports.
SCAN_SOURCE = "#include <hip/hip_runtime_api.h>\n#include <hip/hip_runtime.h>\n"
SCAN_TIMEOUT = 120
BUILD_TIMEOUT = 300
STUB_SOURCE_NAME = "libamdhip64_stub.c"
ERROR_TYPES = ("hipError_t", "enum hipError_t")
NO_DEVICE_MESSAGE = "no ROCm-capable device is detected"

# Entry points with hand-written bodies. Those the headers also declare are
# checked against that declaration by the compiler; the __hipRegister* family
# is declared nowhere, so those are defined whatever the headers say.
SPECIAL: dict[str, str] = {
    "__hipRegisterFatBinary": """\
void **__hipRegisterFatBinary(const void *data) {
  (void)data;
  /* clang's module constructor stores this handle and passes it back; NULL
     would read as a failed registration. */
  return &rocm_spirv_module_handle;
}""",
    "__hipUnregisterFatBinary": "void __hipUnregisterFatBinary(void **modules) { (void)modules; }",
    "__hipRegisterFunction": """\
void __hipRegisterFunction(void **modules, const void *hostFunction, char *deviceFunction,
                           const char *deviceName, unsigned int threadLimit, void *tid, void *bid,
                           dim3 *blockDim, dim3 *gridDim, int *wSize) {
  (void)modules; (void)hostFunction; (void)deviceFunction; (void)deviceName; (void)threadLimit;
  (void)tid; (void)bid; (void)blockDim; (void)gridDim; (void)wSize;
}""",
    "__hipRegisterVar": """\
void __hipRegisterVar(void **modules, void *var, char *hostVar, char *deviceVar, int ext,
                      size_t size, int constant, int global) {
  (void)modules; (void)var; (void)hostVar; (void)deviceVar; (void)ext; (void)size; (void)constant;
  (void)global;
}""",
    "__hipRegisterManagedVar": """\
void __hipRegisterManagedVar(void *hipModule, void **pointer, void *init_value, const char *name,
                             size_t size, unsigned align) {
  (void)hipModule; (void)name; (void)size; (void)align;
  /* Host code reads a __managed__ variable through *pointer; the host copy of
     its initial value keeps such reads valid instead of dereferencing NULL. */
  if (pointer) *pointer = init_value;
}""",
    "__hipRegisterSurface": """\
void __hipRegisterSurface(void **modules, void *var, char *hostVar, char *deviceVar, int type,
                          int ext) {
  (void)modules; (void)var; (void)hostVar; (void)deviceVar; (void)type; (void)ext;
}""",
    "__hipRegisterTexture": """\
void __hipRegisterTexture(void **modules, void *var, char *hostVar, char *deviceVar, int type,
                          int norm, int ext) {
  (void)modules; (void)var; (void)hostVar; (void)deviceVar; (void)type; (void)norm; (void)ext;
}""",
    # `k<<<g, b>>>()` skips the launch when push fails, and the stub's launch
    # must be reached so hipGetLastError-style checks see hipErrorNoDevice.
    "__hipPushCallConfiguration": """\
hipError_t __hipPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, hipStream_t stream) {
  (void)gridDim; (void)blockDim; (void)sharedMem; (void)stream;
  return hipSuccess;
}""",
    "__hipPopCallConfiguration": """\
hipError_t __hipPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, hipStream_t *stream) {
  /* The kernel stub passes these on to hipLaunchKernel: defined, not stack garbage. */
  if (gridDim) *gridDim = (dim3){0};
  if (blockDim) *blockDim = (dim3){0};
  if (sharedMem) *sharedMem = 0;
  if (stream) *stream = 0;
  return hipSuccess;
}""",
    "hipLaunchKernel": """\
hipError_t hipLaunchKernel(const void *function_address, dim3 numBlocks, dim3 dimBlocks, void **args,
                           size_t sharedMemBytes, hipStream_t stream) {
  (void)function_address; (void)numBlocks; (void)dimBlocks; (void)args; (void)sharedMemBytes; (void)stream;
  return hipErrorNoDevice;
}""",
    "hipConfigureCall": """\
hipError_t hipConfigureCall(dim3 gridDim, dim3 blockDim, size_t sharedMem, hipStream_t stream) {
  (void)gridDim; (void)blockDim; (void)sharedMem; (void)stream;
  return hipErrorNoDevice;
}""",
    "hipSetupArgument": """\
hipError_t hipSetupArgument(const void *arg, size_t size, size_t offset) {
  (void)arg; (void)size; (void)offset;
  return hipErrorNoDevice;
}""",
    "hipLaunchByPtr": "hipError_t hipLaunchByPtr(const void *func) { (void)func; return hipErrorNoDevice; }",
    "hipGetDeviceCount": """\
hipError_t hipGetDeviceCount(int *count) {
  if (count) *count = 0;
  return hipErrorNoDevice;
}""",
    "hipRuntimeGetVersion": """\
hipError_t hipRuntimeGetVersion(int *runtimeVersion) {
  if (runtimeVersion) *runtimeVersion = 0;
  return hipErrorNoDevice;
}""",
    "hipDriverGetVersion": """\
hipError_t hipDriverGetVersion(int *driverVersion) {
  if (driverVersion) *driverVersion = 0;
  return hipErrorNoDevice;
}""",
    "hipGetErrorString": f"""\
const char *hipGetErrorString(hipError_t hipError) {{
  if (hipError == hipSuccess) return "no error";
  if (hipError == hipErrorNoDevice) return "{NO_DEVICE_MESSAGE}";
  return "HIP call failed: this libamdhip64 is rocm-spirv's link-only stub, no ROCm runtime is installed";
}}""",
}

SOURCE_HEADER = """\
/* Generated by rocm-spirv: a link-only libamdhip64 for HIP {version}, no GPU runtime.
 * Every function declared by the HIP headers is defined here as a runtime that
 * finds no GPU would answer. Do not edit; rebuild with `rocm-spirv toolchain provision`. */
#include <hip/hip_runtime_api.h>
#include <hip/hip_runtime.h>

static void *rocm_spirv_module_handle;
"""


@dataclass(frozen=True)
class ApiFunction:
    name: str
    type: str  # clang's spelling of the function type, e.g. "hipError_t (int *)"


@dataclass(frozen=True)
class HipApi:
    functions: tuple[ApiFunction, ...]  # sorted by name
    errors: tuple[str, ...]  # hipError_t's enumerators, in declaration order


@dataclass(frozen=True)
class StubResult:
    path: Path  # the real file, lib_dir/libamdhip64.so.<major>.<minor>.<patch>
    soname: str
    symbol_count: int


def file_names(hip_version: str) -> tuple[str, str]:
    """`7.1.25424` -> (`libamdhip64.so.7.1.25424`, `libamdhip64.so.7`): the real file and the soname."""
    m = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", hip_version)
    if not m:
        raise UserError(f"HIP version {hip_version!r} is not MAJOR.MINOR.PATCH",
                        "provision again from a triton wheel whose hip/hip_version.h is intact")
    return f"libamdhip64.so.{hip_version}", f"libamdhip64.so.{m.group(1)}"


def compile_flags(include_dir: Path) -> list[str]:
    """Host-side C view of the HIP headers, shared by the scan and the stub build.

    C2x because the generic definitions leave their parameters unnamed; the
    scan uses the same mode so both see the same preprocessed declarations.
    """
    return ["-x", "c", "-std=c2x", "-D__HIP_PLATFORM_AMD__", "-I", str(include_dir)]


class _Located:
    """A marker on the walk's stack: report this node once its `loc` is read."""

    __slots__ = ("node",)

    def __init__(self, node: dict[str, Any]) -> None:
        self.node = node


def located_nodes(dump: Any) -> Iterator[tuple[dict[str, Any], str | None]]:
    """Each AST node with a location, paired with the file that location is in.

    clang's JSON dump writes a location's "file" only when it differs from the
    previous location written, so the file is the last one seen in document
    order. "includedFrom" names the includer, not the location, and is skipped.
    The walk is iterative: expression trees can nest deeper than Python recurses.
    """
    current: str | None = None
    stack: list[Any] = [dump]
    while stack:
        item = stack.pop()
        if isinstance(item, _Located):
            yield item.node, current
        elif isinstance(item, list):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            file = item.get("file")
            if isinstance(file, str):
                current = file
            todo: list[Any] = []
            for key, value in item.items():
                if key != "includedFrom" and isinstance(value, (dict, list)):
                    todo.append(value)
                if key == "loc" and "kind" in item:
                    todo.append(_Located(item))
            stack.extend(reversed(todo))


def _is_defined(node: dict[str, Any]) -> bool:
    return any(child.get("kind") == "CompoundStmt" for child in node.get("inner", ()))


def parse_api(dump: Any, hip_dir: Path) -> HipApi:
    """The exported C API in a JSON AST: extern functions declared under hip_dir, and hipError_t's names."""
    prefix = os.path.normpath(hip_dir) + os.sep
    functions: dict[str, str] = {}
    defined: set[str] = set()
    errors: list[str] = []
    for node, file in located_nodes(dump):
        if file is None or not os.path.normpath(file).startswith(prefix):
            continue
        kind, name = node.get("kind"), node.get("name")
        if kind == "EnumDecl" and name == "hipError_t" and not errors:
            errors = [c["name"] for c in node.get("inner", ()) if c.get("kind") == "EnumConstantDecl"]
        if kind != "FunctionDecl" or not isinstance(name, str):
            continue
        # A mangled name other than the plain one means C++ linkage (only
        # possible if the scan ever runs in C++ mode); inline and static
        # functions have no symbol in the library.
        if node.get("mangledName", name) != name or node.get("inline") or node.get("storageClass") == "static":
            continue
        if _is_defined(node):
            defined.add(name)
        functions.setdefault(name, node["type"]["qualType"])
    return HipApi(tuple(ApiFunction(n, t) for n, t in sorted(functions.items()) if n not in defined),
                  tuple(dict.fromkeys(errors)))


def split_function_type(spelling: str) -> tuple[str, str]:
    """`const char *(hipError_t)` -> (`const char *`, `(hipError_t)`)."""
    depth = 0
    for i in range(len(spelling) - 1, -1, -1):
        if spelling[i] == ")":
            depth += 1
        elif spelling[i] == "(":
            depth -= 1
            if depth == 0:
                ret, params = spelling[:i].rstrip(), spelling[i:]
                # A function-pointer or array return would need the name inside
                # the return type; no HIP function returns one.
                if ret and not any(c in ret for c in "()[]") and spelling.endswith(")"):
                    return ret, params
                break
    raise ValueError(f"not a function type clang spells as `RET (PARAMS)`: {spelling}")


def define(fn: ApiFunction) -> str:
    """A definition with the declared prototype (unnamed parameters: C23) and a no-GPU result."""
    try:
        ret, params = split_function_type(fn.type)
    except ValueError as err:
        raise UserError(f"cannot write a stub for {fn.name} ({err})",
                        "report it to rocm-spirv: the HIP headers declare a shape the stub generator lacks") from None
    if ret == "void":
        body = ""
    elif ret in ERROR_TYPES:
        body = " return hipErrorNoDevice; "
    else:
        # Pointers, integers and structs alike: zero, NULL for pointers.
        body = f" return ({ret}){{0}}; "
    sep = "" if ret.endswith("*") else " "
    # A header macro of the same name would otherwise rename the definition.
    return f"#undef {fn.name}\n{ret}{sep}{fn.name}{params} {{{body}}}"


def error_name_function(errors: tuple[str, ...]) -> str:
    """hipGetErrorName over the headers' own enumerators; an if-chain because some share a value."""
    lines = [f'  if (hipError == {e}) return "{e}";' for e in errors]
    return "\n".join(["const char *hipGetErrorName(hipError_t hipError) {", *lines,
                      '  return "unrecognized hipError_t";', "}"])


def definitions(api: HipApi) -> dict[str, str]:
    """Symbol name -> its C definition: one per header function, plus the hand-written entry points."""
    if "hipErrorNoDevice" not in api.errors or "hipSuccess" not in api.errors:
        raise UserError("the HIP headers' hipError_t lacks hipSuccess or hipErrorNoDevice",
                        "use ROCm 7 HIP headers (a triton wheel with the AMD backend)")
    special = {**SPECIAL, "hipGetErrorName": error_name_function(api.errors)}
    parts = {fn.name: define(fn) for fn in api.functions if fn.name not in special}
    parts.update({name: f"#undef {name}\n{text}" for name, text in special.items()})
    return parts


def render_source(parts: dict[str, str], hip_version: str) -> str:
    """The stub's C source, sorted by symbol name so equal inputs give equal bytes."""
    return SOURCE_HEADER.format(version=hip_version) + "".join(f"\n{parts[n]}\n" for n in sorted(parts))


def _run(step: str, argv: list[str], remedy: str, timeout: float, cwd: Path | None = None,
         stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    try:
        with traced(argv, cwd) as trace:
            proc = subprocess.run(argv, input=stdin, capture_output=True, text=True, check=False,
                                  timeout=timeout, cwd=cwd)
            trace.status = proc.returncode
    except OSError as err:
        raise UserError(f"{step}: cannot run {argv[0]} ({err.strerror})", remedy) from None
    except subprocess.TimeoutExpired:
        raise UserError(f"{step}: {argv[0]} did not finish within {timeout:.0f} s", remedy) from None
    if proc.returncode != 0:
        # The first diagnostic names the cause; later ones are usually its echoes.
        lines = proc.stderr.splitlines()
        first = next((ln for ln in lines if "error" in ln), lines[0] if lines else "no output")
        raise UserError(f"{step} failed ({first.strip()})", remedy)
    return proc


def scan_headers(cc: list[str], include_dir: Path) -> HipApi:
    """Ask the compiler which C functions the HIP headers under include_dir declare."""
    step = f"reading the HIP API from {include_dir}/hip for the libamdhip64 stub"
    remedy = f"check that `{cc[0]}` is a working clang and {include_dir}/hip holds ROCm 7 HIP headers"
    proc = _run(step, [*cc, *compile_flags(include_dir), "-fsyntax-only", "-Xclang", "-ast-dump=json", "-"],
                remedy, SCAN_TIMEOUT, stdin=SCAN_SOURCE)
    try:
        dump = json.loads(proc.stdout)
    except json.JSONDecodeError as err:
        raise UserError(f"{step} failed (unreadable AST dump: {err.msg})",
                        f"check that `{cc[0]}` is clang (the scan uses -Xclang -ast-dump=json)") from None
    api = parse_api(dump, include_dir / "hip")
    if not api.functions:
        raise UserError(f"{step} found no functions", f"check that {include_dir}/hip holds the ROCm HIP headers")
    return api


def compile_stub(cc: list[str], include_dir: Path, source: str, soname: str) -> bytes:
    """Build the shared library in a private temp dir and return its bytes.

    A fixed source name and working directory keep paths out of the output, so
    the same source gives the same bytes. -nostdlib: the stub calls nothing, and
    needing neither libc nor crt files keeps it buildable by any clang that can
    link; --no-undefined proves the "calls nothing".
    """
    with tempfile.TemporaryDirectory(prefix="rocm-spirv-hipstub-") as tmp:
        work = Path(tmp)
        (work / STUB_SOURCE_NAME).write_text(source)
        argv = [*cc, *compile_flags(include_dir), "-fPIC", "-shared", "-O2", "-g0", "-fno-stack-protector",
                "-nostdlib", f"-Wl,-soname,{soname}", "-Wl,--no-undefined", "-o", "stub.so", STUB_SOURCE_NAME]
        _run("compiling the libamdhip64 stub", argv,
             f"check that `{cc[0]}` links host shared libraries (-shared -nostdlib); if it does, "
             "report this to rocm-spirv with the message", BUILD_TIMEOUT, cwd=work)
        return (work / "stub.so").read_bytes()


def _symlink_atomic(link: Path, target: str) -> None:
    tmp = link.with_name(f".{link.name}.{secrets.token_hex(4)}")
    tmp.symlink_to(target)
    try:
        os.replace(tmp, link)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def build_runtime_stub(cc: list[str], include_dir: Path, lib_dir: Path, hip_version: str) -> StubResult:
    """lib_dir/libamdhip64.so.<version> (soname libamdhip64.so.<major>) and its two symlinks.

    cc is the argv prefix of a clang C compiler for the host. Every file lands
    by rename, so lib_dir may be a staging dir that is renamed afterwards.
    """
    real, soname = file_names(hip_version)
    # clang reports header paths under the -I it was given; resolved, they
    # compare equal to include_dir/hip even through a symlinked prefix.
    include_dir = include_dir.resolve()
    parts = definitions(scan_headers(cc, include_dir))
    data = compile_stub(cc, include_dir, render_source(parts, hip_version), soname)
    path = lib_dir / real
    write_atomic(path, data, mode=0o755)
    _symlink_atomic(lib_dir / soname, real)
    _symlink_atomic(lib_dir / "libamdhip64.so", soname)
    return StubResult(path=path, soname=soname, symbol_count=len(parts))
