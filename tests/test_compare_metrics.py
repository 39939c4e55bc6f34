"""compare's metrics table: adding a metric is a change to one table, and every view follows it.

The worked example of compare/metrics.py's docstring, run: a metric declared at test time (with a
`Run` that measures it) appears in the terminal table, the plain lines, report.json's stats, its
ratios and break-even, report.md, scaling.png's panels and the --against checks, with no other
edit.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from rich.console import Console
from rocm_spirv.compare import metrics as table
from rocm_spirv.compare import reproduce
from rocm_spirv.compare.metrics import BreakEvenRow, Metric, Ratio
from rocm_spirv.compare.model import Artifact, Comparison, Run, Variant, VariantResult
from rocm_spirv.compare.report import to_json, write_report
from rocm_spirv.compare.view import print_human, view


@dataclass
class LinkRun(Run):
    link_s: float = 0.0  # what a project measuring its final link would add to Run


LINK = Metric("link_s", "link", "s", "timing", "wall time of the final link",
              ratios=(Ratio("link_ratio_native_over_spirv", "native", "spirv", "link time native / SPIR-V"),),
              break_even=(BreakEvenRow("link_time", "link time", False),), plot=True)


def comparison() -> Comparison:
    def runs(link: float, fatbin: int) -> list[Run]:
        return [LinkRun(1.0, 2.0 * f, 3.0 * f, [Artifact("lib.so", fatbin + 1000, fatbin)], link_s=link * f)
                for f in (0.98, 1.0, 1.02)]

    res = [VariantResult(Variant("spirv", "spirv", ()), runs(0.5, 30_000)),
           VariantResult(Variant("native-1", "native", ("gfx942",)), runs(0.2, 10_000)),
           VariantResult(Variant("native", "native", ("gfx90a", "gfx942", "gfx1100")), runs(0.6, 30_000))]
    return Comparison("/somewhere/proj", {}, {}, res)


@pytest.fixture
def with_link(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table, "METRICS", (*table.METRICS, LINK))


def test_every_view_iterates_the_table(with_link: None, tmp_path: Path) -> None:
    c = comparison()
    data = to_json(c)
    assert all("link_s" in r["stats"] for r in data["results"])
    assert data["summary"]["link_ratio_native_over_spirv"] == pytest.approx(1.2)
    assert "link_ratio_native_over_spirv" in data["ratio_stats"]
    (row,) = [b for b in data["break_even"] if b["key"] == "link_time"]
    assert row["label"] == "link time" and row["targets"] is not None

    v = view(c)
    assert "link s" in v.columns
    buf = io.StringIO()
    print_human(c, Console(file=buf, width=80, force_terminal=False, emoji=False))
    out = buf.getvalue()
    assert "link 0.50 s" in out and "link time native / SPIR-V: 1.20" in out and "  link time: " in out

    pytest.importorskip("matplotlib", reason="matplotlib (the plot extra) draws scaling.png")
    write_report(c, tmp_path)
    md = (tmp_path / "report.md").read_text()
    assert "| link s |" in md and "link time native / SPIR-V (`link_ratio_native_over_spirv`)" in md
    assert "| link time |" in md

    later = comparison()
    found = reproduce.checks(json.loads((tmp_path / "report.json").read_text()), later)
    assert {(ch.variant, ch.metric) for ch in found} >= {("spirv", "link_s"),
                                                        ("ratio", "link_ratio_native_over_spirv")}


def test_without_the_declaration_no_view_shows_it() -> None:
    c = comparison()
    data = to_json(c)
    assert not any("link_s" in r["stats"] for r in data["results"])
    assert "link s" not in view(c).columns


def test_every_metric_is_a_run_attribute_with_a_unit_and_a_how() -> None:
    run = Run(1.0, 2.0, 3.0, [Artifact("a", 1, 1)])
    for m in table.METRICS:
        assert m.how and m.label
        if m.cmake:
            value = getattr(run, m.key)  # an attribute of every Run; None where the run did not measure it
            assert isinstance(value, (int, float)) or (value is None and m.measured_on == "baseline"), m.key
    keys = [r.key for m in table.METRICS for r in m.ratios] + [b.key for m in table.METRICS for b in m.break_even]
    assert len(keys) == len(set(keys))
