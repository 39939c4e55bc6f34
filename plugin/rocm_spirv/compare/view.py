"""The view model of a Comparison, and the two terminal renderings of it.

One `View` holds what a person reads: the per-variant table (its columns iterate the metrics
table), the summary ratios, the notes, the break-even rows, the reproduction. The terminal table,
the plain lines of a CI log and report.md (templates/report/compare.md.j2) all render this one
object, so they cannot choose different columns.

Nothing is cut: the terminal table is drawn only when every value fits whole on one line; when it
does not (COLUMNS=80, a long target list), the same figures are printed stacked, one variant at a
time, as in a pipe.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table

from rocm_spirv.compare import jit
from rocm_spirv.compare.breakeven import break_even
from rocm_spirv.compare.metrics import BY_KEY, Build, Metric, metrics, ratios
from rocm_spirv.compare.model import Comparison, Spread, VariantResult, jit_figure
from rocm_spirv.compare.reproduce import MetricCheck, Reproduction
from rocm_spirv.term import PIPE_WIDTH, esc, fits, plain, table_or_lines

ESTIMATE_NOTE = ("The JIT upper bound is a build time (host compile and header parsing included), not a GPU "
                 "measurement; AMD publishes 67-105 ms per kernel at first launch.")


@dataclass(frozen=True)
class JitTarget:
    """The JIT proxy's figures for one target (medians over repeats), and the check of its kernels."""

    target: str
    baseline: bool  # the --reference-arch target: the summary's JIT figures and the trade are its
    units: int
    kernels: int
    figures: tuple[tuple[Metric, Spread], ...]  # the baseline-measured metrics, in the table's order
    kernels_match: bool | None  # every repeat's code objects hold the native build's kernels; None: unchecked
    checked_against: str | None  # the variant whose code objects for target were compared
    missing_kernels: tuple[str, ...]
    error: str | None

    def cell(self, m: Metric) -> str:
        """The figure of metric m as every view prints it; empty when not measured."""
        return next((figure(m, sp) for k, sp in self.figures if k.key == m.key), "")

    @property
    def check(self) -> str:
        """The kernel check in words, as every view says it."""
        against = f"{self.checked_against}'s" if self.checked_against else "the native build's"
        if self.kernels_match:
            return f"the same kernels as {against} code objects for {self.target}"
        if self.kernels_match is None:
            return f"not checked: no native build of {self.target} in this run (add it to --archs)"
        if self.missing_kernels:
            return (f"NOT {against} kernels for {self.target} ({len(self.missing_kernels)} missing, e.g. "
                    f"{', '.join(self.missing_kernels[:3])})")
        return f"kernels {against} code objects for {self.target} do not list"


def jit_targets(c: Comparison) -> list[JitTarget]:
    """Every target the JIT proxy measured, the baseline's first."""
    out = []
    for i, target in enumerate(c.jit_targets()):
        runs = c.jit_of(target)
        failed = next((j.error for j in runs if j.error), None)
        figures = []
        for m in baseline_metrics(c.kind):
            vals = [jit_figure(j, m.key) for j in runs]
            if not failed and vals and all(v is not None for v in vals):
                figures.append((m, Spread.of([float(v) for v in vals if v is not None])))
        matches = [j.kernels_match for j in runs]
        match = False if False in matches else (True if matches and all(matches) else None)
        j = runs[0]
        out.append(JitTarget(target, i == 0, len(j.units), len({k for u in j.units for k in u.kernels}),
                             tuple(figures), match, j.checked_against,
                             tuple(sorted({k for r in runs for k in r.missing_kernels})), failed))
    return out


def jit_note(c: Comparison) -> str | None:
    """The measured JIT figures' method, and the check of each target's kernels, as every view says it."""
    targets = jit_targets(c)
    if not targets:
        return None
    parts = [f"{t.target}: not measured: {t.error}" if t.error else
             f"{t.target}: {t.units} TUs, {t.kernels} kernels, {t.check}" for t in targets]
    if all(t.error for t in targets):
        return f"JIT work not measured: {'; '.join(parts)}"
    return (f"JIT figures for {', '.join(t.target for t in targets)}: {jit.METHOD}. {'; '.join(parts)}. "
            "AMD publishes 67-105 ms per kernel at first launch, translation and loading included.")


def trade(c: Comparison) -> str | None:
    """The trade in one line: build CPU saved per added target against first-launch CPU per kernel,
    and how many cold launches (no kernel cache) of the whole library equal one build's saving."""
    native, spirv, one = c.get("native"), c.get("spirv"), c.get("native-1")
    if native is None or spirv is None or one is None or not one.has("jit_kernel_cpu_ms"):
        return None
    n = len(native.variant.archs)
    per_target = ((native.spread("build_cpu_s").median - one.spread("build_cpu_s").median) / (n - 1)
                  if n > 1 else None)
    saved = native.spread("build_cpu_s").median - spirv.spread("build_cpu_s").median
    per_kernel = one.spread("jit_kernel_cpu_ms").median
    whole = one.spread("jit_total_cpu_s").median
    added = f"each added target costs {per_target:.1f} s of build CPU; " if per_target is not None else ""
    pays = (f"one SPIR-V build saves {saved:.1f} s against {n} targets, the CPU of {saved / whole:,.0f} cold "
            f"launches of the whole library ({whole * 1000:.0f} ms each)" if saved > 0 and whole > 0 else
            f"one SPIR-V build saves nothing against {n} targets ({saved:+.1f} s of build CPU)")
    return f"Trade: {added}a first launch costs {per_kernel:.0f} ms of CPU per kernel; {pays}."


def kib(n: float) -> str:
    return f"{n / 1024:,.1f} KiB"


def figure(m: Metric, s: Spread) -> str:
    """A median as every view prints it: sizes in KiB, seconds without the unit, with the range
    where the metric asks for it and there is more than one repeat."""
    if m.unit == "bytes":
        return kib(s.median)
    if m.unit == "ms":
        return f"{s.median:.1f}" + (f" ({s.low:.1f}-{s.high:.1f})" if s.n > 1 else "")
    rng = f" ({s.low:.2f}-{s.high:.2f})" if m.spread and s.n > 1 else ""
    return f"{s.median:.2f}{rng}"


def heading(m: Metric, build: Build) -> str:
    unit = {"s": " s", "ms": ", ms"}.get(m.unit, "")
    return m.heading(build) + unit + (" (median, range)" if m.spread else "")


@dataclass(frozen=True)
class Row:
    name: str
    targets: tuple[str, ...]
    cells: tuple[str, ...]  # one per View.columns; () when the variant failed

    @property
    def failed(self) -> bool:
        return not self.cells


@dataclass(frozen=True)
class SummaryLine:
    key: str  # report.json's summary key
    label: str
    figure: str  # the median, with its per-repeat range


@dataclass(frozen=True)
class CheckRow:
    variant: str
    metric: str
    earlier: str  # the earlier median, with its interval for a timing
    now: str
    within: bool
    judged: bool

    @property
    def verdict(self) -> str:
        return ("ok" if self.within else "outside") + ("" if self.judged else " (reported, not judged)")


@dataclass(frozen=True)
class View:
    title: str
    build: Build
    metrics: tuple[Metric, ...]
    rows: tuple[Row, ...]
    summary: tuple[SummaryLine, ...]
    notes: tuple[str, ...]
    break_even: tuple[tuple[str, str], ...]  # (label, text)
    overhead: str | None
    load: str | None
    failures: tuple[tuple[str, str], ...]  # (variant, log tail)
    reproduction: Reproduction | None
    jit: tuple[JitTarget, ...] = ()  # the JIT proxy per target, the baseline's first

    @property
    def jit_columns(self) -> tuple[Metric, ...]:
        return tuple(baseline_metrics(self.build)) if self.jit else ()

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(heading(m, self.build) for m in self.metrics)


def summary(c: Comparison) -> dict[str, float | None]:
    """report.json's summary: every ratio the metrics table declares, then the JIT figures."""
    build = c.kind
    out: dict[str, float | None] = {r.key: c.ratio(r.num, r.den, m.key) for r, m in ratios(build)}
    if c.kind == "wheel":
        # A wheel build is host code, packaging and pip too: no stand-in for the JIT's work.
        out["jit_estimate_s"] = None
        out["wheel_ratio_spirv_over_native"] = c.ratio("spirv", "native", "file_bytes")
        out["wheel_ratio_spirv_over_native_compressed"] = c.ratio("spirv+compress", "native+compress", "file_bytes")
    else:
        one = c.get("native-1")
        for m in baseline_metrics(build):
            out[m.key] = one.spread(m.key).median if one is not None and one.has(m.key) else None
        out["jit_estimate_s"] = one.spread("build_s").median if one is not None else None
        kernels = one.runs[0].kernel_count if one is not None and one.runs else 0
        out["jit_estimate_per_kernel_ms"] = (1000 * one.spread("build_s").median / kernels
                                             if one is not None and kernels else None)
    return out


def ratio_stats(c: Comparison) -> dict[str, Spread]:
    """Each summary ratio taken repeat by repeat (median and range): its reproducible spread."""
    build = c.kind
    found = {r.key: c.paired_ratio(r.num, r.den, m.key) for r, m in ratios(build)}
    return {k: v for k, v in found.items() if v is not None}


# Summary figures that are not a ratio of one metric: label per key.
EXTRA_LABELS = {
    "wheel_ratio_spirv_over_native": "wheel size SPIR-V / native",
    "wheel_ratio_spirv_over_native_compressed": "wheel size SPIR-V / native, compressed",
    "jit_estimate_s": "JIT upper bound, s (the whole one-target build)",
    "jit_estimate_per_kernel_ms": "JIT upper bound per kernel, ms (one-target build / kernels)",
}


def _summary_lines(c: Comparison, build: Build) -> list[SummaryLine]:
    s, per_repeat = summary(c), ratio_stats(c)
    labels = {r.key: (r.wheel_label or r.label) if build == "wheel" else r.label for r, _ in ratios(build)}
    labels.update(EXTRA_LABELS)
    labels.update({m.key: m.heading(build) + (", ms" if m.unit == "ms" else "") for m in baseline_metrics(build)})
    out = []
    for k, value in s.items():
        if value is None:
            continue
        rs = per_repeat.get(k)
        rng = f" (per repeat {rs.low:.2f}-{rs.high:.2f})" if rs and rs.n > 1 else ""
        if k in BY_KEY and (one := c.get("native-1")) is not None and one.has(k):
            sp = one.spread(k)
            rng = f" (repeats {sp.low:.1f}-{sp.high:.1f})" if sp.n > 1 else ""
            out.append(SummaryLine(k, labels[k], f"{value:.1f}{rng}"))
            continue
        out.append(SummaryLine(k, labels[k], f"{value:.2f}{rng}"))
    return out


def columns(build: Build) -> list[Metric]:
    """The table's columns: what every build measures (the baseline-only JIT figures have their
    own block: a column of one value would widen every row)."""
    return [m for m in metrics(build) if m.measured_on == "every build"]


def baseline_metrics(build: Build) -> list[Metric]:
    return [m for m in metrics(build) if m.measured_on == "baseline"]


def _row(r: VariantResult, shown: list[Metric]) -> Row:
    cells = tuple(figure(m, r.spread(m.key)) if r.has(m.key) else "" for m in shown) if r.ok else ()
    return Row(r.variant.name, tuple(r.variant.offload_archs), cells)


def _check_row(ch: MetricCheck, rep: Reproduction) -> CheckRow:
    spec = (".3f" if ch.ratio else ",.0f") if ch.size else ".2f"
    earlier = format(ch.earlier_median, spec)
    if not ch.size:
        lo, hi = ch.earlier_expected_low, ch.earlier_expected_high
        if lo is None or hi is None:
            lo, hi = ch.earlier_low, ch.earlier_high
        earlier += f" ({lo:{spec}}-{hi:{spec}})"
    judged = ch.judged and (ch.size or not rep.single_repeat)
    return CheckRow(ch.variant, ch.metric, earlier, format(ch.median, spec), ch.within, judged)


def view(c: Comparison) -> View:
    build: Build = c.kind
    shown = columns(build)
    s = summary(c)
    measured = jit_note(c)
    deal = trade(c)
    notes = tuple(n for n in (deal, measured, ESTIMATE_NOTE if s.get("jit_estimate_s") is not None else None)
                  if n is not None)
    overhead = (f"compare's own overhead: {c.wall_s - c.timed_s:.1f} s of {c.wall_s:.1f} s "
                f"({c.overhead_fraction:.1%})" if c.overhead_fraction is not None else None)
    ls = c.load_spread
    cores = c.machine.get("cores", "?")
    load = (f"load average during the run (1 min): median {ls.median:.1f} ({ls.low:.1f}-{ls.high:.1f}) "
            f"on {cores} cores" if ls is not None else None)
    return View(
        title=f"rocm-spirv compare{' --wheel' if build == 'wheel' else ''}: {c.project}"
              + (" (partial)" if c.partial else ""),
        build=build, metrics=tuple(shown), rows=tuple(_row(r, shown) for r in c.results),
        summary=tuple(_summary_lines(c, build)), notes=notes,
        break_even=tuple((b.label, b.text) for b in break_even(c)), overhead=overhead, load=load,
        failures=tuple((r.variant.name, r.error) for r in c.results if r.error),
        reproduction=c.reproduction, jit=tuple(jit_targets(c)))


def check_rows(rep: Reproduction) -> list[CheckRow]:
    return [_check_row(ch, rep) for ch in rep.checks]


def reproduction_notes(rep: Reproduction) -> str:
    notes = []
    if rep.sizes_within is not None:
        notes.append("sizes identical" if rep.sizes_within else "sizes differ")
    if rep.timings_within is not None:
        notes.append(f"{rep.timing_misses}/{len(rep.timings)} CPU-time ratios outside "
                     f"(chance allows {rep.timing_misses_allowed})")
    if rep.timing_drift is not None:
        notes.append(f"build times {rep.timing_drift * 100:+.1f} %")
    return f" ({'; '.join(notes)})" if notes else ""


# -- terminal renderings ------------------------------------------------------------------------


def pack(parts: list[str], width: int) -> list[str]:
    """Figures joined by ", " into lines of at most width columns, never splitting a figure."""
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + 2 + len(part) + 1 <= width:
            lines[-1] += f", {part}"
        else:
            if lines:
                lines[-1] += ","
            lines.append(("  " if not lines else "    ") + part)
    return lines


def stacked_lines(v: View, width: int = PIPE_WIDTH) -> list[str]:
    """The comparison as lines: no table, nothing cut; target lists wrap between ids."""
    lines = [plain(v.title)]
    for row in v.rows:
        lines += textwrap.wrap(f"{row.name}: {', '.join(row.targets)}", width, subsequent_indent="    ",
                               break_long_words=False, break_on_hyphens=False)
        if row.failed:
            lines.append("  failed (the log tail is below)")
            continue
        groups: dict[str, list[str]] = {"bytes": [], "s": [], "ms": []}
        for m, cell in zip(v.metrics, row.cells, strict=True):
            if cell:
                groups[m.unit].append(f"{m.heading(v.build)} {cell}" + {"s": " s", "ms": " ms"}.get(m.unit, ""))
        for parts in groups.values():
            lines += pack(parts, width)
    lines += [f"{s.label}: {s.figure}" for s in v.summary]
    return lines


def jit_lines(v: View, width: int = PIPE_WIDTH) -> list[str]:
    """The JIT proxy per target (more than one: --jit-targets), each figure whole."""
    if len(v.jit) < 2:
        return []  # the baseline's figures are the summary's
    lines = ["JIT work per target (medians over repeats, ranges):"]
    for t in v.jit:
        lines.append(f"  {t.target}{' (reference arch)' if t.baseline else ''}: " +
                     (f"not measured: {t.error}" if t.error else f"{t.units} TUs, {t.kernels} kernels"))
        lines += [f"  {ln}" for ln in pack([f"{m.heading(v.build)} {t.cell(m)} ms" for m in v.jit_columns
                                            if t.cell(m)], width - 2)]
    return lines


def table(v: View) -> Table:
    t = Table()  # every cell on one line, or the stacked lines (term.table_or_lines)
    t.add_column("variant", no_wrap=True)
    t.add_column("targets", no_wrap=True)
    for col in v.columns:
        t.add_column(col, justify="right", no_wrap=True)
    for row in v.rows:
        targets = ", ".join(row.targets)
        if row.failed:
            t.add_row(esc(row.name), targets, "[red]failed[/]", *["-"] * (len(v.columns) - 1))
        else:
            t.add_row(esc(row.name), targets, *row.cells)
    return t


def reproduction_table(rep: Reproduction) -> Table:
    verdict = "[green]reproduced[/]" if rep.reproduced else "[red]not reproduced[/]"
    t = Table(title=f"against {esc(rep.against)}: {verdict}{reproduction_notes(rep)}")
    for col in ("variant", "metric", "earlier median (95% interval)", "now", ""):
        t.add_column(col, justify="left" if col in ("variant", "metric") else "right", no_wrap=True)
    for r in check_rows(rep):
        t.add_row(esc(r.variant), esc(r.metric), r.earlier, r.now,
                  r.verdict if r.within or not r.judged else f"[red]{r.verdict}[/]")
    return t


def reproduction_lines(rep: Reproduction) -> list[str]:
    """--against as lines for a CI log: the verdict, then one line per check."""
    verdict = "reproduced" if rep.reproduced else "not reproduced"
    return [f"against {plain(rep.against)}: {verdict}{reproduction_notes(rep)}"] + [
        f"  {plain(r.variant)} {plain(r.metric)}: {r.now}, earlier {r.earlier}: {r.verdict}"
        for r in check_rows(rep)]


def next_steps(c: Comparison, wrote_report: bool) -> list[str]:
    """What to run next, from what this run left out."""
    out = []
    if not any(r.variant.compress for r in c.results):
        out.append("--compress measures the compressed device code a library ships (rows say 'not measured')")
    if not any(r.variant.name.startswith("scaling-") for r in c.results):
        out.append("--scaling 1,2,4,8,16 measures the per-arch curve the break-even interpolates")
    if not wrote_report:
        out.append("--report DIR writes report.md, report.json and scaling.png")
    return out


def print_human(c: Comparison, console: Console, wrote_report: bool = False) -> None:
    """The table on a terminal when every value fits whole; stacked lines otherwise and in a pipe."""
    def say(text: str) -> None:
        console.print(text, markup=False, highlight=False, soft_wrap=True)

    v = view(c)
    t = table(v)
    width = console.width if console.is_terminal else PIPE_WIDTH
    if console.is_terminal and fits(console, t):
        say(v.title)
        console.print(t)
        for s in v.summary:
            say(f"  {s.label}: {s.figure}")
    else:
        for line in stacked_lines(v, width):
            say(line)
    for line in jit_lines(v, width):
        say(line)
    for note in v.notes:
        say("\n".join(textwrap.wrap(note, width)))
    say("SPIR-V costs less than a per-arch build of:")
    for label, text in v.break_even:
        say(f"  {label}: {text}")
    if v.overhead is not None:
        say(v.overhead)
    if v.load is not None:
        say(v.load)
    for name, log in v.failures:
        say(f"{name} failed:")
        say(plain(log))
    if v.reproduction is not None:
        why = v.reproduction.timings_not_judged
        table_or_lines(console, reproduction_table(v.reproduction), reproduction_lines(v.reproduction))
        if why:
            say("\n".join(textwrap.wrap(f"Timings not judged: {why}.", width)))
    steps = next_steps(c, wrote_report)
    if steps and not c.partial:
        say("Next:")
        for step in steps:
            say("\n".join(textwrap.wrap(step, width, initial_indent="  ", subsequent_indent="    ",
                                        break_long_words=False, break_on_hyphens=False)))
