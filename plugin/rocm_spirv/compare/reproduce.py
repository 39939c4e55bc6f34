"""compare --against: does this run reproduce an earlier report.json?

Sizes must be identical; CPU-time ratios must lie inside the earlier run's 95 % interval, except
for as many misses as chance gives among that many checks. Wall times, per-variant CPU seconds and
wall-time ratios are checked and reported but do not decide: they move with the machine's load.
With a single repeat on either side there is no interval, and only sizes are judged. Which
figures are checked, and how, comes from the metrics table (compare/metrics.py).
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rocm_spirv.compare.metrics import metrics, ratio_spec
from rocm_spirv.compare.model import Comparison, Spread
from rocm_spirv.errors import UserError

RATIO_VARIANT = "ratio"  # the MetricCheck.variant of a summary ratio
MISS_RATE = 0.05  # each timing interval is a 95 % one


@dataclass(frozen=True)
class MetricCheck:
    variant: str
    metric: str
    size: bool  # a size (or a ratio of sizes): exact, no chance allowance
    earlier_median: float
    earlier_low: float  # min over the earlier repeats
    earlier_high: float
    earlier_expected_low: float | None  # the earlier 95 % interval, None for one repeat
    earlier_expected_high: float | None
    median: float
    judged: bool = True  # counts toward the verdict (sizes; CPU-time ratios); else reported only
    earlier_n: int = 0  # repeats behind each side's median (0: an old report did not say)
    n: int = 0

    @property
    def ratio(self) -> bool:
        return self.variant == RATIO_VARIANT

    @property
    def within_range(self) -> bool:
        return self.earlier_low <= self.median <= self.earlier_high

    @property
    def within(self) -> bool:
        if self.size:
            return self.median == self.earlier_median  # to the byte
        lo, hi = self.earlier_expected_low, self.earlier_expected_high
        if lo is None or hi is None:
            return self.within_range
        return lo <= self.median <= hi

    def to_json(self) -> dict[str, Any]:
        return {"variant": self.variant, "metric": self.metric, "kind": "size" if self.size else "timing",
                "ratio": self.ratio, "earlier_median": self.earlier_median,
                "earlier_low": self.earlier_low, "earlier_high": self.earlier_high,
                "earlier_expected_low": self.earlier_expected_low,
                "earlier_expected_high": self.earlier_expected_high,
                "median": self.median, "within": self.within, "within_range": self.within_range,
                "judged": self.judged, "earlier_n": self.earlier_n, "n": self.n}


@dataclass(frozen=True)
class Reproduction:
    """The verdict of --against, typed from the checks to every view."""

    against: str
    checks: tuple[MetricCheck, ...]

    @property
    def sizes(self) -> list[MetricCheck]:
        return [c for c in self.checks if c.size and c.judged]

    @property
    def single_repeat(self) -> bool:
        """A side with one repeat has no interval: its timings cannot be judged, only its sizes."""
        return any(c.n == 1 or c.earlier_n == 1 for c in self.checks if not c.size)

    @property
    def timings(self) -> list[MetricCheck]:
        """The timing checks the verdict counts: the CPU-time ratios (none with a one-repeat side)."""
        if self.single_repeat:
            return []
        return [c for c in self.checks if not c.size and c.judged]

    @property
    def timings_not_judged(self) -> str | None:
        """Why no timing counts toward the verdict, when none does."""
        if self.single_repeat:
            return ("one side has a single repeat, which gives no interval (two runs of the same build "
                    "differ by more than nothing): only sizes are judged, to the byte")
        if not self.timings:
            return ("the earlier report has no CPU-time ratios (written before they existed): only sizes "
                    "are judged, to the byte")
        return None

    @property
    def timing_misses(self) -> int:
        return sum(not c.within for c in self.timings)

    @property
    def timing_misses_allowed(self) -> int:
        return allowed_misses(len(self.timings))

    @property
    def sizes_within(self) -> bool | None:
        return all(c.within for c in self.sizes) if self.sizes else None

    @property
    def timings_within(self) -> bool | None:
        return self.timing_misses <= self.timing_misses_allowed if self.timings else None

    @property
    def reproduced(self) -> bool:
        return bool(self.checks) and self.sizes_within is not False and self.timings_within is not False

    @property
    def timing_drift(self) -> float | None:
        return timing_drift(list(self.checks))

    def to_json(self) -> dict[str, Any]:
        return {"against": self.against,
                "reproduced": self.reproduced,
                "all_within": bool(self.checks) and all(c.within for c in self.checks if c.judged),
                "sizes_within": self.sizes_within, "timings_within": self.timings_within,
                "timing_checks": len(self.timings), "timing_misses": self.timing_misses,
                "timing_misses_allowed": self.timing_misses_allowed,
                "timing_misses_of_range": sum(not c.within_range for c in self.timings),
                "timing_drift": self.timing_drift,
                "timings_not_judged": self.timings_not_judged,
                "checks": [c.to_json() for c in self.checks]}


def load(path: Path) -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise UserError(f"cannot read the earlier report {path} ({err})",
                        "pass the report.json a previous `rocm-spirv compare --report DIR` wrote") from None
    if not isinstance(data, dict) or data.get("schema") != "rocm-spirv/compare/1":
        raise UserError(f"{path} is not a rocm-spirv compare report", "pass DIR/report.json from --report DIR")
    return data


def _check(variant: str, metric: str, size: bool, s: dict[str, Any], now: Spread, judged: bool) -> MetricCheck:
    return MetricCheck(variant, metric, size, s["median"], s["low"], s["high"],
                 s.get("expected_low"), s.get("expected_high"), now.median, judged, int(s.get("n", 0)), now.n)


def checks(earlier: dict[str, Any], now: Comparison) -> list[MetricCheck]:
    before = {r["variant"]["name"]: r["stats"] for r in earlier.get("results", []) if r.get("ok")}
    out: list[MetricCheck] = []
    for r in now.results:
        stats = before.get(r.variant.name)
        if not r.ok or stats is None:
            continue
        for m in metrics(now.kind):
            if m.checked and m.key in stats:
                out.append(_check(r.variant.name, m.key, m.kind == "size", stats[m.key], r.spread(m.key),
                                  m.judged == "exact"))
    # Reports written before ratio_stats existed simply get no ratio checks.
    for key, s in (earlier.get("ratio_stats") or {}).items():
        spec = ratio_spec(key)
        if spec is None:
            continue
        ratio, metric = spec
        paired = now.paired_ratio(ratio.num, ratio.den, metric.key)
        if paired is not None:
            out.append(_check(RATIO_VARIANT, key, metric.kind == "size", s, paired, metric.judged != "no"))
    return out


def judge(path: Path, found: list[MetricCheck]) -> Reproduction:
    return Reproduction(str(path), tuple(found))


def allowed_misses(k: int, rate: float = MISS_RATE) -> int:
    """The most misses among k checks that chance explains: the smallest m with
    P(more than m misses) < 5 % when each check misses with probability `rate`."""
    m, tail = 0, 1.0
    while m < k:
        tail -= math.comb(k, m) * rate**m * (1 - rate) ** (k - m)  # now P(X > m)
        if tail < 0.05:
            return m
        m += 1
    return k


def timing_drift(found: list[MetricCheck]) -> float | None:
    """How much faster (< 0) or slower (> 0) this run's builds were, as the median over variants
    of this run's build-time median against the earlier one."""
    rel = [c.median / c.earlier_median - 1 for c in found
           if not c.size and c.variant != RATIO_VARIANT and c.metric == "build_s" and c.earlier_median > 0]
    return statistics.median(rel) if rel else None
