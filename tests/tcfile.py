"""Generate toolchain files through the real CLI and configure projects with them."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from bundles import device_entries
from cmakebuild import tool
from rocm_spirv.cli import main

SPIRV_ONLY = ["hip-spirv64-amd-amdhsa--amdgcnspirv"]


def generate(prefix: Path, out: Path, mode: str = "spirv", archs: str = "") -> Path:
    argv = ["toolchain", "generate", "--offload", mode, "--compiler", str(prefix / "bin" / "clang++"),
            "--output", str(out), "--json"]
    if archs:
        argv += ["--native-archs", archs]
    assert main(argv) == 0
    return out


def run(cmd: list[str], check: bool = True, cwd: Path | None = None,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CMAKE_BUILD_PARALLEL_LEVEL": "2", **(env or {})}
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env, cwd=cwd)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc


def configure(src: Path, build: Path, toolchain_file: Path | None, *defs: str,
              check: bool = True, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    cmd = [tool("cmake"), "-S", str(src), "-B", str(build), "-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={tool('ninja')}",
           *(f"-D{d}" for d in defs)]
    if toolchain_file is not None:
        cmd.append(f"-DCMAKE_TOOLCHAIN_FILE={toolchain_file}")
    return run(cmd, check, env=env)


def build(build_dir: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    return run([tool("cmake"), "--build", str(build_dir)], check)


def entries(prefix: Path, path: Path) -> list[str]:
    return device_entries(prefix / "bin" / "clang-offload-bundler", path)
