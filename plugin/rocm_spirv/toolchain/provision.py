"""Assemble a self-contained HIP toolchain prefix around the clang in the ziglang wheel.

Layout (shaped like a ROCm compiler dir so CMake's hip-lang package accepts it):
  bin/clang, bin/clang++       wrappers: driver mode, host target, resource dir, -B for tools
  bin/llvm-link, bin/lld       stand-ins for the tools the driver calls and ziglang lacks
  bin/clang-offload-bundler    Debian llvm-19's (the bundle format is stable)
  lib/clang/<N>/include        clang builtin headers + HIP/CUDA wrappers
  lib/clang/<N>/lib/linux      compiler-rt builtins (CMake's hip-lang looks here)
  include/hip                  optional ROCm >= 7 HIP headers (from the triton wheel)
  manifest.json                versions and sha256 of every input, read by doctor
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from rocm_spirv import __version__
from rocm_spirv.errors import UserError
from rocm_spirv.fsutil import write_atomic
from rocm_spirv.toolchain.paths import cache_dir

MANIFEST = "manifest.json"
HIP_INCLUDE_IN_TRITON = "triton/backends/amd/include/"
# Upper bound on what we extract from the triton wheel: the headers are a few MB.
MAX_HEADER_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class Inputs:
    zig: Path
    zig_lib: Path
    clang_version: str
    bundler: Path
    builtins: Path | None
    wrapper_headers: Path | None
    hip_headers_wheel: Path | None
    hip_lang_cmake: Path | None


@dataclass
class Manifest:
    rocm_spirv: str
    clang_version: str
    zig: str
    bundler: str
    bundler_sha256: str
    builtins: str | None
    wrapper_headers: str | None
    hip_headers: str | None
    hip_version: str | None
    hip_lang_cmake: str | None = None
    files: dict[str, str] = field(default_factory=dict)

    def key(self) -> tuple[object, ...]:
        return (self.rocm_spirv, self.clang_version, self.zig, self.bundler_sha256,
                self.builtins, self.wrapper_headers, self.hip_headers, self.hip_lang_cmake,
                self.files)


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def find_ziglang() -> tuple[Path, Path]:
    try:
        import ziglang
    except ImportError:
        raise UserError(
            "the ziglang package (clang 22) is not installed",
            "run: pip install 'rocm-spirv[clang]'",
        ) from None
    root = Path(ziglang.__file__).resolve().parent
    zig = root / ("zig.exe" if sys.platform == "win32" else "zig")
    if not zig.is_file():
        raise UserError(f"ziglang at {root} has no zig binary", "reinstall: pip install --force-reinstall ziglang")
    return zig, root / "lib"


def clang_version(zig: Path) -> str:
    out = subprocess.run([str(zig), "clang", "--version"], capture_output=True, text=True, check=False)
    first = out.stdout.splitlines()[0] if out.stdout else ""
    for word in first.split():
        if word[:1].isdigit():
            return word
    raise UserError(f"could not read the clang version from {zig}", "reinstall ziglang")


def find_bundler(explicit: Path | None = None) -> Path:
    if explicit is not None:
        if not (explicit.is_file() and os.access(explicit, os.X_OK)):
            raise UserError(f"clang-offload-bundler {explicit} is not an executable file",
                            "pass a working --bundler PATH")
        return explicit
    env = os.environ.get("ROCM_SPIRV_BUNDLER")
    candidates = [env] if env else []
    candidates += sorted(glob.glob("/usr/lib/llvm-*/bin/clang-offload-bundler"), reverse=True)
    which = shutil.which("clang-offload-bundler")
    if which:
        candidates.append(which)
    for c in candidates:
        if c and Path(c).is_file() and os.access(c, os.X_OK):
            return Path(c)
    raise UserError(
        "clang-offload-bundler not found",
        "install it (Debian: apt-get install clang-tools-19) or pass --bundler PATH",
    )


def _newest(pattern: str) -> Path | None:
    hits = sorted(glob.glob(pattern), reverse=True)
    return Path(hits[0]) if hits else None


def find_builtins() -> Path | None:
    return _newest("/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.builtins-x86_64.a")


def find_wrapper_headers() -> Path | None:
    # ziglang's resource dir lacks clang's HIP/CUDA wrapper headers, which HIP
    # mode includes unless -nogpuinc; a Debian clang resource dir has them.
    hit = _newest("/usr/lib/llvm-*/lib/clang/*/include/__clang_hip_runtime_wrapper.h")
    return hit.parent if hit else None


def find_hip_lang_cmake() -> Path | None:
    for pattern in ("/usr/lib/*/cmake/hip-lang", "/usr/lib/cmake/hip-lang", "/opt/rocm*/lib/cmake/hip-lang"):
        hit = _newest(pattern + "/hip-lang-config.cmake")
        if hit:
            return hit.parent
    return None


def fetch_triton_wheel(offline_wheel: Path | None = None) -> Path:
    """The triton wheel carries ROCm 7 HIP headers; download it once, never install it."""
    if offline_wheel is not None:
        if not offline_wheel.is_file():
            raise UserError(f"wheel {offline_wheel} does not exist", "pass an existing triton wheel")
        return offline_wheel
    dest = cache_dir() / "wheels"
    dest.mkdir(parents=True, exist_ok=True)
    cached = sorted(dest.glob("triton-*.whl"))
    if cached:
        return cached[-1]
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
         "-d", str(dest), "triton"],
        capture_output=True, text=True, check=False,
    )
    cached = sorted(dest.glob("triton-*.whl"))
    if proc.returncode != 0 or not cached:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise UserError(f"could not download the triton wheel for HIP headers ({tail})",
                        "check network access to PyPI, or pass --hip-headers-wheel FILE")
    return cached[-1]


def extract_hip_headers(wheel: Path, include_dir: Path) -> str | None:
    """Copy triton/backends/amd/include/** into include_dir; return the HIP version found."""
    total = 0
    with zipfile.ZipFile(wheel) as zf:
        for info in zf.infolist():
            if not info.filename.startswith(HIP_INCLUDE_IN_TRITON) or info.is_dir():
                continue
            rel = Path(info.filename[len(HIP_INCLUDE_IN_TRITON):])
            if rel.is_absolute() or ".." in rel.parts:
                raise UserError(f"unsafe path {info.filename!r} in {wheel.name}", "use a genuine triton wheel")
            total += info.file_size
            if total > MAX_HEADER_BYTES:
                raise UserError(f"{wheel.name} declares more header bytes than expected", "use a genuine triton wheel")
            out = include_dir / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, out.open("wb") as dst:
                shutil.copyfileobj(src, dst)
    version_h = include_dir / "hip" / "hip_version.h"
    if not version_h.is_file():
        raise UserError(f"{wheel.name} holds no hip/hip_version.h", "use a triton wheel with the AMD backend")
    return hip_version_from_header(version_h.read_text(errors="replace"))


def hip_version_from_header(text: str) -> str | None:
    parts: dict[str, str] = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) >= 3 and words[0] == "#define" and words[1].startswith("HIP_VERSION_"):
            parts[words[1]] = words[2]
    try:
        return ".".join(parts[k] for k in ("HIP_VERSION_MAJOR", "HIP_VERSION_MINOR", "HIP_VERSION_PATCH"))
    except KeyError:
        return None


WRAPPER = """#!/bin/sh
# Generated by rocm-spirv {version} (toolchain provision): clang {clang} from ziglang.
# Host target and resource dir are fixed so the driver behaves like a ROCm clang;
# -B makes it find the stand-in llvm-link/lld and the offload bundler beside this file.
# -nogpulib: this prefix has no ROCm device libraries; SPIR-V needs none at
# compile time (the runtime JIT links them), and builtin-only gfx code neither.
#
# --offload-arch=amdgcnspirv works on its own, as with ROCm's clang: when no
# llvm-spirv translator is there, a compile that asks for amdgcnspirv without
# choosing a path gets the in-tree SPIR-V backend, with default visibility for
# the SPIR-V device code only (calls into device libraries the runtime's JIT
# links must stay legal). Build steps outside CMake's HIP flags (try_compile
# probes, FindHIP's custom commands) then need no extra flags either.
spirv=0 chosen=0 compile=0
for a in "$@"; do
  case "$a" in
    --offload-arch=*amdgcnspirv*|--cuda-gpu-arch=amdgcnspirv|amdgcnspirv) spirv=1 ;;
    -use-spirv-backend|-no-use-spirv-backend) chosen=1 ;;
    -c|-S|-E|-emit-llvm) compile=1 ;;
  esac
done
# A translator that clang would find (beside this file or on PATH) keeps its turn.
if [ $spirv -eq 1 ] && [ $chosen -eq 0 ] && [ ! -x "{bindir}/llvm-spirv" ] \\
   && ! command -v llvm-spirv >/dev/null 2>&1; then
  set -- "$@" -use-spirv-backend
  [ $compile -eq 1 ] && set -- "$@" -Xarch_amdgcnspirv -fvisibility=default
fi
exec "{zig}" clang --driver-mode={mode} --target=x86_64-linux-gnu -resource-dir "{resource}" \\
  -B"{bindir}" -nogpulib --hip-path="{prefix}"{hip} "$@"
"""

# --hip-path (in WRAPPER) makes this prefix the HIP root clang reports, where CMake
# finds hip-lang and clang reads share/hip/version; provisioned ROCm 7 headers
# must also win over an older /usr/include/hip.
HIP_FLAGS = ' -isystem "{prefix}/include"'


LLD = """#!/bin/sh
# Generated by rocm-spirv: the driver calls `lld -flavor gnu`; zig ships it as `zig ld.lld`.
if [ "$1" = "-flavor" ]; then shift 2; fi
exec "{zig}" ld.lld "$@"
"""

LLVM_LINK = """#!/bin/sh
# Generated by rocm-spirv: the driver calls llvm-link even for one bitcode input
# (no device libraries are linked for SPIR-V); Debian's llvm-link cannot read
# LLVM {major} bitcode, so a single input is copied and several are linked by
# clang -cc1 with -mlink-bitcode-file, at the triple the inputs carry.
out=""; first=""; rest=""; n=0
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift 2 ;;
    -o*) out="${{1#-o}}"; shift ;;
    -*) shift ;;
    *) if [ $n -eq 0 ]; then first="$1"; else rest="$rest -mlink-bitcode-file $1"; fi; n=$((n+1)); shift ;;
  esac
done
[ -n "$out" ] && [ -n "$first" ] || {{ echo "llvm-link (rocm-spirv stand-in): need -o OUT and inputs" >&2; exit 1; }}
[ $n -eq 1 ] && exec cp "$first" "$out"
case "$first" in
  *amdgcnspirv*) triple=spirv64-amd-amdhsa ;;
  *) triple=amdgcn-amd-amdhsa ;;
esac
exec "{zig}" clang -cc1 -triple "$triple" -emit-llvm-bc -x ir "$first" $rest -o "$out"
"""


def gather_inputs(bundler: Path | None, hip_headers: bool, hip_headers_wheel: Path | None) -> Inputs:
    zig, zig_lib = find_ziglang()
    return Inputs(
        zig=zig,
        zig_lib=zig_lib,
        clang_version=clang_version(zig),
        bundler=find_bundler(bundler),
        builtins=find_builtins(),
        wrapper_headers=find_wrapper_headers(),
        hip_headers_wheel=fetch_triton_wheel(hip_headers_wheel) if hip_headers else None,
        hip_lang_cmake=find_hip_lang_cmake(),
    )


def _build(inputs: Inputs, root: Path, final: Path) -> Manifest:
    major = inputs.clang_version.split(".")[0]
    bindir = root / "bin"
    resource = root / "lib" / "clang" / major
    (resource / "include").mkdir(parents=True)
    bindir.mkdir()
    # Link every builtin header of ziglang, then add the HIP/CUDA wrappers it lacks.
    for entry in inputs.zig_lib.joinpath("include").iterdir():
        (resource / "include" / entry.name).symlink_to(entry)
    if inputs.wrapper_headers is not None:
        for entry in inputs.wrapper_headers.iterdir():
            target = resource / "include" / entry.name
            if not target.exists() and (entry.name.startswith("__clang_") or entry.name.endswith("_wrappers")):
                target.symlink_to(entry)
    if inputs.builtins is not None:
        (resource / "lib" / "linux").mkdir(parents=True)
        (resource / "lib" / "linux" / inputs.builtins.name).symlink_to(inputs.builtins)
    hip_version = None
    if inputs.hip_headers_wheel is not None:
        hip_version = extract_hip_headers(inputs.hip_headers_wheel, root / "include")
        major_minor_patch = [*(hip_version or "7.0.0").split("."), "0", "0"][:3]
        # clang reads share/hip/version; without it, it assumes HIP 3.5 and
        # leaves out __clang_hip_runtime_wrapper.h.
        write_atomic(root / "share" / "hip" / "version", "".join(
            f"HIP_VERSION_{k}={v}\n" for k, v in zip(("MAJOR", "MINOR", "PATCH"), major_minor_patch, strict=True)))
    hip = HIP_FLAGS.format(prefix=final) if hip_version is not None else ""
    if inputs.hip_lang_cmake is not None:
        # CMake's HIP language looks for hip-lang-config.cmake under the HIP root
        # clang reports; the config itself resolves its real location (the
        # distribution's HIP runtime), so a link is enough.
        (root / "lib" / "cmake").mkdir(parents=True)
        (root / "lib" / "cmake" / "hip-lang").symlink_to(inputs.hip_lang_cmake)
    final_bin = final / "bin"
    final_resource = final / "lib" / "clang" / major
    for name, mode in (("clang", "gcc"), ("clang++", "g++")):
        write_atomic(bindir / name, WRAPPER.format(
            version=__version__, clang=inputs.clang_version, zig=inputs.zig, mode=mode,
            resource=final_resource, bindir=final_bin, hip=hip, prefix=final), mode=0o755)
    write_atomic(bindir / "lld", LLD.format(zig=inputs.zig), mode=0o755)
    (bindir / "ld.lld").symlink_to("lld")
    write_atomic(bindir / "llvm-link", LLVM_LINK.format(zig=inputs.zig, major=major), mode=0o755)
    (bindir / "clang-offload-bundler").symlink_to(inputs.bundler)
    files = {
        str(p.relative_to(root)): sha256(p)
        for p in sorted(bindir.iterdir()) if p.is_file() and not p.is_symlink()
    }
    return Manifest(
        rocm_spirv=__version__,
        clang_version=inputs.clang_version,
        zig=str(inputs.zig),
        bundler=str(inputs.bundler),
        bundler_sha256=sha256(inputs.bundler),
        builtins=str(inputs.builtins) if inputs.builtins else None,
        wrapper_headers=str(inputs.wrapper_headers) if inputs.wrapper_headers else None,
        hip_headers=inputs.hip_headers_wheel.name if inputs.hip_headers_wheel else None,
        hip_version=hip_version,
        hip_lang_cmake=str(inputs.hip_lang_cmake) if inputs.hip_lang_cmake else None,
        files=files,
    )


def read_manifest(prefix: Path) -> Manifest | None:
    try:
        data = json.loads((prefix / MANIFEST).read_text())
        return Manifest(**data)
    except (OSError, ValueError, TypeError):
        return None


@contextlib.contextmanager
def _locked(prefix: Path) -> Iterator[None]:
    prefix.parent.mkdir(parents=True, exist_ok=True)
    with open(prefix.parent / f".{prefix.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@dataclass(frozen=True)
class ProvisionResult:
    prefix: str
    changed: bool
    manifest: dict[str, object]


def provision(prefix: Path, bundler: Path | None = None, hip_headers: bool = False,
              hip_headers_wheel: Path | None = None) -> ProvisionResult:
    prefix = prefix.absolute()
    inputs = gather_inputs(bundler, hip_headers or hip_headers_wheel is not None, hip_headers_wheel)
    with _locked(prefix):
        existing = read_manifest(prefix)
        staging = Path(tempfile.mkdtemp(prefix=f".{prefix.name}.tmp-", dir=prefix.parent))
        try:
            manifest = _build(inputs, staging, prefix)
            if existing is not None and existing.key() == manifest.key():
                return ProvisionResult(str(prefix), False, asdict(existing))
            write_atomic(staging / MANIFEST, json.dumps(asdict(manifest), indent=2) + "\n")
            if prefix.exists():
                if existing is None and any(prefix.iterdir()):
                    raise UserError(f"{prefix} exists and is not a rocm-spirv toolchain prefix",
                                    "choose another --prefix or empty that folder")
                old = Path(tempfile.mkdtemp(prefix=f".{prefix.name}.old-", dir=prefix.parent))
                os.replace(prefix, old / "prefix")
                os.replace(staging, prefix)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.replace(staging, prefix)
            return ProvisionResult(str(prefix), True, asdict(manifest))
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
