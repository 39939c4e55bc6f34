"""compare --against: what counts as reproduced, on runs whose numbers are known.

The real second run is in test_compare.py; these runs are built by hand so the machine's speed
change between them is exact.
"""

from __future__ import annotations

import io
import itertools
import random
import statistics
from pathlib import Path

import pytest
from rich.console import Console
from rocm_spirv.compare import reproduce
from rocm_spirv.compare.model import Artifact, Comparison, Run, Spread, Variant, VariantResult
from rocm_spirv.compare.report import to_json
from rocm_spirv.compare.view import print_human, ratio_stats

NATIVE = Variant("native", "native", ("gfx90a", "gfx942"))
SPIRV = Variant("spirv", "spirv", ("gfx90a", "gfx942"))
NATIVE1 = Variant("native-1", "native", ("gfx942",))


def comparison(speed: float, noise: list[float]) -> Comparison:
    """Three variants, one repeat per noise factor; every build scaled by the machine's speed."""
    def runs(base: float, fatbin: int) -> list[Run]:
        return [Run(1.0, base * speed * f, base * speed * f * 2, [Artifact("lib.so", fatbin + 4096, fatbin)],
                    build_cpu_s=base * speed * f * 1.9)
                for f in noise]

    results = [VariantResult(NATIVE, runs(10.0, 40960)), VariantResult(SPIRV, runs(1.0, 8192)),
               VariantResult(NATIVE1, runs(2.0, 20480))]
    return Comparison("p", {}, {}, results)


def verdict(first: Comparison, later: Comparison) -> reproduce.Reproduction:
    return reproduce.judge(Path("first/report.json"), reproduce.checks(to_json(first), later))


def against(first: Comparison, later: Comparison) -> dict[str, object]:
    return verdict(first, later).to_json()


def test_ratios_taken_repeat_by_repeat_cancel_the_machines_phase() -> None:
    # Round 2 is slow for every variant alike: each round's ratio is still exactly 10.
    stats = ratio_stats(comparison(1.0, [1.0, 1.3, 1.05]))["build_wall_ratio_native_over_spirv"]
    assert stats.median == stats.low == stats.high == pytest.approx(10.0) and stats.n == 3


def test_a_machine_five_percent_faster_moves_timings_but_reproduces_on_cpu_ratios_and_sizes() -> None:
    rep = against(comparison(1.0, [1.0, 1.01, 0.99]), comparison(0.95, [1.0, 1.01, 0.99]))
    checks = rep["checks"]
    assert isinstance(checks, list)
    absolute = [c for c in checks if c["kind"] == "timing" and not c["ratio"]]
    ratios = [c for c in checks if c["ratio"]]
    # build_s, build_cpu_s, cpu_s of 3 variants: all outside, reported, not judged
    assert len(absolute) == 9 and not any(c["within"] or c["judged"] for c in absolute)
    assert ratios and all(c["within"] for c in ratios)
    judged = [c["metric"] for c in ratios if c["kind"] == "timing" and c["judged"]]
    assert sorted(judged) == ["build_cpu_ratio_native_over_spirv", "build_cpu_ratio_spirv_over_native1"]
    assert rep["sizes_within"] is True
    assert rep["timing_checks"] == 2 and rep["timing_misses"] == 0 and rep["timings_within"] is True
    assert rep["reproduced"] is True and rep["timings_not_judged"] is None
    assert rep["timing_drift"] == pytest.approx(-0.05)


def test_a_single_repeat_side_judges_sizes_only_and_says_why() -> None:
    """41.14 s then 40.63 s: one build each, no interval; not a miss."""
    first, later = comparison(1.0, [1.0]), comparison(1.0, [0.9876])
    rep = verdict(first, later)
    assert rep.single_repeat and rep.timings == [] and rep.timings_within is None
    assert rep.reproduced and rep.timings_not_judged is not None and "single repeat" in rep.timings_not_judged
    grown = comparison(1.0, [1.0])
    grown.results[1].runs[0].artifacts[0].fatbin_bytes += 1  # one byte
    assert not verdict(first, grown).reproduced
    later.reproduction = rep
    buf = io.StringIO()
    print_human(later, Console(file=buf, width=80, force_terminal=False, emoji=False))
    out = buf.getvalue()
    assert "against first/report.json: reproduced (sizes identical" in out
    assert "Timings not judged: one side has a single repeat" in out
    assert "(reported, not judged)" in out


def test_a_ratio_that_really_changed_is_caught() -> None:
    later = comparison(1.0, [1.0, 1.01, 0.99])
    later.results[1].runs = [Run(1.0, r.build_s * 1.5, r.cpu_s, r.artifacts, build_cpu_s=r.build_cpu_s * 1.5)
                             for r in later.results[1].runs]
    rep = against(comparison(1.0, [1.0, 1.01, 0.99]), later)
    checks = rep["checks"]
    assert isinstance(checks, list)
    bad = {c["metric"] for c in checks if c["ratio"] and not c["within"]}
    assert bad == {"build_wall_ratio_native_over_spirv", "build_wall_ratio_spirv_over_native1",
                   "build_cpu_ratio_native_over_spirv", "build_cpu_ratio_spirv_over_native1"}
    assert rep["timing_misses"] == 2 and rep["reproduced"] is False


def test_one_chance_miss_among_many_still_reproduces_and_a_size_change_never_does() -> None:
    first = comparison(1.0, [1.0, 1.02, 0.98, 1.01, 0.99])
    later = comparison(1.0, [1.0, 1.02, 0.98, 1.01, 0.99])
    later.results[2].runs = [Run(1.0, r.build_s, r.cpu_s, r.artifacts, build_cpu_s=r.build_cpu_s * 1.2)
                             for r in later.results[2].runs]
    rep = against(first, later)
    # the CPU SPIR-V / native-1 ratio: 1 of 2 judged timing checks, as chance allows.
    assert rep["timing_misses"] == 1 and rep["timing_misses_allowed"] == 1
    assert rep["reproduced"] is True and rep["all_within"] is False
    grown = comparison(1.0, [1.0, 1.02, 0.98, 1.01, 0.99])
    grown.results[1].runs = [Run(1.0, r.build_s, r.cpu_s, [Artifact("lib.so", 12289, 8193)])
                             for r in grown.results[1].runs]
    rep = against(first, grown)
    assert rep["sizes_within"] is False and rep["reproduced"] is False


def test_allowed_misses_is_the_binomial_tail() -> None:
    # P(X > m) for X ~ Binomial(k, 0.05): k=10 gives 0.401, 0.086, 0.0115 for m = 0, 1, 2.
    assert reproduce.allowed_misses(10) == 2
    assert reproduce.allowed_misses(2) == 1  # P(X > 0) = 0.0975, P(X > 1) = 0.0025
    assert reproduce.allowed_misses(40) == 4
    assert reproduce.allowed_misses(0) == 0


@pytest.mark.parametrize("n", [3, 5])
def test_the_expected_interval_holds_a_repeat_runs_median_about_95_percent(n: int) -> None:
    rng = random.Random(7)
    inside = in_range = 0
    trials = 4000
    for _ in range(trials):
        first = Spread.of([rng.lognormvariate(0, 0.3) for _ in range(n)])
        again = statistics.median(rng.lognormvariate(0, 0.3) for _ in range(n))
        assert first.expected_low is not None and first.expected_high is not None
        inside += first.expected_low <= again <= first.expected_high
        in_range += first.low <= again <= first.high
    assert 0.93 <= inside / trials <= 0.98
    assert in_range / trials < 0.88  # why min-max is not the yardstick


def test_reports_without_ratio_stats_or_intervals_still_load() -> None:
    first = to_json(comparison(1.0, [1.0]))
    del first["ratio_stats"]
    for r in first["results"]:
        for s in r["stats"].values():
            s.pop("expected_low"), s.pop("expected_high")
    found = reproduce.checks(first, comparison(1.0, [1.0]))
    assert found and not any(c.variant == reproduce.RATIO_VARIANT for c in found)
    assert all(c.within for c in found)


def test_against_in_a_pipe_is_lines_naming_each_check() -> None:
    later = comparison(0.95, [1.0, 1.01, 0.99])
    later.reproduction = verdict(comparison(1.0, [1.0, 1.01, 0.99]), later)
    buf = io.StringIO()
    print_human(later, Console(file=buf, width=80, force_terminal=False, emoji=False))
    lines = buf.getvalue().splitlines()
    head = "against first/report.json: reproduced (sizes identical; 0/2"
    (start,) = [i for i, ln in enumerate(lines) if ln.startswith(head)]
    checks = list(itertools.takewhile(lambda ln: ln.startswith("  "), lines[start + 1:]))
    assert checks and all(ln.endswith((": ok", ": outside", "(reported, not judged)")) for ln in checks), checks
    assert "  native build_s: " in "\n".join(checks) and "│" not in buf.getvalue()
