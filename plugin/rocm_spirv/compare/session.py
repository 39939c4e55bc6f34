"""Run every variant and repeat of a comparison; Ctrl-C keeps what finished."""

from __future__ import annotations

import os
import platform
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from rocm_spirv.compare.model import Comparison, Variant, VariantResult
from rocm_spirv.compare.runner import BuildFailed, Setup, build_command, configure_command, generate_command, run_once


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
    c = Comparison(str(setup.project), machine(), compiler, [VariantResult(v) for v in plan])
    work = Path(tempfile.mkdtemp(prefix="rocm-spirv-compare-"))
    try:
        for vr in c.results:
            build = work / vr.variant.name
            tc_path = build.with_name(f"{build.name}.toolchain.cmake")
            c.commands.append(generate_command(setup, vr.variant, tc_path))
            c.commands.append(configure_command(setup, vr.variant, build, tc_path))
            for i in range(repeat):
                progress(f"{vr.variant.name} {i + 1}/{repeat}")
                try:
                    vr.runs.append(run_once(setup, vr.variant, build))
                except BuildFailed as err:
                    vr.error = f"{err.step} failed:\n{err.tail}"
                    break
        c.commands.append(build_command(setup, work / "<variant>"))
    except KeyboardInterrupt:
        c.partial = True
        c.results = [r for r in c.results if r.runs or r.error]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return c
