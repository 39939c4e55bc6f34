"""The offload vocabulary: modes, GPU target lists and the SPIR-V device flags.

cmake/RocmSpirvOffload.cmake spells the same rules for the CMake package;
tests/test_offload_vocabulary.py runs both on the same inputs so they cannot drift.
"""

from __future__ import annotations

from collections.abc import Sequence
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


def spirv_device_flags(probed: Sequence[str]) -> list[str]:
    """Compile flags for the SPIR-V target from what the compiler probe found.

    Default visibility is a device-code need (calls into device libraries the
    runtime links at JIT time), so it is scoped to the SPIR-V target: the host
    and native code keep whatever visibility the project chose."""
    out: list[str] = []
    for f in probed:
        out += [f"-Xarch_{SPIRV_TARGET}", f] if f.startswith("-fvisibility") else [f]
    return out
