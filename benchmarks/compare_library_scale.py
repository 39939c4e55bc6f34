"""`rocm-spirv compare` at library scale: several real projects in one recorded run.

Projects (settings in PROJECTS):
- samples/hip_library (ours): 8 targets, scaling over 1, 2, 4, 8 and 16 targets;
- AMD's HIP example collection as one multi-executable project (every example through
  `HIP-Basic/CMakeLists.txt`), 4 targets;
- AMD's reduction tutorial (one algorithm, many kernel variants; its tests and benchmarks link
  GoogleTest and Google Benchmark from Debian: libgtest-dev, libbenchmark-dev), 4 targets;
- AMD's prefix-sum example (2 kernels, unmodified), 4 targets.

The reduction tutorial does not build with clang 22 in any variant, native included
(include/Reduction/v8.hpp:170: "zero-length arrays are not permitted in HIP device code"): its
report records every variant failing for that reason.

HIP-Basic configures since the prefix carries a link-only libhiprtc (its runtime_compilation example
has `find_library(HIPRTC_LIB hiprtc REQUIRED)`). Every variant builds the same 19 of its 25 example
targets (HIP_BASIC_TARGETS); left out, in every variant alike: assembly_to_executable and
llvm_ir_to_executable (they compile per-GPU assembly or IR, so SPIR-V has no variant of them),
inline_assembly (GCN assembly cannot be lowered to SPIR-V), hipify (no hipify-perl in any registry),
cooperative_groups (hip_cooperative_groups.h is not in the triton header subset) and bandwidth
(calls host memset without <cstring>; with ROCm 7's headers only the __device__ overload is found).

The upstream files are never committed: benchmarks/data/compare_library_scale_manifest.json
records the repository, the commit and the sha256 of every file used, and `extract` takes them
out of a git directory holding that commit (`fetch` of github:ROCm/rocm-examples gives one),
checking every file:

    python benchmarks/compare_library_scale.py extract --git-dir DIR [--dest DIR]
    python benchmarks/compare_library_scale.py manifest --git-dir DIR     # rewrite the manifest
    PYTHONPATH=plugin python benchmarks/compare_library_scale.py run [--repeat N] [--only NAME...]

Each project's report (report.json, report.md, scaling.png) goes to
benchmarks/results/compare_library_scale/<name>/, and one summary (summary.json, summary.md) of
the headline figures beside them. No target is asserted (the figures are recorded as measured);
exit 1 when a project's compare fails. Runs are niced; the summary records the load average.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

from rocm_spirv.fsutil import write_atomic

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "data" / "compare_library_scale_manifest.json"
RESULTS = HERE / "results" / "compare_library_scale"
UPSTREAM = "ROCm/rocm-examples"
COMMIT = "7dfb7d402794c33031be2847eaa06ee6732f07cb"
PATHS = ("HIP-Basic", "Common", "Tutorials/reduction", "Applications/prefix_sum")
DEFAULT_DEST = Path.home() / ".cache" / "rocm-spirv" / "benchmarks" / "rocm-examples"

HIP_BASIC_TARGETS = ("hip_bit_extract", "hip_device_globals", "hip_device_query", "hip_dynamic_shared", "hip_events",
                     "hip_gpu_arch", "hip_hello_world", "hip_matrix_multiplication", "hip_module_api",
                     "hip_module_api_module", "hip_moving_average", "hip_multi_gpu_data_transfer", "hip_occupancy",
                     "hip_runtime_compilation", "hip_saxpy", "hip_shared_memory", "hip_streams",
                     "hip_texture_management", "hip_warp_shuffle")
# name -> (project folder (None: ours), compare arguments)
PROJECTS: dict[str, tuple[str | None, list[str]]] = {
    "hip_library": (None, ["--scaling", "1,2,4,8,16"]),
    "hip_basic": ("HIP-Basic", ["--archs", "gfx908,gfx90a,gfx942,gfx1100", "-D", "GPU_RUNTIME=HIP",
                                *(a for t in HIP_BASIC_TARGETS for a in ("--target", t))]),
    "prefix_sum": ("Applications/prefix_sum", ["--archs", "gfx908,gfx90a,gfx942,gfx1100", "-D", "GPU_RUNTIME=HIP"]),
    "reduction": ("Tutorials/reduction", ["--archs", "gfx908,gfx90a,gfx942,gfx1100", "-D", "GPU_RUNTIME=HIP",
                                          "-D", "REDUCTION_BUILD_EXAMPLES=OFF"]),  # the examples need TBB
}
HEADLINE = ("fatbin_ratio_native_over_spirv_compressed", "fatbin_ratio_native_over_spirv",
            "build_cpu_ratio_native_over_spirv", "build_cpu_ratio_spirv_over_native1",
            "build_wall_ratio_native_over_spirv", "jit_kernel_cpu_ms", "jit_kernel_cpu_p90_ms")


def _archive(git_dir: Path) -> tarfile.TarFile:
    proc = subprocess.run(["git", "--git-dir", str(git_dir), "archive", "--format=tar", COMMIT, *PATHS],
                          capture_output=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"error: {git_dir} does not hold {UPSTREAM}@{COMMIT[:12]}: "
                         f"{proc.stderr.decode(errors='replace').strip()}")
    return tarfile.open(fileobj=io.BytesIO(proc.stdout))


def _files(tar: tarfile.TarFile) -> dict[str, bytes]:
    out = {}
    for m in tar.getmembers():
        if m.isfile():
            f = tar.extractfile(m)
            assert f is not None
            out[m.name] = f.read()
    return out


def manifest(git_dir: Path) -> int:
    files = _files(_archive(git_dir))
    data = {"repo": UPSTREAM, "source": f"github:{UPSTREAM}", "commit": COMMIT, "paths": list(PATHS),
            "files": {p: hashlib.sha256(b).hexdigest() for p, b in sorted(files.items())}}
    write_atomic(MANIFEST, json.dumps(data, indent=1) + "\n")
    print(f"wrote {MANIFEST} ({len(files)} files)")
    return 0


def extract(git_dir: Path, dest: Path) -> Path:
    """The recorded tree under dest, every file checked against the manifest."""
    want = json.loads(MANIFEST.read_text())["files"]
    files = _files(_archive(git_dir))
    got = {p: hashlib.sha256(b).hexdigest() for p, b in files.items()}
    if got != want:
        bad = sorted(set(got) ^ set(want)) + sorted(p for p in set(got) & set(want) if got[p] != want[p])
        raise SystemExit(f"error: the tree differs from the manifest ({len(bad)} files, e.g. {bad[:3]})")
    for p, b in files.items():
        write_atomic(dest / p, b)
    print(f"extracted {len(files)} files of {UPSTREAM}@{COMMIT[:12]} to {dest}")
    return dest


def run(tree: Path, repeat: str, only: list[str], no_scaling: bool = False, samples: Path = HERE.parent / "samples"
        ) -> int:
    failed = 0
    # Projects run one by one or in parallel (--only): each run adds its rows to the summary.
    summary = RESULTS / "summary.json"
    rows: dict[str, Any] = json.loads(summary.read_text()) if summary.is_file() else {}
    for name, (folder, args) in PROJECTS.items():
        if only and name not in only:
            continue
        project = samples / "hip_library" if folder is None else tree / folder
        if no_scaling and "--scaling" in args:  # a shorter run: the break-even rests on 1 and 8 targets
            i = args.index("--scaling")
            args = args[:i] + args[i + 2:]
        out = RESULTS / name
        cmd = ["nice", "-n", "10", sys.executable, "-m", "rocm_spirv", "compare", str(project), "--repeat", repeat,
               *args, "--report", str(out), "--json"]
        print("$", " ".join(cmd), flush=True)
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode not in (0, 1) or not proc.stdout.strip():
            print(proc.stderr[-3000:], file=sys.stderr)
            failed += 1
            continue
        data = json.loads(proc.stdout)
        failed += proc.returncode != 0
        rows[name] = {"command": cmd[3:], "summary": {k: data["summary"].get(k) for k in HEADLINE},
                      "break_even": {b["key"]: b["text"] for b in data["break_even"]},
                      "load_average": data.get("load_average"), "cores": data["machine"].get("cores"),
                      "ok": proc.returncode == 0}
        latest = json.loads(summary.read_text()) if summary.is_file() else {}
        rows = {**latest, name: rows[name]}
        write_atomic(summary, json.dumps(rows, indent=1) + "\n")
    write_atomic(RESULTS / "summary.md", _markdown(rows))
    return 1 if failed else 0


def _markdown(rows: dict[str, Any]) -> str:
    lines = ["# compare at library scale", "",
             f"Upstream: {UPSTREAM}@{COMMIT[:12]} (manifest: benchmarks/data/compare_library_scale_manifest.json).",
             "Sizes are compressed first (what a library ships); CPU-time ratios hold on a loaded machine, wall "
             "times do not. JIT figures: offline proxy with upstream LLVM 22; the runtime's SPIR-V translation "
             "and loading are not included.", "",
             "| project | " + " | ".join(f"`{k}`" for k in HEADLINE) + " | load average (1 min) |",
             "| --- |" + " ---: |" * (len(HEADLINE) + 1)]
    for name, r in rows.items():
        la = r["load_average"]
        load = f"{la['median']:.1f} ({la['low']:.1f}-{la['high']:.1f}) on {r['cores']} cores" if la else "-"
        vals = ["-" if r["summary"][k] is None else f"{r['summary'][k]:.2f}" for k in HEADLINE]
        lines.append(f"| {name} | " + " | ".join(vals) + f" | {load} |")
    lines += ["", "Commands (`rocm-spirv compare` options; every run 1 repeat unless it says otherwise):", ""]
    for name, r in rows.items():
        lines.append(f"- {name}: `{' '.join(a for a in r['command'] if not a.startswith('/'))}`"
                     + ("" if r.get("ok", True) else " (a variant failed: see its report.md)"))
    lines += ["", "Break-even (SPIR-V costs less than a per-arch build of):", ""]
    for name, r in rows.items():
        lines.append(f"- {name}: " + "; ".join(f"{k} {v}" for k, v in r["break_even"].items()))
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("extract", "manifest", "run"):
        p = sub.add_parser(name)
        p.add_argument("--git-dir", type=Path, default=Path("/work/.mirror/ROCm+rocm-examples/repo"))
        p.add_argument("--dest", type=Path, default=DEFAULT_DEST)
        if name == "run":
            p.add_argument("--repeat", default="3")
            p.add_argument("--only", nargs="*", default=[])
            p.add_argument("--no-scaling", action="store_true", help="drop --scaling (a shorter run)")
            p.add_argument("--samples", type=Path, default=HERE.parent / "samples",
                           help="where samples/hip_library is (a copy: compare locks a project per path)")
    a = ap.parse_args()
    if a.cmd == "manifest":
        return manifest(a.git_dir)
    if a.cmd == "extract":
        extract(a.git_dir, a.dest)
        return 0
    return run(extract(a.git_dir, a.dest), a.repeat, a.only, a.no_scaling, a.samples)


if __name__ == "__main__":
    sys.exit(main())
