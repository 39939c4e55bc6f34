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

import re
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn

from packaging.markers import UndefinedEnvironmentName
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from rocm_spirv import config
from rocm_spirv.errors import UserError
from rocm_spirv.fsutil import read_regular
from rocm_spirv.generate.ownership import plan_write, write_planned
from rocm_spirv.generate.toolchain_file import ToolchainRequest, render
from rocm_spirv.term import complain
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


MAX_PYPROJECT = 1 << 20  # a pyproject.toml is a few KiB; more is not one to read


def _fail(line: str) -> NoReturn:
    """Before CMake starts, in pip's output: one line with the cause and the remedy, exit 2."""
    complain("error", line)
    raise SystemExit(2)


def requires_rocm_spirv(pyproject: Path) -> bool:
    """Entry points apply to every build in an environment; only projects asking for us get settings
    (a requirement whose marker is false here, `rocm-spirv; python_version < "3"`, does not ask)."""
    try:
        # A FIFO named pyproject.toml would block the build for ever: regular files only.
        data = read_regular(pyproject, MAX_PYPROJECT)
    except FileNotFoundError:
        return False
    except OSError as err:
        _fail(f"cannot read {pyproject}: {err.strerror or err}; make it a regular file ({OPT_OUT})")
    if data is None:
        _fail(f"{pyproject} is larger than {MAX_PYPROJECT >> 20} MiB, not a project file ({OPT_OUT})")
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False  # the build frontend reports a broken pyproject.toml itself
    system = doc.get("build-system", {})
    if not isinstance(system, dict):
        _fail(f"{pyproject}: build-system is a {type(system).__name__}, not a table; fix pyproject.toml "
              "([build-system] with requires = [...], PEP 518)")
    requires = system.get("requires", [])
    if not isinstance(requires, list):
        return False  # not a list of requirements: the frontend reports it
    for text in requires:
        try:
            req = Requirement(str(text))
        except InvalidRequirement:
            continue
        if canonicalize_name(req.name) != "rocm-spirv":
            continue
        try:
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                return True
        except UndefinedEnvironmentName:
            return True
    return False


_TOOLCHAIN = re.compile(r"(?:-D\s*)?CMAKE_TOOLCHAIN_FILE(?::[A-Za-z]+)?=")


def _names_toolchain(args: list[str]) -> bool:
    """-DCMAKE_TOOLCHAIN_FILE=…, -D CMAKE_TOOLCHAIN_FILE=… or --toolchain among CMake arguments (the
    text inside another define's value is not one)."""
    for i, arg in enumerate(args):
        if arg.startswith("--toolchain"):
            return True
        if arg.startswith("-D") and _TOOLCHAIN.match(arg[2:].lstrip()):
            return True
        if arg == "-D" and i + 1 < len(args) and _TOOLCHAIN.match(args[i + 1]):
            return True
    return False


def own_toolchain(env: Mapping[str, str]) -> bool:
    """A toolchain file the build names itself by environment (`-C cmake.toolchain-file` wins anyway)."""
    if env.get("CMAKE_TOOLCHAIN_FILE") or env.get("SKBUILD_CMAKE_TOOLCHAIN_FILE"):
        return True
    try:
        cmake_args = shlex.split(env.get("CMAKE_ARGS", ""))
    except ValueError:  # unbalanced quotes: as scikit-build-core, split on blanks
        cmake_args = env.get("CMAKE_ARGS", "").split()
    # scikit-build-core reads SKBUILD_CMAKE_ARGS and SKBUILD_CMAKE_DEFINE as ;-separated lists.
    return (_names_toolchain(cmake_args) or _names_toolchain(env.get("SKBUILD_CMAKE_ARGS", "").split(";"))
            or any(_TOOLCHAIN.match(d.strip()) for d in env.get("SKBUILD_CMAKE_DEFINE", "").split(";")))


def toolchain_file(env: Mapping[str, str], launcher_spec: str = "") -> Path:
    """The skbuild toolchain file for the compiler rocm-spirv chooses, written once per content."""
    compiler = resolve(env.get("ROCM_SPIRV_COMPILER") or None, "spirv")
    if not compiler.provisioned_prefix and not compiler.complete:
        raise UserError(f"{compiler.path} comes without a ROCm 7 device toolchain (HIP headers, device "
                        "libraries, runtime)", "run `rocm-spirv toolchain provision` once on this machine")
    # ROCM_SPIRV_LAUNCHER=ccache|sccache|PATH: a compiler cache for the wheel's compiles
    # (a launcher the build names itself, -C cmake.define.CMAKE_HIP_COMPILER_LAUNCHER=..., wins).
    launcher = resolve_launcher(env.get(LAUNCHER_ENV, "") or launcher_spec)
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
        # [tool.rocm-spirv] of the project: offload, native-archs and launcher for its wheel builds.
        settings = config.file_values("wheel", Path.cwd())
        path = toolchain_file(env, settings.get("launcher", ""))
    except (UserError, OSError) as err:
        cause = err.line() if isinstance(err, UserError) else str(err)
        # Before CMake starts, in pip's output: one line with the cause and the remedy.
        raise SystemExit(f"rocm-spirv: cannot set up this wheel build: {cause} ({OPT_OUT})") from None
    cmake: dict[str, Any] = {"toolchain-file": str(path), "version": CMAKE_FOR_HIP}
    # Defaults below the build's own -C cmake.define… (scikit-build-core applies this provider first).
    define = {var: str(settings[key]).replace(",", ";") for key, var in
              (("offload", "ROCM_SPIRV_OFFLOAD"), ("native-archs", "ROCM_SPIRV_NATIVE_ARCHS")) if key in settings}
    if define:
        cmake["define"] = define
    return {"cmake": cmake}
