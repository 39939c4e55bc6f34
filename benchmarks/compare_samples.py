"""Run `rocm-spirv compare` on samples/kernels (8 native targets, 5 repeats interleaved, compressed too,
scaling 1..16) twice, the second run checked against the first (`--against`), and record both
with the machine description under benchmarks/results/.

Targets (issue: compare): native/SPIR-V build wall time >= 8; SPIR-V <= 0.8 x one native target;
uncompressed .hip_fatbin native/SPIR-V >= 3; the second run lands within the first run's spread:
every size identical, and no more timings (and timing ratios) outside run 1's 95 % intervals
than chance explains (see rocm_spirv/compare/reproduce.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FIRST = HERE / "results" / "compare_kernels"
SECOND = HERE / "results" / "compare_kernels_rerun"
TARGETS = {
    "build_wall_ratio_native_over_spirv": (">=", 8.0),
    "build_wall_ratio_spirv_over_native1": ("<=", 0.8),
    "fatbin_ratio_native_over_spirv": (">=", 3.0),
}


def run(report: Path, *extra: str, project: Path = HERE.parent / "samples" / "kernels",
        scaling: str | None = "1,2,4,8,16") -> dict[str, Any] | None:
    cmd = [sys.executable, "-m", "rocm_spirv", "compare", str(project), "--repeat", "5", "--compress",
           *(["--scaling", scaling] if scaling else []), "--report", str(report), "--json",
           *extra, *sys.argv[1:]]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        print(proc.stderr[-4000:], file=sys.stderr)
        return None
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def check_targets(label: str, summary: dict[str, float | None]) -> int:
    failed = 0
    for key, (op, limit) in TARGETS.items():
        value = summary[key]
        ok = value is not None and (value >= limit if op == ">=" else value <= limit)
        failed += not ok
        print(f"{label} {key}: {value:.2f} (target {op} {limit}) {'met' if ok else 'MISSED'}")
    return failed


def main() -> int:
    first = run(FIRST)
    if first is None:
        return 1
    failed = check_targets("run 1", first["summary"])
    second = run(SECOND, "--against", str(FIRST / "report.json"))
    if second is None:
        return 1
    failed += check_targets("run 2", second["summary"])
    rep = second["reproduction"]
    for c in rep["checks"]:
        if not c["within"]:
            lo, hi = c["earlier_expected_low"], c["earlier_expected_high"]
            if lo is None or c["kind"] == "size":
                lo, hi = c["earlier_low"], c["earlier_high"]
            print(f"run 2 {c['variant']} {c['metric']}: {c['median']:.3f} outside run 1's {lo:.3f}-{hi:.3f}")
    sizes = [c for c in rep["checks"] if c["kind"] == "size"]
    print(f"reproduction, sizes: {sum(c['within'] for c in sizes)}/{len(sizes)} identical")
    print(f"reproduction, timings and timing ratios: {rep['timing_misses']}/{rep['timing_checks']} outside "
          f"run 1's 95 % interval (chance allows {rep['timing_misses_allowed']}); "
          f"{rep['timing_misses_of_range']} outside its min-max range")
    if rep["timing_drift"] is not None:
        print(f"run 2 build times moved {rep['timing_drift'] * 100:+.1f} % against run 1 (median over variants)")
    print(f"reproduced: {rep['reproduced']}")
    print(f"results in {FIRST} and {SECOND}")
    return 1 if failed or not rep["reproduced"] else 0


if __name__ == "__main__":
    sys.exit(main())
