"""The real-project matrix: unmodified upstream HIP projects built through generated toolchain files.

Each project of each manifest in data/ (AMD's HIP example collection: every HIP-Basic example, the
Applications and the reduction tutorial; AMD's HPC training examples: the HIP examples and the shallow-water
profiling series) is extracted from a git directory holding the recorded commit (upstream_trees.py, every
file's sha256 checked), then configured and built in a fresh folder per mode (spirv, native, hybrid) and
build type (`default`: the project's own, RelWithDebInfo for the HPC examples; `RelWithDebInfo`: device
debug info forced) with `rocm-spirv toolchain generate --offload MODE [--native-archs …]`, under `nice`,
at most 2 jobs. Every ELF file the build writes outside CMakeFiles/ is inspected; each that carries device
code goes through `rocm-spirv inspect --require <mode> --validate --json`. A run that fails is classified
by the first rule of FAILURE_RULES whose pattern matches its log: caused by this tool, a missing
dependency, a project bug, CUDA-only, or GCN assembly; the matching line is kept as evidence.

    PYTHONPATH=plugin:tests .venv/bin/python benchmarks/real_projects.py \
        --git-dir ROCm/rocm-examples=PATH --git-dir amd/HPCTrainingExamples=PATH [--only GLOB…] \
        [--modes spirv,native,hybrid] [--build-types default,RelWithDebInfo] [--label before]

Writes results/real_projects[_LABEL].{json,md} with the command, wall and CPU time of every step, the
commit of each upstream, and projects not run (no git directory, or left out by --only) listed as such.
Exit 1 when a SPIR-V module that built fails spirv-val or a binary misses its mode's entries, 2 on bad input.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import platform
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

from rocm_spirv.fsutil import write_atomic
from upstream_trees import Manifest, Mismatch, Project, extract, load

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
# Upstream-tree manifests (upstream_trees.py); other *_manifest.json files in data/ pin other things.
MANIFESTS = sorted(p for p in (HERE / "data").glob("*_manifest.json") if "projects" in json.loads(p.read_text()))
MODES = ("spirv", "native", "hybrid")
NATIVE_ARCHS = "gfx942"
STEP_TIMEOUT = 1800

Category = Literal["tool", "missing-dependency", "project-bug", "cuda-only", "gcn-asm", "per-arch", "no-cmake",
                   "unclassified"]
# Every category with its column title, in table order: the summary and the Markdown table iterate it.
CATEGORIES: tuple[tuple[Category, str], ...] = (
    ("tool", "tool"), ("missing-dependency", "missing dep."), ("project-bug", "project bug"),
    ("cuda-only", "CUDA-only"), ("gcn-asm", "GCN asm"), ("per-arch", "per-arch by construction"),
    ("no-cmake", "Makefile only"), ("unclassified", "unclassified"))
PER_ARCH = ("the project builds device code per GPU itself (per-GPU assembly, IR or objects named after the GPU): "
            "no toolchain file reaches it; migrate reports its loop (RSM107)")
# host-only: built, and no binary carries device code (a device query, a host library): not a failure.
Status = Literal["ok", "invalid-spirv", "require-failed", "configure-failed", "build-failed", "host-only",
                 "timeout"]


@dataclass(frozen=True)
class Rule:
    category: Category
    reason: str
    pattern: re.Pattern[str]


def _r(category: Category, reason: str, pattern: str) -> Rule:
    return Rule(category, reason, re.compile(pattern, re.MULTILINE))


# First match wins: the tool's own failures first, so a missing library never hides one of ours.
FAILURE_RULES: tuple[Rule, ...] = (
    _r("no-cmake", "the project folder has no CMakeLists.txt (a Makefile-only example; the matrix builds "
       "through CMake toolchain files)", r"^.*does not appear to contain CMakeLists\.txt.*$"),
    _r("tool", "spirv-val rejects device debug info (DebugCompilationUnit)", r"DebugCompilationUnit.*$"),
    _r("tool", "spirv-val rejects a module clang 22 wrote", r"spirv-val: .*$"),
    # The wrappers' build-time check names the spirv-val release that rejected the module.
    _r("tool", "spirv-val rejects a module clang 22 wrote", r"^.*spirv-val \d+\.\d+ rejects.*$"),
    _r("tool", "the wrapper's one-step compile+link misses -fvisibility=default",
       r"Unknown function .*@__o[cc]kl\w*.*$"),
    _r("tool", "the prefix lacks ROCm's llvm/bin tools or hipconfig",
       r"^.*(llvm/bin/(llvm-mc|llvm-dis|clang-offload-bundler|clang\+\+)|hipconfig)"
       r".*(not found|NOTFOUND|No such file).*$"),
    _r("tool", "the prefix lacks ROCm's llvm/bin tools or hipconfig",
       r"^.*(Skipped|skipping).*(llvm-mc|clang-offload-bundler|llvm-dis|hipconfig).*$"),
    _r("tool", "the prefix lacks ROCm's llvm/bin tools or hipconfig",
       r"^.*Could not find \w+ using the following names:\s*(llvm-mc|clang-offload-bundler|llvm-dis|hipconfig)"),
    _r("tool", "rocm-cmake >= 0.11 is missing (ROCMConfig, rocm_check_target_ids)",
       r"^.*(provided by \"ROCM\"|ROCMConfig\.cmake|rocm_check_target_ids).*$"),
    # An object the project names after one GPU (main_gfx942.o from main_gfx942.ll) cannot hold SPIR-V.
    _r("per-arch", PER_ARCH, r"^require \S+: \S*gfx[0-9a-z]+\S*\.o:\s+no SPIR-V entry.*$"),
    _r("tool", "a binary's device entries do not match its mode (--require)", r"^require .*$"),
    _r("cuda-only", "the project is CUDA source (HIP's NVIDIA headers)", r"^.*nvidia_detail.*error.*$"),
    _r("gcn-asm", "GCN inline assembly: the SPIR-V backend cannot translate the asm call",
       r"^.*error in backend: unable to translate instruction: call.*$"),
    _r("cuda-only", "the project is CUDA source", r"^.*(\.cu\b.*(error|unknown)|CUDA.*(required|only)).*$"),
    _r("gcn-asm", "GCN inline assembly does not assemble for SPIR-V",
       r"^.*(invalid (instruction|operand)|unknown (instruction|register)|inline asm|instruction not supported).*$"),
    _r("missing-dependency", "a HIP header the registry HIP headers (PyPI triton's ROCm 7.1 subset) lack",
       r"^.*error: \"hip/\S+ is not in the rocm-spirv prefix's.*$"),
    _r("missing-dependency", "a package CMake cannot find",
       r"^.*(Could not find a package configuration file provided by \"\w+\"|Could NOT find \w+"
       r"|No package '[^']+' found).*$"),
    _r("missing-dependency", "a header no registry installed here",
       r"^.*fatal error: '(roctracer|roctx|rocprofiler|hipcub|rocprim|hipblas|rocblas|GLFW|vulkan|glad|benchmark"
       r"|gtest|tbb|oneapi|mpi)[^']*' file not found.*$"),
    _r("missing-dependency", "a library the linker cannot find", r"^.*cannot find -l\w+.*$"),
    _r("missing-dependency", "a program the build needs",
       r"^.*(hipify-perl|hipify-clang|hipcc)\b.*(not found|No such).*$"),
    _r("per-arch", PER_ARCH, r"^.*(invalid target ID 'amdgcnspirv'|_amdgcnspirv\.(s|ll|bc)', needed by).*$"),
    _r("missing-dependency", "a dependency FetchContent downloads (this build is offline)",
       r"^.*(Could not resolve host|Failed to connect to).*$"),
    _r("missing-dependency", "a source the build expects another tool to generate (hipify) is absent",
       r"^.*Cannot find source file:(\s*\S+)?.*$"),
    _r("project-bug", "the project's bundler call names a host triple without its environment "
       "(x86_64-unknown-linux): clang-offload-bundler rejects it since LLVM 17, ROCm's too",
       r"^.*clang-offload-bundler: error: Targets need to follow the format.*$"),
    _r("project-bug", "the project's code does not compile against ROCm 7 headers", r"^.*\berror: .*$"),
)


@dataclass
class Step:
    argv: list[str]
    returncode: int | None  # None: timed out
    wall_s: float
    cpu_s: float  # user + system time of the step's processes


@dataclass
class Binary:
    path: str  # relative to the build folder
    entries: list[str]
    spirv: int
    invalid: list[str]  # entry id: spirv-val message
    require_met: bool


@dataclass
class Run:
    manifest: str
    project: str
    group: str
    mode: str
    build_type: str
    status: Status
    steps: list[Step] = field(default_factory=list)
    binaries: list[Binary] = field(default_factory=list)
    category: Category | None = None
    reason: str = ""
    evidence: str = ""

    @property
    def wall_s(self) -> float:
        return sum(s.wall_s for s in self.steps)

    @property
    def cpu_s(self) -> float:
        return sum(s.cpu_s for s in self.steps)


def run_step(argv: list[str], log: Path, cwd: Path | None = None) -> Step:
    """One subprocess, output to log; CPU time from the children's rusage (steps run one at a time)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    env = {**os.environ, "CMAKE_BUILD_PARALLEL_LEVEL": "2"}
    with log.open("a") as out:
        out.write(f"$ {shlex.join(argv)}\n")
        out.flush()
        proc = subprocess.Popen(["nice", "-n", "10", *argv], stdout=out, stderr=subprocess.STDOUT, cwd=cwd, env=env,
                                start_new_session=True)
        try:
            rc: int | None = proc.wait(timeout=STEP_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            rc = None
        except BaseException:
            # Interrupted or terminated: the step goes with us. SIGTERM first: ninja runs each command in a
            # process group of its own and stops them itself on SIGTERM, which a SIGKILL to its group would not.
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
            raise
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Step(argv, rc, round(time.monotonic() - start, 2), round(cpu, 2))


def elf_outputs(build: Path) -> list[Path]:
    """ELF files the build wrote outside CMakeFiles/ (executables, libraries, archives' members are inside)."""
    out = []
    for p in sorted(build.rglob("*")):
        if "CMakeFiles" in p.parts or not p.is_file() or p.is_symlink():
            continue
        with p.open("rb") as f:
            head = f.read(8)
        if head[:4] == b"\x7fELF" or (head == b"!<arch>\n" and p.suffix == ".a"):
            out.append(p)
    return out


def require_spec(mode: str) -> str:
    return {"spirv": "spirv-only", "native": f"native:{NATIVE_ARCHS}", "hybrid": f"hybrid:{NATIVE_ARCHS}"}[mode]


def inspect_binaries(cli: list[str], build: Path, mode: str, log: Path, steps: list[Step]) -> list[Binary]:
    found = []
    for p in elf_outputs(build):
        probe = subprocess.run([*cli, "inspect", "--json", str(p)], capture_output=True, text=True, check=False)
        if probe.returncode != 0:
            continue
        data = json.loads(probe.stdout)
        if not any(e["kind"] != "host" for i in data["inputs"] for f in i["files"] for e in f["entries"]):
            continue
        argv = [*cli, "inspect", "--json", "--validate", "--require", require_spec(mode), str(p)]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.monotonic()
        proc = subprocess.run(["nice", "-n", "10", *argv], capture_output=True, text=True, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        steps.append(Step(argv, proc.returncode, round(time.monotonic() - start, 2),
                          round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 2)))
        try:
            data = json.loads(proc.stdout)
        except json.JSONDecodeError:
            data = {"inputs": [], "requirement": {"met": False, "failures": [{"reason": proc.stderr.strip()}]}}
        entries = [e for i in data["inputs"] for f in i["files"] for e in f["entries"] if e["kind"] != "host"]
        invalid = [f"{e['id']}: {e['validation']['message']}" for e in entries
                   if e.get("validation") and not e["validation"]["ok"]]
        req = data.get("requirement", {})
        with log.open("a") as out:
            out.write(f"$ {shlex.join(argv)} -> exit {proc.returncode}\n")
            out.writelines(f"spirv-val: {p.relative_to(build)}: {x}\n" for x in invalid)
            out.writelines(f"require {require_spec(mode)}: {p.relative_to(build)}: {f.get('entry', '')} {f['reason']}\n"
                           for f in req.get("failures", []))
        found.append(Binary(str(p.relative_to(build)), sorted({e["id"] for e in entries}),
                            sum(e["kind"] == "spirv" for e in entries), invalid, bool(req.get("met", False))))
    return found


def classify(run: Run, text: str) -> None:
    for rule in FAILURE_RULES:
        m = rule.pattern.search(text)
        if m:
            evidence = " ".join(m.group(0).split())  # a CMake message wraps its names onto the next line
            run.category, run.reason, run.evidence = rule.category, rule.reason, evidence[:400]
            return
    run.category, run.reason = "unclassified", "no rule matches the log"


def build_one(cli: list[str], tc: Path, src: Path, build: Path, mf: Manifest, proj: Project, mode: str,
              build_type: str) -> Run:
    run = Run(mf.name, proj.name, proj.group, mode, build_type, "ok")
    if build.exists():
        shutil.rmtree(build)
    build.mkdir(parents=True)
    log = build.parent / f"{build.name}.log"
    log.unlink(missing_ok=True)
    cfg = ["cmake", "-S", str(src / proj.path), "-B", str(build), "-G", "Ninja", f"-DCMAKE_TOOLCHAIN_FILE={tc}"]
    if build_type != "default":
        cfg.append(f"-DCMAKE_BUILD_TYPE={build_type}")
    run.steps.append(run_step(cfg, log))
    if run.steps[-1].returncode != 0:
        run.status = "timeout" if run.steps[-1].returncode is None else "configure-failed"
    else:
        run.steps.append(run_step(["cmake", "--build", str(build), "-j2", "--", "-k", "0"], log))
        if run.steps[-1].returncode != 0:
            run.status = "timeout" if run.steps[-1].returncode is None else "build-failed"
    # What did build is inspected even after a failure elsewhere in the project (-k 0 keeps going).
    run.binaries = inspect_binaries(cli, build, mode, log, run.steps)
    if any(b.invalid for b in run.binaries):
        run.status = "invalid-spirv"
    elif any(not b.require_met for b in run.binaries):
        run.status = "require-failed"
    elif run.status == "ok" and not run.binaries:
        run.status = "host-only"
    if run.status not in ("ok", "host-only"):
        classify(run, log.read_text(errors="replace"))
    return run


def summary(runs: list[Run], modes: list[str], build_types: list[str]) -> dict[str, object]:
    out: dict[str, object] = {}
    for bt in build_types:
        for mode in modes:
            sel = [r for r in runs if r.mode == mode and r.build_type == bt]
            spirv_bins = [b for r in sel for b in r.binaries if b.spirv]
            out[f"{mode}/{bt}"] = {
                "runs": len(sel),
                "built": sum(r.status in ("ok", "host-only", "invalid-spirv", "require-failed") for r in sel),
                "ok": sum(r.status == "ok" for r in sel),
                "host_only": sum(r.status == "host-only" for r in sel),
                "binaries": sum(len(r.binaries) for r in sel),
                "spirv_binaries": len(spirv_bins),
                "spirv_binaries_invalid": sum(bool(b.invalid) for b in spirv_bins),
                "require_failed": sum(not b.require_met for r in sel for b in r.binaries),
                "by_category": {c: sum(r.category == c for r in sel) for c, _ in CATEGORIES},
                "wall_s": round(sum(r.wall_s for r in sel), 1),
                "cpu_s": round(sum(r.cpu_s for r in sel), 1),
            }
    return out


def markdown(report: dict[str, object], runs: list[Run], not_run: list[dict[str, str]]) -> str:
    lines = ["# Real-project matrix", "", f"Command: `{report['command']}`", "",
             f"Run {report['started']} to {report['finished']} on {report['machine']}; "
             f"rocm-spirv at {report['rocm_spirv_commit']}; compiler {report['compiler']}; "
             f"spirv-val {report['spirv_val']}. Wall {report['wall_s']} s, CPU {report['cpu_s']} s "
             "(user + system of every step; the machine is shared, so wall time is noisy).", "",
             "| upstream | commit | projects |", "| --- | --- | --- |"]
    for u in report["upstreams"]:  # type: ignore[attr-defined]
        lines.append(f"| {u['repo']} | {u['commit']} | {u['projects']} |")
    lines += ["", "| mode / build type | runs | built | ok | host-only | binaries with device code | SPIR-V binaries | "
              "invalid SPIR-V | --require failed | " + " | ".join(t for _, t in CATEGORIES) + " | wall s | CPU s |",
              "| --- " * (12 + len(CATEGORIES)) + "|"]
    for key, s in report["summary"].items():  # type: ignore[attr-defined]
        c = s["by_category"]
        lines.append(f"| {key} | {s['runs']} | {s['built']} | {s['ok']} | {s.get('host_only', 0)} | {s['binaries']} | "
                     f"{s['spirv_binaries']} | "
                     f"{s['spirv_binaries_invalid']} | {s['require_failed']} | "
                     + " | ".join(str(c.get(k, 0)) for k, _ in CATEGORIES) + f" | {s['wall_s']} | {s['cpu_s']} |")
    lines += ["", "`built`: the build wrote its binaries (a run that built but failed `--validate` or `--require` "
              "counts as built, not ok); `host-only`: built, no binary carries device code. "
              "A failure's category is the first rule in `FAILURE_RULES` "
              "(benchmarks/real_projects.py) whose pattern matches its log; the evidence is the matching line.",
              "", "## Every run that is not ok", "",
              "| project | mode | build type | status | category | reason | evidence |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in runs:
        if r.status not in ("ok", "host-only"):
            ev = r.evidence.replace("|", "\\|").replace("`", "'")
            lines.append(f"| {r.manifest}:{r.project} | {r.mode} | {r.build_type} | {r.status} | {r.category} | "
                         f"{r.reason} | `{ev}` |")
    lines += ["", "## Per project", "", "| project | " + " | ".join(report["columns"]) + " |",  # type: ignore
              "| --- " * (1 + len(report["columns"])) + "|"]  # type: ignore[arg-type]
    by: dict[str, dict[str, str]] = {}
    for r in runs:
        cell = r.status if r.status != "ok" else f"ok ({sum(len(b.entries) for b in r.binaries)} entries)"
        by.setdefault(f"{r.manifest}:{r.project}", {})[f"{r.mode}/{r.build_type}"] = cell
    for name, cells in by.items():
        lines.append(f"| {name} | " + " | ".join(cells.get(c, "") for c in report["columns"]) + " |")  # type: ignore
    if not_run:
        lines += ["", "## Not run", "", "| project | why |", "| --- | --- |"]
        lines += [f"| {n['project']} | {n['why']} |" for n in not_run]
    return "\n".join(lines) + "\n"


def tool_version(argv: list[str]) -> str:
    try:
        p = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=30)
    except OSError as err:
        return f"unavailable ({err})"
    return (p.stdout or p.stderr).strip().splitlines()[0] if (p.stdout or p.stderr).strip() else "unknown"


def reclassify(results: Path, work: Path) -> None:
    """Apply the current FAILURE_RULES to the logs of an earlier run (rules grow as logs are read)."""
    report = json.loads(results.read_text())
    runs = []
    for d in report["runs"]:
        d = {k: v for k, v in d.items() if k not in ("wall_s", "cpu_s")}
        run = Run(**{**d, "steps": [Step(**s) for s in d["steps"]], "binaries": [Binary(**b) for b in d["binaries"]]})
        if d["status"] == "no-gpu-binary":  # the earlier name of host-only
            run.status, run.category, run.reason, run.evidence = "host-only", None, "", ""
        if run.status not in ("ok", "host-only"):
            log = work / "build" / run.manifest / run.project / f"{run.mode}-{run.build_type}.log"
            classify(run, log.read_text(errors="replace"))
        runs.append(run)
    report["runs"] = [{**asdict(r), "wall_s": round(r.wall_s, 2), "cpu_s": round(r.cpu_s, 2)} for r in runs]
    report["summary"] = summary(runs, report["modes"], report["build_types"])
    write_atomic(results, json.dumps(report, indent=1) + "\n")
    write_atomic(results.with_suffix(".md"), markdown(report, runs, report["not_run"]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--git-dir", action="append", default=[], metavar="OWNER/NAME=PATH",
                    help="a git directory holding the manifest's commit (a bare clone is enough)")
    ap.add_argument("--manifest", action="append", type=Path, help="default: every data/*_manifest.json")
    ap.add_argument("--only", action="append", default=[], metavar="GLOB", help="project names (fnmatch)")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--build-types", default="default")
    ap.add_argument("--work", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "rocm-spirv-real-projects")
    ap.add_argument("--label", default="")
    ap.add_argument("--compiler", default="auto")
    ap.add_argument("--tool-commit", default="", help="rocm-spirv commit to record (default: git rev-parse HEAD)")
    ap.add_argument("--reclassify", type=Path, metavar="RESULTS_JSON",
                    help="only re-apply FAILURE_RULES to the logs under --work of an earlier run's results")
    a = ap.parse_args(argv)
    if a.reclassify:
        reclassify(a.reclassify, a.work)
        return 0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # unwinds, so the running step is stopped
    modes = [m for m in a.modes.split(",") if m]
    build_types = [b for b in a.build_types.split(",") if b]
    if not set(modes) <= set(MODES) or not modes:
        print(f"real_projects: --modes takes {','.join(MODES)}", file=sys.stderr)
        return 2
    git_dirs = dict(g.split("=", 1) for g in a.git_dir)
    cli = [sys.executable, "-m", "rocm_spirv"]
    a.work.mkdir(parents=True, exist_ok=True)
    tcs: dict[str, Path] = {}
    for mode in modes:
        tc = a.work / f"{mode}.cmake"
        gen = [*cli, "toolchain", "generate", "--offload", mode, "--compiler", a.compiler, "--output", str(tc),
               "--force"]
        if mode != "spirv":
            gen += ["--native-archs", NATIVE_ARCHS]
        subprocess.run(gen, check=True, capture_output=True)
        tcs[mode] = tc
    rev = a.tool_commit or subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                          capture_output=True, text=True, check=False).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "plugin", "cmake", "templates"],
                           capture_output=True, text=True, check=False).stdout.strip()
    doctor = subprocess.run([*cli, "doctor", "--json"], capture_output=True, text=True, check=False).stdout
    spirv_val = "unknown"
    compiler = a.compiler
    try:
        checks = {c["name"]: c["detail"] for c in json.loads(doctor)["checks"]}
        spirv_val = checks.get("spirv_val", spirv_val)
        compiler = checks.get("compiler", compiler)
    except (json.JSONDecodeError, KeyError, TypeError):
        pass
    if spirv_val.startswith("/"):
        spirv_val = f"{spirv_val} ({tool_version([spirv_val.split()[0], '--version'])})"
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    t0 = time.monotonic()
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    not_run: list[dict[str, str]] = []
    upstreams = []
    plan: list[tuple[int, Manifest, Path, Project]] = []  # (order, manifest, extracted tree, project)
    for mpath in a.manifest or MANIFESTS:
        mf = load(mpath)
        upstreams.append({"repo": mf.repo, "commit": mf.commit, "projects": len(mf.projects),
                          "manifest": str(mpath.relative_to(ROOT)) if mpath.is_relative_to(ROOT) else str(mpath)})
        # --only globs also give the order: projects matching the first glob run first.
        rank = {p.name: min((i for i, g in enumerate(a.only) if fnmatch.fnmatch(p.name, g)), default=-1)
                for p in mf.projects} if a.only else {p.name: 0 for p in mf.projects}
        chosen = [p for p in mf.projects if rank[p.name] >= 0]
        not_run += [{"project": f"{mf.name}:{p.name}", "why": "left out by --only"}
                    for p in mf.projects if rank[p.name] < 0]
        gd = git_dirs.get(mf.repo)
        if not chosen:
            continue
        if gd is None:
            not_run += [{"project": f"{mf.name}:{p.name}", "why": f"no --git-dir {mf.repo}=PATH"} for p in chosen]
            continue
        try:
            src = extract(mf, Path(gd), a.work / "src" / mf.name)
        except Mismatch as err:
            print(f"real_projects: {err}", file=sys.stderr)
            return 2
        plan += [(rank[p.name], mf, src, p) for p in chosen]
    plan.sort(key=lambda t: t[0])
    todo = [(mf, src, proj, bt, mode) for bt in build_types for _, mf, src, proj in plan for mode in modes]
    columns = [f"{m}/{bt}" for bt in build_types for m in modes]
    stem = "real_projects" + (f"_{a.label}" if a.label else "")
    runs: list[Run] = []

    def write_report(finished: bool) -> None:
        """Written after every run: a matrix stopped early still reports what ran and what did not."""
        cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        pending = [{"project": f"{mf.name}:{proj.name}", "why": f"{mode}/{bt} not yet run"}
                   for mf, _, proj, bt, mode in todo[len(runs):]]
        report: dict[str, object] = {
            "schema": "rocm-spirv.benchmark.real-projects/1",
            "command": shlex.join(["benchmarks/real_projects.py", *(argv if argv is not None else sys.argv[1:])]),
            "started": started,
            "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()) if finished else "not finished",
            "machine": f"{platform.node() or 'host'}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f} "
                       "at the last write",
            "rocm_spirv_commit": rev + (" (modified)" if dirty else ""),
            "compiler": compiler, "spirv_val": spirv_val,
            "native_archs": NATIVE_ARCHS, "modes": modes, "build_types": build_types, "columns": columns,
            "wall_s": round(time.monotonic() - t0, 1),
            "cpu_s": round((cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime), 1),
            "upstreams": upstreams,
            "summary": summary(runs, modes, build_types),
            "runs": [{**asdict(r), "wall_s": round(r.wall_s, 2), "cpu_s": round(r.cpu_s, 2)} for r in runs],
            "not_run": not_run + pending,
        }
        write_atomic(RESULTS / f"{stem}.json", json.dumps(report, indent=1) + "\n")
        write_atomic(RESULTS / f"{stem}.md", markdown(report, runs, not_run + pending))

    for mf, src, proj, bt, mode in todo:
        bdir = a.work / "build" / mf.name / proj.name / f"{mode}-{bt}"
        run = build_one(cli, tcs[mode], src, bdir, mf, proj, mode, bt)
        runs.append(run)
        print(f"{mf.name}:{proj.name} {mode}/{bt}: {run.status}"
              + (f" [{run.category}] {run.evidence[:160]}" if run.category else "")
              + f" ({run.wall_s:.1f} s wall, {run.cpu_s:.1f} s CPU)", flush=True)
        write_report(finished=False)
    write_report(finished=True)
    print(RESULTS / f"{stem}.md")
    bad = any(b.invalid or not b.require_met for r in runs for b in r.binaries)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
