"""Candidate HIP compilers, in the order a user expects them to win."""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from pathlib import Path

from rocm_spirv import settings
from rocm_spirv.errors import UserError
from rocm_spirv.toolchain import programs
from rocm_spirv.toolchain.llvm import ziglang_llvm
from rocm_spirv.toolchain.paths import default_prefix


@dataclass(frozen=True)
class Candidate:
    path: Path
    source: str  # explicit | rocm | provisioned | path | ziglang
    argv: tuple[str, ...]  # what to run: usually (path,), for raw ziglang a longer prefix


def rocm_roots() -> list[Path]:
    roots: list[str] = []
    for var in ("ROCM_PATH", "HIP_PATH"):
        if os.environ.get(var):
            roots.append(os.environ[var])
    roots += sorted(glob.glob("/opt/rocm*"), reverse=True)
    hipconfig = programs.find(["hipconfig"])
    if hipconfig:
        out = programs.run_probe([hipconfig, "--rocmpath"])
        if out.ok and out.stdout.strip():
            roots.append(out.stdout.strip())
    seen: list[Path] = []
    for r in roots:
        p = Path(r)
        if p not in seen:
            seen.append(p)
    return seen


def explicit_candidate(value: str) -> Candidate:
    found = programs.find([value], dirs=()) if os.sep not in value else value
    path = Path(found) if found else Path(value)
    if not path.is_file() or not os.access(path, os.X_OK):
        raise UserError(
            f"compiler {value!r} not found or not executable",
            "pass --compiler PATH to a clang++, or run `rocm-spirv toolchain provision`",
        )
    return Candidate(path.absolute(), "explicit", (str(path.absolute()),))


def ziglang_candidate() -> Candidate | None:
    """The ziglang wheel's raw clang: listed so `toolchain list` shows it, never chosen for builds."""
    zl = ziglang_llvm()
    if zl is None:
        return None
    assert zl.resource_dir is not None
    argv = (*zl.driver(), "--driver-mode=g++", "--target=x86_64-linux-gnu", "-resource-dir", str(zl.resource_dir))
    return Candidate(zl.clang, "ziglang", argv)


def candidates(explicit: str | None = None, prefix: Path | None = None) -> list[Candidate]:
    """Every compiler found, best first. An explicit choice is the only one returned."""
    chosen = explicit or settings.text(settings.COMPILER)
    if chosen:
        return [explicit_candidate(chosen)]
    found: list[Candidate] = []

    def add(path: Path, source: str) -> None:
        if path.is_file() and os.access(path, os.X_OK) and all(c.path != path for c in found):
            found.append(Candidate(path, source, (str(path),)))

    for root in rocm_roots():
        add(root / "llvm" / "bin" / "clang++", "rocm")
        add(root / "bin" / "amdclang++", "rocm")
    add((prefix or default_prefix()) / "bin" / "clang++", "provisioned")
    for name in ["clang++"] + [f"clang++-{n}" for n in range(30, 16, -1)]:
        hit = programs.find([name], dirs=())
        if hit:
            add(Path(hit), "path")
    zc = ziglang_candidate()
    if zc is not None:
        found.append(zc)
    return found
