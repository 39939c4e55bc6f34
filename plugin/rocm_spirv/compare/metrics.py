"""compare's metrics, declared once: every view (terminal, plain lines, JSON, Markdown, plot) and
the reproduction check iterate these tables, so adding a metric is a change to METRICS.

The model is scikit-build-core's `skbuild_model.py`: one typed declaration per setting, from which
the readers are derived. Here one declaration per measured figure says its name (a `Run`
attribute and the key in report.json's `stats`), its unit, how it is measured, its kind (timing:
judged against the earlier run's interval; size: to the byte), the ratios taken from it (and in
which direction), its break-even rows and its label in every view.

Worked example: a new per-run figure `link_s` (say, the wall time of the final link) is
`Metric("link_s", "link", "s", "timing", "wall time of ...", cmake=True, wheel=False)` plus a
`link_s` field on `Run`; the terminal and plain columns, report.json's stats, report.md, the
--against checks and (with `plot=True`) scaling.png then carry it with no other edit.
tests/test_compare_metrics.py does exactly that with a metric added at test time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Unit = Literal["s", "ms", "bytes"]
MeasuredOn = Literal["every build", "baseline"]
Judged = Literal["exact", "ratios", "no"]
Kind = Literal["timing", "size"]
Build = Literal["cmake", "wheel"]


@dataclass(frozen=True)
class Ratio:
    """A summary figure: the median of `num`'s metric over the median of `den`'s (variant names)."""

    key: str  # the summary key in report.json
    num: str
    den: str
    label: str
    wheel_label: str | None = None  # the label of a --wheel run, when it differs


@dataclass(frozen=True)
class BreakEvenRow:
    """Where the per-arch curve of this metric reaches SPIR-V's figure."""

    key: str  # break_even[].key in report.json
    label: str
    compressed: bool  # from the --offload-compress builds (native-N+compress against spirv+compress)
    wheel_label: str | None = None


@dataclass(frozen=True)
class Metric:
    key: str  # a Run attribute, and the key of its Spread in report.json's stats
    label: str  # its name in every view, without the unit
    unit: Unit
    kind: Kind
    how: str  # how it is measured, for report.json's notes and the docs
    cmake: bool = True  # measured for a CMake build
    wheel: bool = True  # measured for a --wheel build
    wheel_label: str | None = None
    ratios: tuple[Ratio, ...] = ()
    break_even: tuple[BreakEvenRow, ...] = ()
    plot: bool = False  # a panel on scaling.png (against the number of native targets)
    checked: bool = True  # compared with an earlier run by --against
    # "baseline": only the one-target build (native-1) measures it (the JIT proxy, compare/jit.py)
    measured_on: MeasuredOn = "every build"
    # What --against judges: sizes to the byte; CPU time through its ratios (CPU time is what
    # holds on a loaded machine, and a ratio cancels the machine's speed); the rest is reported.
    judged: Judged = "no"
    spread: bool = False  # views print its min-max range beside the median

    def applies(self, build: Build) -> bool:
        return self.cmake if build == "cmake" else self.wheel

    def heading(self, build: Build) -> str:
        return (self.wheel_label or self.label) if build == "wheel" else self.label


JIT_HOW = ("device-library link, opt -O3, llc -O3 and ld.lld of each HIP TU's unoptimized device bitcode "
           "for the baseline target: an offline proxy with upstream LLVM 22; the runtime's SPIR-V "
           "translation and loading are not included")

# Shipped sizes lead: device code is what a user ships, then the files that carry it, then time.
METRICS: tuple[Metric, ...] = (
    Metric("fatbin_bytes", ".hip_fatbin", "bytes", "size",
           "stored bytes of the offload bundles in every library and executable (rocm-spirv inspect)",
           wheel_label="device code",
           ratios=(Ratio("fatbin_ratio_native_over_spirv_compressed", "native+compress", "spirv+compress",
                         ".hip_fatbin native / SPIR-V, compressed"),
                   Ratio("fatbin_ratio_native_over_spirv", "native", "spirv", ".hip_fatbin native / SPIR-V")),
           break_even=(BreakEvenRow("device_code_compressed", "device code (.hip_fatbin, --offload-compress)",
                                    True),
                       BreakEvenRow("device_code", "device code (.hip_fatbin, uncompressed)", False)),
           plot=True, judged="exact"),
    Metric("file_bytes", "files", "bytes", "size",
           "file size of every library and executable with device code (the wheel file with --wheel)",
           wheel_label="wheel",
           ratios=(Ratio("file_ratio_native_over_spirv_compressed", "native+compress", "spirv+compress",
                         "file size native / SPIR-V, compressed",
                         wheel_label="wheel size native / SPIR-V, compressed"),
                   Ratio("file_ratio_native_over_spirv", "native", "spirv", "file size native / SPIR-V",
                         wheel_label="wheel size native / SPIR-V")),
           break_even=(BreakEvenRow("file_size_compressed", "file size, --offload-compress", True,
                                    wheel_label="wheel size, --offload-compress"),
                       BreakEvenRow("file_size", "file size", False, wheel_label="wheel size")),
           judged="exact"),
    Metric("installed_bytes", "installed", "bytes", "size", "the wheel's members unpacked (what an install "
           "puts on disk)", cmake=False, judged="exact",
           ratios=(Ratio("installed_ratio_native_over_spirv", "native", "spirv", "installed size native / SPIR-V"),)),
    Metric("configure_s", "configure", "s", "timing", "wall time of cmake's configure step", wheel=False,
           checked=False),
    Metric("build_s", "build", "s", "timing", "wall time of the build (pip wheel with --wheel)",
           wheel_label="wheel build",
           ratios=(Ratio("build_wall_ratio_native_over_spirv", "native", "spirv", "build time native / SPIR-V"),
                   Ratio("build_wall_ratio_spirv_over_native1", "spirv", "native-1",
                         "build time SPIR-V / one native target")),
           break_even=(BreakEvenRow("build_time", "build time", False),),
           plot=True, spread=True),
    Metric("build_cpu_s", "build CPU", "s", "timing",
           "user + system time of the build step's processes (every compiler and linker it ran); "
           "with --wheel, of the whole pip wheel",
           wheel_label="wheel build CPU",
           ratios=(Ratio("build_cpu_ratio_native_over_spirv", "native", "spirv", "build CPU native / SPIR-V"),
                   Ratio("build_cpu_ratio_spirv_over_native1", "spirv", "native-1",
                         "build CPU SPIR-V / one native target")),
           break_even=(BreakEvenRow("build_cpu", "build CPU time", False),),
           plot=True, spread=True, judged="ratios"),
    Metric("cpu_s", "CPU", "s", "timing", "user + system time of every child process (configure and build)",
           wheel=False),
    # First-launch work, measured offline on the baseline build (compare/jit.py): per kernel, each
    # kernel counting its TU's link + opt + llc + lld divided by the TU's kernels.
    Metric("jit_kernel_cpu_ms", "JIT CPU per kernel, median", "ms", "timing", JIT_HOW, wheel=False,
           measured_on="baseline"),
    Metric("jit_kernel_cpu_p90_ms", "JIT CPU per kernel, p90", "ms", "timing", JIT_HOW, wheel=False,
           measured_on="baseline"),
    Metric("jit_kernel_wall_ms", "JIT wall per kernel, median", "ms", "timing", JIT_HOW, wheel=False,
           measured_on="baseline"),
    Metric("jit_kernel_wall_p90_ms", "JIT wall per kernel, p90", "ms", "timing", JIT_HOW, wheel=False,
           measured_on="baseline"),
    Metric("jit_unit_cpu_ms", "JIT CPU per TU, median", "ms", "timing", JIT_HOW, wheel=False,
           measured_on="baseline"),
)

BY_KEY = {m.key: m for m in METRICS}


def metrics(build: Build) -> list[Metric]:
    return [m for m in METRICS if m.applies(build)]


def ratios(build: Build) -> list[tuple[Ratio, Metric]]:
    return [(r, m) for m in metrics(build) for r in m.ratios]


def ratio_spec(key: str) -> tuple[Ratio, Metric] | None:
    """A summary ratio by its key, whatever the build kind (an earlier report names it)."""
    return next(((r, m) for m in METRICS for r in m.ratios if r.key == key), None)


def break_even_rows(build: Build) -> list[tuple[BreakEvenRow, Metric]]:
    return [(b, m) for m in metrics(build) for b in m.break_even]
