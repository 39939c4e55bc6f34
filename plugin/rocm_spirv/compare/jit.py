"""The first-launch JIT's work, measured offline: an offline proxy with upstream LLVM 22.

After translating a SPIR-V module, the runtime links the device libraries, optimizes and
generates code for the GPU it finds, and links a code object. Those steps can be timed on this
machine with the same LLVM, per HIP translation unit of the baseline build:

1. the TU's device code for the target as LLVM bitcode *before* optimization and before the
   device libraries (the TU's own compile command from compile_commands.json, device-only, with
   `-emit-llvm -Xclang -disable-llvm-passes -nogpulib`);
2. timed: `llvm-link --internalize --only-needed` with the device libraries clang itself would
   link for that TU and target (read from its `-###` output; none for a `-nogpulib` TU),
   `opt -O3`, `llc -O3`, `ld.lld -shared` into a code object.

Only TUs the build compiled are measured (their object file exists): with `--target` the
compile database still lists every target's sources. `--jit-targets` measures more targets from
the same baseline build: step 1 asks for each target's device code instead of the baseline's.

The runtime's SPIR-V translation and the code object's loading are not included. The code
objects' kernels are checked against a native build's of the same target (`kernels_match`,
`checked_against`): the baseline build's own for the baseline target, any other variant's that
built the target for the others (none: `kernels_match` stays null).
"""

from __future__ import annotations

import resource
import shlex
import statistics
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from rocm_spirv import children
from rocm_spirv.inspect.base import FormatError, NotBinary
from rocm_spirv.inspect.scan import inspect_path
from rocm_spirv.term import traced
from rocm_spirv.toolchain import compile_db

METHOD = "offline proxy with upstream LLVM 22; the runtime's SPIR-V translation and loading are not included"
STEPS = ("link", "opt", "llc", "lld")
_TIMEOUT = 600  # one TU's step; a real compile that takes longer is not a JIT's work


class JitError(Exception):
    """A step of the proxy failed: the measurement is reported as missing, with this reason."""


@dataclass
class JitUnit:
    """One translation unit: CPU and wall seconds per step, and the kernels its code object holds."""

    source: str  # relative to the project where possible
    kernels: list[str] = field(default_factory=list)
    cpu_s: dict[str, float] = field(default_factory=dict)  # step -> seconds
    wall_s: dict[str, float] = field(default_factory=dict)

    @property
    def total_cpu_s(self) -> float:
        return sum(self.cpu_s.values())

    @property
    def total_wall_s(self) -> float:
        return sum(self.wall_s.values())


@dataclass
class JitRun:
    """The proxy over every HIP TU of one baseline build, for one target."""

    target: str
    units: list[JitUnit] = field(default_factory=list)
    error: str | None = None
    kernels_match: bool | None = None  # the code objects' kernels == the native build's
    missing_kernels: list[str] = field(default_factory=list)  # in the native build, not in the proxy's
    checked_against: str | None = None  # the variant whose code objects for this target were compared

    def check(self, native_kernels: list[str], against: str) -> None:
        """Compare the code objects' kernels with a native build's of the same target."""
        if self.error is not None:
            return
        found = {k for u in self.units for k in u.kernels}
        self.missing_kernels = sorted(set(native_kernels) - found)
        self.kernels_match = found == set(native_kernels)
        self.checked_against = against

    def per_kernel(self, cpu: bool) -> list[float]:
        """Milliseconds per kernel: each kernel gets its TU's total divided by the TU's kernels."""
        out: list[float] = []
        for u in self.units:
            if u.kernels:
                total = u.total_cpu_s if cpu else u.total_wall_s
                out += [1000 * total / len(u.kernels)] * len(u.kernels)
        return out

    def per_unit(self, cpu: bool) -> list[float]:
        return [1000 * (u.total_cpu_s if cpu else u.total_wall_s) for u in self.units if u.kernels]


def p90(values: list[float]) -> float:
    """The 90th percentile, linear between order statistics (statistics.quantiles' 'inclusive')."""
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=10, method="inclusive")[-1]


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _run(cmd: list[str], what: str, cwd: Path) -> tuple[float, float, str]:
    """Run a step; (cpu, wall, stderr). CPU is this process's waited-for children's user + system."""
    cpu0, t0 = _children_cpu(), time.perf_counter()
    try:
        done = children.run(cmd, cwd=cwd, timeout=_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise JitError(f"{what} took more than {_TIMEOUT} s: {shlex.join(cmd)}") from None
    except OSError as e:
        raise JitError(f"{what} could not run ({e.strerror or e}): {cmd[0]}") from None
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise JitError(f"{what} failed: {shlex.join(cmd)}: {' / '.join(tail)}")
    return cpu, wall, done.stderr


def device_command(argv: list[str], target: str, out: Path) -> list[str]:
    """A TU's compile command turned into: its device code for target, as unoptimized bitcode
    without the device libraries (linked by the timed step instead)."""
    # -fgpu-rdc changes what -c of device code writes; the timed link makes the code object whole.
    kept = compile_db.retarget(argv, also=("-fgpu-rdc", "-fno-gpu-rdc"))
    return [*kept, f"--offload-arch={target}", "--cuda-device-only", "--no-gpu-bundle-output", "-nogpulib",
            "-emit-llvm", "-Xclang", "-disable-llvm-passes", "-c", "-o", str(out)]


def device_libs(argv: list[str], target: str, cwd: Path) -> list[str]:
    """The device libraries clang links for this TU and target (`-mlink-builtin-bitcode`), from
    its own `-###` plan: the same ocml/ockl/oclc_* controls a real compile of this TU uses."""
    cmd = [*device_command(argv, target, cwd / "probe.bc")]
    cmd.remove("-nogpulib")
    _, _, err = _run([*cmd, "-###"], "clang -###", cwd)
    libs: list[str] = []
    for line in err.splitlines():
        words = shlex.split(line) if line.startswith(" ") else []
        for i, w in enumerate(words[:-1]):
            if w == "-mlink-builtin-bitcode" and words[i + 1] not in libs:
                libs.append(words[i + 1])
    return libs  # none for a TU compiled with -nogpulib (builtin-only kernels)


def hip_units(build: Path) -> list[tuple[Path, list[str], Path]]:
    """(source, argv, directory) of every HIP compile in the build's compile_commands.json."""
    try:
        entries = compile_db.read(build)
    except (OSError, ValueError) as err:
        raise JitError(f"no usable compile_commands.json in the baseline build ({err})") from None
    return [(Path(e.file), list(e.argv), Path(e.directory)) for e in entries if e.hip and _built(e)]


def _built(e: compile_db.Entry) -> bool:
    """Whether the build compiled this TU (its object exists): with --target, the database still
    lists the TUs of every target."""
    return not e.output or Path(e.directory, e.output).is_file()


def code_object_kernels(path: Path) -> list[str]:
    """The kernels (`.kd` symbols) of a code object, read by rocm-spirv inspect."""
    try:
        report = inspect_path(path)
    except (NotBinary, FormatError, OSError) as err:
        raise JitError(f"ld.lld wrote no readable code object {path.name} ({err})") from None
    return sorted({k for f in report.files for e in f.device_entries if e.code_object is not None
                   for k in e.code_object.kernels})


def tool(compiler: str, name: str) -> str:
    """opt, llc, ld.lld, llvm-link of the compiler's own LLVM (clang -print-prog-name)."""
    with traced([compiler, f"-print-prog-name={name}"]) as trace:
        proc = subprocess.run([compiler, f"-print-prog-name={name}"], capture_output=True, text=True,
                              check=False, timeout=60)
        trace.status = proc.returncode
    found = proc.stdout.strip()
    if proc.returncode != 0 or not found or not Path(found).is_file():
        raise JitError(f"{compiler} knows no {name} of its own LLVM")
    return found


def measure(compiler: str, build: Path, project: Path, target: str, scratch: Path,
            native_kernels: list[str] | None, against: str) -> JitRun:
    """The proxy over every HIP TU of a finished baseline build (its compile_commands.json), for
    target; checked against native_kernels (the `against` variant's for target) when given."""
    run = JitRun(target)
    try:
        tools = {n: tool(compiler, n) for n in ("llvm-link", "opt", "llc", "ld.lld")}
        units = hip_units(build)
        if not units:
            raise JitError("the baseline build compiled no HIP source (compile_commands.json)")
        scratch.mkdir(parents=True, exist_ok=True)
        for i, (src, argv, cwd) in enumerate(units):
            run.units.append(_unit(i, src, argv, cwd, project, target, scratch, tools))
    except JitError as err:
        run.error = str(err)
        return run
    if native_kernels is not None:
        run.check(native_kernels, against)
    return run


def _unit(i: int, src: Path, argv: list[str], cwd: Path, project: Path, target: str, scratch: Path,
          tools: dict[str, str]) -> JitUnit:
    try:
        rel = str(src.resolve().relative_to(project))
    except ValueError:
        rel = str(src)
    u = JitUnit(rel)
    bc, linked, opt, obj, co = (scratch / f"tu{i}{ext}" for ext in (".bc", ".linked.bc", ".opt.bc", ".o", ".co"))
    _run(device_command(argv, target, bc), f"device bitcode of {rel}", cwd)
    libs = device_libs(argv, target, cwd)
    triple = ["-mtriple=amdgcn-amd-amdhsa", f"-mcpu={target}"]
    only_needed = ["--internalize", "--only-needed", *libs] if libs else []
    steps = {
        "link": [tools["llvm-link"], str(bc), *only_needed, "-o", str(linked)],
        "opt": [tools["opt"], *triple, "-O3", str(linked), "-o", str(opt)],
        "llc": [tools["llc"], *triple, "-O3", "-filetype=obj", str(opt), "-o", str(obj)],
        "lld": [tools["ld.lld"], "-shared", str(obj), "-o", str(co)],
    }
    for name in STEPS:
        u.cpu_s[name], u.wall_s[name], _ = _run(steps[name], f"{name} of {rel}", cwd)
    u.kernels = code_object_kernels(co)
    for p in (bc, linked, opt, obj, co):
        p.unlink(missing_ok=True)
    return u
