"""The files of a Comparison: report.json, report.md (rendered from view.View) and scaling.png."""

from __future__ import annotations

import io
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import jinja2

from rocm_spirv.compare import jit
from rocm_spirv.compare.breakeven import break_even
from rocm_spirv.compare.metrics import break_even_rows, metrics
from rocm_spirv.compare.model import Comparison, Spread, VariantResult
from rocm_spirv.compare.view import check_rows, jit_targets, ratio_stats, reproduction_notes, summary, view
from rocm_spirv.fsutil import write_atomic
from rocm_spirv.jsondoc import schema_id
from rocm_spirv.resources import templates_dir

SCHEMA = schema_id("compare")


def to_json(c: Comparison) -> dict[str, Any]:
    build = c.kind

    def result(r: VariantResult) -> dict[str, Any]:
        d: dict[str, Any] = {"variant": asdict(r.variant), "offload_archs": r.variant.offload_archs,
                             "ok": r.ok, "error": r.error, "runs": [asdict(x) for x in r.runs]}
        if r.ok:
            d["stats"] = {m.key: asdict(r.spread(m.key)) for m in metrics(build) if r.has(m.key)}
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
        "ratio_stats": {k: asdict(v) for k, v in ratio_stats(c).items()},
        "overhead": {"wall_s": c.wall_s, "timed_s": c.timed_s, "fraction": c.overhead_fraction},
        "load_average": asdict(c.load_spread) if c.load_spread is not None else None,
        "break_even": [{**asdict(b), "text": b.text} for b in break_even(c)],
        "jit_targets": [{"target": t.target, "baseline": t.baseline, "method": jit.METHOD, "units": t.units,
                         "kernels": t.kernels, "stats": {m.key: asdict(sp) for m, sp in t.figures},
                         "kernels_match": t.kernels_match, "checked_against": t.checked_against,
                         "missing_kernels": list(t.missing_kernels), "error": t.error}
                        for t in jit_targets(c)],
        "notes": {
            "break_even": "per metric, the number of native targets at which the per-arch build reaches "
                          "SPIR-V's figure (linear between measured target counts; null: not within "
                          "measured_up_to); more targets than that and SPIR-V is smaller or faster",
            "jit_estimate_s": "measured time to build the device code for one native target "
                              "(native-1); an upper bound of first-launch JIT work, not a JIT measurement",
            "jit_estimate_per_kernel_ms": "jit_estimate_s divided by the kernels in native-1's code objects "
                                          "(host compile included, so an upper bound); AMD publishes "
                                          "67-105 ms per kernel at first launch",
            "ratio_stats": "each summary ratio computed per repeat (repeats run round-robin across "
                           "variants): median, low, high, n",
            "load_average": "the 1-minute load average at the start of every build and at the end "
                            "(median, low, high, n); compare with machine.cores",
            "overhead": "compare's own time: its wall time minus every configure and build it timed and "
                        "the JIT proxy's runs (toolchain files, inspecting artifacts, removing build dirs)",
            "jit_kernel_cpu_ms": "the first launch's work after SPIR-V translation, measured offline per "
                                 "kernel on the baseline build: " + jit.METHOD,
            "jit_targets": "the same JIT proxy per target (--jit-targets; the reference arch first, the "
                           "summary's): medians over repeats, and whether its code objects hold the kernels "
                           "of checked_against's code objects for that target (null: no native build of it)",
        },
        "results": [result(r) for r in c.results],
        "reproduction": c.reproduction.to_json() if c.reproduction is not None else None,
    }


def curve(c: Comparison, metric: str, compressed: bool) -> list[tuple[int, Spread]]:
    """The per-arch builds of one metric by target count (one variant per count: the first found)."""
    found: dict[int, Spread] = {}
    for r in c.results:
        v = r.variant
        if r.ok and v.mode == "native" and v.compress == compressed:
            found.setdefault(len(v.archs), r.spread(metric))
    return sorted(found.items())


# matplotlib is the optional `plot` extra: without it the report says how to get the picture.
NO_MATPLOTLIB = "scaling.png is not drawn: matplotlib is not installed (pip install 'rocm-spirv[plot]')"


def plot_scaling(c: Comparison, out: Path) -> bool | str:
    """One panel per break-even row of the metrics table (shipped sizes first): the per-arch curve
    with its repeat ranges as error bars, SPIR-V's figure as a flat line with its range as a band,
    and the break-even marked. True when drawn; False when there is no scaling to draw; a note
    when it cannot be drawn."""
    build = c.kind
    marks = {b.key: b for b in break_even(c)}
    panels = []
    for row, m in break_even_rows(build):
        pts = curve(c, m.key, row.compressed)
        spirv = c.get("spirv+compress" if row.compressed else "spirv")
        if len(pts) >= 2 and spirv is not None:
            panels.append((row, m, pts, spirv.spread(m.key)))
    if not panels:
        return False
    try:
        import matplotlib
    except ImportError:
        return NO_MATPLOTLIB

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = 2
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(11, 3.6 * rows), squeeze=False)
    for ax, (row, m, pts, sp) in zip(axes.flat, panels, strict=False):
        scale = 1024.0 if m.unit == "bytes" else 1.0
        xs = [n for n, _ in pts]
        ys = [s.median / scale for _, s in pts]
        err = [[(s.median - s.low) / scale for _, s in pts], [(s.high - s.median) / scale for _, s in pts]]
        # One legend order in every panel: per-arch, SPIR-V, break-even.
        handles = [ax.errorbar(xs, ys, yerr=err, fmt="o-", color="C0", capsize=3,
                               label="per-arch (native targets)"),
                   ax.axhline(sp.median / scale, color="C1", ls="--", label="SPIR-V (one module)")]
        if sp.n > 1:
            ax.axhspan(sp.low / scale, sp.high / scale, color="C1", alpha=0.15)
        b = marks.get(row.key)
        at = b.targets if b is not None else None
        handles.append(ax.axvline(at if at is not None else xs[-1], color="C2", ls=":",
                                  alpha=1.0 if at is not None else 0.0,
                                  label=f"break-even {at:.1f} targets" if at is not None
                                  else f"no break-even within {xs[-1]} targets"))
        unit = "KiB" if m.unit == "bytes" else "s"
        label = (row.wheel_label or row.label) if build == "wheel" else row.label
        ax.set(xlabel="native targets", ylabel=f"{m.heading(build)}, {unit}", title=label)
        ax.set_xticks(xs)
        ax.set_ylim(bottom=0)
        ax.legend(handles=handles, fontsize="small")
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    fig.suptitle(f"{Path(c.project).name}: per-arch builds against SPIR-V (median, bars: repeat range)")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    write_atomic(out, buf.getvalue())
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
    v = view(c)
    repro = c.reproduction
    md = env.get_template("compare.md.j2").render(data=data, view=v, has_plot=has_plot,
                                                  check_rows=check_rows(repro) if repro else [],
                                                  repro_notes=reproduction_notes(repro) if repro else "",
                                                  plot_note=plot if isinstance(plot, str) else "")
    write_atomic(directory / "report.md", md)
    written.append(directory / "report.md")
    if has_plot:
        written.append(directory / "scaling.png")
    return written
