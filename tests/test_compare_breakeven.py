"""Break-even: from how many native targets SPIR-V costs less, interpolated between measured counts."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console
from rocm_spirv.compare.breakeven import break_even, crossing
from rocm_spirv.compare.model import Artifact, Comparison, Run, Variant, VariantResult
from rocm_spirv.compare.plan import variants
from rocm_spirv.compare.report import to_json, write_report
from rocm_spirv.compare.view import print_human


@pytest.mark.parametrize(("points", "spirv", "expected"), [
    ([(1, 4.0), (2, 6.0), (4, 10.0), (8, 18.0)], 8.0, 3.0),  # between 2 and 4, linearly
    ([(1, 4.0), (8, 18.0)], 4.0, 1.0),  # equal at one target: wins from 1
    ([(1, 5.0), (8, 18.0)], 3.0, 1.0),  # already cheaper per-arch nowhere
    ([(1, 1.0), (2, 2.0), (8, 8.0)], 9.0, None),  # never within 8
    ([(8, 1.0), (1, 0.5), (4, 2.0)], 1.5, 3.0),  # unsorted input: 1 + (1.5 - 0.5) * 3 / 1.5 on 1..4
    ([], 1.0, None),
])
def test_crossing(points: list[tuple[int, float]], spirv: float, expected: float | None) -> None:
    got = crossing(points, spirv)
    assert got == pytest.approx(expected) if expected is not None else got is None


def _result(name: str, mode: str, archs: tuple[str, ...], build_s: float, fatbin: int, compress: bool = False,
            ok: bool = True) -> VariantResult:
    runs = [Run(1.0, build_s * f, build_s, [Artifact("lib.so", fatbin + 1000, fatbin)], build_cpu_s=build_s * f / 2)
            for f in (0.98, 1.0, 1.02)]
    return VariantResult(Variant(name, mode, archs, compress), runs if ok else [], None if ok else "failed")


ARCHS = tuple(f"gfx{n}" for n in (908, "90a", 942, 1030, 1100, 1101, 1200, 1201))


def comparison() -> Comparison:
    """Per-arch: 4 s + 2 s per target, 100 KB per target; SPIR-V: 9 s, 350 KB; compressed: 20 KB
    per target against 200 KB (never within 8)."""
    res = [_result("spirv", "spirv", (), 9.0, 350_000), _result("spirv+compress", "spirv", (), 9.0, 200_000, True)]
    for n in (1, 2, 4, 8):
        name = {1: "native-1", 8: "native"}.get(n, f"scaling-{n}")
        res.append(_result(name, "native", ARCHS[:n], 4.0 + 2.0 * n, 100_000 * n))
        res.append(_result(f"{name}+compress", "native", ARCHS[:n], 4.0 + 2.0 * n, 20_000 * n, True))
    return Comparison("p", {}, {}, res)


def test_break_even_per_metric() -> None:
    found = {b.key: b for b in break_even(comparison())}
    assert found["build_time"].targets == pytest.approx(2.5) and found["build_time"].text == "from 2.5 targets"
    assert found["device_code"].targets == pytest.approx(3.5)
    assert found["device_code_compressed"].targets is None
    assert found["device_code_compressed"].text == "never within 8 targets"
    assert found["file_size"].measured_from == 1 and found["file_size"].measured_up_to == 8


def test_a_failed_variant_leaves_the_others_and_no_spirv_means_not_measured() -> None:
    c = comparison()
    c.results = [r if r.variant.name != "spirv" else _result("spirv", "spirv", (), 1, 1, ok=False) for r in c.results]
    found = {b.key: b for b in break_even(c)}
    assert found["build_time"].text == "not measured"
    assert found["device_code_compressed"].text == "never within 8 targets"


def test_report_json_md_and_plot_carry_break_even(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="matplotlib (the plot extra) draws scaling.png")
    written = write_report(comparison(), tmp_path)
    data = json.loads((tmp_path / "report.json").read_text())
    assert data["break_even"] == to_json(comparison())["break_even"]
    rows = {b["key"]: b for b in data["break_even"]}
    assert rows["build_time"]["targets"] == pytest.approx(2.5) and rows["device_code"]["text"] == "from 3.5 targets"
    md = (tmp_path / "report.md").read_text()
    assert "## Break-even" in md and "| device code (.hip_fatbin, --offload-compress) | never within 8 targets |" in md
    assert tmp_path / "scaling.png" in written


def test_scaling_with_compress_builds_a_compressed_curve() -> None:
    names = [v.name for v in variants(list(ARCHS), [], [1, 2, 4, 8], compress=True)]
    assert {"native-1+compress", "scaling-2+compress", "scaling-4+compress", "native+compress"} <= set(names)
    # Without scaling too: two target counts make the compressed curve and its break-even.
    assert [v.name for v in variants(list(ARCHS), [], [], compress=True)] == [
        "native+compress", "spirv+compress", "native-1+compress", "native", "spirv", "native-1"]


def test_plain_view_for_logs_fits_80_columns_and_keeps_ids_whole() -> None:
    """In a pipe compare prints lines, not a table: every target id whole, no line over 80 columns."""
    c = comparison()
    c.project = "/srv/a/rather/long/project/path/that/names/the/library/under/test/hip_library"
    c.results[0] = _result("spirv", "spirv", (), 1, 1, ok=False)
    c.results[0].error = "build failed: ninja -C build\nerror: a [bold]markup[/] line"
    buf = io.StringIO()
    print_human(c, Console(file=buf, width=80, force_terminal=False, emoji=False))
    out = buf.getvalue()
    lines = out.splitlines()
    assert lines[0] == f"rocm-spirv compare: {c.project}"  # a path longer than 80 stays whole
    assert all(len(ln) <= 80 for ln in lines[1:] if not ln.startswith("error:")), lines
    assert "│" not in out and "━" not in out  # no table drawing in a log
    for arch in ARCHS:  # every target id of the 8-target build appears whole
        assert re.search(rf"(?<![\w]){arch}(?![\w])", out), arch
    assert "spirv: amdgcnspirv" in lines and "  failed (the log tail is below)" in lines
    assert "error: a [bold]markup[/] line" in lines  # user text verbatim, not rendered as markup
    assert not any(ln.startswith("build time native / SPIR-V") for ln in lines)  # needs the failed one
    assert any(ln.startswith(".hip_fatbin native / SPIR-V, compressed: ") for ln in lines)
    assert "  build time: from 2.5 targets" not in lines  # spirv failed: not measured
    assert any(ln.startswith("  build time: not measured") for ln in lines)
    assert "SPIR-V costs less than a per-arch build of:" in lines
    # three repeats: a median and its range; one build would print no range
    at = lines.index("native-1: gfx908")
    assert lines[at + 1:at + 4] == ["  .hip_fatbin 97.7 KiB, files 98.6 KiB",
                                    "  configure 1.00 s, build 6.00 (5.88-6.12) s, build CPU 3.00 (2.94-3.06) s,",
                                    "    CPU 6.00 s"]  # a figure is never split across lines


@pytest.mark.parametrize("width", [80, 120, 250])
def test_terminal_table_never_cuts_a_value(width: int) -> None:
    """On a terminal of any width every figure and target id appears whole: the table when it fits
    on one line per row, the figures stacked otherwise (COLUMNS=80)."""
    c = comparison()
    buf = io.StringIO()
    print_human(c, Console(file=buf, width=width, force_terminal=True, color_system=None, emoji=False))
    out = buf.getvalue()
    assert "…" not in out
    for figure in ("20.00 (19.60-20.40)", "781.2 KiB", "156.2 KiB", "10.00 (9.80-10.20)"):
        assert figure in out, (width, figure)
    for arch in ARCHS:
        assert re.search(rf"(?<![\w]){arch}(?![\w])", out), arch
    assert ("┃" in out) == (width >= 250)
    assert all(len(ln) <= width for ln in out.splitlines())
    assert "Next:" in out and "--report DIR writes" in out
