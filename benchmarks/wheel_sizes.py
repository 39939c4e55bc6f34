"""Wheel size and wheel build time of samples/python_ext: 8 native targets vs SPIR-V, plain and
--offload-compress, for the default sample (88 kernels with hip_runtime.h, the ROCm 7 device
libraries linked into native code: 54 small ones and 34 library-scale ones) and for its small
kernels alone (SPIRV_DEMO_LIBRARY_KERNELS=OFF). Each wheel is built the way a user builds it:
`pip wheel` in an isolated build environment, offline from a local wheelhouse (filled once, see
tests/wheelhouse.py), with no settings but the mode's.

Writes benchmarks/results/wheel_sizes.{json,md}. Target (issue 7): SPIR-V wheel <= 1/3 of the
8-target native wheel, uncompressed (no --offload-compress). Exit status 1 when the default
sample misses it; the small-kernels figure is reported beside it, met or not.

    PYTHONPATH=plugin:tests python benchmarks/wheel_sizes.py [--prefix TOOLCHAIN] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
import zipfile
import zlib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
# This folder stays off sys.path: only plugin/ and tests/ are imported from.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path[:0] = [str(REPO / "plugin"), str(REPO / "tests")]

from rocm_spirv.fsutil import write_atomic  # noqa: E402
from rocm_spirv.inspect.bundle import find_bundles  # noqa: E402
from rocm_spirv.inspect.elf import read_host_elf  # noqa: E402
from rocm_spirv.inspect.scan import inspect_path  # noqa: E402
from wheelhouse import build_wheel, fill  # noqa: E402

NATIVE8 = "gfx908;gfx90a;gfx942;gfx1030;gfx1100;gfx1101;gfx1200;gfx1201"
_NATIVE = ["cmake.define.ROCM_SPIRV_OFFLOAD=native", f"cmake.define.CMAKE_HIP_ARCHITECTURES={NATIVE8}"]
_SPIRV = ["cmake.define.ROCM_SPIRV_OFFLOAD=spirv"]
_COMPRESS = ["cmake.define.CMAKE_HIP_FLAGS=--offload-compress"]
_SMALL = ["cmake.define.SPIRV_DEMO_LIBRARY_KERNELS=OFF"]
VARIANTS = {
    "native8": _NATIVE,
    "spirv": _SPIRV,
    "native8-compressed": [*_NATIVE, *_COMPRESS],
    "spirv-compressed": [*_SPIRV, *_COMPRESS],
    "native8-small": [*_NATIVE, *_SMALL],
    "spirv-small": [*_SPIRV, *_SMALL],
    "native8-small-compressed": [*_NATIVE, *_SMALL, *_COMPRESS],
    "spirv-small-compressed": [*_SPIRV, *_SMALL, *_COMPRESS],
}
SAMPLES = {"default": "", "small": "-small"}
TARGET_RATIO = 1 / 3


def entry_sizes(so: bytes) -> list[dict[str, Any]]:
    """Each device entry of the shared object's .hip_fatbin: bytes, and bytes after deflate (level 6,
    what the wheel's zip does to them; for a CCOB bundle, of the decompressed entry)."""
    elf = read_host_elf(so, "shared object")
    sec = elf.section(".hip_fatbin")
    if sec is None:
        return []
    out = []
    for b in find_bundles(so, sec.offset, sec.offset + sec.size):
        for e in b.entries:
            if e.size and not e.id.startswith("host-"):
                payload = bytes(b.data[e.offset:e.offset + e.size])
                out.append({"id": e.id, "bytes": e.size, "deflated_bytes": len(zlib.compress(payload, 6))})
    return out


def measure(wheel: Path) -> dict[str, Any]:
    with zipfile.ZipFile(wheel) as z:
        sos = [i for i in z.infolist() if ".so" in Path(i.filename).name]
        so_bytes = sum(i.file_size for i in sos)
        so_zipped = sum(i.compress_size for i in sos)
        per_entry = [e for i in sos for e in entry_sizes(z.read(i))]
    report = inspect_path(wheel)
    entries = [e for f in report.files for e in f.device_entries]
    stored = sum(b.stored_size for f in report.files for b in f.bundles)
    return {
        "wheel": wheel.name,
        "wheel_bytes": wheel.stat().st_size,
        "shared_object_bytes": so_bytes,
        "shared_object_zipped_bytes": so_zipped,
        "device_entries": sorted(e.target for e in entries),
        "device_bytes": sum(e.size for e in entries),
        "bundle_stored_bytes": stored,
        "entries": per_entry,
        "device_deflated_bytes": sum(e["deflated_bytes"] for e in per_entry),
        "containers": sorted({e.container for e in entries}),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prefix", type=Path, default=Path.home() / ".local/share/rocm-spirv/toolchain",
                    help="provisioned toolchain prefix")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, default=HERE / "results")
    args = ap.parse_args()
    clang = args.prefix / "bin" / "clang++"
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="wheel-sizes-") as tmp:
        wh = Path(tmp) / "wheelhouse"
        fill(REPO, wh)
        for name, settings in VARIANTS.items():
            times, m = [], {}
            for i in range(args.repeat):
                out = Path(tmp) / f"{name}-{i}"
                t0 = time.perf_counter()
                # A plain `pip wheel` with the knobs; rocm-spirv's provider supplies the toolchain.
                whl = build_wheel(REPO / "samples" / "python_ext", out, wh, settings,
                                  {"ROCM_SPIRV_COMPILER": str(clang)})
                times.append(time.perf_counter() - t0)
                m = measure(whl)
            results[name] = {**m, "build_seconds": times, "build_seconds_median": statistics.median(times)}
            print(f"{name}: {m['wheel_bytes']} B wheel, {statistics.median(times):.1f} s", file=sys.stderr)
    def over(key: str, suffix: str, compressed: bool = False) -> float:
        c = "-compressed" if compressed else ""
        return float(results[f"spirv{suffix}{c}"][key] / results[f"native8{suffix}{c}"][key])

    ratios = {name: {"wheel": over("wheel_bytes", sfx),
                     "wheel_compressed": over("wheel_bytes", sfx, True),
                     "installed_so": over("shared_object_bytes", sfx),
                     "installed_so_compressed": over("shared_object_bytes", sfx, True),
                     "device_code": over("bundle_stored_bytes", sfx),
                     "device_code_deflated": over("device_deflated_bytes", sfx)}
              for name, sfx in SAMPLES.items()}
    ratio = ratios["default"]["wheel"]
    ratio_c = ratios["default"]["wheel_compressed"]
    installed = ratios["default"]["installed_so"]
    doc = {
        "project": "samples/python_ext (C API module, hip_runtime.h, hip::host): default 88 kernels in one "
                   "translation unit (54 small, 34 library-scale from src/library_kernels.inc); "
                   "small = SPIRV_DEMO_LIBRARY_KERNELS=OFF, the 54 small kernels alone",
        "how": "pip wheel, isolated build environment, offline wheelhouse; time includes the environment setup",
        "machine": {"cpus": len(__import__("os").sched_getaffinity(0)), "python": platform.python_version(),
                    "platform": platform.platform()},
        "compiler": str(clang),
        "repeat": args.repeat,
        "variants": results,
        "wheel_ratio_spirv_over_native8": ratio,
        "wheel_ratio_spirv_over_native8_compressed": ratio_c,
        "installed_so_ratio_spirv_over_native8": installed,
        "ratios_spirv_over_native8": ratios,
        "target": {"wheel_ratio_spirv_over_native8": f"<= {TARGET_RATIO:.3f}", "met": ratio <= TARGET_RATIO,
                   "met_with_small_kernels_alone": ratios["small"]["wheel"] <= TARGET_RATIO},
    }
    args.out.mkdir(parents=True, exist_ok=True)
    write_atomic(args.out / "wheel_sizes.json", json.dumps(doc, indent=2) + "\n")
    rows = ["| variant | wheel | .so (unzipped) | .so in the zip | device code | device code deflated "
            "| device entries | build (median) |",
            "| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |"]
    for name, r in results.items():
        n = len(r["device_entries"])
        ents = f"{n} x amdgcnspirv" if all(t == "amdgcnspirv" for t in r["device_entries"]) else f"{n} gfx"
        rows.append(f"| {name} | {r['wheel_bytes']:,} B | {r['shared_object_bytes']:,} B | "
                    f"{r['shared_object_zipped_bytes']:,} B | {r['bundle_stored_bytes']:,} B | "
                    f"{r['device_deflated_bytes']:,} B | {ents} | {r['build_seconds_median']:.1f} s |")
    ratio_rows = ["| SPIR-V / native8 | default sample (88 kernels) | small kernels alone (54) |",
                  "| --- | ---: | ---: |"]
    for key, label in [("wheel", "wheel file, uncompressed bundles (the target)"),
                       ("wheel_compressed", "wheel file, --offload-compress"),
                       ("installed_so", "installed .so, uncompressed bundles"),
                       ("installed_so_compressed", "installed .so, --offload-compress"),
                       ("device_code", "device code (bundles)"),
                       ("device_code_deflated", "device code entries, deflated")]:
        ratio_rows.append(f"| {label} | {ratios['default'][key]:.3f} | {ratios['small'][key]:.3f} |")
    per_entry = ["| variant | entry | bytes | deflated |", "| --- | --- | ---: | ---: |"]
    for name in ["native8", "spirv", "native8-small", "spirv-small"]:
        for e in results[name]["entries"]:
            per_entry.append(f"| {name} | {e['id']} | {e['bytes']:,} | {e['deflated_bytes']:,} |")

    def verdict(r: float) -> str:
        return "met" if r <= TARGET_RATIO else "NOT met"
    md = "\n".join([
        "# Wheel size and build time: 8 native targets vs SPIR-V",
        "",
        f"samples/python_ext built with `pip wheel` (isolated, offline wheelhouse), {args.repeat} builds each, "
        f"on {doc['machine']['cpus']} CPUs. Build time includes creating the isolated build environment. "
        "Device code is the stored size of the offload bundles.",
        "",
        *rows,
        "",
        *ratio_rows,
        "",
        f"- Target, SPIR-V wheel <= {TARGET_RATIO:.3f} of the 8-target wheel (uncompressed bundles): "
        f"default sample **{ratio:.3f}, {verdict(ratio)}**; small kernels alone "
        f"**{ratios['small']['wheel']:.3f}, {verdict(ratios['small']['wheel'])}**.",
        "",
        "Device entries (uncompressed variants); \"deflated\" is zlib level 6 of the entry alone, about what",
        "the wheel's zip makes of it:",
        "",
        *per_entry,
        "",
        "Why the wheel ratio is far from the installed one: a native code object is mostly AMDGPU metadata",
        "notes, symbol tables and zero padding, which deflate squeezes more than 10:1, while the SPIR-V",
        "module is unoptimised IR (clang emits amdgcnspirv with -disable-llvm-passes; the runtime's JIT",
        "optimises) in 32-bit words, which deflates about 4:1. One SPIR-V module of the small kernels",
        "alone is as large as one native code object. Library-style kernels, which -O3 unrolls into",
        "long straight-line ISA per architecture while the SPIR-V keeps the loops, move the ratio",
        "toward the installed one. Analysis and numbers: docs/wheels.md.",
        "",
    ])
    write_atomic(args.out / "wheel_sizes.md", md)
    print(md)
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
