"""Which offload modes the machine can build, and the exact command for each missing piece."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field

from rocm_spirv.toolchain.probe import ProbeResult

REMEDY = {
    "compiler": "pip install 'rocm-spirv[clang]' && rocm-spirv toolchain provision",
    "spirv": "rocm-spirv toolchain provision (clang 22 with the in-tree SPIR-V backend)",
    "bundler": "apt-get install clang-tools-19 (it ships clang-offload-bundler), then rocm-spirv toolchain provision",
    "hip_headers": "rocm-spirv toolchain provision --hip-headers (ROCm 7 HIP headers from the triton wheel)",
    "device_libs": "install ROCm device libraries (rocm-device-libs) or build with -nogpulib",
    "hip_runtime": "apt-get install libamdhip64-dev",
    "spirv_val": "apt-get install spirv-tools",
    "cmake": "pip install cmake",
    "ninja": "pip install ninja",
}


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    remedy: str = ""


@dataclass
class ModeStatus:
    mode: str
    ready: bool
    missing: list[str] = field(default_factory=list)


@dataclass
class Diagnosis:
    compiler: ProbeResult | None
    checks: list[Check]
    modes: list[ModeStatus]

    @property
    def ok(self) -> bool:
        return any(m.mode == "spirv" and m.ready for m in self.modes)


def choose(results: list[ProbeResult]) -> ProbeResult | None:
    """The compiler builds will use: the first that emits SPIR-V, else the first HIP one."""
    for r in results:
        if r.hip and r.can_spirv and r.source != "ziglang":
            return r
    return next((r for r in results if r.hip and r.source != "ziglang"), None)


def diagnose(results: list[ProbeResult]) -> Diagnosis:
    best = choose(results)
    checks: list[Check] = []

    def check(name: str, ok: bool, detail: str) -> None:
        checks.append(Check(name, ok, detail, "" if ok else REMEDY[name]))

    check("compiler", best is not None,
          f"{best.path} (clang {best.version}, {best.source})" if best else "no HIP-capable clang++ found")
    check("spirv", bool(best and best.can_spirv),
          f"amdgcnspirv via {best.spirv_path} {' '.join(best.spirv_flags)}".strip()
          if best and best.can_spirv else "cannot emit amdgcnspirv")
    check("bundler", bool(best and best.bundler), (best.bundler if best else None) or "missing")
    ready_headers = [h for h in (best.hip_headers if best else []) if h.spirv_ready]
    check("hip_headers", bool(ready_headers),
          f"HIP {ready_headers[0].version} in {ready_headers[0].include_dir}" if ready_headers
          else "no ROCm >= 7 HIP headers (builtin-only kernels still build)")
    check("device_libs", bool(best and best.device_libs), (best.device_libs if best else None)
          or "none (native builds need -nogpulib; SPIR-V links them at JIT time)")
    check("hip_runtime", bool(best and best.hip_runtime), (best.hip_runtime if best else None) or "missing")
    check("spirv_val", bool(shutil.which("spirv-val")), shutil.which("spirv-val") or "missing")
    check("cmake", bool(shutil.which("cmake")), shutil.which("cmake") or "missing")
    check("ninja", bool(shutil.which("ninja")), shutil.which("ninja") or "missing")
    ok = {c.name: c.ok for c in checks}
    need = {
        "native": ["compiler", "bundler"],
        "spirv": ["compiler", "spirv", "bundler"],
        "hybrid": ["compiler", "spirv", "bundler"],
    }
    modes = [ModeStatus(m, all(ok[n] for n in req), [n for n in req if not ok[n]])
             for m, req in need.items()]
    return Diagnosis(best, checks, modes)
