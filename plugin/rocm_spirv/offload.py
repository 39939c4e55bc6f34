"""The offload vocabulary: modes, GPU target lists and the SPIR-V device flags.

cmake/RocmSpirvOffload.cmake spells the same rules for the CMake package;
tests/test_offload_vocabulary.py runs both on the same inputs so they cannot drift.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, TypeGuard

Mode = Literal["native", "spirv", "hybrid"]
MODES: tuple[Mode, ...] = ("native", "spirv", "hybrid")
SPIRV_TARGET = "amdgcnspirv"


def is_mode(text: str) -> TypeGuard[Mode]:
    return text in MODES


def parse_archs(text: str | None) -> tuple[str, ...]:
    """`gfx942, gfx1100;gfx90a:xnack+` -> the names, split on commas or semicolons."""
    return tuple(a.strip() for a in (text or "").replace(";", ",").split(",") if a.strip())


def offload_list(mode: Mode, native_archs: Sequence[str]) -> tuple[str, ...]:
    """What --offload-arch= gets, each target once; empty when the mode needs
    native targets and none are known (the project's own list decides later)."""
    native = tuple(dict.fromkeys(a for a in native_archs if a != SPIRV_TARGET))
    if mode == "spirv":
        return (SPIRV_TARGET,)
    if not native:
        return ()
    return (SPIRV_TARGET, *native) if mode == "hybrid" else native


# Opting in to device debug info for the in-tree SPIR-V backend (docs/toolchain.md):
# the wrappers read this environment variable, the CMake package its cache option.
DEVICE_DEBUG_ENV = "ROCM_SPIRV_DEVICE_DEBUG"
IN_TREE_BACKEND = "-use-spirv-backend"


def device_debug_opted_in(environ: Mapping[str, str]) -> bool:
    """The wrappers' test of ROCM_SPIRV_DEVICE_DEBUG (1, on, yes, true in any case)."""
    return environ.get(DEVICE_DEBUG_ENV, "").strip().lower() in ("1", "on", "yes", "true")


def spirv_device_flags(probed: Sequence[str], device_debug: bool = False) -> list[str]:
    """Compile flags for the SPIR-V target from what the compiler probe found.

    Default visibility is a device-code need (calls into device libraries the
    runtime links at JIT time), so it is scoped to the SPIR-V target: the host
    and native code keep whatever visibility the project chose.

    The in-tree backend (LLVM 22) writes NonSemantic.Shader.DebugInfo.100 that
    spirv-val rejects (DebugCompilationUnit's Language is a literal, not an
    OpConstant id), and ROCm's runtime translator reads the .200 form its own
    llvm-spirv writes; so under -g the SPIR-V device pass alone gets -g0 unless
    the user opts in. Host and native device code keep their debug info."""
    out: list[str] = []
    for f in probed:
        out += [f"-Xarch_{SPIRV_TARGET}", f] if f.startswith("-fvisibility") else [f]
    if IN_TREE_BACKEND in probed and not device_debug:
        out += [f"-Xarch_{SPIRV_TARGET}", "-g0"]
    return out
