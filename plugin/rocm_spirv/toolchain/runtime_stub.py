"""Link-only `libamdhip64.so.7` and `libhiprtc.so.7` generated from the ROCm 7 HIP headers, like CUDA's
`stubs/libcuda.so`.

Each library is one StubLibrary row (LIBRARIES): its headers, the file or
folder whose C functions it exports, its error type and the no-runtime error
its functions return, and its hand-written definitions; both go through the
same scan, definitions and build. libhiprtc exports what hip/hiprtc.h
declares (the prefix writes that header itself, headers.py: the triton wheel
has none); with no ROCm every call returns HIPRTC_ERROR_INTERNAL_ERROR,
hiprtcGetErrorString says the library is this stub, and hiprtcVersion and the
created program or link state are 0 / NULL. The rest of this docstring is
about libamdhip64, the library with a runtime ABI of its own.

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

SCAN_TIMEOUT = 120
BUILD_TIMEOUT = 300
NO_DEVICE_MESSAGE = "no ROCm-capable device is detected"

# Entry points with hand-written bodies. Those the headers also declare are
# checked against that declaration by the compiler; the __hipRegister* family
# is declared nowhere, so those are defined whatever the headers say.
AMDHIP64_SPECIAL: dict[str, str] = {
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

HIPRTC_STUB_MESSAGE = ("HIPRTC_ERROR_INTERNAL_ERROR: this libhiprtc is rocm-spirv's link-only stub, "
                       "no ROCm runtime compiler is installed")

# hiprtc's out-parameters that name a new object: NULL, so a caller's cleanup
# of a failed create (hiprtcDestroyProgram(&prog)) sees no stack garbage.
HIPRTC_SPECIAL: dict[str, str] = {
    "hiprtcVersion": """\
hiprtcResult hiprtcVersion(int *major, int *minor) {
  if (major) *major = 0;
  if (minor) *minor = 0;
  return HIPRTC_ERROR_INTERNAL_ERROR;
}""",
    "hiprtcCreateProgram": """\
hiprtcResult hiprtcCreateProgram(hiprtcProgram *prog, const char *src, const char *name, int numHeaders,
                                 const char **headers, const char **includeNames) {
  (void)src; (void)name; (void)numHeaders; (void)headers; (void)includeNames;
  if (prog) *prog = 0;
  return HIPRTC_ERROR_INTERNAL_ERROR;
}""",
    "hiprtcLinkCreate": """\
hiprtcResult hiprtcLinkCreate(unsigned int num_options, hiprtcJIT_option *option_ptr, void **option_vals_pptr,
                              hiprtcLinkState *hip_link_state_ptr) {
  (void)num_options; (void)option_ptr; (void)option_vals_pptr;
  if (hip_link_state_ptr) *hip_link_state_ptr = 0;
  return HIPRTC_ERROR_INTERNAL_ERROR;
}""",
}


@dataclass(frozen=True)
class ErrorNames:
    """A generated `const char *FUNCTION(ENUM PARAMETER)` naming each enumerator of the error enum."""

    function: str
    parameter: str
    unknown: str  # the text for a value no enumerator has
    messages: tuple[tuple[str, str], ...] = ()  # enumerator -> text other than its name


@dataclass(frozen=True)
class StubLibrary:
    """One link-only library: which header functions it exports and what a runtime without a GPU answers."""

    name: str  # lib<name>.so.<HIP version>, soname lib<name>.so.<HIP major>
    headers: tuple[str, ...]  # what the scan and the stub source include
    declared_in: str  # exported: the C functions declared in this file, or in the files under this folder
    declared_by: str  # how messages name those headers
    error_enum: str  # the result type; its functions return no_runtime_error
    success: str
    no_runtime_error: str
    special: dict[str, str]  # hand-written definitions, by symbol name
    error_names: ErrorNames | None = None
    preamble: str = ""  # C between the includes and the definitions

    @property
    def file(self) -> str:
        return f"lib{self.name}"

    def include_lines(self) -> str:
        return "".join(f"#include <{h}>\n" for h in self.headers)


AMDHIP64 = StubLibrary(
    # Both headers: hip_runtime.h adds the few C functions of amd_hip_runtime.h
    # (amd_dbgapi_get_build_name, ...) that ROCm's library also exports.
    name="amdhip64", headers=("hip/hip_runtime_api.h", "hip/hip_runtime.h"), declared_in="hip",
    declared_by="the HIP headers", error_enum="hipError_t", success="hipSuccess",
    no_runtime_error="hipErrorNoDevice", special=AMDHIP64_SPECIAL,
    error_names=ErrorNames("hipGetErrorName", "hipError", "unrecognized hipError_t"),
    preamble="\nstatic void *rocm_spirv_module_handle;\n",
)
# ROCm's libhiprtc needs no GPU (it compiles through comgr); without ROCm its
# calls fail as a hiprtc whose compiler is missing would: an internal error.
HIPRTC = StubLibrary(
    name="hiprtc", headers=("hip/hiprtc.h",), declared_in="hip/hiprtc.h", declared_by="hip/hiprtc.h",
    error_enum="hiprtcResult", success="HIPRTC_SUCCESS", no_runtime_error="HIPRTC_ERROR_INTERNAL_ERROR",
    special=HIPRTC_SPECIAL,
    error_names=ErrorNames("hiprtcGetErrorString", "result", "Invalid HIPRTC error code",
                           (("HIPRTC_ERROR_INTERNAL_ERROR", HIPRTC_STUB_MESSAGE),)),
)
# The libraries a prefix gets, in build order.
LIBRARIES = (AMDHIP64, HIPRTC)

SOURCE_HEADER = """\
/* Generated by rocm-spirv: a link-only {file} for HIP {version}, no GPU runtime.
 * Every function declared by {declared_by} is defined here as a runtime that
 * finds no GPU would answer. Do not edit; rebuild with `rocm-spirv toolchain provision`. */
"""


@dataclass(frozen=True)
class ApiFunction:
    name: str
    type: str  # clang's spelling of the function type, e.g. "hipError_t (int *)"


@dataclass(frozen=True)
class HeaderApi:
    functions: tuple[ApiFunction, ...]  # sorted by name
    errors: tuple[str, ...]  # the error enum's enumerators, in declaration order


@dataclass(frozen=True)
class StubResult:
    path: Path  # the real file, lib_dir/lib<name>.so.<major>.<minor>.<patch>
    soname: str
    symbol_count: int


def file_names(library: StubLibrary, hip_version: str) -> tuple[str, str]:
    """`7.1.25424` -> (`libamdhip64.so.7.1.25424`, `libamdhip64.so.7`): the real file and the soname."""
    m = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", hip_version)
    if not m:
        raise UserError(f"HIP version {hip_version!r} is not MAJOR.MINOR.PATCH",
                        "provision again from a triton wheel whose hip/hip_version.h is intact")
    return f"{library.file}.so.{hip_version}", f"{library.file}.so.{m.group(1)}"


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


def parse_api(dump: Any, declared_in: Path, error_enum: str) -> HeaderApi:
    """The exported C API in a JSON AST: extern functions declared in the file or under the folder
    declared_in, and error_enum's names."""
    target = os.path.normpath(declared_in)
    prefix = target + os.sep
    functions: dict[str, str] = {}
    defined: set[str] = set()
    errors: list[str] = []
    for node, file in located_nodes(dump):
        if file is None or not (os.path.normpath(file) == target or os.path.normpath(file).startswith(prefix)):
            continue
        kind, name = node.get("kind"), node.get("name")
        if kind == "EnumDecl" and name == error_enum and not errors:
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
    return HeaderApi(tuple(ApiFunction(n, t) for n, t in sorted(functions.items()) if n not in defined),
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


def define(fn: ApiFunction, library: StubLibrary) -> str:
    """A definition with the declared prototype (unnamed parameters: C23) and a no-GPU result."""
    try:
        ret, params = split_function_type(fn.type)
    except ValueError as err:
        raise UserError(f"cannot write a stub for {fn.name} ({err})",
                        f"report it to rocm-spirv: {library.declared_by} declare a shape the stub generator lacks"
                        ) from None
    if ret == "void":
        body = ""
    elif ret in (library.error_enum, f"enum {library.error_enum}"):
        body = f" return {library.no_runtime_error}; "
    else:
        # Pointers, integers and structs alike: zero, NULL for pointers.
        body = f" return ({ret}){{0}}; "
    sep = "" if ret.endswith("*") else " "
    # A header macro of the same name would otherwise rename the definition.
    return f"#undef {fn.name}\n{ret}{sep}{fn.name}{params} {{{body}}}"


def error_name_function(names: ErrorNames, error_enum: str, errors: tuple[str, ...]) -> str:
    """names.function over the headers' own enumerators; an if-chain because some share a value."""
    messages = dict(names.messages)
    lines = [f'  if ({names.parameter} == {e}) return "{messages.get(e, e)}";' for e in errors]
    return "\n".join([f"const char *{names.function}({error_enum} {names.parameter}) {{", *lines,
                      f'  return "{names.unknown}";', "}"])


def definitions(api: HeaderApi, library: StubLibrary) -> dict[str, str]:
    """Symbol name -> its C definition: one per header function, plus the hand-written entry points."""
    if library.no_runtime_error not in api.errors or library.success not in api.errors:
        raise UserError(f"{library.error_enum} in {library.declared_by} lacks {library.success} or "
                        f"{library.no_runtime_error}", "use ROCm 7 HIP headers (a triton wheel with the AMD backend)")
    special = dict(library.special)
    if library.error_names is not None:
        special[library.error_names.function] = error_name_function(library.error_names, library.error_enum,
                                                                    api.errors)
    parts = {fn.name: define(fn, library) for fn in api.functions if fn.name not in special}
    parts.update({name: f"#undef {name}\n{text}" for name, text in special.items()})
    return parts


def render_source(library: StubLibrary, parts: dict[str, str], hip_version: str) -> str:
    """The stub's C source, sorted by symbol name so equal inputs give equal bytes."""
    head = SOURCE_HEADER.format(file=library.file, version=hip_version, declared_by=library.declared_by)
    return head + library.include_lines() + library.preamble + "".join(f"\n{parts[n]}\n" for n in sorted(parts))


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


def scan_headers(library: StubLibrary, cc: list[str], include_dir: Path) -> HeaderApi:
    """Ask the compiler which C functions library's headers under include_dir declare."""
    step = f"reading the HIP API from {include_dir}/hip for the {library.file} stub"
    remedy = f"check that `{cc[0]}` is a working clang and {include_dir}/hip holds ROCm 7 HIP headers"
    proc = _run(step, [*cc, *compile_flags(include_dir), "-fsyntax-only", "-Xclang", "-ast-dump=json", "-"],
                remedy, SCAN_TIMEOUT, stdin=library.include_lines())
    try:
        dump = json.loads(proc.stdout)
    except json.JSONDecodeError as err:
        raise UserError(f"{step} failed (unreadable AST dump: {err.msg})",
                        f"check that `{cc[0]}` is clang (the scan uses -Xclang -ast-dump=json)") from None
    api = parse_api(dump, include_dir / library.declared_in, library.error_enum)
    if not api.functions:
        raise UserError(f"{step} found no functions",
                        f"check that {include_dir}/{library.declared_in} holds the ROCm HIP headers")
    return api


def compile_stub(library: StubLibrary, cc: list[str], include_dir: Path, source: str, soname: str) -> bytes:
    """Build the shared library in a private temp dir and return its bytes.

    A fixed source name and working directory keep paths out of the output, so
    the same source gives the same bytes. -nostdlib: the stub calls nothing, and
    needing neither libc nor crt files keeps it buildable by any clang that can
    link; --no-undefined proves the "calls nothing".
    """
    with tempfile.TemporaryDirectory(prefix="rocm-spirv-hipstub-") as tmp:
        work = Path(tmp)
        source_name = f"{library.file}_stub.c"
        (work / source_name).write_text(source)
        argv = [*cc, *compile_flags(include_dir), "-fPIC", "-shared", "-O2", "-g0", "-fno-stack-protector",
                "-nostdlib", f"-Wl,-soname,{soname}", "-Wl,--no-undefined", "-o", "stub.so", source_name]
        _run(f"compiling the {library.file} stub", argv,
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


def build_stub(library: StubLibrary, cc: list[str], include_dir: Path, lib_dir: Path, hip_version: str
               ) -> StubResult:
    """lib_dir/lib<name>.so.<version> (soname lib<name>.so.<major>) and its two symlinks.

    cc is the argv prefix of a clang C compiler for the host. Every file lands
    by rename, so lib_dir may be a staging dir that is renamed afterwards.
    """
    real, soname = file_names(library, hip_version)
    # clang reports header paths under the -I it was given; resolved, they
    # compare equal to include_dir/hip even through a symlinked prefix.
    include_dir = include_dir.resolve()
    parts = definitions(scan_headers(library, cc, include_dir), library)
    data = compile_stub(library, cc, include_dir, render_source(library, parts, hip_version), soname)
    path = lib_dir / real
    write_atomic(path, data, mode=0o755)
    _symlink_atomic(lib_dir / soname, real)
    _symlink_atomic(lib_dir / f"{library.file}.so", soname)
    return StubResult(path=path, soname=soname, symbol_count=len(parts))
