"""Run `rocm-spirv compare` on samples/hip_library, the real-HIP library (hip_runtime.h, ROCm 7
device libraries linked for native targets), with 8 native targets, 3 interleaved repeats,
compressed variants and scaling over 1, 2, 4, 8 and 16 targets (the break-even points), and
record the report under benchmarks/results/compare_hip_library/.

No targets to meet: the figures are recorded as measured, beside the builtin-only lower bound
(compare_samples.py, samples/kernels), so a maintainer sees what real code gives.
"""

from __future__ import annotations

import sys

from compare_samples import HERE, run

REPORT = HERE / "results" / "compare_hip_library"
SAMPLE = HERE.parent / "samples" / "hip_library"
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
    print(f"results in {REPORT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
