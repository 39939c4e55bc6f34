"""Run the oracle: configure the project twice in scratch build trees (native and SPIR-V toolchain files,
under `cmake --trace-expand --trace-format=json-v1`), then preprocess and compile every HIP translation
unit of the native configure per target. The project's own tree is only read; every file the oracle makes
lives in one temporary folder, removed at the end."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rocm_spirv import children
from rocm_spirv.fsutil import read_regular, write_atomic
from rocm_spirv.generate.toolchain_file import ToolchainRequest, render
from rocm_spirv.migrate.findings import Finding, Redirect
from rocm_spirv.migrate.oracle import cmake_oracle, device
from rocm_spirv.migrate.oracle.trace import records
from rocm_spirv.migrate.registry import RULES
from rocm_spirv.migrate.source_rules import strip
from rocm_spirv.offload import DEVICE_DEBUG_ENV, SPIRV_TARGET, spirv_device_flags
from rocm_spirv.toolchain import compile_db, programs
from rocm_spirv.toolchain.probe import ProbeResult

CONFIGURE_TIMEOUT = 900.0
COMPILE_TIMEOUT = 600.0
MAX_TEXT = 4 << 20  # project files read for the report, as the static scan reads them
DEFINE = re.compile(r"^-D([A-Za-z_]\w*)(?:=(.*))?$")


@dataclass
class Outcome:
    """What the oracle found and what it ran."""

    configured: str  # the options, for the report: "-G Ninja -DFOO=1 (native gfx90a,…; spirv)"
    findings: list[Finding] = field(default_factory=list)
    failure: str = ""  # one line: why the configure failed (then there are no oracle findings)
    tus: list[str] = field(default_factory=list)  # HIP translation units (relative)
    clean: list[str] = field(default_factory=list)  # TUs that compile for amdgcnspirv without a diagnostic
    broken: list[str] = field(default_factory=list)  # TUs that do not compile natively either (with this toolchain)
    wall: float = 0.0
    cpu: float = 0.0


def _cpu() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run(argv: Sequence[str], cwd: str | None = None, timeout: float = COMPILE_TIMEOUT,
         tmp: Path | None = None) -> subprocess.CompletedProcess[str]:
    """One tool run; a failure to start, a timeout or an interrupt is an exit status, as a shell gives.
    tmp: the oracle's scratch folder, the tools' TMPDIR too, so what a killed compiler leaves goes with it."""
    env = {**os.environ, "LC_ALL": "C", **({"TMPDIR": str(tmp)} if tmp is not None else {})}
    try:
        return children.run(argv, cwd=cwd, timeout=timeout, errors="replace", env=env)
    except children.Stopping:
        return subprocess.CompletedProcess(list(argv), 130, "", "error: interrupted")
    except OSError as err:
        return subprocess.CompletedProcess(list(argv), 127, "", f"error: cannot run {argv[0]}: {err.strerror}")
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(list(argv), 124, "", f"error: timed out after {timeout:.0f} s")


def _pool_map(jobs: int, fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
    """map over a thread pool; an interrupt cancels what has not started and ends what runs."""
    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        return list(pool.map(fn, items))
    except BaseException:
        children.stop_all()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def configure_failure(which: str, proc: subprocess.CompletedProcess[str], root: Path) -> str:
    """One line naming why a configure failed: CMake's first error and the line after it."""
    lines = (proc.stderr + "\n" + proc.stdout).splitlines()
    for i, line in enumerate(lines):
        if line.startswith("CMake Error"):
            body: list[str] = []
            for w in lines[i + 1:i + 12]:
                if not w.strip():
                    if body:
                        break
                    continue
                body.append(w.strip())
            detail = " ".join(body)
            where = line.replace(str(root) + os.sep, "").rstrip(":")
            return f"the {which} configure failed: {where}: {detail}"
    tail = next((w.strip() for w in reversed(lines) if w.strip()), f"exit code {proc.returncode}")
    return f"the {which} configure failed: {tail}"


def _read(path: str) -> str | None:
    try:
        data = read_regular(Path(path), MAX_TEXT)
    except OSError:
        return None
    return None if data is None else data.decode("utf-8", errors="surrogateescape")


def defines(args: Sequence[str]) -> dict[str, str]:
    out = {}
    for a in args:
        m = DEFINE.match(a)
        if m:
            out[m.group(1)] = m.group(2) or "1"
    return out


def _commands(build: Path) -> list[compile_db.Entry]:
    try:
        return compile_db.read(build)
    except (OSError, ValueError):
        return []


@dataclass
class Configured:
    """An oracle run as the report shows it: what ran, and how its findings met the static scan's."""

    outcome: Outcome
    both: int  # oracle findings the static scan also reports
    only: int  # oracle findings the static scan misses

    def to_json(self) -> dict[str, Any]:
        o = self.outcome
        return {"configured": o.configured, "failure": o.failure or None, "tus": o.tus, "clean_tus": o.clean,
                "broken_tus": o.broken,
                "findings": len(o.findings), "also_static": self.both, "only_configure": self.only,
                "wall_s": round(o.wall, 2), "cpu_s": round(o.cpu, 2)}

    def line(self) -> str:
        o = self.outcome
        if o.failure:
            return f"configure: {o.failure}; static findings only"
        return (f"configure: {o.configured}: {len(o.tus)} HIP TU(s), {len(o.clean)} compile clean for "
                f"{SPIRV_TARGET}; {len(o.findings)} oracle finding(s), {self.both} also found by the static scan, "
                f"{self.only} only by the oracle; {o.wall:.1f} s")


@dataclass
class TuResult:
    file: str
    findings: list[Finding] = field(default_factory=list)
    regions: list[device.Region] = field(default_factory=list)
    clean: bool = False
    broken: bool = False  # it does not compile for a native target either: nothing to say about SPIR-V


class Oracle:
    def __init__(self, root: Path, cmake_args: Sequence[str], compiler: ProbeResult, jobs: int = 2,
                 targets: Sequence[str] = device.FAMILIES, say: Callable[[str], None] | None = None) -> None:
        self.root = root.resolve()
        self.rootstr = str(self.root)
        self.cmake_args = list(cmake_args)
        self.compiler = compiler
        self.jobs = max(1, jobs)
        self.targets = tuple(targets)
        self.say = say or (lambda _m: None)
        self.texts: dict[str, str | None] = {}
        self.tmp: Path | None = None  # the run's scratch folder

    def _tool(self, argv: Sequence[str], cwd: str | None = None,
              timeout: float = COMPILE_TIMEOUT) -> subprocess.CompletedProcess[str]:
        return _run(argv, cwd, timeout, self.tmp)

    def text(self, path: str) -> str | None:
        if path not in self.texts:
            self.texts[path] = _read(path)
        return self.texts[path]

    def mine(self, path: str) -> bool:
        return path.startswith(self.rootstr + os.sep)

    def run(self) -> Outcome:
        start, cpu0 = time.monotonic(), _cpu()
        configured = (f"cmake {shlex.join(self.cmake_args) or '(no options)'}, with the native toolchain file "
                      f"({','.join(self.targets)}) and the SPIR-V one ({SPIRV_TARGET})")
        out = Outcome(configured)
        children.resume()
        with tempfile.TemporaryDirectory(prefix="rocm-spirv-oracle-") as tmp:
            self.tmp = Path(tmp)
            self._run_in(self.tmp, out)
        out.wall, out.cpu = time.monotonic() - start, _cpu() - cpu0
        return out

    def _configure_cmd(self, build: Path, tc: Path, trace: Path) -> list[str]:
        return [programs.command("cmake"), "-S", self.rootstr, "-B", str(build), "-G", "Ninja",
                f"-DCMAKE_MAKE_PROGRAM={programs.command('ninja')}", f"-DCMAKE_TOOLCHAIN_FILE={tc}",
                "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", "-DCMAKE_HIP_PLATFORM=amd", *self.cmake_args,
                "--trace-expand", "--trace-format=json-v1", f"--trace-redirect={trace}"]

    def _run_in(self, tmp: Path, out: Outcome) -> None:
        files = {}
        for which, req in (("native", ToolchainRequest("native", self.targets)), ("spirv", ToolchainRequest("spirv"))):
            files[which] = tmp / f"{which}.toolchain.cmake"
            write_atomic(files[which], render(req, self.compiler).text)
        self.say("configuring twice (native and SPIR-V toolchain files) under cmake --trace-expand")
        procs = dict(zip(("native", "spirv"), _pool_map(
            min(2, self.jobs),
            lambda w: self._tool(self._configure_cmd(tmp / w, files[w], tmp / f"{w}.trace"), timeout=CONFIGURE_TIMEOUT),
            ("native", "spirv")), strict=True))
        for which in ("native", "spirv"):
            if procs[which].returncode != 0:
                out.failure = configure_failure("native" if which == "native" else "SPIR-V", procs[which], self.root)
                return
        traces = cmake_oracle.Traces(self.rootstr)
        for which in ("native", "spirv"):
            with open(tmp / f"{which}.trace", encoding="utf-8", errors="replace") as f:
                traces.add(which, records(f))
        native_cmds, spirv_cmds = _commands(tmp / "native"), _commands(tmp / "spirv")
        spirv_flags = " ".join(" ".join(e.argv) for e in spirv_cmds)
        out.findings += cmake_oracle.findings(traces, spirv_flags, self.text)
        self._devices(tmp, native_cmds, spirv_cmds, out)

    def _devices(self, tmp: Path, native: list[compile_db.Entry], spirv: list[compile_db.Entry],
                 out: Outcome) -> None:
        by_file = {e.file: e for e in spirv}
        tus = [(e.file, e) for e in native if self.mine(e.file) and e.hip
               and "--offload-host-only" not in e.argv and "--cuda-host-only" not in e.argv]
        tus = list({p: (p, e) for p, e in tus}.values())
        out.tus = [device._rel(self.rootstr, p) for p, _ in tus]
        self.say(f"preprocessing and compiling {len(tus)} HIP translation unit(s) for {SPIRV_TARGET} and "
                 f"{', '.join(self.targets)} ({self.jobs} at a time)")
        work = tmp / "tu"
        work.mkdir()
        results: list[TuResult] = _pool_map(
            self.jobs, lambda it: self._tu(work, it[0], it[1][0], it[1][1], by_file.get(it[1][0])),
            list(enumerate(tus)))
        seen: dict[tuple[str, int, str], Finding] = {}
        regions: dict[tuple[str, int], tuple[device.Region, int]] = {}
        for r in results:
            if r.clean:
                out.clean.append(device._rel(self.rootstr, r.file))
            if r.broken:
                out.broken.append(device._rel(self.rootstr, r.file))
            for f in r.findings:
                seen.setdefault((f.path, f.line, f.rule.id), f)
            for g in r.regions:
                key = (g.path, g.chain.start)
                old = regions.get(key)
                regions[key] = (old[0] if old else g, (old[1] if old else 0) + 1)
        region_findings = [device.region_finding(self.rootstr, g, n) for g, n in regions.values()]
        for f in region_findings:
            seen.setdefault((f.path, f.line, f.rule.id), f)
        out.findings += sorted(seen.values(), key=lambda f: (f.path, f.line, f.rule.id))

    def translation_unit(self, scratch: Path, index: int, entry: compile_db.Entry) -> TuResult:
        """One translation unit's pass from a compile command made outside a configure (no SPIR-V configure's
        entry: the SPIR-V device flags are added to it); scratch holds its temporary files."""
        self.tmp = scratch
        work = scratch / "tu"
        work.mkdir(exist_ok=True)
        return self._tu(work, index, entry.file, entry, None)

    def _tu(self, work: Path, index: int, path: str, native: compile_db.Entry,
            spirv: compile_db.Entry | None) -> TuResult:
        res = TuResult(path)
        cwd = native.directory or self.rootstr
        base = compile_db.retarget(native.argv)
        sp_base = compile_db.retarget(spirv.argv) if spirv else [*base, *spirv_device_flags(self.compiler.spirv_flags)]
        common = ["--cuda-device-only", "-dD", "-Wno-error", "-Wno-unused-command-line-argument",
                  "-fno-color-diagnostics"]
        kept: dict[str, dict[str, set[int]]] = {}  # file -> target -> lines
        lacking: dict[tuple[str, int], tuple[device.Diagnostic, list[str]]] = {}
        try:
            # SPIR-V first: only a TU whose SPIR-V pass keeps a project line calling an AMDGCN builtin needs the
            # native passes to generate code (which says what a target lacks); the others preprocess only.
            # The SPIR-V pass as the real build runs it (no -g: the toolchain validates its SPIR-V, and LLVM 22
            # writes device debug info spirv-val rejects).
            stem = work / f"tu{index}-spirv"
            stem.mkdir()
            proc = self._tool([*sp_base, *common, f"--offload-arch={SPIRV_TARGET}", "-c", "-save-temps=obj",
                         "-o", str(stem / "out.o")], cwd)
            builtins = self._kept(stem, SPIRV_TARGET, cwd, kept)
            for t in self.targets:
                native_stem = work / f"tu{index}-{t}"  # -save-temps=obj writes beside -o, named after the source
                native_stem.mkdir()
                if builtins:
                    step = ["-emit-llvm", "-S", "-save-temps=obj", "-o", str(native_stem / "out.ll")]
                else:
                    step = ["-E", "-o", str(native_stem / "out.hipi")]
                native_proc = self._tool([*base, *common, f"--offload-arch={t}", *step], cwd)
                self._kept(native_stem, t, cwd, kept)
                for d in device.diagnostics(native_proc.stderr, cwd):
                    if self.mine(d.path) and device.BUILTIN_FEATURE.search(d.message):
                        lacking.setdefault((d.path, d.line), (d, []))[1].append(t)
            located = False
            errors = device.diagnostics(proc.stderr, cwd)
            if proc.returncode != 0:
                # An error every target gets (a header this toolchain lacks, code that compiles nowhere) says
                # nothing about SPIR-V: one native front-end pass tells them apart.
                native_proc = self._tool([*base, *common, f"--offload-arch={self.targets[0]}", "-fsyntax-only"], cwd)
                everywhere = {(d.path, d.line, d.message) for d in device.diagnostics(native_proc.stderr, cwd)}
                errors = [d for d in errors if (d.path, d.line, d.message) not in everywhere]
                res.broken = native_proc.returncode != 0 and not errors
            for d in errors:
                if self.mine(d.path):
                    res.findings.append(device.compile_finding(self.rootstr, d, SPIRV_TARGET))
                    located = True
            asm_ir = [bc for bc in stem.glob("*-hip-*.bc")
                      if "asm " in self._tool([self._llvm_dis(), str(bc), "-o", "-"], cwd).stdout]
            if asm_ir:
                # Inline assembly in the SPIR-V pass: a front-end pass with line tables says where it came from.
                located_ll = stem / "located.ll"
                # A rocm-spirv prefix's clang++ drops SPIR-V device debug info unless told (docs/toolchain.md).
                self._tool([*sp_base, *common, f"--offload-arch={SPIRV_TARGET}", "-gline-tables-only",
                      f"-D{DEVICE_DEBUG_ENV}=1", "-emit-llvm", "-S", "-o", str(located_ll)], cwd)
                if located_ll.is_file():
                    with open(located_ll, encoding="utf-8", errors="replace") as f:
                        for where, line, col, asm in device.asm_sites(f):
                            if self.mine(where):
                                res.findings.append(device.asm_finding(self.rootstr, where, line, col, asm))
                                located = True
            if proc.returncode != 0 and not located and not res.broken:
                first = next((w for w in proc.stderr.splitlines() if "error" in w), f"exit code {proc.returncode}")
                res.findings.append(Finding(RULES["RSM208"], device._rel(self.rootstr, path), 1, 1,
                                            f"the {SPIRV_TARGET} device compile fails: {first.strip()}",
                                            device.FIXES["RSM208"], Redirect.SOURCE, source="configure"))
            res.clean = proc.returncode == 0 and not res.findings
            for (file, line), (d, targets) in lacking.items():
                if line in kept.get(file, {}).get(SPIRV_TARGET, set()):
                    res.findings.append(device.feature_finding(self.rootstr, d, targets))
            for file, per_target in kept.items():
                source = self.text(file)
                if source is not None:
                    res.regions += device.regions(file, source, per_target)
            res.findings += self._define_diffs(native, spirv, kept)
        finally:
            for leftover in work.glob(f"tu{index}-*"):
                shutil.rmtree(leftover, ignore_errors=True)
        return res

    def _define_diffs(self, native: compile_db.Entry, spirv: compile_db.Entry | None,
                      kept: dict[str, dict[str, set[int]]]) -> list[Finding]:
        """Macros the build defines differently for the native and the SPIR-V configure (a wave size or a
        per-arch macro derived from the target list), at their first use in the project's code."""
        if spirv is None:
            return []
        nat, sp = defines(native.argv), defines(spirv.argv)
        out = []
        for name in sorted(set(nat) | set(sp)):
            if nat.get(name) == sp.get(name):
                continue
            use = self._first_use(name, kept)
            if use is None:
                continue
            wave = bool(device.WAVE.search(name))
            rule = RULES["RSM202" if wave else "RSM201"]
            values = (f"{name}={nat[name]}" if name in nat else f"no {name}",
                      f"{name}={sp[name]}" if name in sp else f"no {name}")
            out.append(Finding(rule, device._rel(self.rootstr, use[0]), use[1], 1,
                               f"the build defines {values[0]} natively and {values[1]} under SPIR-V "
                               "(derived from the target list); this code takes the SPIR-V value on every GPU",
                               device.FIXES["RSM202"] if wave else device.ARCH_FIX, Redirect.BUILD_FILE,
                               source="configure"))
        return out

    def _first_use(self, name: str, kept: dict[str, dict[str, set[int]]]) -> tuple[str, int] | None:
        word = re.compile(rf"\b{re.escape(name)}\b")
        for file in sorted(kept):
            text = self.text(file)
            live = kept[file].get(SPIRV_TARGET, set())
            if text is None or name not in text:
                continue
            for no, line in enumerate(strip(text).splitlines(), start=1):
                if no in live and word.search(line):
                    return file, no
        return None

    def _kept(self, stem: Path, target: str, cwd: str, kept: dict[str, dict[str, set[int]]]) -> bool:
        """Record the project lines a target's preprocessed TU kept; True when one of them names an AMDGCN
        builtin (the text is read once, here)."""
        builtin = False
        for hipi in stem.glob("*.hipi"):
            with open(hipi, encoding="utf-8", errors="replace") as f:
                lines = list(f)
            for file, numbers in device.kept_lines(lines, cwd).items():
                if self.mine(file):
                    kept.setdefault(file, {})[target] = numbers
            builtin = builtin or device.names_builtin(lines, cwd, self.mine)
        return builtin

    def _llvm_dis(self) -> str:
        """The compiler's release of llvm-dis (its bitcode is read): found as clang finds its tools."""
        major = self.compiler.major
        names = [*([f"llvm-dis-{major}"] if major is not None else []), "llvm-dis"]
        return programs.find(names, programs.compiler_dirs(Path(self.compiler.path))) or "llvm-dis"


def scratch_dirs() -> Iterator[Path]:
    """Oracle folders left in the temporary directory (by a killed run): for tests and cleanup."""
    yield from Path(tempfile.gettempdir()).glob("rocm-spirv-oracle-*")
