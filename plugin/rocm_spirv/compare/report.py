"""Views of a Comparison: terminal table, report.json, report.md, scaling.png."""

from __future__ import annotations

import json
import textwrap
from dataclasses import asdict
from pathlib import Path
from typing import Any

import jinja2
from rich.console import Console
from rich.table import Table

from rocm_spirv.compare.breakeven import break_even
from rocm_spirv.compare.model import RATIOS, Comparison, VariantResult
from rocm_spirv.fsutil import write_atomic
from rocm_spirv.jsondoc import schema_id
from rocm_spirv.resources import templates_dir
from rocm_spirv.term import esc, plain

SCHEMA = schema_id("compare")


def _kib(n: float) -> str:
    return f"{n / 1024:,.1f} KiB"


def _median(r: VariantResult | None, attr: str) -> float | None:
    return r.spread(attr).median if r is not None else None


def summary(c: Comparison) -> dict[str, float | None]:
    out: dict[str, float | None] = {k: c.ratio(*spec) for k, spec in RATIOS.items()}
    if c.kind == "wheel":
        # A wheel build is host code, packaging and pip too: no stand-in for the JIT's work.
        out["jit_estimate_s"] = None
        out["wheel_ratio_spirv_over_native"] = c.ratio("spirv", "native", "file_bytes")
        out["wheel_ratio_spirv_over_native_compressed"] = c.ratio("spirv+compress", "native+compress", "file_bytes")
    else:
        one = c.get("native-1")
        out["jit_estimate_s"] = _median(one, "build_s")
        kernels = one.runs[0].kernel_count if one is not None and one.runs else 0
        out["jit_estimate_per_kernel_ms"] = (1000 * one.spread("build_s").median / kernels
                                             if one is not None and kernels else None)
    return out


def ratio_stats(c: Comparison) -> dict[str, dict[str, float]]:
    """Each summary ratio taken repeat by repeat (median and range): its reproducible spread."""
    found = {k: c.paired_ratio(*spec) for k, spec in RATIOS.items()}
    return {k: asdict(v) for k, v in found.items() if v is not None}


def to_json(c: Comparison) -> dict[str, Any]:
    def result(r: VariantResult) -> dict[str, Any]:
        d: dict[str, Any] = {"variant": asdict(r.variant), "offload_archs": r.variant.offload_archs,
                             "ok": r.ok, "error": r.error, "runs": [asdict(x) for x in r.runs]}
        if r.ok:
            keys = ["configure_s", "build_s", "cpu_s", "file_bytes", "fatbin_bytes"]
            if c.kind == "wheel":
                keys.append("installed_bytes")
            d["stats"] = {k: asdict(r.spread(k)) for k in keys}
        return d

    return {
        "schema": SCHEMA,
        "project": c.project,
        "kind": c.kind,
        "partial": c.partial,
        "machine": c.machine,
        "compiler": c.compiler,
        "commands": c.commands,
        "summary": summary(c),
        "ratio_stats": ratio_stats(c),
        "overhead": {"wall_s": c.wall_s, "timed_s": c.timed_s, "fraction": c.overhead_fraction},
        "break_even": [{**asdict(b), "text": b.text} for b in break_even(c)],
        "notes": {
            "break_even": "per metric, the number of native targets at which the per-arch build reaches "
                          "SPIR-V's figure (linear between measured target counts; null: not within "
                          "measured_up_to); more targets than that and SPIR-V is smaller or faster",
            "jit_estimate_s": "measured time to build the device code for one native target "
                              "(native-1); an estimate of first-launch JIT work, not a JIT measurement",
            "jit_estimate_per_kernel_ms": "jit_estimate_s divided by the kernels in native-1's code objects "
                                          "(host compile included, so an upper bound); AMD publishes "
                                          "67-105 ms per kernel at first launch",
            "ratio_stats": "each summary ratio computed per repeat (repeats run round-robin across "
                           "variants): median, low, high, n",
            "overhead": "compare's own time: its wall time minus every configure and build it timed "
                        "(toolchain files, inspecting artifacts, removing build dirs)",
        },
        "results": [result(r) for r in c.results],
        "reproduction": c.reproduction,
    }


def _figures(r: VariantResult, wheel: bool) -> dict[str, str]:
    """One variant's medians as both views print them (seconds without the unit; build with its range)."""
    b = r.spread("build_s")
    rng = f" ({b.low:.2f}-{b.high:.2f})" if b.n > 1 else ""  # one build has no range
    out = {"configure": f"{r.spread('configure_s').median:.2f}", "build": f"{b.median:.2f}{rng}",
           "cpu": f"{r.spread('cpu_s').median:.2f}", "files": _kib(r.spread("file_bytes").median),
           "fatbin": _kib(r.spread("fatbin_bytes").median)}
    if wheel:
        out["installed"] = _kib(r.spread("installed_bytes").median)
    return out


def table(c: Comparison) -> Table:
    wheel = c.kind == "wheel"
    t = Table(title=f"rocm-spirv compare{' --wheel' if wheel else ''}: {esc(c.project)}"
              + (" (partial)" if c.partial else ""))
    cols = (["variant", "targets", "wheel build s (median, range)", "CPU s", "wheel", "installed", "device code"]
            if wheel else
            ["variant", "targets", "configure s", "build s (median, range)", "CPU s", "files", ".hip_fatbin"])
    for col in cols:
        t.add_column(col, justify="right" if col not in ("variant", "targets") else "left")
    for r in c.results:
        archs = ",".join(r.variant.offload_archs)
        if len(archs) > 40:
            archs = f"{len(r.variant.offload_archs)} targets"
        if not r.ok:
            t.add_row(r.variant.name, archs, *(["[red]failed[/]"] + ["-"] * 4 if wheel else
                                               ["-", "[red]failed[/]", "-", "-", "-"]))
            continue
        f = _figures(r, wheel)
        if wheel:
            t.add_row(r.variant.name, archs, f["build"], f["cpu"], f["files"], f["installed"], f["fatbin"])
        else:
            t.add_row(r.variant.name, archs, f["configure"], f["build"], f["cpu"], f["files"], f["fatbin"])
    return t


# One label per summary figure, for the terminal and the plain view alike; each line fits 80 columns.
LABELS = {
    "build_wall_ratio_native_over_spirv": "build time native / SPIR-V",
    "build_wall_ratio_spirv_over_native1": "build time SPIR-V / one native target",
    "fatbin_ratio_native_over_spirv": ".hip_fatbin native / SPIR-V",
    "fatbin_ratio_native_over_spirv_compressed": ".hip_fatbin native / SPIR-V, compressed",
    "file_ratio_native_over_spirv": "file size native / SPIR-V",
    "installed_ratio_native_over_spirv": "installed size native / SPIR-V",
    "wheel_ratio_spirv_over_native": "wheel size SPIR-V / native",
    "wheel_ratio_spirv_over_native_compressed": "wheel size SPIR-V / native, compressed",
    "jit_estimate_s": "JIT estimate, s (one-target device build)",
    "jit_estimate_per_kernel_ms": "JIT estimate per kernel, ms",
}
ESTIMATE_NOTE = ("JIT estimates are build times here, not GPU measurements; AMD publishes 67-105 ms per "
                 "kernel at first launch.")


def _summary_lines(c: Comparison) -> list[tuple[str, str]]:
    """(label, figure) per summary ratio present; the figure carries its per-repeat range."""
    s, per_repeat = summary(c), ratio_stats(c)
    labels = dict(LABELS, file_ratio_native_over_spirv="wheel size native / SPIR-V") if c.kind == "wheel" \
        else LABELS
    out = []
    for k, label in labels.items():
        value = s.get(k)
        if value is not None:
            rs = per_repeat.get(k)
            rng = f" (per repeat {rs['low']:.2f}-{rs['high']:.2f})" if rs and rs["n"] > 1 else ""
            out.append((label, f"{value:.2f}{rng}"))
    return out


def plain_lines(c: Comparison, width: int = 80) -> list[str]:
    """The comparison as lines for a CI log: no table, nothing cut; target lists wrap between ids."""
    wheel = c.kind == "wheel"
    lines = [f"rocm-spirv compare{' --wheel' if wheel else ''}: {plain(c.project)}"
             + (" (partial)" if c.partial else "")]
    for r in c.results:
        archs = ", ".join(r.variant.offload_archs)
        lines += textwrap.wrap(f"{r.variant.name}: {archs}", width, subsequent_indent="    ",
                               break_long_words=False, break_on_hyphens=False)
        if not r.ok:
            lines.append("  failed (the log tail is below)")
            continue
        f = _figures(r, wheel)
        if wheel:
            lines.append(f"  wheel build {f['build']} s, CPU {f['cpu']} s")
            lines.append(f"  wheel {f['files']}, installed {f['installed']}, device code {f['fatbin']}")
        else:
            lines.append(f"  configure {f['configure']} s, build {f['build']} s, CPU {f['cpu']} s")
            lines.append(f"  files {f['files']}, .hip_fatbin {f['fatbin']}")
    lines += [f"{label}: {figure}" for label, figure in _summary_lines(c)]
    return lines


def print_human(c: Comparison, console: Console) -> None:
    """The table on a terminal; plain lines (plain_lines) in a pipe, as CI logs get them."""
    def say(text: str) -> None:
        console.print(text, markup=False, highlight=False, soft_wrap=True)

    if console.is_terminal:
        console.print(table(c))
        for label, figure in _summary_lines(c):
            console.print(f"  {label}: [bold]{figure}[/]")
    else:
        for line in plain_lines(c):
            say(line)
    if summary(c).get("jit_estimate_s") is not None:
        say(ESTIMATE_NOTE if console.is_terminal else "\n".join(textwrap.wrap(ESTIMATE_NOTE, 80)))
    say("SPIR-V costs less than a per-arch build of:")
    for b in break_even(c):
        say(f"  {b.label}: {b.text}")
    if c.overhead_fraction is not None:
        say(f"compare's own overhead: {c.wall_s - c.timed_s:.1f} s of {c.wall_s:.1f} s "
            f"({c.overhead_fraction:.1%})")
    for r in c.results:
        if r.error:
            say(f"{r.variant.name} failed:")
            say(plain(r.error))
    if c.reproduction is not None:
        if console.is_terminal:
            console.print(reproduction_table(c.reproduction))
        else:
            for line in reproduction_lines(c.reproduction):
                say(line)


def _reproduction_rows(rep: dict[str, Any]) -> tuple[str, list[tuple[str, str, str, str, bool]]]:
    """The verdict's notes, and per check: variant, metric, earlier median (interval), now, within."""
    notes = []
    if rep.get("timings_within") is not None:
        notes.append(f"{rep['timing_misses']}/{rep['timing_checks']} timings outside "
                     f"(chance allows {rep['timing_misses_allowed']})")
    if rep.get("timing_drift") is not None:
        notes.append(f"build times {rep['timing_drift'] * 100:+.1f} %")
    rows = []
    for ch in rep["checks"]:
        spec = (".3f" if ch["ratio"] else ",.0f") if ch["kind"] == "size" else ".2f"
        earlier = format(ch["earlier_median"], spec)
        if ch["kind"] != "size":
            lo, hi = ch["earlier_expected_low"], ch["earlier_expected_high"]
            if lo is None:
                lo, hi = ch["earlier_low"], ch["earlier_high"]
            earlier += f" ({lo:{spec}}-{hi:{spec}})"
        rows.append((ch["variant"], ch["metric"], earlier, format(ch["median"], spec), bool(ch["within"])))
    return (f" ({'; '.join(notes)})" if notes else ""), rows


def reproduction_table(rep: dict[str, Any]) -> Table:
    verdict = "[green]reproduced[/]" if rep["reproduced"] else "[red]not reproduced[/]"
    notes, rows = _reproduction_rows(rep)
    t = Table(title=f"against {esc(rep['against'])}: {verdict}{notes}")
    for col in ("variant", "metric", "earlier median (95% interval)", "now", ""):
        t.add_column(col, justify="left" if col in ("variant", "metric") else "right")
    for variant, metric, earlier, now, within in rows:
        t.add_row(esc(variant), esc(metric), earlier, now, "ok" if within else "[red]outside[/]")
    return t


def reproduction_lines(rep: dict[str, Any]) -> list[str]:
    """--against as lines for a CI log: the verdict, then one line per check."""
    notes, rows = _reproduction_rows(rep)
    verdict = "reproduced" if rep["reproduced"] else "not reproduced"
    return [f"against {plain(rep['against'])}: {verdict}{notes}"] + [
        f"  {plain(variant)} {plain(metric)}: {now}, earlier {earlier}: {'ok' if within else 'outside'}"
        for variant, metric, earlier, now, within in rows]


def scaling_points(c: Comparison) -> tuple[list[tuple[int, float, float]], VariantResult | None]:
    pts = sorted((len(r.variant.archs), r.spread("build_s").median, r.spread("fatbin_bytes").median)
                 for r in c.results if r.ok and r.variant.mode == "native" and not r.variant.compress)
    return pts, c.get("spirv")


# matplotlib is the optional `plot` extra: without it the report says how to get the picture.
NO_MATPLOTLIB = "scaling.png is not drawn: matplotlib is not installed (pip install 'rocm-spirv[plot]')"


def plot_scaling(c: Comparison, out: Path) -> bool | str:
    """True when drawn; False when there is no scaling to draw; a note when it cannot be drawn."""
    pts, spirv = scaling_points(c)
    if len(pts) < 2 or spirv is None:
        return False
    try:
        import matplotlib
    except ImportError:
        return NO_MATPLOTLIB

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = [p[0] for p in pts]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.plot(xs, [p[1] for p in pts], "o-", label="native (per-arch)")
    ax1.axhline(spirv.spread("build_s").median, color="C1", ls="--", label="SPIR-V (one target)")
    ax1.set(xlabel="native targets", ylabel="build wall time, s", title="Build time")
    marks = {b.key: b.targets for b in break_even(c)}
    for ax, key in ((ax1, "build_time"), (ax2, "device_code")):
        at = marks.get(key)
        if at is not None:
            ax.axvline(at, color="C2", ls=":", label=f"break-even {at:.1f} targets")
    ax2.plot(xs, [p[2] / 1024 for p in pts], "o-", label="native (per-arch)")
    ax2.axhline(spirv.spread("fatbin_bytes").median / 1024, color="C1", ls="--", label="SPIR-V")
    ax2.set(xlabel="native targets", ylabel=".hip_fatbin, KiB", title="Device code size")
    for ax in (ax1, ax2):
        ax.legend()
        ax.set_ylim(bottom=0)
    fig.suptitle(c.project)
    fig.tight_layout()
    tmp = out.with_suffix(".tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    tmp.replace(out)
    return True


def write_report(c: Comparison, directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    data = to_json(c)
    written = [directory / "report.json"]
    write_atomic(written[0], json.dumps(data, indent=2) + "\n")
    plot = plot_scaling(c, directory / "scaling.png")
    has_plot = plot is True
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(templates_dir() / "report"),
                             autoescape=False, keep_trailing_newline=True)
    md = env.get_template("compare.md.j2").render(data=data, has_plot=has_plot,
                                                  plot_note=plot if isinstance(plot, str) else "")
    write_atomic(directory / "report.md", md)
    written.append(directory / "report.md")
    if has_plot:
        written.append(directory / "scaling.png")
    return written
