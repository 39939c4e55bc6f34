"""Results of compare runs: plain dataclasses, serialised as report.json."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rocm_spirv.compare.jit import JitRun, p90
from rocm_spirv.compare.metrics import Build

if TYPE_CHECKING:
    from rocm_spirv.compare.reproduce import Reproduction

# Real current targets, in the order scaling draws them (the per-arch list a
# ROCm library typically ships).
DEFAULT_ARCHS = ["gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1101", "gfx1200", "gfx1201",
                 "gfx906", "gfx950", "gfx1031", "gfx1102", "gfx1150", "gfx1151", "gfx1010", "gfx1012"]
JIT_ESTIMATE_ARCH = "gfx942"
BASELINE = "native-1"  # the variant of one native target: SPIR-V's baseline, and the JIT proxy's build

@dataclass(frozen=True)
class Variant:
    """One way of building: a mode and the device targets it asks for."""

    name: str  # e.g. "native", "spirv", "hybrid", "native-1", "scaling-4"
    mode: str  # native | spirv | hybrid
    archs: tuple[str, ...]
    compress: bool = False

    @property
    def offload_archs(self) -> list[str]:
        if self.mode == "spirv":
            return ["amdgcnspirv"]
        if self.mode == "hybrid":
            return ["amdgcnspirv", *self.archs]
        return list(self.archs)


@dataclass
class Artifact:
    path: str
    file_bytes: int
    fatbin_bytes: int
    entries: dict[str, int] = field(default_factory=dict)  # entry id -> payload bytes
    installed_bytes: int = 0  # a wheel's members unpacked; 0 for build outputs
    kernels: list[str] = field(default_factory=list)  # kernel names in its native code objects
    # A target's kernels where they differ from `kernels` (arch-conditional code); every other
    # target of the artifact holds `kernels`. Kept sparse: a library of thousands of kernels
    # would otherwise list them once per target.
    target_kernels: dict[str, list[str]] = field(default_factory=dict)

    def kernels_for(self, target: str) -> list[str] | None:
        """The kernels of the artifact's code objects for target; None when it has none for it."""
        if target in self.target_kernels:
            return self.target_kernels[target]
        # Entry ids end in the target id: hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+
        targets = {e.rsplit("--", 1)[-1].split(":")[0] for e in self.entries}
        return self.kernels if target in targets else None


# Each baseline JIT metric's figure of one JitRun: (CPU time, per TU, 90th percentile).
JIT_FIGURES = {
    "jit_kernel_cpu_ms": (True, False, False),
    "jit_kernel_cpu_p90_ms": (True, False, True),
    "jit_kernel_wall_ms": (False, False, False),
    "jit_kernel_wall_p90_ms": (False, False, True),
    "jit_unit_cpu_ms": (True, True, False),
}


def jit_figure(j: JitRun | None, key: str) -> float | None:
    """One JIT metric (a JIT_FIGURES key, or jit_total_cpu_s) of one measurement; None when not measured."""
    if j is None or j.error is not None:
        return None
    if key == "jit_total_cpu_s":
        return sum(u.total_cpu_s for u in j.units) if j.units else None
    cpu, unit, q90 = JIT_FIGURES[key]
    vals = j.per_unit(cpu) if unit else j.per_kernel(cpu)
    if not vals:
        return None
    return p90(vals) if q90 else statistics.median(vals)


@dataclass
class Run:
    configure_s: float
    build_s: float
    cpu_s: float  # user + system time of every child process (configure and build)
    artifacts: list[Artifact] = field(default_factory=list)
    build_cpu_s: float = 0.0  # user + system time of the build step's processes alone
    jit: JitRun | None = None  # the baseline build only: the first-launch work, measured offline (jit.py)
    jit_s: float = 0.0  # wall time the JIT proxy took, every target (not part of the build's times)
    # The baseline build only: the same proxy for each other --jit-targets target, in their order.
    jit_others: list[JitRun] = field(default_factory=list)

    @property
    def jit_runs(self) -> list[JitRun]:
        """Every target's JIT measurement, the baseline target's first."""
        return ([self.jit] if self.jit is not None else []) + self.jit_others

    @property
    def jit_kernel_cpu_ms(self) -> float | None:
        return jit_figure(self.jit, "jit_kernel_cpu_ms")

    @property
    def jit_kernel_cpu_p90_ms(self) -> float | None:
        return jit_figure(self.jit, "jit_kernel_cpu_p90_ms")

    @property
    def jit_kernel_wall_ms(self) -> float | None:
        return jit_figure(self.jit, "jit_kernel_wall_ms")

    @property
    def jit_kernel_wall_p90_ms(self) -> float | None:
        return jit_figure(self.jit, "jit_kernel_wall_p90_ms")

    @property
    def jit_unit_cpu_ms(self) -> float | None:
        return jit_figure(self.jit, "jit_unit_cpu_ms")

    @property
    def jit_total_cpu_s(self) -> float | None:
        """The whole library's first-launch work (every TU), CPU seconds."""
        return jit_figure(self.jit, "jit_total_cpu_s")

    @property
    def file_bytes(self) -> int:
        return sum(a.file_bytes for a in self.artifacts)

    @property
    def fatbin_bytes(self) -> int:
        return sum(a.fatbin_bytes for a in self.artifacts)

    @property
    def installed_bytes(self) -> int:
        return sum(a.installed_bytes for a in self.artifacts)

    @property
    def kernel_count(self) -> int:
        """Distinct kernels of the build (a library and the app linking it carry the same ones)."""
        return len({k for a in self.artifacts for k in a.kernels})


# Student's t, two-sided 95 %, by degrees of freedom (a df between rows takes the row below it,
# which only widens the interval).
_T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
         10: 2.228, 15: 2.131, 20: 2.086, 30: 2.042, 60: 2.000, 120: 1.980}


def _t975(df: int) -> float:
    return _T975[max(k for k in _T975 if k <= df)]


@dataclass
class Spread:
    """Median and range of n values, and where the median of a repeat run of n is expected.

    The range is a poor yardstick for a second run: with 3 repeats a second run's median lands
    inside the first run's min-max only about 60 % of the time, with 5 about 83 %, even when
    nothing changed. expected_low..expected_high is a 95 % interval for the difference of two
    medians: median +- t(n-1) * sqrt(2) * 1.2533 * s / sqrt(n) (1.2533 s / sqrt(n) is the
    standard error of a median). Checked by simulation on normal, log-normal and uniform
    samples of 3-10: 92-96 % coverage. None for a single value.
    """

    median: float
    low: float
    high: float
    n: int
    expected_low: float | None = None
    expected_high: float | None = None

    @classmethod
    def of(cls, values: list[float]) -> Spread:
        med, n = statistics.median(values), len(values)
        if n < 2:
            return cls(med, min(values), max(values), n)
        half = _t975(n - 1) * math.sqrt(2) * 1.2533 * statistics.stdev(values) / math.sqrt(n)
        return cls(med, min(values), max(values), n, med - half, med + half)


@dataclass
class VariantResult:
    variant: Variant
    runs: list[Run] = field(default_factory=list)
    error: str | None = None  # log tail of a failed configure or build

    @property
    def ok(self) -> bool:
        return self.error is None and bool(self.runs)

    def spread(self, attr: str) -> Spread:
        return Spread.of([float(getattr(r, attr)) for r in self.runs])

    def has(self, attr: str) -> bool:
        """Whether every run measured attr (the JIT figures exist for the baseline build only)."""
        return bool(self.runs) and all(getattr(r, attr) is not None for r in self.runs)


@dataclass
class Comparison:
    project: str
    machine: dict[str, str]
    compiler: dict[str, object]
    results: list[VariantResult]
    commands: list[list[str]] = field(default_factory=list)
    kind: Build = "cmake"  # cmake: configure + build; wheel: pip wheel (--wheel)
    partial: bool = False
    reproduction: Reproduction | None = None  # set by --against: see compare/reproduce.py
    wall_s: float = 0.0  # the whole session: toolchain files, builds, inspection, clean-up
    load: list[float] = field(default_factory=list)  # 1-minute load average at each build's start and the end

    @property
    def load_spread(self) -> Spread | None:
        """How busy the machine was: timings on a loaded machine move, CPU-time ratios hold better."""
        return Spread.of(self.load) if self.load else None

    @property
    def timed_s(self) -> float:
        """What the figures measure: every configure and build (pip wheel) of every run, and the
        JIT proxy's runs."""
        return sum(run.configure_s + run.build_s + run.jit_s for r in self.results for run in r.runs)

    @property
    def overhead_fraction(self) -> float | None:
        """compare's own share of its wall time (probing, toolchain files, inspecting, removing)."""
        return (self.wall_s - self.timed_s) / self.wall_s if self.wall_s > 0 and self.timed_s > 0 else None

    def get(self, name: str) -> VariantResult | None:
        return next((r for r in self.results if r.variant.name == name and r.ok), None)

    def native_kernels(self, target: str) -> tuple[str, list[str]] | None:
        """(variant, kernels) of the first finished build with native code for target (uncompressed
        preferred): what the JIT proxy's code objects for target are checked against."""
        builds = sorted((r for r in self.results if r.ok and r.variant.mode != "spirv" and target in r.variant.archs),
                        key=lambda r: r.variant.compress)
        for r in builds:
            found = [a.kernels_for(target) for a in r.runs[0].artifacts]
            if any(k is not None for k in found):
                return r.variant.name, sorted({k for ks in found if ks is not None for k in ks})
        return None

    def jit_targets(self) -> list[str]:
        """The targets the JIT proxy measured, the baseline's first."""
        one = self.get(BASELINE)
        runs = [j for r in one.runs for j in r.jit_runs] if one is not None else []
        return list(dict.fromkeys(j.target for j in runs))

    def jit_of(self, target: str) -> list[JitRun]:
        """Every repeat's JIT measurement for target."""
        one = self.get(BASELINE)
        return [j for r in one.runs for j in r.jit_runs if j.target == target] if one is not None else []

    def ratio(self, num: str, den: str, attr: str) -> float | None:
        a, b = self.get(num), self.get(den)
        if a is None or b is None:
            return None
        d = b.spread(attr).median
        return a.spread(attr).median / d if d else None

    def paired_ratio(self, num: str, den: str, attr: str) -> Spread | None:
        """The ratio repeat by repeat: compare runs the variants round-robin, so repeat i of both
        ran in the same phase of the machine and a machine that speeds up or slows down between
        rounds (or between whole runs) moves both sides of each ratio alike."""
        a, b = self.get(num), self.get(den)
        if a is None or b is None:
            return None
        # After Ctrl-C the variant built first in the last round has one repeat more.
        pairs = zip(a.runs, b.runs, strict=False)
        vals = [float(getattr(x, attr)) / getattr(y, attr) for x, y in pairs if getattr(y, attr)]
        return Spread.of(vals) if vals else None
