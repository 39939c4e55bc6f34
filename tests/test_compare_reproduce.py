"""compare --against: what counts as reproduced, on runs whose numbers are known.

The real second run is in test_compare.py; these runs are built by hand so the machine's speed
change between them is exact.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rocm_spirv.compare import reproduce
from rocm_spirv.compare.model import Artifact, Comparison, Run, Variant, VariantResult
from rocm_spirv.compare.report import ratio_stats, to_json

NATIVE = Variant("native", "native", ("gfx90a", "gfx942"))
SPIRV = Variant("spirv", "spirv", ("gfx90a", "gfx942"))
NATIVE1 = Variant("native-1", "native", ("gfx942",))


def comparison(speed: float, noise: list[float]) -> Comparison:
    """Three variants, one repeat per noise factor; every build scaled by the machine's speed."""
    def runs(base: float, fatbin: int) -> list[Run]:
        return [Run(1.0, base * speed * f, base * speed * f * 2, [Artifact("lib.so", fatbin + 4096, fatbin)])
                for f in noise]

    results = [VariantResult(NATIVE, runs(10.0, 40960)), VariantResult(SPIRV, runs(1.0, 8192)),
               VariantResult(NATIVE1, runs(2.0, 20480))]
    return Comparison("p", {}, {}, results)


def test_paired_ratios_cancel_a_machine_that_got_faster() -> None:
    # Round 2 is slow for every variant alike: per-round ratios stay put, medians wander.
    first = to_json(comparison(1.0, [1.0, 1.3, 1.05]))
    assert first["ratio_stats"]["build_wall_ratio_native_over_spirv"] == {
        "median": pytest.approx(10.0), "low": pytest.approx(10.0), "high": pytest.approx(10.0), "n": 3}
    later = comparison(0.95, [1.02, 1.0, 1.01])  # the whole run 5 % faster
    found = reproduce.checks(first, later)
    rep = reproduce.to_json(Path("first/report.json"), found)
    assert rep["ratios_within"] is True
    assert rep["timings_within"] is False  # 9.6 s against an earlier 10.0-13.0 s
    assert rep["sizes_within"] is True
    assert rep["timing_drift"] == pytest.approx(0.95 * 1.01 / 1.05 - 1)
    assert not rep["all_within"]
    assert {c.metric for c in found if c.kind == "ratio"} == {
        "build_wall_ratio_native_over_spirv", "build_wall_ratio_spirv_over_native1",
        "fatbin_ratio_native_over_spirv", "file_ratio_native_over_spirv"}


def test_a_ratio_that_really_changed_is_caught() -> None:
    first = to_json(comparison(1.0, [1.0, 1.1, 0.9]))
    later = comparison(1.0, [1.0, 1.1, 0.9])
    later.results[1].runs = [Run(1.0, r.build_s * 1.5, r.cpu_s, []) for r in later.results[1].runs]
    rep = reproduce.to_json(Path("x"), reproduce.checks(first, later))
    assert rep["ratios_within"] is False
    bad = {c["metric"] for c in rep["checks"] if c["kind"] == "ratio" and not c["within"]}
    assert bad == {"build_wall_ratio_native_over_spirv", "build_wall_ratio_spirv_over_native1"}


def test_reports_without_ratio_stats_still_load() -> None:
    first = to_json(comparison(1.0, [1.0]))
    del first["ratio_stats"]
    found = reproduce.checks(first, comparison(1.0, [1.0]))
    assert found and all(c.kind != "ratio" for c in found)
    assert ratio_stats(comparison(1.0, [1.0]))["build_wall_ratio_native_over_spirv"]["n"] == 1
