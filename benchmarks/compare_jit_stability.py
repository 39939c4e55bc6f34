"""Does compare's measured JIT figure hold on a loaded machine? Two runs of the JIT proxy per
project, the second under a parallel load, judged in CPU time.

For each project (samples/hip_library; AMD's prefix-sum example, unmodified, from the tree
compare_library_scale.py extracts) the baseline build (gfx942, exported compile commands) is
made once through compare's own toolchain file and configure command; then the proxy
(rocm_spirv.compare.jit) runs REPEAT times (run 1), and REPEAT times again while another build of
the same project runs beside it (run 2). Target (issue: compare tells the whole truth): run 2's
median per-kernel CPU time lies inside run 1's min-max range or its 95 % repeat interval; the
wall-time figure is recorded beside it, with the load average. The code objects' kernels must
equal the native build's in every repetition.

    PYTHONPATH=plugin python benchmarks/compare_jit_stability.py [--repeat 5] [--tree DIR]

Results: benchmarks/results/compare_jit_stability.{json,md}. Exit 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rocm_spirv.compare import jit
from rocm_spirv.compare.model import Spread, Variant
from rocm_spirv.compare.runner import Setup, build_command, configure_command, write_toolchain
from rocm_spirv.compare.sizes import find_artifacts
from rocm_spirv.fsutil import write_atomic
from rocm_spirv.toolchain.choose import choose, probe_all

HERE = Path(__file__).resolve().parent
OUT = HERE / "results" / "compare_jit_stability"
TREE = Path.home() / ".cache" / "rocm-spirv" / "benchmarks" / "rocm-examples"


def _build(setup: Setup, build: Path) -> list[str]:
    variant = Variant("native-1", "native", ("gfx942",))
    write_toolchain(setup, variant, build)
    for cmd in (configure_command(setup, variant, build, build.with_name(f"{build.name}.toolchain.cmake")),
                build_command(setup, build)):
        subprocess.run(cmd, check=True, capture_output=True)
    return sorted({k for a in find_artifacts(build) for k in a.kernels})


def _runs(setup: Setup, build: Path, kernels: list[str], repeat: int, scratch: Path) -> list[jit.JitRun]:
    out = []
    for _ in range(repeat):
        r = jit.measure(setup.compiler.path, build, setup.project, "gfx942", scratch, kernels, "native-1")
        if r.error:
            raise SystemExit(f"error: {r.error}")
        out.append(r)
    return out


def _figures(runs: list[jit.JitRun]) -> dict[str, Any]:
    cpu = [statistics.median(r.per_kernel(True)) for r in runs]
    wall = [statistics.median(r.per_kernel(False)) for r in runs]
    return {"kernel_cpu_ms": asdict(Spread.of(cpu)), "kernel_wall_ms": asdict(Spread.of(wall)),
            "kernel_cpu_p90_ms": asdict(Spread.of([jit.p90(r.per_kernel(True)) for r in runs])),
            "kernels_match": all(r.kernels_match for r in runs),
            "units": len(runs[0].units), "kernels": len({k for u in runs[0].units for k in u.kernels})}


def measure(project: Path, repeat: int, setup_of: Any) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="jit-stability-") as tmp:
        setup: Setup = setup_of(project)
        build = Path(tmp) / "native-1"
        kernels = _build(setup, build)
        load0 = os.getloadavg()[0]
        first = _runs(setup, build, kernels, repeat, Path(tmp) / "scratch")
        # Run 2 beside a parallel build of the same project (a second, independent build dir).
        other = Path(tmp) / "load"
        variant = Variant("native", "native", ("gfx90a", "gfx1100", "gfx1201"))
        write_toolchain(setup, variant, other)
        subprocess.run(configure_command(setup, variant, other, other.with_name("load.toolchain.cmake")),
                       check=True, capture_output=True)
        loader = subprocess.Popen(build_command(setup, other), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            load1 = os.getloadavg()[0]
            second = _runs(setup, build, kernels, repeat, Path(tmp) / "scratch")
            load2 = os.getloadavg()[0]
        finally:
            loader.terminate()
            loader.wait()
            shutil.rmtree(other, ignore_errors=True)
    a, b = _figures(first), _figures(second)
    s1, m2 = a["kernel_cpu_ms"], b["kernel_cpu_ms"]["median"]
    lo = min(s1["low"], s1["expected_low"] if s1["expected_low"] is not None else s1["low"])
    hi = max(s1["high"], s1["expected_high"] if s1["expected_high"] is not None else s1["high"])
    return {"project": project.name, "first": a, "second_under_load": b,
            "load_average": {"run1_start": load0, "run2_start": load1, "run2_end": load2},
            "within": lo <= m2 <= hi and a["kernels_match"] and b["kernels_match"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--tree", type=Path, default=TREE, help="the tree compare_library_scale.py extracts")
    ap.add_argument("--compiler", default=None)
    a = ap.parse_args()
    comp = choose(probe_all(a.compiler, None))
    if comp is None:
        raise SystemExit("error: no compiler (rocm-spirv doctor)")

    def setup_of(project: Path) -> Setup:
        return Setup(project, comp, os.cpu_count() or 2, defines=("GPU_RUNTIME=HIP",))

    projects = [HERE.parent / "samples" / "hip_library", a.tree / "Applications" / "prefix_sum"]
    rows = []
    for p in projects:
        if not (p / "CMakeLists.txt").is_file():
            print(f"skipped {p}: not extracted (benchmarks/compare_library_scale.py extract)", file=sys.stderr)
            continue
        row = measure(p, a.repeat, setup_of)
        rows.append(row)
        f, s = row["first"]["kernel_cpu_ms"], row["second_under_load"]["kernel_cpu_ms"]
        print(f"{row['project']}: JIT CPU per kernel {f['median']:.1f} ms ({f['low']:.1f}-{f['high']:.1f}); "
              f"under load {s['median']:.1f} ({s['low']:.1f}-{s['high']:.1f}); "
              f"{'within' if row['within'] else 'OUTSIDE'}; load {row['load_average']}")
    write_atomic(OUT.with_suffix(".json"), json.dumps({"repeat": a.repeat, "method": jit.METHOD,
                                                       "projects": rows}, indent=1) + "\n")
    lines = ["# JIT proxy stability: two runs, the second under a parallel build", "",
             f"Method: {jit.METHOD}. Target gfx942, {a.repeat} repetitions per run; figures are the median over",
             "repetitions of the per-kernel median (ms), with the min-max range.", "",
             "| project | TUs | kernels | CPU/kernel run 1 | CPU/kernel run 2 (load) | wall/kernel run 1 | "
             "wall/kernel run 2 | load avg run 1 → 2 | kernels match | run 2 inside run 1's range or 95 % interval |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |"]
    for r in rows:
        def fmt(s: dict[str, float]) -> str:
            return f"{s['median']:.1f} ({s['low']:.1f}-{s['high']:.1f})"
        la = r["load_average"]
        lines.append(f"| {r['project']} | {r['first']['units']} | {r['first']['kernels']} | "
                     f"{fmt(r['first']['kernel_cpu_ms'])} | {fmt(r['second_under_load']['kernel_cpu_ms'])} | "
                     f"{fmt(r['first']['kernel_wall_ms'])} | {fmt(r['second_under_load']['kernel_wall_ms'])} | "
                     f"{la['run1_start']:.1f} → {la['run2_end']:.1f} | "
                     f"{r['first']['kernels_match'] and r['second_under_load']['kernels_match']} | {r['within']} |")
    write_atomic(OUT.with_suffix(".md"), "\n".join(lines) + "\n")
    return 0 if rows and all(r["within"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
