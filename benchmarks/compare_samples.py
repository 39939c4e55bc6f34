"""Run `rocm-spirv compare` on samples/kernels (8 native targets, 3 repeats, compressed too,
scaling 1..16) and record the results with the machine description under benchmarks/results/.

Targets (issue: compare): native/SPIR-V build wall time >= 8; SPIR-V <= 0.8 x one native target;
uncompressed .hip_fatbin native/SPIR-V >= 3.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "compare_kernels"
TARGETS = {
    "build_wall_ratio_native_over_spirv": (">=", 8.0),
    "build_wall_ratio_spirv_over_native1": ("<=", 0.8),
    "fatbin_ratio_native_over_spirv": (">=", 3.0),
}


def main() -> int:
    cmd = [sys.executable, "-m", "rocm_spirv", "compare", str(HERE.parent / "samples" / "kernels"),
           "--repeat", "3", "--compress", "--scaling", "1,2,4,8,16", "--report", str(RESULTS), "--json",
           *sys.argv[1:]]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        print(proc.stderr[-4000:], file=sys.stderr)
        return proc.returncode
    summary = json.loads(proc.stdout)["summary"]
    failed = 0
    for key, (op, limit) in TARGETS.items():
        value = summary[key]
        ok = value is not None and (value >= limit if op == ">=" else value <= limit)
        failed += not ok
        print(f"{key}: {value:.2f} (target {op} {limit}) {'met' if ok else 'MISSED'}")
    print(f"results in {RESULTS}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
