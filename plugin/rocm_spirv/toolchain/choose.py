"""The one path from candidates to the compiler a command uses: discover -> probe -> choose.

Every command that needs a compiler (doctor, toolchain list/generate, presets,
compare, bazel) goes through `probe_all` and `choose` here, so they agree.
"""

from __future__ import annotations

from pathlib import Path

from rocm_spirv.errors import UserError
from rocm_spirv.toolchain.discover import candidates
from rocm_spirv.toolchain.probe import ProbeResult, probe

REMEDY_COMPILER = "rocm-spirv toolchain provision (apt-get install clang-22 lld-22 llvm-22 clang-tools-22 first)"
REMEDY_SPIRV = "rocm-spirv toolchain provision (clang 22 with the in-tree SPIR-V backend)"


def probe_all(compiler: str | None = None, prefix: Path | None = None, use_cache: bool = True) -> list[ProbeResult]:
    """Every candidate probed, best first; an explicit compiler that cannot do HIP is bad input."""
    results = [probe(c, use_cache) for c in candidates(compiler, prefix)]
    if compiler and not results[0].hip:
        why = results[0].errors[0] if results[0].errors else "no HIP support"
        raise UserError(f"{compiler} cannot compile HIP for AMD GPUs ({why})",
                        "pass a clang++ built with the AMDGPU backend, or run "
                        "`rocm-spirv toolchain provision` and use its bin/clang++")
    return results


def choose(results: list[ProbeResult]) -> ProbeResult | None:
    """The compiler builds will use: one that emits SPIR-V first, then a complete ROCm toolchain,
    then discovery order. Raw ziglang never: it needs the prefix's wrappers."""
    usable = [r for r in results if r.hip and r.source != "ziglang"]
    # min() keeps the first of equals: discovery order breaks ties.
    return min(usable, key=lambda r: (not r.can_spirv, not r.complete), default=None)


def resolve(value: str | None, offload: str = "native", prefix: Path | None = None) -> ProbeResult:
    """`auto`/None: the compiler choose() picks; else the probed path. Refuses one that cannot do the mode."""
    if value and value != "auto":
        return probe_all(value, prefix)[0]
    best = choose(probe_all(None, prefix))
    if best is None:
        raise UserError("no HIP-capable clang++ found", REMEDY_COMPILER)
    if offload != "native" and not best.can_spirv:
        raise UserError(f"the best compiler found ({best.path}) cannot emit amdgcnspirv", REMEDY_SPIRV)
    return best
