"""The one SPIR-V path policy: which way a compiler turns HIP into amdgcnspirv.

Two paths exist: the external `llvm-spirv` translator (ROCm's production path, which clang runs as
`llvm-spirv-<major>` or `llvm-spirv` from its own folder or PATH) and LLVM's in-tree backend
(`-use-spirv-backend`). A translator being there proves nothing: Debian's llvm-spirv-14/15 reject
what clang 22 hands them. So the path is decided by a real compile: the translator when one is
found and it compiles the probe kernel to SPIR-V, else the in-tree backend when that does.

The probe records the decision in its cache (ProbeResult.spirv_path, .spirv_flags); provisioning
records it in the prefix's manifest and bakes it into the clang wrappers, which apply it to
compiles that choose no path themselves. cmake/RocmSpirvProbe.cmake follows the same order.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from rocm_spirv.offload import IN_TREE_BACKEND, SPIRV_TARGET
from rocm_spirv.term import traced
from rocm_spirv.toolchain import programs

SpirvPath = Literal["translator", "in-tree"]
SPIRV_MAGIC = b"\x03\x02\x23\x07"
# The in-tree backend rejects calls to undefined hidden functions such as __ockl_* that the JIT
# links later, so device symbols stay visible (scoped to the SPIR-V pass by offload.spirv_device_flags).
IN_TREE_FLAGS: tuple[str, ...] = (IN_TREE_BACKEND, "-fvisibility=default")
# clang >= 22 has both paths; the translator is then asked for by name, so a wrapper's default
# cannot stand in for it during the test.
TRANSLATOR_TEST_FLAGS: tuple[str, ...] = ("-no-use-spirv-backend",)
IN_TREE_MAJOR = 22
TRANSLATOR_MAJOR = 19

# Device code needing no headers or device libraries: what every target must accept.
PROBE_KERNEL = """
#define __global__ __attribute__((global))
struct dim3 { unsigned x, y, z; };
extern "C" int hipLaunchKernel(const void*, dim3, dim3, void**, unsigned long, void*);
extern "C" __global__ void rocm_spirv_probe(float* x) { x[__builtin_amdgcn_workitem_id_x()] *= 2.0f; }
"""


@dataclass(frozen=True)
class Decision:
    path: SpirvPath | None
    flags: tuple[str, ...]  # what a compile needs beyond --offload-arch=amdgcnspirv
    translator: str | None  # the llvm-spirv clang would run, if any
    errors: tuple[str, ...] = field(default=())  # why a path was not taken


def translator_names(major: int | None) -> list[str]:
    return ([f"llvm-spirv-{major}"] if major is not None else []) + ["llvm-spirv"]


def find_translator(compiler: Path, major: int | None) -> str | None:
    """The llvm-spirv clang would run: by name, versioned first, beside the compiler (as called and
    as resolved), then on PATH."""
    return programs.find(translator_names(major), programs.compiler_dirs(compiler))


def _emits_spirv(argv: list[str], flags: tuple[str, ...], tmp: Path, timeout: float) -> tuple[bool, str]:
    src = tmp / "spirv_path.hip"
    src.write_text(PROBE_KERNEL)
    out = tmp / "spirv_path.out"
    out.unlink(missing_ok=True)
    cmd = [*argv, "-x", "hip", "-nogpuinc", "-nogpulib", "--cuda-device-only", f"--offload-arch={SPIRV_TARGET}",
           *flags, "-c", "-o", str(out), str(src)]
    try:
        with traced(cmd, tmp) as trace:
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=tmp, timeout=timeout)
            trace.status = proc.returncode
    except (OSError, subprocess.TimeoutExpired) as err:
        return False, str(err)
    # Device-only output is an offload bundle wrapping the module.
    ok = proc.returncode == 0 and out.is_file() and SPIRV_MAGIC in out.read_bytes()
    return ok, "" if ok else programs.failure_line(proc.stderr, proc.stdout)


def decide(argv: list[str], compiler: Path, major: int | None, tmp: Path, timeout: float = 120,
           in_tree: bool | None = None) -> Decision:
    """The SPIR-V path for the compiler run as argv (compiler: its binary, for the translator search).
    in_tree: whether the in-tree backend already compiled the probe kernel, when the caller knows."""
    if major is None:
        return Decision(None, (), None, ("unknown clang version",))
    errors: list[str] = []
    translator = find_translator(compiler, major) if major >= TRANSLATOR_MAJOR else None
    if translator is not None:
        ok, why = _emits_spirv(argv, TRANSLATOR_TEST_FLAGS if major >= IN_TREE_MAJOR else (), tmp, timeout)
        if ok:
            return Decision("translator", (), translator)
        errors.append(f"llvm-spirv translator {translator} failed: {why}")
    if major >= IN_TREE_MAJOR:
        ok, why = (in_tree, "the probe kernel did not compile") if in_tree is not None else \
            _emits_spirv(argv, (IN_TREE_BACKEND,), tmp, timeout)
        if ok:
            return Decision("in-tree", IN_TREE_FLAGS, translator, tuple(errors))
        errors.append(f"in-tree SPIR-V backend failed: {why}")
    return Decision(None, (), translator, tuple(errors))
