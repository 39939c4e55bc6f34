"""The preprocessor as the labeller: how many of the arch-dependent `#if` regions clang sees does the static scan
report, on HIP files nobody labelled?

For a sample of standalone `.hip` files of public repositories (bare mirrors that the search tool's `fetch` put
under /work/.mirror; CI cannot fetch, so this is a benchmark, not a test), the oracle's translation-unit pass
(`migrate --configure`'s, rocm_spirv.migrate.oracle.run.Oracle) runs on a compile command made up here: `-x hip`,
C++17, the repository's include folders. It preprocesses each file device-only for amdgcnspirv and one native
target per family and reports every `#if` chain where some target takes another branch than SPIR-V (headers of
the repository included), then compiles it for amdgcnspirv (inline asm, builtins the JIT cannot take). A file
that does not compile for a native target either (a header this machine lacks) says nothing and is left out.

The static scan then runs on the whole repository, and each oracle finding counts as found when the scan
reports an RSM2xx finding on one of the chain's directives or of a chain enclosing it (code inside an arch
branch is that branch's construct), or on the line that defines a macro the chain tests (a macro derived from
arch macros is covered where it is derived), or, for a compile finding, on its line.

No person labels anything here, so no label can lean on the rules; but the truth covers only what a
preprocessor and one SPIR-V compile see (no build files, no wave-size constants that compile everywhere), the
compile command is a guess (a repository's own -D switches are absent), and most of these repositories are in
the blind corpus already (fixed against): this measures agreement with clang, not blind recall.

    PYTHONPATH=plugin python benchmarks/pp_differential.py [--mirrors DIR] [--per-repo N] [--limit N] [--jobs N]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import rocm_spirv
from rocm_spirv.fsutil import write_atomic
from rocm_spirv.migrate.oracle import device
from rocm_spirv.migrate.oracle.run import Oracle, TuResult
from rocm_spirv.migrate.scan import scan
from rocm_spirv.toolchain.choose import resolve
from rocm_spirv.toolchain.compile_db import Entry

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
SEED = 29  # the sample of files per repository is the same on every run
MAX_INCLUDE_DIRS = 24
DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)", re.MULTILINE)


def repositories(mirrors: Path) -> list[tuple[str, Path]]:
    return [(d.name.replace("+", "/", 1), d / "repo") for d in sorted(mirrors.iterdir())
            if (d / "repo" / "HEAD").is_file() and "+" in d.name]


def hip_files(git: Path) -> list[str]:
    out = subprocess.run(["git", "--git-dir", str(git), "ls-tree", "-r", "--name-only", "HEAD"],
                         capture_output=True, text=True, check=False).stdout.splitlines()
    return [p for p in out if p.endswith(".hip")]


MAX_FILE = 4 << 20  # larger files (data, generated tables) are left out: no HIP include is one


def extract(git: Path, dest: Path) -> str:
    """HEAD's files into dest, blob by blob: a snapshot may lack its largest blobs (then `git archive` stops
    half-way), and those are skipped here."""
    commit = subprocess.run(["git", "--git-dir", str(git), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    listing = subprocess.run(["git", "--git-dir", str(git), "ls-tree", "-r", "-l", "-z", commit],
                             capture_output=True, check=True).stdout.split(b"\0")
    wanted: list[tuple[str, str]] = []
    for row in listing:
        if not row:
            continue
        meta, _, name = row.partition(b"\t")
        mode, kind, blob, size = meta.split()
        if kind == b"blob" and mode != b"120000" and size.isdigit() and int(size) <= MAX_FILE:
            wanted.append((blob.decode(), name.decode(errors="replace")))
    proc = subprocess.Popen(["git", "--git-dir", str(git), "cat-file", "--batch"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    for sha, rel in wanted:
        proc.stdin.write(sha.encode() + b"\n")
        proc.stdin.flush()
        header = proc.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            continue
        data = proc.stdout.read(int(header[2]))
        proc.stdout.read(1)  # the newline after each object
        target = dest / rel
        if ".." in Path(rel).parts:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    proc.stdin.close()
    proc.wait()
    return commit


INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.MULTILINE)
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl", ".ipp", ".hip", ".cu", ".cpp", ".cc", ".tcc")


def header_index(root: Path) -> dict[str, list[Path]]:
    """Every file of the repository that could be included, by file name."""
    out: dict[str, list[Path]] = {}
    for p in root.rglob("*"):
        if p.suffix in HEADER_SUFFIXES and p.is_file():
            out.setdefault(p.name, []).append(p)
    return out


def include_dirs(root: Path, file: Path, index: dict[str, list[Path]]) -> list[str]:
    """The folders that make the file's includes (and theirs, transitively) resolve inside the repository:
    for `#include "a/b.h"`, the folder above every a/b.h of the repository (nearest to the file first). A
    guess at the project's -I list, which the build would have given."""
    dirs: list[Path] = [file.parent]
    seen: set[Path] = set()
    todo = [file]
    while todo and len(seen) < 400:
        cur = todo.pop()
        if cur in seen:
            continue
        seen.add(cur)
        try:
            text = cur.read_text(errors="replace")
        except OSError:
            continue
        for name in INCLUDE.findall(text):
            parts = Path(name).parts
            if ".." in parts:
                target = (cur.parent / name).resolve()
                if target.is_file():
                    todo.append(target)
                continue
            hits = [h for h in index.get(parts[-1], []) if h.parts[-len(parts):] == parts]
            hits.sort(key=lambda h: (-len(os.path.commonpath([str(h), str(cur)])), str(h)))
            for h in hits[:1]:
                base = h
                for _ in parts:
                    base = base.parent
                if base not in dirs:
                    dirs.append(base)
                todo.append(h)
    return [str(d) for d in dirs[:MAX_INCLUDE_DIRS]]


def covered(f: dict[str, Any], static: dict[str, set[int]], texts: dict[str, str]) -> str:
    """How the static scan covers one oracle finding: 'directive', 'enclosing', 'derived', 'line' or ''."""
    lines = static.get(f["path"], set())
    if f["kind"] == "compile":
        return "line" if f["line"] in lines else ""
    text = texts.get(f["path"], "")
    chain = next((c for c in device.chains(text) if c.start == f["line"]), None)
    if chain is None:
        return ""
    if any(b.line in lines for b in chain.branches):
        return "directive"
    parent = chain.parent
    while parent is not None:
        if any(b.line in lines for b in parent[0].branches):
            return "enclosing"
        parent = parent[0].parent
    names = set(device.macros(chain))
    for path, body in texts.items():
        hits = static.get(path, set())
        if not hits:
            continue
        for m in DEFINE.finditer(body):
            if m.group(1) not in names:
                continue
            no = body.count("\n", 0, m.start()) + 1
            if no in hits or any(c.start in hits and c.start < no < c.end for c in device.chains(body)):
                return "derived"
    return ""


def run_repo(name: str, git: Path, per_repo: int, jobs: int, compiler: Any) -> dict[str, Any]:
    files = hip_files(git)
    rng = random.Random(f"{SEED}:{name}")
    sample = sorted(rng.sample(files, min(per_repo, len(files))))
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="rocm-spirv-ppdiff-") as tmp:
        root = Path(tmp) / "src"
        root.mkdir()
        commit = extract(git, root)
        oracle = Oracle(root, [], compiler, jobs)
        results: list[TuResult] = []
        index = header_index(root)
        for i, rel in enumerate(sample):
            path = root / rel
            if not path.is_file():
                continue
            argv = (compiler.path, "-x", "hip", "-std=c++17", *(f"-I{d}" for d in include_dirs(root, path, index)),
                    "-c", str(path))
            results.append(oracle.translation_unit(Path(tmp), i, Entry(str(path), str(path.parent), argv, "")))
        regions: dict[tuple[str, int], device.Region] = {}
        findings: list[dict[str, Any]] = []
        for r in results:
            if r.broken:
                continue
            for g in r.regions:
                regions.setdefault((g.path, g.chain.start), g)
            for x in r.findings:
                if x.rule.id != "RSM208":
                    findings.append({"path": x.path, "line": x.line, "rule": x.rule.id, "kind": "compile",
                                     "message": x.message})
        for g in regions.values():
            x = device.region_finding(str(root), g, 1)
            findings.append({"path": x.path, "line": x.line, "rule": x.rule.id, "kind": "region",
                             "message": x.message, "snippet": x.snippet})
        findings = list({(f["path"], f["line"], f["kind"]): f for f in findings}.values())
        res = scan(root, []).result
        static = {}
        for rep in res.files:
            lines = {x.line for x in rep.findings if x.rule.id.startswith("RSM2")}
            if lines:
                static[rep.path] = lines
        texts: dict[str, str] = {}
        for p in {f["path"] for f in findings} | set(static):
            try:
                texts[p] = (root / p).read_text(errors="replace")
            except OSError:
                texts[p] = ""
        for f in findings:
            f["static"] = covered(f, static, texts)
    return {"repo": name, "commit": commit, "hip_files": len(files), "sampled": sample,
            "tus": len(results), "broken": sum(r.broken for r in results),
            "findings": sorted(findings, key=lambda f: (f["path"], f["line"])), "wall": time.monotonic() - start}


def markdown(doc: dict[str, Any]) -> str:
    rows = doc["repos"]
    found = [f for r in rows for f in r["findings"]]
    hit = [f for f in found if f["static"]]
    out = ["# The preprocessor as the labeller", "",
           f"`{doc['command']}` on {doc['host']}; rocm-spirv {doc['version']}; compiler {doc['compiler']}.", "",
           "Oracle findings (clang's device passes: arch-dependent `#if` chains, SPIR-V compile diagnostics) on a "
           "sample of `.hip` files per repository, and whether the static scan reports each. Not a blind "
           "measurement: most repositories are in the blind corpus (fixed against); the compile command is a "
           "guess (no project -D switches). A file that does not compile natively either is left out.", "",
           f"**{len(hit)} of {len(found)} oracle findings also reported statically "
           f"({100 * len(hit) / len(found) if found else 100:.1f} %)**, over "
           f"{sum(r['tus'] - r['broken'] for r in rows)} translation units that compile natively "
           f"({sum(r['broken'] for r in rows)} more do not), {len(rows)} repositories.", "",
           "| repository | commit | .hip files | sampled | compile natively | oracle findings | also static | wall s |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        n = len(r["findings"])
        s = sum(1 for f in r["findings"] if f["static"])
        out.append(f"| {r['repo']} | {r['commit'][:10]} | {r['hip_files']} | {r['tus']} | {r['tus'] - r['broken']} "
                   f"| {n} | {s} | {r['wall']:.1f} |")
    missed = [(r["repo"], f) for r in rows for f in r["findings"] if not f["static"]]
    out += ["", "## Oracle findings the static scan does not report", ""]
    out += [f"- {repo} `{f['path']}:{f['line']}` {f['rule']} ({f['kind']}): {f['message']}"
            + (f" `{f['snippet']}`" if f.get("snippet") else "") for repo, f in missed] or ["(none)"]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--per-repo", type=int, default=4)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=RESULTS / "pp_differential.json")
    args = ap.parse_args(argv)
    compiler = resolve(None, "spirv")
    repos = [(n, g) for n, g in repositories(args.mirrors) if hip_files(g)]
    if args.limit:
        repos = repos[:args.limit]
    rows = []
    for i, (name, git) in enumerate(repos, 1):
        print(f"[{i}/{len(repos)}] {name}", file=sys.stderr, flush=True)
        rows.append(run_repo(name, git, args.per_repo, args.jobs, compiler))
    doc = {"schema": "rocm-spirv/bench-pp-differential/1", "version": rocm_spirv.__version__,
           "command": "PYTHONPATH=plugin python benchmarks/pp_differential.py " + " ".join(argv or sys.argv[1:]),
           "host": f"{platform.node()}, {os.cpu_count()} CPUs", "compiler": compiler.path, "repos": rows}
    write_atomic(args.out, json.dumps(doc, indent=1) + "\n")
    write_atomic(args.out.with_suffix(".md"), markdown(doc))
    found = [f for r in rows for f in r["findings"]]
    print(f"{sum(1 for f in found if f['static'])} of {len(found)} oracle findings also static; "
          f"written to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    shutil.which("git") or sys.exit("git not found")
    sys.exit(main())
