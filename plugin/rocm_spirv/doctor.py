"""Which offload modes the machine can build, proven by building a real HIP program in each.

A mode is `ready` only when the chosen compiler compiles *and links* a small
real program (hip_runtime.h, threadIdx, a device-library math call, a runtime
API call) for it. A failure names the step and the exact remedy.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from rocm_spirv.fsutil import sha256_file
from rocm_spirv.offload import MODES, SPIRV_TARGET, Mode, device_debug_opted_in, spirv_device_flags
from rocm_spirv.term import note, traced
from rocm_spirv.toolchain import programs
from rocm_spirv.toolchain.buildcheck import SKIP_ENV, explain, rejections
from rocm_spirv.toolchain.choose import choose
from rocm_spirv.toolchain.discover import rocm_roots
from rocm_spirv.toolchain.probe import ProbeResult
from rocm_spirv.toolchain.provision import read_manifest
from rocm_spirv.toolchain.rocm_cmake import REMEDY as ROCM_CMAKE_REMEDY
from rocm_spirv.toolchain.rocm_cmake import describe, find_rocm_cmake
from rocm_spirv.toolchain.spirv_val import REMEDY as SPIRV_VAL_REMEDY
from rocm_spirv.toolchain.spirv_val import SpirvVal, find_spirv_val

PROVISION = "rocm-spirv toolchain provision"

REMEDY = {
    "compiler": f"apt-get install clang-22 lld-22 llvm-22 clang-tools-22 && {PROVISION}",
    "prefix": f"{PROVISION} (rebuilds the prefix from what is installed now)",
    "spirv": f"{PROVISION} (clang 22 with the in-tree SPIR-V backend)",
    "bundler": f"apt-get install clang-tools-22, then {PROVISION}",
    "hip_headers": f"{PROVISION} (ROCm 7 HIP headers from the PyPI triton wheel)",
    "device_libs": f"{PROVISION} (ROCm 7 device libraries in <prefix>/amdgcn/bitcode)",
    "hip_runtime": f"{PROVISION} (a link-only ROCm 7 libamdhip64 in <prefix>/lib)",
    "spirv_val": SPIRV_VAL_REMEDY,
    "rocm_cmake": ROCM_CMAKE_REMEDY,
    "cmake": "pip install cmake",
    "ninja": "pip install ninja",
}

PROGRAM = r"""
#include <hip/hip_runtime.h>
#include <cstdio>
__global__ void probe(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = expf(x[i]) + log1pf(x[i]);
}
int main() {
  int count = 0;
  if (hipGetDeviceCount(&count) != hipSuccess || count == 0) { std::printf("no AMD GPU\n"); return 0; }
  hipDeviceProp_t prop;
  if (hipGetDeviceProperties(&prop, 0) != hipSuccess) return 1;
  float* d = nullptr;
  if (hipMalloc(&d, 64 * sizeof(float)) != hipSuccess) return 1;
  probe<<<1, 64>>>(d, 64);
  return hipDeviceSynchronize() == hipSuccess ? 0 : 1;
}
"""


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    remedy: str = ""


@dataclass
class ModeStatus:
    mode: Mode
    ready: bool
    missing: list[str] = field(default_factory=list)
    step: str | None = None  # the build step that failed: compile | link
    detail: str = ""
    remedy: str = ""


@dataclass
class Diagnosis:
    compiler: ProbeResult | None
    checks: list[Check]
    modes: list[ModeStatus]

    @property
    def ok(self) -> bool:
        return any(m.mode == "spirv" and m.ready for m in self.modes)


def prefix_problems(prefix: Path) -> list[str]:
    """What is wrong with a provisioned prefix now: vanished inputs, changed files."""
    manifest = read_manifest(prefix)
    if manifest is None:
        return [f"{prefix}/manifest.json is missing or from another rocm-spirv version"]
    problems = [f"{p} is gone" for p in manifest.external if not Path(p).exists()]
    # Every file is hashed (a few MiB): a truncated device library is as broken as a changed wrapper.
    # Missing headers, libraries or device code are reported by their own checks and the mode builds;
    # a missing wrapper is reported here, as every build runs one.
    for rel, digest in manifest.files.items():
        path = prefix / rel
        if not path.is_file():
            if rel.startswith("bin/"):
                problems.append(f"{path} is missing")
        elif sha256_file(path) != digest:
            problems.append(f"{path} was changed")
    return problems


def _remedy_for(output: str) -> str:
    if re.search(r"cannot find ROCm device librar|__ocml_|__ockl_|__oclc_", output):
        return "device_libs"
    if re.search(r"hip/[\w/]+\.h'? file not found|hip_runtime\.h", output):
        return "hip_headers"
    if re.search(r"amdhip64|undefined reference to `_?_?hip", output):
        return "hip_runtime"
    return "compiler"


def native_arch(compiler: ProbeResult) -> str:
    return next((a for a in ("gfx942", "gfx90a", "gfx1100") if a in compiler.gfx_targets),
                compiler.gfx_targets[0] if compiler.gfx_targets else "gfx942")


def build_program(compiler: ProbeResult, mode: Mode, workdir: Path, spirv_val: SpirvVal | None = None,
                  ) -> ModeStatus:
    """Compile and link PROGRAM for one mode, then validate its SPIR-V with spirv_val; the status
    names the failing step (compile, link, validate).

    -g as in Debug and RelWithDebInfo builds (the default of many projects): device debug info is
    where LLVM 22's SPIR-V went invalid."""
    archs = {"native": [native_arch(compiler)], "spirv": [SPIRV_TARGET],
             "hybrid": [SPIRV_TARGET, native_arch(compiler)]}[mode]
    src = workdir / "program.hip"
    src.write_text(PROGRAM)
    obj, exe = workdir / f"{mode}.o", workdir / mode
    flat = [] if mode == "native" else spirv_device_flags(compiler.spirv_flags, device_debug_opted_in(os.environ))
    steps = [
        ("compile", [*compiler.argv, "-x", "hip", *(f"--offload-arch={a}" for a in archs),
                     # After -g: of -g and -Xarch_amdgcnspirv -g0 the last one wins.
                     "-O1", "-g", *flat, "-c", str(src), "-o", str(obj)]),
        ("link", [*compiler.argv, "--hip-link", str(obj), "-o", str(exe)]),
    ]
    for step, argv in steps:
        try:
            # The validate step below is doctor's own, for any compiler, with the spirv-val it names.
            with traced(argv, workdir) as trace:
                proc = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=300, cwd=workdir,
                                      env={**os.environ, SKIP_ENV: "0"})
                trace.status = proc.returncode
        except (OSError, subprocess.TimeoutExpired) as err:
            return ModeStatus(mode, False, [], step, str(err), REMEDY["compiler"])
        if proc.returncode != 0:
            return ModeStatus(mode, False, [], step, programs.failure_line(proc.stderr, proc.stdout),
                              REMEDY[_remedy_for(proc.stderr + proc.stdout)])
    if mode != "native" and spirv_val is not None:
        bad = rejections(exe, spirv_val)
        if bad:
            construct, remedy = explain(bad[0][1])
            return ModeStatus(mode, False, [], "validate",
                              f"spirv-val {spirv_val.version} rejects {construct}: {bad[0][1]}", remedy)
        return ModeStatus(mode, True, [], None, f"built {exe.name} for {';'.join(archs)}, "
                          f"SPIR-V valid (spirv-val {spirv_val.version})")
    return ModeStatus(mode, True, [], None, f"built {exe.name} for {';'.join(archs)}")


def diagnose(results: list[ProbeResult], build: bool = True) -> Diagnosis:
    best = choose(results)
    checks: list[Check] = []

    def check(name: str, ok: bool, detail: str) -> None:
        checks.append(Check(name, ok, detail, "" if ok else REMEDY[name]))

    check("compiler", best is not None,
          f"{best.path} (clang {best.version}, {best.source})" if best else "no HIP-capable clang++ found")
    if best is not None and (best.provisioned_prefix or best.source == "provisioned"):
        root = Path(best.provisioned_prefix or Path(best.path).parent.parent)
        problems = prefix_problems(root)
        check("prefix", not problems, "; ".join(problems) or f"{root} intact")
    check("spirv", bool(best and best.can_spirv),
          f"amdgcnspirv via {best.spirv_path} {' '.join(best.spirv_flags)}".strip()
          if best and best.can_spirv else "cannot emit amdgcnspirv")
    check("bundler", bool(best and best.bundler), (best.bundler if best else None) or "missing")
    ready_headers = [h for h in (best.hip_headers if best else []) if h.spirv_ready]
    check("hip_headers", bool(ready_headers),
          f"HIP {ready_headers[0].version} in {ready_headers[0].include_dir}" if ready_headers
          else "no ROCm >= 7 HIP headers")
    check("device_libs", bool(best and best.device_libs), (best.device_libs if best else None) or "missing")
    check("hip_runtime", bool(best and best.hip_runtime), (best.hip_runtime if best else None) or "missing")
    prefix = Path(best.provisioned_prefix) if best is not None and best.provisioned_prefix else None
    val = find_spirv_val(prefix)
    check("spirv_val", val is not None, val.describe() if val is not None else "missing")
    for tool in ("cmake", "ninja"):
        # The ones compare and the migrate oracle run (programs.py: beside this Python, then PATH).
        found = programs.find([tool])
        check(tool, bool(found), found or "missing")
    rocm_cmake_ok, rocm_cmake_detail = describe(find_rocm_cmake([*([prefix] if prefix else []), *rocm_roots()]))
    check("rocm_cmake", rocm_cmake_ok, rocm_cmake_detail)
    ok = {c.name: c.ok for c in checks}
    base = ["compiler", "prefix", "bundler", "hip_headers", "hip_runtime"]
    need: dict[Mode, list[str]] = {
        "native": [*base, "device_libs"],
        # SPIR-V that nothing validated is not ready: spirv-val is part of these modes.
        "spirv": [*base, "spirv", "spirv_val"],
        "hybrid": [*base, "spirv", "device_libs", "spirv_val"],
    }
    modes: list[ModeStatus] = []
    with tempfile.TemporaryDirectory(prefix="rocm-spirv-doctor-") as tmp:
        for mode in MODES:
            missing = [n for n in need[mode] if not ok.get(n, True)]
            if missing or best is None:
                first = missing[0] if missing else "compiler"
                modes.append(ModeStatus(mode, False, missing, None, f"needs {', '.join(missing)}",
                                        REMEDY[first]))
            elif build:
                # Each build takes seconds to a minute: say what is going on (stderr; -q silences it).
                note(f"doctor: building and linking the HIP test program for {mode} mode")
                modes.append(build_program(best, mode, Path(tmp), val))
            else:
                modes.append(ModeStatus(mode, True, [], None, "not built (--no-build)"))
    return Diagnosis(best, checks, modes)
