"""scikit-build-core's `scikit-build-core.config.default` provider: zero-setting wheel builds.

A project with rocm-spirv in `build-system.requires` gets, before CMake starts,
a toolchain file (`cmake.toolchain-file`) naming the HIP compiler rocm-spirv
chooses (as defaults: a compiler the build names wins), `CMAKE_HIP_PLATFORM=amd`
and the provisioned prefix's HIP packages; and a CMake new enough for the HIP
language when the project asks for less. The GPU targets stay the project's:
`rocm_spirv_target()` and `-C cmake.define.ROCM_SPIRV_OFFLOAD=...` decide them.

Default-level settings sit below pyproject.toml, `-C` and the environment, so a
project's own toolchain file and CMake version win. Opt-outs: `ROCM_SPIRV_SKBUILD=0`,
or scikit-build-core's `SKBUILD_NO_ENTRYPOINT_CONFIG=1`.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from rocm_spirv.errors import UserError
from rocm_spirv.generate.ownership import plan_write, write_planned
from rocm_spirv.generate.toolchain_file import ToolchainRequest, render
from rocm_spirv.toolchain.choose import resolve
from rocm_spirv.toolchain.launcher import ENV as LAUNCHER_ENV
from rocm_spirv.toolchain.launcher import resolve_launcher

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

# Builds that run CMake; metadata and sdist builds need no compiler.
BUILD_STATES = ("wheel", "editable")
OFF = ("0", "false", "no", "off")
# CMake's HIP language finds ROCm's hip-lang package reliably from 3.28 on; below
# that, a distribution CMake can take the system's older HIP (or miss amd_comgr).
CMAKE_FOR_HIP = ">=3.28"
OPT_OUT = "or set ROCM_SPIRV_SKBUILD=0 and configure the build yourself"


def requires_rocm_spirv(pyproject: Path) -> bool:
    """Entry points apply to every build in an environment; only projects asking for us get settings."""
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    requires = data.get("build-system", {}).get("requires", [])
    if not isinstance(requires, list):
        return False
    for text in requires:
        try:
            if canonicalize_name(Requirement(str(text)).name) == "rocm-spirv":
                return True
        except InvalidRequirement:
            continue
    return False


def own_toolchain(env: Mapping[str, str]) -> bool:
    """A toolchain file the build names itself by environment (`-C cmake.toolchain-file` wins anyway)."""
    return bool(env.get("CMAKE_TOOLCHAIN_FILE") or env.get("SKBUILD_CMAKE_TOOLCHAIN_FILE")
                or "CMAKE_TOOLCHAIN_FILE" in env.get("CMAKE_ARGS", "")
                or "CMAKE_TOOLCHAIN_FILE" in env.get("SKBUILD_CMAKE_ARGS", "")
                or "CMAKE_TOOLCHAIN_FILE" in env.get("SKBUILD_CMAKE_DEFINE", ""))


def toolchain_file(env: Mapping[str, str]) -> Path:
    """The skbuild toolchain file for the compiler rocm-spirv chooses, written once per content."""
    compiler = resolve(env.get("ROCM_SPIRV_COMPILER") or None, "spirv")
    if not compiler.provisioned_prefix and not compiler.complete:
        raise UserError(f"{compiler.path} comes without a ROCm 7 device toolchain (HIP headers, device "
                        "libraries, runtime)", "run `rocm-spirv toolchain provision` once on this machine")
    # ROCM_SPIRV_LAUNCHER=ccache|sccache|PATH: a compiler cache for the wheel's compiles
    # (a launcher the build names itself, -C cmake.define.CMAKE_HIP_COMPILER_LAUNCHER=..., wins).
    launcher = resolve_launcher(env.get(LAUNCHER_ENV, ""))
    tc = render(ToolchainRequest("native", purpose="skbuild", launcher=launcher), compiler)
    path = tc.default_path()
    # Content-addressed: an unchanged file is left alone, one the user edited is theirs.
    write_planned(plan_write(path, tc.text, False, f"remove {path} to have it regenerated"))
    return path


def defaults(*, state: str, env: Mapping[str, str]) -> dict[str, Any]:
    if (state not in BUILD_STATES or env.get("ROCM_SPIRV_SKBUILD", "1").lower() in OFF
            or own_toolchain(env) or not requires_rocm_spirv(Path.cwd() / "pyproject.toml")):
        return {}
    try:
        path = toolchain_file(env)
    except (UserError, OSError) as err:
        cause = err.line() if isinstance(err, UserError) else str(err)
        # Before CMake starts, in pip's output: one line with the cause and the remedy.
        raise SystemExit(f"rocm-spirv: cannot set up this wheel build: {cause} ({OPT_OUT})") from None
    return {"cmake": {"toolchain-file": str(path), "version": CMAKE_FOR_HIP}}
