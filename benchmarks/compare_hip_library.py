"""Run `rocm-spirv compare` on samples/hip_library, the real-HIP library (hip_runtime.h, ROCm 7
device libraries linked for native targets), with 8 native targets, 3 interleaved repeats,
compressed variants and scaling over 1, 2, 4, 8 and 16 targets (the break-even points), and
record the report under benchmarks/results/compare_hip_library/.

The figures are recorded as measured, beside the builtin-only lower bound (compare_samples.py,
samples/kernels), so a maintainer sees what real code gives. One target: compare's own overhead
(its wall time minus the configures and builds it times) at most 5 % of its wall time; exit
status 1 when missed.
"""

from __future__ import annotations

import sys

from compare_samples import HERE, run

REPORT = HERE / "results" / "compare_hip_library"
SAMPLE = HERE.parent / "samples" / "hip_library"
OVERHEAD_TARGET = 0.05
FIGURES = ("build_wall_ratio_native_over_spirv", "build_wall_ratio_spirv_over_native1",
           "fatbin_ratio_native_over_spirv", "fatbin_ratio_native_over_spirv_compressed",
           "file_ratio_native_over_spirv")


def main() -> int:
    data = run(REPORT, "--repeat", "3", project=SAMPLE)
    if data is None:
        return 1
    for key in FIGURES:
        value = data["summary"].get(key)
        print(f"{key}: {'n/a' if value is None else f'{value:.2f}'}")
    for b in data["break_even"]:
        print(f"break-even, {b['label']}: {b['text']}")
    print(f"JIT estimate per kernel: {data['summary']['jit_estimate_per_kernel_ms']:.0f} ms")
    over = data["overhead"]
    met = over["fraction"] is not None and over["fraction"] <= OVERHEAD_TARGET
    print(f"compare's own overhead: {over['wall_s'] - over['timed_s']:.1f} s of {over['wall_s']:.1f} s "
          f"({100 * (over['fraction'] or 0):.1f} %, target <= {100 * OVERHEAD_TARGET:.0f} %) "
          f"{'met' if met else 'MISSED'}")
    print(f"results in {REPORT}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
