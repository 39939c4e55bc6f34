"""What one compiler can do, measured by running it; cached per binary (path, mtime, size)."""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import subprocess
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from rocm_spirv import versions
from rocm_spirv.fsutil import write_atomic
from rocm_spirv.term import traced
from rocm_spirv.toolchain import programs
from rocm_spirv.toolchain.discover import Candidate
from rocm_spirv.toolchain.headers import version_from_header
from rocm_spirv.toolchain.llvm import distribution_bindirs, gfx_targets, parse_version
from rocm_spirv.toolchain.paths import cache_dir
from rocm_spirv.toolchain.provision import read_manifest
from rocm_spirv.toolchain.spirv_path import IN_TREE_FLAGS, PROBE_KERNEL, SPIRV_MAGIC, decide
from rocm_spirv.toolchain.spirv_val import find_spirv_val

# 6: the SPIR-V path is decided by a real compile (toolchain/spirv_path.py); answers cached
# before took any llvm-spirv on PATH.
# 7: tools are found by toolchain/programs.py (the bundler beside the resolved compiler, newest
# distribution LLVM first) and failures told by their first error line.
# 8: a compiler's temporary files in a failure line are named $TMPDIR/name (they are gone when read).
PROBE_SCHEMA = 8


@dataclass
class HipHeaders:
    include_dir: str
    version: str | None

    @property
    def spirv_ready(self) -> bool:
        # ROCm < 7 headers make warpSize a compile-time constant from a macro
        # that amdgcnspirv does not define.
        return (versions.major(self.version) or 0) >= 7


@dataclass
class ProbeResult:
    path: str
    source: str
    argv: list[str]
    version: str | None = None
    hip: bool = False
    spirv_in_tree: bool = False
    llvm_spirv: str | None = None
    spirv_path: str | None = None  # "in-tree" | "translator" | None
    spirv_flags: list[str] = field(default_factory=list)
    gfx_targets: list[str] = field(default_factory=list)
    hip_headers: list[HipHeaders] = field(default_factory=list)
    device_libs: str | None = None
    hip_runtime: str | None = None
    bundler: str | None = None
    spirv_val: str | None = None
    spirv_val_version: str | None = None
    provisioned_prefix: str | None = None
    llvm: str | None = None  # for a provisioned prefix: which LLVM it wraps, and why that one
    errors: list[str] = field(default_factory=list)

    @property
    def major(self) -> int | None:
        return versions.major(self.version)

    @property
    def can_spirv(self) -> bool:
        return self.spirv_path is not None

    @property
    def complete(self) -> bool:
        """A ROCm 7 device toolchain: HIP >= 7 headers, device libraries, a HIP runtime to link."""
        return bool(self.device_libs and self.hip_runtime and any(h.spirv_ready for h in self.hip_headers))

    def named_paths(self) -> list[str]:
        found = [self.bundler, self.llvm_spirv, self.spirv_val, self.device_libs, self.hip_runtime]
        return [p for p in found if p] + [h.include_dir for h in self.hip_headers]

    def to_json(self) -> dict[str, object]:
        data = asdict(self)
        data["can_spirv"] = self.can_spirv
        data["complete"] = self.complete
        for h, raw in zip(self.hip_headers, data["hip_headers"], strict=True):
            raw["spirv_ready"] = h.spirv_ready
        return data


def _run(argv: list[str], cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    with traced(argv, cwd) as trace:
        proc = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=cwd, timeout=timeout)
        trace.status = proc.returncode
    return proc


def _header_dirs(compiler: Path, prefix: Path | None) -> list[Path]:
    dirs = []
    if prefix is not None:
        dirs.append(prefix / "include")
    # ROCm layout: <root>/llvm/bin/clang++ or <root>/bin/amdclang++
    for up in (compiler.parent.parent, compiler.parent.parent.parent):
        dirs.append(up / "include")
    dirs.append(Path("/usr/include"))
    seen: list[Path] = []
    for d in dirs:
        if d not in seen:
            seen.append(d)
    return seen


def find_hip_headers(compiler: Path, prefix: Path | None) -> list[HipHeaders]:
    found = []
    for d in _header_dirs(compiler, prefix):
        vh = d / "hip" / "hip_version.h"
        if vh.is_file():
            found.append(HipHeaders(str(d), version_from_header(vh.read_text(errors="replace"))))
    return found


def find_device_libs(compiler: Path) -> str | None:
    roots = [compiler.parent.parent, compiler.parent.parent.parent]
    for r in roots:
        for pattern in ("amdgcn/bitcode/ocml.bc", "lib/clang/*/lib/amdgcn/bitcode/ocml.bc"):
            hits = glob.glob(str(r / pattern))
            if hits:
                return str(Path(hits[0]).parent)
    return None


def find_hip_runtime(compiler: Path, hip_major: str | None = None) -> str | None:
    """libamdhip64 beside the compiler's ROCm root; a system one only with the headers' major (soname)."""
    for d in (compiler.parent.parent / "lib", compiler.parent.parent.parent / "lib"):
        hits = sorted(glob.glob(str(d / "libamdhip64.so*")))
        if hits:
            return hits[0]
    if hip_major is None:
        return None
    # Another HIP's runtime (Debian's .so.5 beside ROCm 7 headers) would not link.
    for system in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"):
        hit = Path(system) / f"libamdhip64.so.{hip_major}"
        if hit.exists():
            return str(hit)
    return None


def probe_uncached(cand: Candidate) -> ProbeResult:
    argv = list(cand.argv)
    res = ProbeResult(path=str(cand.path), source=cand.source, argv=argv)
    prefix = cand.path.parent.parent if cand.source == "provisioned" or read_manifest(cand.path.parent.parent) else None
    manifest = read_manifest(prefix) if prefix is not None else None
    if prefix is not None and manifest is not None:
        res.provisioned_prefix = str(prefix)
        res.llvm = f"{manifest.llvm_kind} LLVM {manifest.llvm_version} ({manifest.llvm_clang}): {manifest.llvm_why}"
    else:
        prefix = None
    ver = programs.run_probe([*argv, "--version"])
    if ver.returncode is None:
        res.errors.append(f"cannot run: {ver.error}")
        return res
    res.version = parse_version(ver.stdout + ver.stderr)
    if res.version is None:
        res.errors.append("not a clang compiler (no 'clang version' in --version)")
        return res
    res.gfx_targets = gfx_targets(argv)
    res.bundler = programs.find(["clang-offload-bundler"],
                                [*programs.compiler_dirs(cand.path), *distribution_bindirs()])
    val = find_spirv_val(prefix)
    if val is not None:
        res.spirv_val, res.spirv_val_version = val.path, val.version
    res.hip_headers = find_hip_headers(cand.path, prefix)
    res.device_libs = find_device_libs(cand.path)
    majors = [str(versions.major(h.version)) for h in res.hip_headers if versions.major(h.version) is not None]
    res.hip_runtime = find_hip_runtime(cand.path, majors[0] if majors else None)
    with tempfile.TemporaryDirectory(prefix="rocm-spirv-probe-") as tmp:
        src = Path(tmp) / "probe.hip"
        src.write_text(PROBE_KERNEL)
        base = [*argv, "-x", "hip", "-nogpuinc", "-nogpulib", "--cuda-device-only"]
        gfx = _run([*base, "--offload-arch=gfx942", "-S", "-o", "gfx.s", str(src)], cwd=Path(tmp))
        res.hip = gfx.returncode == 0
        if not res.hip:
            res.errors.append(f"HIP device compile failed: {programs.failure_line(gfx.stderr, gfx.stdout)}")
            return res
        if res.major is not None and res.major >= 22:
            spv = _run([*base, "--offload-arch=amdgcnspirv", "-use-spirv-backend", "-c", "-o", "p.spv",
                        str(src)], cwd=Path(tmp))
            out = Path(tmp) / "p.spv"
            # Device-only output is an offload bundle wrapping the module.
            res.spirv_in_tree = spv.returncode == 0 and out.is_file() and SPIRV_MAGIC in out.read_bytes()
            if not res.spirv_in_tree:
                res.errors.append(f"in-tree SPIR-V backend failed: {programs.failure_line(spv.stderr, spv.stdout)}")
        # One policy (toolchain/spirv_path.py): a real compile decides, and a prefix's wrappers
        # apply the decision provisioning recorded, so that one is the prefix's answer.
        recorded = manifest.spirv_path if manifest is not None else None
        if recorded == "in-tree" and res.spirv_in_tree:
            res.spirv_path, res.spirv_flags = "in-tree", list(IN_TREE_FLAGS)
        else:
            chosen = decide(argv, cand.path, res.major, Path(tmp), in_tree=res.spirv_in_tree)
            res.llvm_spirv = chosen.translator
            res.spirv_path, res.spirv_flags = chosen.path, list(chosen.flags)
            res.errors += [e for e in chosen.errors if e not in res.errors]
    return res


def _cache_key(cand: Candidate) -> str:
    parts = [str(PROBE_SCHEMA), *cand.argv]
    watched = [cand.path, cand.path.parent.parent / "manifest.json"]
    manifest = read_manifest(cand.path.parent.parent)
    # A prefix wraps binaries outside it (a distribution clang, ziglang's zig):
    # when one goes or changes, the cached answer goes with it.
    if manifest is not None:
        watched += [Path(p) for p in manifest.external]
    for p in watched:
        try:
            st = p.stat()
            parts += [str(p), str(st.st_mtime_ns), str(st.st_size)]
        except OSError:
            parts.append(f"{p}:absent")
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


def _from_json(data: dict[str, object]) -> ProbeResult:
    data = dict(data)
    data.pop("can_spirv", None)
    data.pop("complete", None)
    headers = data.pop("hip_headers", [])
    assert isinstance(headers, list)
    res = ProbeResult(**data)  # type: ignore[arg-type]
    res.hip_headers = [HipHeaders(h["include_dir"], h["version"]) for h in headers]
    return res


def probe(cand: Candidate, use_cache: bool = True) -> ProbeResult:
    path = cache_dir() / "probe" / f"{_cache_key(cand)}.json"
    if use_cache:
        try:
            cached = _from_json(json.loads(path.read_text()))
        except (OSError, ValueError, TypeError, KeyError, AssertionError):
            cached = None
        # A cached answer holds while every file it names is still there.
        if cached is not None and all(Path(p).exists() for p in cached.named_paths()):
            # One binary can be found several ways (explicit, provisioned, on PATH).
            cached.source = cand.source
            return cached
    res = probe_uncached(cand)
    # A read-only cache only costs speed.
    with contextlib.suppress(OSError):
        write_atomic(path, json.dumps(res.to_json(), indent=1))
    return res
