"""Run `rocm-spirv compare --wheel` on samples/python_ext: 8 native targets vs SPIR-V, plain and
--offload-compress, each a real isolated `pip wheel`, offline from a local wheelhouse (filled the
way tests/wheelhouse.py fills it), 3 repeats. Writes benchmarks/results/compare_wheel/
(report.md, report.json).

Target (issue: wheel): the SPIR-V wheel at most 1/3 of the 8-target native wheel, uncompressed
bundles (`wheel_ratio_spirv_over_native` <= 0.333); compressed figures reported beside it.

    PYTHONPATH=plugin:tests python benchmarks/compare_wheel.py [--prefix TOOLCHAIN] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
# This folder stays off sys.path: only plugin/ and tests/ are imported from.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path[:0] = [str(REPO / "plugin"), str(REPO / "tests")]

from wheelhouse import fill, offline_env  # noqa: E402

TARGET = 1 / 3


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prefix", type=Path, default=Path.home() / ".local/share/rocm-spirv/toolchain",
                    help="provisioned toolchain prefix")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, default=HERE / "results" / "compare_wheel")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="compare-wheel-") as tmp:
        wh = Path(tmp) / "wheelhouse"
        fill(REPO, wh)
        cmd = [sys.executable, "-m", "rocm_spirv", "compare", str(REPO / "samples" / "python_ext"), "--wheel",
               "--compiler", str(args.prefix / "bin" / "clang++"), "--compress", "--repeat", str(args.repeat),
               "--report", str(args.out), "--json"]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=offline_env(wh), check=False)
    if proc.returncode != 0:
        print(proc.stderr[-4000:], file=sys.stderr)
        return 1
    s = json.loads(proc.stdout)["summary"]
    ratio = s["wheel_ratio_spirv_over_native"]
    print(f"wheel SPIR-V / 8 native targets: {ratio:.3f} (target <= {TARGET:.3f}) "
          f"{'met' if ratio <= TARGET else 'MISSED'}; with --offload-compress "
          f"{s['wheel_ratio_spirv_over_native_compressed']:.3f}")
    print(f"installed native / SPIR-V: {s['installed_ratio_native_over_spirv']:.2f}; "
          f"device code native / SPIR-V: {s['fatbin_ratio_native_over_spirv']:.2f} "
          f"(--offload-compress: {s['fatbin_ratio_native_over_spirv_compressed']:.2f}); "
          f"wheel build native / SPIR-V: {s['build_wall_ratio_native_over_spirv']:.2f}")
    print(f"results in {args.out}")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
