"""Where the shipped CMake package and templates live, installed or in a checkout."""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def _locate(name: str) -> Path:
    # A wheel carries the folder inside the package; an editable install or a
    # plain checkout has it at the repository top, two levels up from plugin/rocm_spirv.
    for candidate in (_PKG / name, _PKG.parent.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"rocm_spirv data folder {name!r} not found beside {_PKG}")


def cmake_dir() -> Path:
    """The folder holding RocmSpirvConfig.cmake (pass it as RocmSpirv_DIR)."""
    return _locate("cmake")


def templates_dir() -> Path:
    """The folder of Jinja2 templates (toolchain files, presets, Bazel rules, reports)."""
    return _locate("templates")
