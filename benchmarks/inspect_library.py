"""`rocm-spirv inspect` on a real ROCm library: Debian's librocsparse.so.0.1 (package librocsparse0,
1.3 GB, 111 offload bundles, 777 code objects), against `llvm-objcopy --dump-section` +
`clang-offload-bundler --list` on every bundle.

    PYTHONPATH=plugin:tests python benchmarks/inspect_library.py [--library PATH] [--repeat 3]

Targets: the default human view (a summary per kind and target) in <= 2 s wall and <= 120 MB peak
RSS, every entry found (the --json run counts them). Medians over the repeats; writes
benchmarks/results/inspect_library.{json,md}; exit status 1 when a target is missed.
"""

from __future__ import annotations

import os
import sys

# Its folder stays off sys.path (earlier scripts here shadowed stdlib modules).
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "plugin"), str(ROOT / "tests")]

from hostile import PEAK_KIB  # noqa: E402
from inspect_artifacts import bundler_listing  # noqa: E402
from rocm_spirv.fsutil import write_atomic  # noqa: E402

LIBRARY = Path("/usr/lib/x86_64-linux-gnu/librocsparse.so.0.1")
WALL_TARGET_S = 2.0
RSS_TARGET = 120 << 20


def run_inspect(lib: Path, *extra: str) -> tuple[float, int, str]:
    """Wall time of the whole command (interpreter start included), its peak RSS, its stdout."""
    code = ("import sys; from rocm_spirv.cli import main; "
            f"rc = main(['inspect', {str(lib)!r}, *{list(extra)!r}]); sys.stdout.flush(); "
            f"print({PEAK_KIB}, rc, file=sys.stderr)")
    env = {"PYTHONPATH": str(ROOT / "plugin"), "PATH": "/usr/bin:/bin"}
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - t
    maxrss_kb, rc = done.stderr.split()[-2:]
    if rc not in ("0", "1"):
        raise SystemExit(f"inspect failed: {done.stderr[-500:]}")
    return wall, int(maxrss_kb) * 1024, done.stdout


def reference(lib: Path, tmp: Path) -> tuple[float, int]:
    seconds, ids = bundler_listing(lib, tmp)
    return seconds, len([i for i in ids if not i.startswith("host-")])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--library", type=Path, default=LIBRARY)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = ap.parse_args()
    if not args.library.is_file():
        raise SystemExit(f"{args.library} is missing: apt-get install librocsparse0")
    runs: dict[str, list[tuple[float, int]]] = {"summary": [], "json": []}
    for _ in range(args.repeat):
        wall, rss, summary = run_inspect(args.library)
        runs["summary"].append((wall, rss))
        wall, rss, doc = run_inspect(args.library, "--json")
        runs["json"].append((wall, rss))
    data = json.loads(doc)
    entries = sum(1 for i in data["inputs"] for f in i["files"] for e in f["entries"] if e["kind"] != "host")
    with tempfile.TemporaryDirectory() as d:
        ref_s, ref_entries = reference(args.library, Path(d))
    med = {k: (statistics.median(w for w, _ in v), max(r for _, r in v)) for k, v in runs.items()}
    passed = med["summary"][0] <= WALL_TARGET_S and med["summary"][1] <= RSS_TARGET and entries == ref_entries
    result = {
        "library": str(args.library), "library_bytes": args.library.stat().st_size, "repeat": args.repeat,
        "machine": {"cpus": len(os.sched_getaffinity(0)), "python": platform.python_version()},
        "entries_inspect": entries, "entries_reference": ref_entries,
        "summary_wall_s": round(med["summary"][0], 3), "summary_peak_rss_bytes": med["summary"][1],
        "json_wall_s": round(med["json"][0], 3), "json_peak_rss_bytes": med["json"][1],
        "reference_s": round(ref_s, 3), "summary_lines": len(summary.splitlines()),
        "targets": {"summary_wall_s": f"<= {WALL_TARGET_S}", "summary_peak_rss_mb": f"<= {RSS_TARGET >> 20}",
                    "entries": "all the reference lists"},
        "passed": passed,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    write_atomic(args.out / "inspect_library.json", json.dumps(result, indent=2) + "\n")
    mb = 1 << 20
    md = "\n".join([
        "# inspect on a real ROCm library",
        "",
        f"`{args.library}` ({args.library.stat().st_size / mb:,.0f} MiB, Debian librocsparse0), "
        f"median of {args.repeat} runs each, whole command (interpreter start included), "
        f"{result['machine']['cpus']} CPUs.",
        "",
        "| what | wall | peak RSS | entries |",
        "| --- | ---: | ---: | ---: |",
        f"| `rocm-spirv inspect` (summary, {result['summary_lines']} lines) | {med['summary'][0]:.2f} s | "
        f"{med['summary'][1] / mb:.0f} MiB | {entries} |",
        f"| `rocm-spirv inspect --json` (every entry and kernel) | {med['json'][0]:.2f} s | "
        f"{med['json'][1] / mb:.0f} MiB | {entries} |",
        f"| `llvm-objcopy --dump-section` + `clang-offload-bundler --list` per bundle | {ref_s:.2f} s | - | "
        f"{ref_entries} |",
        "",
        f"Targets: summary <= {WALL_TARGET_S:.0f} s and <= {RSS_TARGET >> 20} MB, every entry found: "
        f"**{'met' if passed else 'NOT met'}**.",
        "",
    ])
    write_atomic(args.out / "inspect_library.md", md)
    print(md)
    return 0 if passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
