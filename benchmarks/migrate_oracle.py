"""Run `rocm-spirv migrate --configure` (the CMake and clang oracle) on real projects nobody here wrote.

Projects: AMD's HIP example collection (ROCm/rocm-examples: HIP-Basic, Applications, Tutorials, each
configured as the tree its CMakeLists.txt makes), and HIP CMake projects from pinned PyPI sdists. Per
project it records: HIP translation units, oracle findings, static findings, the overlap (constructs both
report), wall and CPU time and TUs per second, in results/migrate_oracle.{json,md}.

The collection is never committed: data/rocm_examples_oracle.json records the upstream commit and the
sha256 of every file used, and `extract` re-creates the tree from a clone (the search tool's `fetch`, or
`git clone https://github.com/ROCm/rocm-examples` and checkout of the commit), checking each file.

    PYTHONPATH=plugin python benchmarks/migrate_oracle.py manifest --repo CLONE      # write the manifest
    PYTHONPATH=plugin python benchmarks/migrate_oracle.py extract --repo CLONE --dest DIR
    PYTHONPATH=plugin python benchmarks/migrate_oracle.py run --repo CLONE [--only NAME]
    PYTHONPATH=plugin python benchmarks/migrate_oracle.py render                      # the .md from the .json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sdist_cache import Sdist, Unavailable, default_cache, fetch

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
MANIFEST = HERE / "data" / "rocm_examples_oracle.json"
UPSTREAM = "ROCm/rocm-examples"
PATHS = ("HIP-Basic", "Applications", "Tutorials", "Common")  # Common: the examples' shared headers
# The collection's categories, each one CMake tree (its CMakeLists.txt adds every example below it), with
# the options that let it configure here: hiprtc is not installed (runtime_compilation only links it, and
# the oracle never links: the link-only HIP runtime stands in), and the reduction tutorial's tests and
# benchmarks fetch googletest/benchmark from the network. Applications needs hipcub and hiprand (not
# installed): the tree is run as it is (its configure fails) and each other application on its own.
PREFIX = Path.home() / ".local/share/rocm-spirv/toolchain"
EXAMPLES: list[tuple[str, list[str]]] = [
    ("HIP-Basic", [f"-DHIPRTC_LIB={PREFIX / 'lib' / 'libamdhip64.so'}"]),
    ("Applications", []),
    *((f"Applications/{name}", []) for name in ("bitonic_sort", "convolution", "floyd_warshall", "histogram",
                                                 "prefix_sum")),
    ("Tutorials", ["-DREDUCTION_BUILD_TESTING=OFF", "-DREDUCTION_BUILD_BENCHMARKS=OFF"]),
]
SDISTS: list[dict[str, Any]] = [
    {"name": "llama.cpp (llama-cpp-python 0.3.36)", "root": "vendor/llama.cpp", "cmake_args": ["-DGGML_HIP=ON"],
     "sdist": Sdist("llama-cpp-python", "0.3.36", "llama_cpp_python-0.3.36.tar.gz",
                    "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e")},
    {"name": "whisper.cpp (pywhispercpp 1.5.1)", "root": "whisper.cpp", "cmake_args": ["-DGGML_HIP=ON"],
     "sdist": Sdist("pywhispercpp", "1.5.1", "pywhispercpp-1.5.1.tar.gz",
                    "5df897e5dd9d9f16804fc937bd85b9f5880a0b29a55f8843585e0e03d76195e5")},
]


def _git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True).stdout


def write_manifest(repo: Path) -> None:
    commit = _git(repo, "rev-parse", "HEAD").decode().strip()
    files = {}
    for line in _git(repo, "ls-tree", "-r", "-z", commit, "--", *PATHS).split(b"\0"):
        if not line:
            continue
        meta, path = line.split(b"\t", 1)
        if meta.split()[1] != b"blob":
            continue
        data = _git(repo, "cat-file", "blob", meta.split()[2].decode())
        files[path.decode()] = hashlib.sha256(data).hexdigest()
    MANIFEST.write_text(json.dumps({"upstream": UPSTREAM, "commit": commit, "paths": list(PATHS),
                                    "files": files}, indent=1, sort_keys=True) + "\n")
    print(f"{MANIFEST}: {len(files)} files at {commit}")


def extract(repo: Path, dest: Path) -> Path:
    """The manifest's files at its commit under dest, each checked against its sha256."""
    manifest = json.loads(MANIFEST.read_text())
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    # The blobs as committed (git archive would apply the tree's .gitattributes eol conversions).
    listing = _git(repo, "ls-tree", "-r", "-z", manifest["commit"], "--", *manifest["paths"]).split(b"\0")
    blobs = {}
    for line in listing:
        if line:
            meta, path = line.split(b"\t", 1)
            if meta.split()[1] == b"blob":
                blobs[path.decode()] = meta.split()[2].decode()
    batch = subprocess.run(["git", "-C", str(repo), "cat-file", "--batch"], input="\n".join(blobs.values()).encode()
                           + b"\n", capture_output=True, check=True).stdout
    pos = 0
    for rel in blobs:
        header_end = batch.index(b"\n", pos)
        size = int(batch[pos:header_end].split()[2])
        data = batch[header_end + 1:header_end + 1 + size]
        pos = header_end + 1 + size + 1
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    for rel, digest in manifest["files"].items():
        got = hashlib.sha256((dest / rel).read_bytes()).hexdigest()
        if got != digest:
            raise SystemExit(f"{rel}: sha256 {got} is not the manifest's {digest}")
    return dest


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def measure(name: str, root: Path, cmake_args: list[str], compiler: str) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "rocm_spirv", "migrate", str(root), "--configure", "--format", "json",
           "--compiler", compiler, "--", *cmake_args]
    cpu0, t0 = _children_cpu(), time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall, cpu = time.monotonic() - t0, _children_cpu() - cpu0
    if proc.returncode != 0 or not proc.stdout.strip():
        return {"name": name, "error": proc.stderr.strip().splitlines()[-1:] or ["no output"], "wall_s": wall}
    report = json.loads(proc.stdout)
    c = report["configure"]
    found = [f for f in report["findings"] if not f.get("handled")]
    by_source = {s: [f for f in found if f["source"] == s] for s in ("static", "configure", "both")}
    unreached = [f for f in by_source["configure"] + by_source["both"] if f["redirect"] not in
                 ("toolchain", "toolchain-force")]
    return {
        "name": name, "cmake_args": cmake_args, "configured": c["configured"], "failure": c["failure"],
        "tus": len(c["tus"]), "clean_tus": len(c["clean_tus"]), "broken_tus": len(c.get("broken_tus", [])),
        "oracle_findings": c["findings"], "oracle_unreached": len(unreached),
        "static_findings": len(by_source["static"]) + len(by_source["both"]),
        "overlap": len(by_source["both"]), "only_oracle": len(by_source["configure"]),
        "only_static": len(by_source["static"]),
        "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
        "tus_per_s": round(len(c["tus"]) / wall, 3) if wall else 0.0,
        "oracle": [f"{f['path']}:{f['line']} {f['rule']} {f['source']} {f['redirect']}: {f['message']}"
                   for f in by_source["configure"] + by_source["both"]],
    }


def markdown(rows: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    out = ["# migrate --configure on real projects", "",
           f"`{meta['command']}` on {meta['machine']}; rocm-examples at {meta['commit']}; "
           f"compiler {meta['compiler']}. Wall and CPU time are of the whole `migrate --configure` process "
           "(two configures, five device passes per TU, the static scan), 2 TUs at a time. The machine is "
           "shared: CPU time is the steadier figure.", "",
           "| project | TUs | compile clean | compile nowhere | oracle findings | of them unreached | static findings "
           "| overlap | only oracle | only static | wall s | CPU s | TUs/s |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            out.append(f"| {r['name']} | error: {' '.join(r['error'])} | | | | | | | | {r['wall_s']:.0f} | | |")
            continue
        out.append(f"| {r['name']} | {r['tus']} | {r['clean_tus']} | {r['broken_tus']} | {r['oracle_findings']} "
                   f"| {r['oracle_unreached']} "
                   f"| {r['static_findings']} | {r['overlap']} | {r['only_oracle']} | {r['only_static']} | "
                   f"{r['wall_s']} | {r['cpu_s']} | {r['tus_per_s']} |")
    out += ["", "Options configured (besides the two toolchain files):", ""]
    out += [f"- {r['name']}: `{' '.join(r.get('cmake_args') or []) or '(none)'}`" for r in rows if "error" not in r]
    for r in rows:
        if r.get("failure"):
            out += ["", f"**{r['name']}**: {r['failure']} (static findings only)"]
        if r.get("oracle"):
            out += ["", f"**{r['name']}**, oracle findings:", ""] + [f"- `{line}`" for line in r["oracle"]]
    return "\n".join(out) + "\n"


def run(repo: Path, only: str | None, compiler: str) -> None:
    manifest = json.loads(MANIFEST.read_text())
    rows = []
    with tempfile.TemporaryDirectory(prefix="migrate-oracle-bench-") as tmp:
        tree = extract(repo, Path(tmp) / "rocm-examples")
        for name, cmake_args in EXAMPLES:
            if only and only != name:
                continue
            print(f"{name} ...", file=sys.stderr, flush=True)
            rows.append(measure(f"rocm-examples/{name}", tree / name, cmake_args, compiler))
            write(rows, manifest, only, compiler)  # each project as it ends: a long run keeps what it measured
    for entry in SDISTS:
        if only and only not in entry["name"]:
            continue
        try:
            top = fetch(entry["sdist"], default_cache())
        except Unavailable as err:
            rows.append({"name": entry["name"], "error": [str(err)], "wall_s": 0.0})
            continue
        print(f"{entry['name']} ...", file=sys.stderr, flush=True)
        rows.append(measure(entry["name"], top / entry["root"], entry["cmake_args"], compiler))
    write(rows, manifest, only, compiler)


def write(rows: list[dict[str, Any]], manifest: dict[str, Any], only: str | None, compiler: str) -> None:
    meta = {"command": " ".join(["python", "benchmarks/migrate_oracle.py", "run", *sys.argv[2:]]),
            "machine": f"{platform.machine()} {platform.node()}, {len(__import__('os').sched_getaffinity(0))} cores",
            "commit": manifest["commit"], "compiler": compiler}
    RESULTS.mkdir(exist_ok=True)
    name = "migrate_oracle" if not only else f"migrate_oracle_{only.replace('/', '_').split()[0]}"
    (RESULTS / f"{name}.json").write_text(json.dumps({"meta": meta, "projects": rows}, indent=1) + "\n")
    (RESULTS / f"{name}.md").write_text(markdown(rows, meta))
    print(f"{len(rows)} project(s) written to {RESULTS / name}.{{json,md}}", file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="action", required=True)
    m = sub.add_parser("manifest")
    m.add_argument("--repo", type=Path, required=True)
    e = sub.add_parser("extract")
    e.add_argument("--repo", type=Path, required=True)
    e.add_argument("--dest", type=Path, required=True)
    md = sub.add_parser("render", help="rewrite results/migrate_oracle.md from results/migrate_oracle.json")
    md.add_argument("--name", default="migrate_oracle")
    r = sub.add_parser("run")
    r.add_argument("--repo", type=Path, required=True)
    r.add_argument("--only", help="one project: HIP-Basic, Applications, Tutorials, llama.cpp, whisper.cpp")
    r.add_argument("--compiler", default=str(Path.home() / ".local/share/rocm-spirv/toolchain/bin/clang++"))
    args = ap.parse_args()
    if args.action == "manifest":
        write_manifest(args.repo)
    elif args.action == "render":
        data = json.loads((RESULTS / f"{args.name}.json").read_text())
        (RESULTS / f"{args.name}.md").write_text(markdown(data["projects"], data["meta"]))
    elif args.action == "extract":
        print(extract(args.repo, args.dest))
    else:
        run(args.repo, args.only, args.compiler)


if __name__ == "__main__":
    main()
