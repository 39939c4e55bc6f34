"""Render a CMake toolchain file that turns an unmodified project into a SPIR-V build."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import jinja2

from rocm_spirv import __version__
from rocm_spirv.errors import UserError
from rocm_spirv.fsutil import refuse_newlines
from rocm_spirv.generate.ownership import stamp
from rocm_spirv.offload import (
    MODES,
    TOOLCHAIN_LISTS,
    device_debug_opted_in,
    is_mode,
    offload_list,
    spirv_device_flags,
)
from rocm_spirv.resources import cmake_dir, templates_dir
from rocm_spirv.toolchain.launcher import Launcher, launcher_command
from rocm_spirv.toolchain.paths import default_prefix
from rocm_spirv.toolchain.probe import ProbeResult

HOOK = "RocmSpirvProjectInclude.cmake"


@dataclass(frozen=True)
class ToolchainRequest:
    """What the user asked for; everything the file depends on besides the compiler."""

    mode: str
    native_archs: tuple[str, ...] = ()
    # "skbuild": what a wheel build gets from rocm-spirv before CMake starts: the
    # compilers (as defaults), the platform and the prefix; the GPU targets stay
    # the project's (rocm_spirv_target() and ROCM_SPIRV_OFFLOAD decide them).
    purpose: Literal["project", "skbuild"] = "project"
    # A compiler cache (or any launcher) for every compile: CMAKE_<LANG>_COMPILER_LAUNCHER.
    launcher: Launcher | None = None

    def __post_init__(self) -> None:
        if not is_mode(self.mode):
            raise UserError(f"offload mode {self.mode!r} is not one of {', '.join(MODES)}",
                            "pass --offload spirv, native or hybrid")


@dataclass(frozen=True)
class ToolchainFile:
    request: ToolchainRequest
    compiler: str
    identity: str
    text: str

    def default_path(self) -> Path:
        """Content-addressed, so the same options give the same path and file."""
        name = "skbuild" if self.request.purpose == "skbuild" else self.request.mode
        return default_prefix().parent / "toolchains" / f"{name}-{self.identity}.cmake"


def check_archs(archs: tuple[str, ...], compiler: ProbeResult) -> None:
    known = set(compiler.gfx_targets)
    bad = [a for a in archs if known and a.split(":")[0] not in known]
    if bad:
        raise UserError(f"{compiler.path} does not know GPU target(s) {', '.join(bad)}",
                        "see `rocm-spirv toolchain list --json` (gfx_targets) for what it accepts")


def _c_compiler(cxx: str) -> str | None:
    path = Path(cxx)
    if path.name.endswith("clang++"):
        c = path.with_name(path.name[: -len("++")])
        if c.is_file():
            return str(c)
    return None


def _lists(req: ToolchainRequest) -> list[str]:
    """The value GPU_TARGETS & co. get; empty: the project's own list is kept."""
    # The mode was checked when the request was made.
    return list(offload_list(req.mode, req.native_archs)) if is_mode(req.mode) else []


def cmake_quoted(value: object) -> str:
    """value as the inside of a CMake quoted argument that reads back as exactly value.
    `;` stays: a quoted argument keeps it, and a single-valued variable holds it as written."""
    text = "" if value is None else str(value)
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")


CMAKE_HOSTILE = ('"', "\\", "$", ";")


def cmake_safe_compiler(path: str) -> str:
    """A path to the compiler that CMake can carry. CMake writes the compiler path unescaped into
    its own generated files (CMakeFiles/<version>/CMake<LANG>Compiler.cmake), so a `"`, `\\`, `$`
    or `;` breaks every configure whatever this file does; the real path often has none."""
    if not any(c in path for c in CMAKE_HOSTILE):
        return path
    real = os.path.realpath(path)
    if not any(c in real for c in CMAKE_HOSTILE):
        return real
    raise UserError(f"CMake cannot use a compiler whose path holds any of {' '.join(CMAKE_HOSTILE)}: {path}",
                    "link it from a plain path (ln -s) and pass that to --compiler")


def canonical_command(req: ToolchainRequest, compiler: str) -> list[str]:
    cmd = ["rocm-spirv", "toolchain", "generate", "--offload", req.mode]
    if req.native_archs:
        cmd += ["--native-archs", ",".join(req.native_archs)]
    if req.launcher:
        cmd += ["--launcher", req.launcher.path]
    return [*cmd, "--compiler", compiler]


def render(req: ToolchainRequest, compiler: ProbeResult) -> ToolchainFile:
    if req.mode != "native" and not compiler.can_spirv:
        raise UserError(f"{compiler.path} cannot emit amdgcnspirv, so a {req.mode} toolchain file would not build",
                        "run `rocm-spirv doctor`, or pass --compiler to a clang >= 22 "
                        "(`rocm-spirv toolchain provision`)")
    check_archs(req.native_archs, compiler)
    if (req.launcher and req.launcher.kind == "ccache" and req.mode != "native" and not compiler.provisioned_prefix
            and any(f.startswith("-fvisibility") for f in compiler.spirv_flags)):
        raise UserError(f"ccache cannot launch {compiler.path} for {req.mode} builds: ccache drops the "
                        "-Xarch_amdgcnspirv -fvisibility=default pair the SPIR-V compile needs",
                        "use a provisioned prefix (`rocm-spirv toolchain provision`, its clang++ adds the "
                        "flags itself) or --launcher sccache")
    refuse_newlines(compiler=compiler.path, native_archs=req.native_archs, prefix=compiler.provisioned_prefix,
                    python=sys.executable, package=str(cmake_dir()), flags=compiler.spirv_flags)
    cxx = cmake_safe_compiler(compiler.path)
    spirv_flags = compiler.spirv_flags if req.mode != "native" else []
    skbuild = req.purpose == "skbuild"
    lists = [] if skbuild else _lists(req)
    hook = not skbuild and (req.mode != "native" or bool(req.native_archs))
    prefix = Path(compiler.provisioned_prefix) if compiler.provisioned_prefix else None
    launcher = launcher_command(req.launcher, prefix) if req.launcher else []
    package = cmake_dir()
    # The identity covers every input of the text, so equal options give one file.
    identity = hashlib.sha256(json.dumps(
        [__version__, req.mode, req.native_archs, req.purpose, compiler.path, spirv_flags,
         str(package), *([launcher] if launcher else [])]).encode()).hexdigest()[:16]
    description = f"offload={req.mode} native-archs={';'.join(req.native_archs) or '-'} compiler={compiler.path}"
    if req.launcher:
        description += f" launcher={req.launcher.path}"
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates_dir())), keep_trailing_newline=True,
                             trim_blocks=False, undefined=jinja2.StrictUndefined, autoescape=False,
                             # Every value lands inside "..." (or a comment, where escapes are harmless).
                             finalize=cmake_quoted)
    text = env.get_template("cmake/toolchain.cmake.j2").render(
        version=__version__,
        command=shlex.join(canonical_command(req, compiler.path)),
        mode=req.mode,
        toolchain_lists=list(TOOLCHAIN_LISTS),
        native_archs=list(req.native_archs),
        compiler=cxx,
        compilers=[(lang, path) for lang, path in (("CXX", cxx), ("HIP", cxx), ("C", _c_compiler(cxx))) if path],
        wheel_build=skbuild,
        launcher=";".join(launcher),
        launcher_kind=req.launcher.kind if req.launcher else "",
        launcher_langs=[lang for lang, path in (("CXX", cxx), ("HIP", cxx), ("C", _c_compiler(cxx))) if path],
        rocm_prefix=compiler.provisioned_prefix or "",
        clang_version=compiler.version or "?",
        compiler_source=compiler.source,
        spirv_path=compiler.spirv_path or "none",
        spirv_flags=spirv_flags,
        # A provisioned prefix's wrapper adds them itself, to compile steps only
        # (as flags variables they would also reach every link line, unused).
        spirv_flags_hip="" if compiler.provisioned_prefix else " ".join(
            spirv_device_flags(spirv_flags, device_debug_opted_in(os.environ))),
        lists=";".join(lists),
        lists_comma=",".join(lists),
        hook=hook,
        hook_file=(package / HOOK).as_posix(),
        cmake_dir=package.as_posix(),
        python=sys.executable,
        identity=identity,
        description=description,
    )
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(line.rstrip() for line in text.splitlines())) + "\n"
    return ToolchainFile(req, compiler.path, identity, stamp(text, "toolchain.cmake"))
