"""Configure and build a sample with real cmake + ninja and the provisioned clang."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from rocm_spirv.toolchain import programs

SPIRV_FLAGS = "-use-spirv-backend -fvisibility=default"


# The PyPI cmake/ninja of this environment (the dev extra) before any system one.
tool = programs.command


def cmake_build(src: Path, build: Path, prefix: Path, archs: str, hip_flags: str = "",
                extra: list[str] | None = None) -> Path:
    cmake, ninja = tool("cmake"), tool("ninja")
    clang = prefix / "bin" / "clang++"
    args = [cmake, "-S", str(src), "-B", str(build), "-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={ninja}",
            f"-DCMAKE_HIP_COMPILER={clang}", f"-DCMAKE_CXX_COMPILER={clang}",
            f"-DCMAKE_HIP_ARCHITECTURES={archs}", f"-DCMAKE_HIP_FLAGS={hip_flags}", *(extra or [])]
    env = {**os.environ, "CMAKE_BUILD_PARALLEL_LEVEL": "2"}
    for cmd in (args, [cmake, "--build", str(build)]):
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
        if proc.returncode != 0:
            raise AssertionError(f"{' '.join(cmd)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return build
