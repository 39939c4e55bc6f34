"""Version strings of the tools rocm-spirv meets (clang, HIP, CMake), read one way: packaging's."""

from __future__ import annotations

from packaging.version import InvalidVersion, Version


def parse(text: str) -> Version | None:
    """`22.1.8`, `7.1.25424` or `3.25.1` as a Version; None for anything else."""
    try:
        return Version(text.strip())
    except InvalidVersion:
        return None


def major(text: str | None) -> int | None:
    v = parse(text) if text else None
    return v.major if v is not None else None


def parts(text: str, count: int = 3) -> tuple[int, ...]:
    """The first count release numbers, zero-padded: `7.1` -> (7, 1, 0)."""
    v = parse(text)
    release = v.release if v is not None else ()
    return tuple([*release, *([0] * count)][:count])
