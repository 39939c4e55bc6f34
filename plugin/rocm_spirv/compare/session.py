"""Run every variant and repeat of a comparison; Ctrl-C keeps what finished."""

from __future__ import annotations

import hashlib
import os
import platform
import shlex
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rocm_spirv.compare.model import Comparison, Variant, VariantResult
from rocm_spirv.compare.runner import (
    BuildFailed,
    Setup,
    build_command,
    configure_command,
    generate_command,
    run_once,
    toolchain_path,
    wheel_command,
    write_toolchain,
)
from rocm_spirv.errors import UserError
from rocm_spirv.fsutil import locked
from rocm_spirv.toolchain.paths import cache_dir


def machine() -> dict[str, str]:
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            mem = f.readline().split(":", 1)[1].strip()
    except OSError:
        pass
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu)
    except OSError:
        pass
    return {"system": platform.platform(), "cpu": cpu, "cores": str(os.cpu_count()),
            "memory": mem, "python": platform.python_version()}


def compare(setup: Setup, plan: list[Variant], repeat: int, compiler: dict[str, object],
            progress: Callable[[str], None] = lambda _msg: None) -> Comparison:
    c = Comparison(str(setup.project), machine(), compiler, [VariantResult(v) for v in plan],
                   kind="wheel" if setup.wheel else "cmake")
    t0 = time.perf_counter()
    with work_dir(setup.project) as work:
        _run_all(c, setup, work, repeat, progress)
    check_jit(c)
    c.wall_s = time.perf_counter() - t0
    return c


def check_jit(c: Comparison) -> None:
    """The JIT proxy's code objects for each --jit-targets target against a native build of that
    target, where the run has one (the baseline target's are checked against its own build)."""
    for target in c.jit_targets():
        native = c.native_kernels(target)
        for j in c.jit_of(target):
            if native is not None and j.checked_against is None:
                j.check(native[1], native[0])


@contextmanager
def work_dir(project: Path) -> Iterator[Path]:
    """The same build paths on every run: clang derives HIP's -cuid (a symbol name in the device
    code) from the output path, so a random temp dir would change SPIR-V sizes between runs."""
    key = hashlib.sha256(str(project).encode()).hexdigest()[:12]
    work = cache_dir() / "compare" / key
    work.parent.mkdir(parents=True, exist_ok=True)
    busy = UserError(f"another rocm-spirv compare of {project} is running",
                     "wait for it to finish (its build dirs are in use)")
    with locked(work.parent / f"{key}.lock", busy):
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        try:
            yield work
        finally:
            shutil.rmtree(work, ignore_errors=True)


def _run_all(c: Comparison, setup: Setup, work: Path, repeat: int, progress: Callable[[str], None]) -> None:
    try:
        for vr in c.results:
            build = work / vr.variant.name
            tc_path = toolchain_path(build)
            c.commands.append(generate_command(setup, vr.variant, tc_path))
            make = wheel_command if setup.wheel else configure_command
            c.commands.append(make(setup, vr.variant, build, tc_path))
            write_toolchain(setup, vr.variant, build)
        # Round-robin over the variants, one repeat at a time: a slow phase of the machine then
        # widens every variant's spread a little instead of shifting one variant's median.
        for i in range(repeat):
            for vr in c.results:
                if vr.error is not None:
                    continue
                progress(f"{vr.variant.name}, repeat {i + 1}/{repeat}")
                c.load.append(os.getloadavg()[0])
                try:
                    vr.runs.append(run_once(setup, vr.variant, work / vr.variant.name))
                except BuildFailed as err:
                    vr.error = f"{err.step} failed: {shlex.join(err.command)}\n{err.tail}"
        c.load.append(os.getloadavg()[0])
        if not setup.wheel:
            c.commands.append(build_command(setup, work / "<variant>"))
    except KeyboardInterrupt:
        c.partial = True
        c.results = [r for r in c.results if r.runs or r.error]
