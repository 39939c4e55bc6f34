"""Configure overhead of find_package(RocmSpirv) + retargeting, as a ratio against the same
project without it (target <= 1.10: one cached probe, not one per target).

A generated HIP-language project with many targets is configured from scratch in fresh build
dirs, alternating the two variants, and the medians are compared. Results: JSON + Markdown in
benchmarks/results/cmake_configure.{json,md}.
"""

from __future__ import annotations

import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
TARGETS = 100
REPEATS = 5


def write_project(root: Path, retarget: bool) -> None:
    root.mkdir(parents=True)
    (root / "k.hip").write_text((REPO / "samples" / "cmake" / "common" / "saxpy.hip").read_text())
    lines = ["cmake_minimum_required(VERSION 3.21)",
             'set(CMAKE_HIP_ARCHITECTURES "gfx90a;gfx942;gfx1100" CACHE STRING "")',
             "project(many LANGUAGES CXX HIP)"]
    lines += [f"add_library(t{i} STATIC k.hip)" for i in range(TARGETS)]
    if retarget:
        lines += ["find_package(RocmSpirv REQUIRED)", "rocm_spirv_retarget_directory(RECURSE)"]
    (root / "CMakeLists.txt").write_text("\n".join(lines) + "\n")


def configure(src: Path, build: Path, compiler: str) -> float:
    start = time.perf_counter()
    from rocm_spirv.toolchain import programs

    subprocess.run([programs.command("cmake"), "-S", str(src), "-B", str(build), "-G", "Ninja",
                    f"-DCMAKE_MAKE_PROGRAM={programs.command('ninja')}", f"-DCMAKE_HIP_COMPILER={compiler}",
                    f"-DCMAKE_CXX_COMPILER={compiler}", f"-DRocmSpirv_DIR={REPO / 'cmake'}"],
                   check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> int:
    from rocm_spirv.toolchain.paths import default_prefix

    compiler = sys.argv[1] if len(sys.argv) > 1 else str(default_prefix() / "bin" / "clang++")
    times: dict[str, list[float]] = {"plain": [], "rocm_spirv": []}
    with tempfile.TemporaryDirectory() as tmp:
        for name in times:
            write_project(Path(tmp) / name, name == "rocm_spirv")
        for i in range(REPEATS):
            for name in times:
                times[name].append(configure(Path(tmp) / name, Path(tmp) / f"b-{name}-{i}", compiler))
    med = {k: statistics.median(v) for k, v in times.items()}
    ratio = med["rocm_spirv"] / med["plain"]
    result = {"targets": TARGETS, "repeats": REPEATS, "seconds": times, "median": med, "ratio": ratio,
              "target": 1.10, "met": ratio <= 1.10, "compiler": compiler,
              "machine": {"system": platform.platform(), "python": platform.python_version()}}
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "cmake_configure.json").write_text(json.dumps(result, indent=2) + "\n")
    (out / "cmake_configure.md").write_text(
        f"# Configure overhead of RocmSpirv\n\n{TARGETS} HIP targets, {REPEATS} fresh configures each, "
        f"medians.\n\n| variant | median s |\n| --- | ---: |\n| plain | {med['plain']:.3f} |\n"
        f"| find_package(RocmSpirv) + retarget_directory | {med['rocm_spirv']:.3f} |\n\n"
        f"Ratio: **{ratio:.3f}** (target <= 1.10: {'met' if ratio <= 1.10 else 'missed'}).\n"
        f"Machine: {platform.platform()}.\n")
    print(f"configure ratio {ratio:.3f} (plain {med['plain']:.3f} s, with RocmSpirv {med['rocm_spirv']:.3f} s)")
    return 0 if ratio <= 1.10 else 1


if __name__ == "__main__":
    sys.exit(main())
