"""Assemble a self-contained ROCm 7 device toolchain prefix, atomically and idempotently.

Layout (shaped like a ROCm install, so clang's --rocm-path and CMake's HIP
language accept it):
  bin/clang, bin/clang++        wrappers around the chosen LLVM (llvm.py, wrappers.py)
  bin/<tools>                   that LLVM's ld.lld, llvm-link, bundler, ... (ziglang: stand-ins)
  bin/spirv-val                 the newest spirv-val found (spirv_val.py)
  bin/hipconfig, llvm/bin/      where ROCm has them: projects call them by path (rocm_layout.py)
  amdgcn/bitcode/               ROCm 7 device libraries (devicelibs.py)
  include/hip/                  ROCm 7 HIP headers, guards for absent ones (headers.py)
  lib/libamdhip64.so*           link-only HIP runtime for the ROCm 7 ABI (runtime_stub.py)
  lib/libhiprtc.so*             link-only HIP runtime compilation library, from include/hip/hiprtc.h
  lib/cmake/hip, hip-lang       the HIP CMake packages of that version (cmake_packages.py)
  lib/clang/<N>/                ziglang only: builtin and HIP wrapper headers, compiler-rt
  share/hip/version             the HIP version clang reads
  manifest.json                 inputs, versions and sha256s, read by doctor
Built in a staging dir beside the prefix, then swapped in with renames under a lock.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from rocm_spirv import __version__, settings
from rocm_spirv.errors import UserError
from rocm_spirv.fsutil import locked, sha256_file, umask, write_atomic
from rocm_spirv.toolchain import (
    cmake_packages,
    devicelibs,
    headers,
    programs,
    rocm_layout,
    runtime_stub,
    spirv_path,
    triton,
    wrappers,
)
from rocm_spirv.toolchain.llvm import Llvm, distribution_bindirs, find_llvm, gfx_targets
from rocm_spirv.toolchain.spirv_val import find_spirv_val

MANIFEST = "manifest.json"
# 4: runtime_stubs (libamdhip64 and libhiprtc) replaced runtime_stub; an older prefix lacks libhiprtc.
MANIFEST_SCHEMA = 4


@dataclass
class Manifest:
    schema: int
    rocm_spirv: str
    llvm_kind: str
    llvm_version: str
    llvm_clang: str
    llvm_why: str
    triton_wheel: str
    hip_version: str
    bundler: str | None
    gfx_targets: list[str]
    guarded_headers: list[str]
    runtime_stubs: list[str]  # the real file of each link-only library in lib/, runtime_stub.LIBRARIES' order
    # Paths outside the prefix it needs at run time: doctor checks they still exist.
    external: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)
    # The SPIR-V path (toolchain/spirv_path.py) a real compile chose when provisioning; the wrappers
    # apply it to compiles that choose none. None in prefixes made before it was recorded.
    spirv_path: str | None = None

    def key(self) -> tuple[object, ...]:
        return tuple(v for k, v in sorted(asdict(self).items()))


def find_bundler(explicit: Path | None, llvm: Llvm) -> Path | None:
    """A distribution LLVM brings its own; ziglang needs another release's (the format is stable)."""
    if explicit is not None:
        if not (explicit.is_file() and os.access(explicit, os.X_OK)):
            raise UserError(f"clang-offload-bundler {explicit} is not an executable file",
                            "pass a working --bundler PATH")
        return explicit
    if llvm.bindir is not None:
        return llvm.bindir / "clang-offload-bundler"
    env = settings.text(settings.BUNDLER)
    hits = [env] if env else []
    for c in hits:
        if os.access(c, os.X_OK):
            return Path(c)
    found = programs.find(["clang-offload-bundler"], distribution_bindirs())
    if found is not None:
        return Path(found)
    raise UserError("clang-offload-bundler not found",
                    "apt-get install clang-tools-22 (or clang-tools-19), or pass --bundler PATH")


def _newest(pattern: str) -> Path | None:
    hits = sorted(glob.glob(pattern), reverse=True)
    return Path(hits[0]) if hits else None


def _ziglang_resource_dir(root: Path, llvm: Llvm) -> list[str]:
    """lib/clang/<N>: ziglang's builtin headers, plus the HIP wrappers and builtins it lacks."""
    assert llvm.resource_dir is not None
    resource = root / "lib" / "clang" / str(llvm.major)
    (resource / "include").mkdir(parents=True)
    for entry in (llvm.resource_dir / "include").iterdir():
        (resource / "include" / entry.name).symlink_to(entry)
    external = [str(llvm.resource_dir)]
    wrappers_hdr = _newest("/usr/lib/llvm-*/lib/clang/*/include/__clang_hip_runtime_wrapper.h")
    if wrappers_hdr is not None:
        external.append(str(wrappers_hdr.parent))
        for entry in wrappers_hdr.parent.iterdir():
            target = resource / "include" / entry.name
            if not target.exists() and (entry.name.startswith("__clang_") or entry.name.endswith("_wrappers")):
                target.symlink_to(entry)
    builtins = _newest("/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.builtins-x86_64.a")
    if builtins is not None:
        external.append(str(builtins))
        (resource / "lib" / "linux").mkdir(parents=True)
        (resource / "lib" / "linux" / builtins.name).symlink_to(builtins)
    return external


def _host_cc(llvm: Llvm) -> list[str]:
    if llvm.kind == "distribution":
        return llvm.driver()
    assert llvm.resource_dir is not None
    return [*llvm.driver(), "--target=x86_64-linux-gnu", "-resource-dir", str(llvm.resource_dir)]


def _build(root: Path, final: Path, llvm: Llvm, bundler: Path | None, wheel: Path) -> Manifest:
    external = [str(llvm.clang)] + ([str(bundler)] if bundler else [])
    if llvm.kind == "ziglang":
        external += _ziglang_resource_dir(root, llvm)
    with tempfile.TemporaryDirectory(prefix="rocm-spirv-spirv-path-") as tmp:
        chosen = spirv_path.decide(_host_cc(llvm), llvm.clang, llvm.major, Path(tmp))
    wrappers.write(root, final, llvm, bundler, chosen.path)
    # The wrappers run their build-time SPIR-V check with this Python.
    external.append(sys.executable)
    # The prefix being replaced is a candidate too: re-provisioning from a Python that cannot see
    # PyPI's newer spirv-val (another venv, a fresh one) must not downgrade the validator the
    # prefix had while that one still exists. Linked by its real path: the old link is replaced.
    val = find_spirv_val(final if (final / "bin" / "spirv-val").exists() else None)
    if val is not None:
        target = os.path.realpath(val.path)
        (root / "bin" / "spirv-val").symlink_to(target)
        external.append(target)
    hip_version, guarded = headers.install(root, wheel)
    rocm_layout.write(root, final, llvm, hip_version)
    targets = gfx_targets(llvm.driver())
    if not targets:
        raise UserError(f"{llvm.clang} lists no AMDGPU targets", "use an LLVM built with the AMDGPU backend")
    devicelibs.build(root, llvm.cc1(), targets, wheel)
    stubs = [runtime_stub.build_stub(library, _host_cc(llvm), root / "include", root / "lib", hip_version)
             for library in runtime_stub.LIBRARIES]
    cmake_packages.write_cmake_packages(root, hip_version)
    files = {str(p.relative_to(root)): sha256_file(p)
             for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()}
    return Manifest(
        schema=MANIFEST_SCHEMA, rocm_spirv=__version__, llvm_kind=llvm.kind, llvm_version=llvm.version,
        llvm_clang=str(llvm.clang), llvm_why=llvm.why, triton_wheel=wheel.name, hip_version=hip_version,
        bundler=str(bundler) if bundler else None, gfx_targets=targets, guarded_headers=guarded,
        runtime_stubs=[s.path.name for s in stubs], external=external, files=files, spirv_path=chosen.path,
    )


def _badly_typed(data: dict[str, object]) -> str | None:
    """The first manifest field whose JSON type is not the one Manifest declares, as 'name is a list'."""
    for f in fields(Manifest):
        if f.name not in data:
            continue
        value, kind = data[f.name], str(f.type)
        if kind.startswith("list"):
            ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        elif kind.startswith("dict"):
            ok = isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
        elif kind == "int":
            ok = isinstance(value, int)
        else:
            ok = isinstance(value, str) or (value is None and "None" in kind)
        if not ok:
            return f"{f.name} is {type(value).__name__}, not {kind}"
    return None


def read_manifest(prefix: Path) -> Manifest | None:
    """The prefix's manifest; None without one (or of another schema). A damaged one is one line."""
    try:
        data = json.loads((prefix / MANIFEST).read_text())
        if not isinstance(data, dict) or data.get("schema") != MANIFEST_SCHEMA:
            return None
        if (bad := _badly_typed(data)) is not None:
            raise UserError(f"{prefix / MANIFEST} is damaged ({bad})",
                            f"provision again: rocm-spirv toolchain provision --prefix {prefix}")
        return Manifest(**data)
    except (OSError, ValueError, TypeError, AttributeError):
        return None


def is_prefix(path: Path) -> bool:
    """Any rocm-spirv prefix, of this schema or an older one (safe to replace)."""
    try:
        return "rocm_spirv" in json.loads((path / MANIFEST).read_text())
    except (OSError, ValueError, TypeError):
        return False


@dataclass(frozen=True)
class ProvisionResult:
    prefix: str
    changed: bool
    manifest: Manifest


def _remove_stale(prefix: Path) -> None:
    """Staging and old-prefix folders of runs killed before they cleaned up. Called under the lock,
    so no live run of this prefix owns one."""
    for pattern in (f".{prefix.name}.tmp-*", f".{prefix.name}.old-*"):
        for stale in prefix.parent.glob(pattern):
            if stale.is_dir() and not stale.is_symlink():
                shutil.rmtree(stale, ignore_errors=True)


def _swap_in(staging: Path, prefix: Path) -> None:
    if not prefix.exists():
        os.replace(staging, prefix)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{prefix.name}.old-", dir=prefix.parent))
    os.replace(prefix, old / "prefix")
    os.replace(staging, prefix)
    shutil.rmtree(old, ignore_errors=True)


def provision(prefix: Path, bundler: Path | None = None, triton_wheel: Path | None = None,
              llvm: str | None = None, say: Callable[[str], None] | None = None) -> ProvisionResult:
    prefix = prefix.absolute()
    chosen = find_llvm(llvm)
    the_bundler = find_bundler(bundler, chosen)
    wheel = triton.fetch(triton_wheel, say)
    with locked(prefix.parent / f".{prefix.name}.lock"):
        if prefix.exists() and any(prefix.iterdir()) and not is_prefix(prefix):
            raise UserError(f"{prefix} exists and is not a rocm-spirv toolchain prefix",
                            "choose another --prefix or empty that folder")
        existing = read_manifest(prefix)
        _remove_stale(prefix)
        staging = Path(tempfile.mkdtemp(prefix=f".{prefix.name}.tmp-", dir=prefix.parent))
        # mkdtemp makes 0700; the prefix is a shared install, as mkdir would make it.
        os.chmod(staging, 0o777 & ~umask())
        try:
            manifest = _build(staging, prefix, chosen, the_bundler, wheel)
            if existing is not None and existing.key() == manifest.key():
                return ProvisionResult(str(prefix), False, existing)
            write_atomic(staging / MANIFEST, json.dumps(asdict(manifest), indent=2) + "\n")
            _swap_in(staging, prefix)
            return ProvisionResult(str(prefix), True, manifest)
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
