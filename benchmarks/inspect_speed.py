"""Time `rocm-spirv inspect` on a >= 500 MB HIP shared library against the LLVM tools.

    PYTHONPATH=plugin:tests python benchmarks/inspect_speed.py [--size-mb 500] [--archs 12]

The library is real: one object compiled per-arch for many targets (a big unrolled kernel), copied
with its host symbols renamed (llvm-objcopy --redefine-sym) and linked with the others, so
.hip_fatbin holds one real bundle per copy and .hipFatBinSegment points at each. The reference is
what one does by hand: `llvm-objcopy --dump-section=.hip_fatbin=…` and `clang-offload-bundler
--list` on every bundle in it. Reports both times, their ratio (target >= 3x) and inspect's peak
memory (target < 100 MB) as benchmarks/results/inspect.json and .md.
"""

from __future__ import annotations

import os
import sys

# Its folder stays off sys.path (earlier scripts here shadowed stdlib modules).
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

import argparse  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "plugin"), str(ROOT / "tests")]

from hostile import PEAK_KIB  # noqa: E402
from inspect_artifacts import bundler_listing, find_bundler, find_compiler, find_tool  # noqa: E402

ARCHS = ["gfx906", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1101", "gfx1102",
         "gfx1151", "gfx1200", "gfx1201", "gfx900", "gfx1010", "gfx1031", "gfx1103"]

KERNEL = r"""
#define __global__ __attribute__((global))
struct dim3 { unsigned x, y, z; };
extern "C" int hipLaunchKernel(const void*, dim3, dim3, void**, unsigned long, void*);
extern "C" __global__ void big(float* x, float a, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
  float v = x[i];
#pragma unroll
  for (int k = 0; k < UNROLL; ++k) v = v * a + x[(i + k * 33) % n];
  x[i] = v;
}
"""


def build_library(tmp: Path, size_mb: int, narchs: int, unroll: int) -> tuple[Path, int]:
    comp, why = find_compiler(tmp)
    objcopy = find_tool("llvm-objcopy")
    if comp is None or objcopy is None:
        raise SystemExit(f"benchmark needs a compiler and llvm-objcopy: {why}")
    src = tmp / "big.hip"
    src.write_text(KERNEL)
    obj = comp.hip(src, tmp / "big.o", ARCHS[:narchs], "-c", "-fPIC", f"-DUNROLL={unroll}")
    nm = subprocess.run(["nm", "--defined-only", "-g", str(obj)], capture_output=True, text=True, check=True)
    globals_ = [line.split()[-1] for line in nm.stdout.splitlines() if line.strip()]
    per = obj.stat().st_size
    # A copy adds a little less than its object size to the library; aim 10 % over the target.
    copies = max(1, int((size_mb << 20) * 1.1) // per + 1)
    objs = []
    for i in range(copies):
        out = tmp / f"big{i}.o"
        subprocess.run([str(objcopy), *(f"--redefine-sym={g}={g}_{i}" for g in globals_), str(obj), str(out)],
                       check=True)
        objs.append(out)
    lib = comp.link_shared(objs, tmp / "libbig.so")
    for o in objs:
        o.unlink()
    return lib, copies


def time_inspect(lib: Path) -> tuple[float, int, int]:
    code = ("import sys, time; from rocm_spirv.cli import main; t = time.perf_counter(); "
            f"rc = main(['inspect', {str(lib)!r}, '--json']); "
            f"print(time.perf_counter() - t, {PEAK_KIB}, rc, file=sys.stderr)")
    env = {"PYTHONPATH": str(ROOT / "plugin"), "PATH": "/usr/bin:/bin"}
    t = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - t
    _, maxrss_kb, rc = run.stderr.split()[-3:]
    entries = sum(len(f["entries"]) for i in json.loads(run.stdout)["inputs"] for f in i["files"])
    if rc != "0":
        raise SystemExit(f"inspect failed: {run.stderr[-500:]}")
    return wall, int(maxrss_kb) * 1024, entries


def time_reference(lib: Path, tmp: Path) -> tuple[float, int]:
    seconds, ids = bundler_listing(lib, tmp)
    return seconds, len(ids)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size-mb", type=int, default=500)
    ap.add_argument("--archs", type=int, default=12)
    ap.add_argument("--unroll", type=int, default=4096)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        lib, copies = build_library(tmp, args.size_mb, args.archs, args.unroll)
        size = lib.stat().st_size
        ours, rss, n_ours = time_inspect(lib)
        ref, n_ref = time_reference(lib, tmp)
    result = {
        "library_bytes": size, "bundles": copies, "archs": args.archs, "entries_inspect": n_ours,
        "entries_bundler": n_ref, "inspect_s": round(ours, 3), "reference_s": round(ref, 3),
        "speedup": round(ref / ours, 2), "inspect_peak_rss_bytes": rss,
        "passed": ref / ours >= 3 and rss < 100 << 20 and n_ours == n_ref and size >= args.size_mb << 20,
        "tools": {"llvm-objcopy": str(find_tool("llvm-objcopy")), "clang-offload-bundler": str(find_bundler()),
                  "spirv-val": shutil.which("spirv-val")},
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "inspect.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "inspect.md").write_text(
        "# inspect speed\n\n| library | bundles | entries | inspect | objcopy + bundler --list | speedup | peak RSS |\n"
        "|---|---|---|---|---|---|---|\n"
        f"| {size / 2**20:.0f} MiB | {copies} | {n_ours} | {ours:.2f} s | {ref:.2f} s | {ref / ours:.1f}x | "
        f"{rss / 2**20:.0f} MiB |\n")
    print(json.dumps(result))
    return 0 if result["passed"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
