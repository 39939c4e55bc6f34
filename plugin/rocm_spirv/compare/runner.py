"""Configure and build one variant in a fresh directory, timing wall and child CPU."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from rocm_spirv.compare.model import Run, Variant
from rocm_spirv.compare.sizes import find_artifacts
from rocm_spirv.resources import cmake_dir


class BuildFailed(Exception):
    def __init__(self, step: str, tail: str) -> None:
        super().__init__(f"{step} failed")
        self.step = step
        self.tail = tail


@dataclass(frozen=True)
class Setup:
    project: Path
    compiler: Path
    spirv_flags: tuple[str, ...]
    jobs: int

    def tool(self, name: str) -> str:
        beside = Path(sys.executable).parent / name
        return str(beside) if beside.is_file() else (shutil.which(name) or name)


def configure_command(setup: Setup, variant: Variant, build: Path) -> list[str]:
    flags = ["--offload-compress"] if variant.compress else []
    # Native builds are the project as it is (with the chosen list); SPIR-V and
    # hybrid go through RocmSpirv's project hook, so hard-coded lists need no edits.
    hook = [] if variant.mode == "native" else [
        f"-DCMAKE_PROJECT_INCLUDE={cmake_dir() / 'RocmSpirvProjectInclude.cmake'}",
        f"-DROCM_SPIRV_OFFLOAD={variant.mode}",
        f"-DROCM_SPIRV_NATIVE_ARCHS={';'.join(variant.archs)}",
    ]
    return [
        setup.tool("cmake"), "-S", str(setup.project), "-B", str(build), "-G", "Ninja",
        f"-DCMAKE_MAKE_PROGRAM={setup.tool('ninja')}",
        f"-DCMAKE_HIP_COMPILER={setup.compiler}", f"-DCMAKE_CXX_COMPILER={setup.compiler}",
        f"-DCMAKE_HIP_ARCHITECTURES={';'.join(variant.offload_archs)}",
        f"-DCMAKE_HIP_FLAGS={' '.join(flags)}", f"-DCMAKE_CXX_FLAGS={' '.join(flags)}",
        "-DCMAKE_BUILD_TYPE=Release", *hook,
    ]


def build_command(setup: Setup, build: Path) -> list[str]:
    return [setup.tool("cmake"), "--build", str(build), "--parallel", str(setup.jobs)]


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _timed(cmd: list[str], step: str) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False,
                          env={**os.environ, "CLICOLOR_FORCE": "0"})
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        lines = (proc.stdout + proc.stderr).strip().splitlines()
        raise BuildFailed(step, "\n".join(lines[-25:]))
    return elapsed


def run_once(setup: Setup, variant: Variant, build: Path) -> Run:
    """One repeat: always a fresh build directory, removed afterwards."""
    if build.exists():
        shutil.rmtree(build)
    cpu0 = _children_cpu()
    try:
        conf = _timed(configure_command(setup, variant, build), "configure")
        bld = _timed(build_command(setup, build), "build")
        cpu = _children_cpu() - cpu0
        artifacts = find_artifacts(build)
        for a in artifacts:
            a.path = str(Path(a.path).relative_to(build))
        return Run(conf, bld, cpu, artifacts)
    finally:
        shutil.rmtree(build, ignore_errors=True)
