"""Configure and build one variant in a fresh directory, timing wall and child CPU."""

from __future__ import annotations

import os
import resource
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from rocm_spirv import children
from rocm_spirv.compare import jit
from rocm_spirv.compare.model import BASELINE, Run, Variant
from rocm_spirv.compare.sizes import find_artifacts, wheel_artifact
from rocm_spirv.errors import RocmSpirvError
from rocm_spirv.fsutil import write_atomic
from rocm_spirv.generate.toolchain_file import ToolchainFile, ToolchainRequest, canonical_command, render
from rocm_spirv.toolchain import programs
from rocm_spirv.toolchain.buildcheck import explain, rejections
from rocm_spirv.toolchain.launcher import Launcher
from rocm_spirv.toolchain.probe import ProbeResult
from rocm_spirv.toolchain.spirv_val import find_spirv_val


class BuildFailed(RocmSpirvError):
    exit_code = 1  # a build that fails is a failed gate, not bad input

    def __init__(self, step: str, tail: str, command: list[str] | None = None) -> None:
        super().__init__(f"{step} failed")
        self.step = step
        self.tail = tail
        self.command = command or []


@dataclass(frozen=True)
class Setup:
    project: Path
    compiler: ProbeResult
    jobs: int
    wheel: bool = False  # build with `pip wheel` (scikit-build-core) instead of cmake
    build_isolation: bool = True  # pip's isolated build environment (wheel mode)
    defines: tuple[str, ...] = ()  # VAR=VALUE cache entries for every variant (-D)
    targets: tuple[str, ...] = ()  # build only these targets (--target); all when empty
    jit: bool = True  # measure the first-launch work on the baseline build (compare/jit.py)
    jit_targets: tuple[str, ...] = ()  # measure it for these targets too (--jit-targets), from the same build
    launcher: Launcher | None = None  # compiler launcher of every variant's toolchain file (--launcher)


def toolchain_file(setup: Setup, variant: Variant) -> ToolchainFile:
    """Every variant builds through the toolchain file a user would generate: no project edits,
    and hard-coded lists are overridden the same way in every mode."""
    return render(ToolchainRequest(variant.mode, variant.archs, launcher=setup.launcher), setup.compiler)


def toolchain_path(build: Path) -> Path:
    """Where a variant's toolchain file is written: beside its build dir, which is removed per repeat."""
    return build.with_name(f"{build.name}.toolchain.cmake")


def generate_command(setup: Setup, variant: Variant, path: Path) -> list[str]:
    return [*canonical_command(ToolchainRequest(variant.mode, variant.archs, launcher=setup.launcher),
                               setup.compiler.path),
            "--output", str(path)]


def measures_jit(setup: Setup, variant: Variant) -> bool:
    """The baseline build (one native target, uncompressed) carries the JIT proxy."""
    return setup.jit and not setup.wheel and variant.name == BASELINE


def configure_command(setup: Setup, variant: Variant, build: Path, tc_path: Path) -> list[str]:
    flags = ["--offload-compress"] if variant.compress else []
    return [
        programs.command("cmake"), "-S", str(setup.project), "-B", str(build), "-G", "Ninja",
        f"-DCMAKE_MAKE_PROGRAM={programs.command('ninja')}", f"-DCMAKE_TOOLCHAIN_FILE={tc_path}",
        *([f"-DCMAKE_HIP_FLAGS={' '.join(flags)}", f"-DCMAKE_CXX_FLAGS={' '.join(flags)}"] if flags else []),
        "-DCMAKE_BUILD_TYPE=Release", *(f"-D{d}" for d in setup.defines),
        # The JIT proxy reads each HIP TU's own compile command.
        *(["-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"] if measures_jit(setup, variant) else []),
    ]


def wheel_command(setup: Setup, variant: Variant, build: Path, tc_path: Path) -> list[str]:
    """pip wheel through the same toolchain file, with scikit-build-core's build dir pinned
    (fixed paths keep clang's -cuid, and so the device code, the same between runs)."""
    flags = ["--offload-compress"] if variant.compress else []
    return [
        sys.executable, "-m", "pip", "wheel", str(setup.project), "--no-deps", "-w", str(build / "dist"),
        *([] if setup.build_isolation else ["--no-build-isolation"]),
        f"-Cbuild-dir={build / 'build'}", "-Ccmake.build-type=Release",
        f"-Ccmake.define.CMAKE_TOOLCHAIN_FILE={tc_path}",
        *([f"-Ccmake.define.CMAKE_HIP_FLAGS={' '.join(flags)}",
           f"-Ccmake.define.CMAKE_CXX_FLAGS={' '.join(flags)}"] if flags else []),
        *(f"-Ccmake.define.{d}" for d in setup.defines),
    ]


def build_command(setup: Setup, build: Path) -> list[str]:
    targets = ["--target", *setup.targets] if setup.targets else []
    return [programs.command("cmake"), "--build", str(build), "--parallel", str(setup.jobs), *targets]


def offload_compress_supported(compiler: str) -> bool:
    """Whether this clang's driver knows --offload-compress (clang >= 18); an unknown option is
    an error, a known one is ignored beside --version."""
    probe = programs.run_probe([compiler, "--offload-compress", "--version"])
    return probe.ok and "unknown argument" not in probe.stderr


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _timed(cmd: list[str], step: str, **env: str) -> float:
    """Run one configure or build, timed; stopping compare stops all of it (children.py)."""
    start = time.perf_counter()
    done = children.run(cmd, env={**os.environ, "CLICOLOR_FORCE": "0", **env})
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        lines = (done.stdout + done.stderr).strip().splitlines()
        raise BuildFailed(step, "\n".join(lines[-25:]), cmd)
    return elapsed


def validate_spirv(paths: list[Path]) -> None:
    """Every SPIR-V module the build wrote passes the newest spirv-val, or the variant fails at a
    `validate` step naming the module, the construct and the remedy: invalid device code is not a
    result to compare. Without any spirv-val nothing is checked (doctor reports the missing tool)."""
    if not paths:
        return
    tool = find_spirv_val(None)
    if tool is None:
        return
    lines = []
    for path in paths:
        for entry, message in rejections(path, tool):
            construct, remedy = explain(message)
            lines.append(f"{path.name}: {entry}: spirv-val {tool.version} rejects {construct} ({message}); "
                         f"remedy: {remedy}")
    if lines:
        raise BuildFailed("validate", "\n".join(lines))


def write_toolchain(setup: Setup, variant: Variant, build: Path) -> Path:
    """The variant's toolchain file, rendered and written once for all its repeats (it sits
    beside the build dir, which each repeat removes)."""
    tc_path = toolchain_path(build)
    write_atomic(tc_path, toolchain_file(setup, variant).text)
    return tc_path


def run_once(setup: Setup, variant: Variant, build: Path) -> Run:
    """One repeat: always a fresh build directory, removed afterwards; the toolchain file is
    write_toolchain's."""
    if build.exists():
        shutil.rmtree(build)
    tc_path = toolchain_path(build)
    cpu0 = _children_cpu()
    try:
        if setup.wheel:
            return _wheel_once(setup, variant, build, tc_path, cpu0)
        conf = _timed(configure_command(setup, variant, build, tc_path), "configure")
        cpu1 = _children_cpu()
        bld = _timed(build_command(setup, build), "build")
        cpu2 = _children_cpu()
        artifacts = find_artifacts(build)
        if variant.mode != "native":
            validate_spirv([Path(a.path) for a in artifacts])
        for a in artifacts:
            a.path = str(Path(a.path).relative_to(build))
        run = Run(conf, bld, cpu2 - cpu0, artifacts, build_cpu_s=cpu2 - cpu1)
        if measures_jit(setup, variant):
            t0 = time.perf_counter()
            native = sorted({k for a in artifacts for k in a.kernels})
            run.jit = jit.measure(setup.compiler.path, build, setup.project, variant.archs[0],
                                  build / "rocm-spirv-jit", native, variant.name)
            # Other targets are checked once every variant has built (session.check_jit).
            run.jit_others = [jit.measure(setup.compiler.path, build, setup.project, t, build / "rocm-spirv-jit",
                                          None, variant.name)
                              for t in dict.fromkeys(setup.jit_targets) if t != variant.archs[0]]
            run.jit_s = time.perf_counter() - t0
        return run
    finally:
        shutil.rmtree(build, ignore_errors=True)


def _wheel_once(setup: Setup, variant: Variant, build: Path, tc_path: Path, cpu0: float) -> Run:
    # pip configures and builds in one step: the whole of it is the wheel's build time.
    # The variant's toolchain file is the whole configuration: the wheel provider stays out.
    elapsed = _timed(wheel_command(setup, variant, build, tc_path), "pip wheel",
                     CMAKE_BUILD_PARALLEL_LEVEL=str(setup.jobs), ROCM_SPIRV_SKBUILD="0")
    cpu = _children_cpu() - cpu0
    wheels = sorted((build / "dist").glob("*.whl"))
    if len(wheels) != 1:
        raise BuildFailed("pip wheel", f"expected one wheel in {build / 'dist'}, found {len(wheels)}")
    if variant.mode != "native":
        validate_spirv(wheels)
    return Run(0.0, elapsed, cpu, [wheel_artifact(wheels[0])], build_cpu_s=cpu)
