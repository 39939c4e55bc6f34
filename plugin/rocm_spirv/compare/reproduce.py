"""Does a run reproduce an earlier report? Each figure against the earlier run's 95 % interval.

Sizes must match: clang's output is deterministic for fixed build paths. Timings (and the
timing ratios) are noisy by nature, so each is checked against the interval where a repeat
run's median is expected 95 % of the time (model.Spread), and the verdict allows as many misses
as chance explains among that many checks (`allowed_misses`); `timing_drift` says how far the
machine's speed moved between the runs. Each check also records the plain min-max verdict.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rocm_spirv.compare.model import RATIOS, Comparison
from rocm_spirv.errors import UserError

METRICS = ("build_s", "cpu_s", "fatbin_bytes", "file_bytes", "installed_bytes")
RATIO_VARIANT = "ratio"  # the Check.variant of a summary ratio
MISS_RATE = 0.05  # each timing interval is a 95 % one


@dataclass(frozen=True)
class Check:
    variant: str
    metric: str
    size: bool  # a size (or a ratio of sizes): exact, no chance allowance
    earlier_median: float
    earlier_low: float  # min over the earlier repeats
    earlier_high: float
    earlier_expected_low: float | None  # the earlier 95 % interval, None for one repeat
    earlier_expected_high: float | None
    median: float

    @property
    def within_range(self) -> bool:
        return self.earlier_low <= self.median <= self.earlier_high

    @property
    def within(self) -> bool:
        lo, hi = self.earlier_expected_low, self.earlier_expected_high
        if self.size or lo is None or hi is None:
            return self.within_range
        return lo <= self.median <= hi

    def to_json(self) -> dict[str, Any]:
        return {"variant": self.variant, "metric": self.metric, "kind": "size" if self.size else "timing",
                "ratio": self.variant == RATIO_VARIANT, "earlier_median": self.earlier_median,
                "earlier_low": self.earlier_low, "earlier_high": self.earlier_high,
                "earlier_expected_low": self.earlier_expected_low,
                "earlier_expected_high": self.earlier_expected_high,
                "median": self.median, "within": self.within, "within_range": self.within_range}


def load(path: Path) -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise UserError(f"cannot read the earlier report {path} ({err})",
                        "pass the report.json a previous `rocm-spirv compare --report DIR` wrote") from None
    if not isinstance(data, dict) or data.get("schema") != "rocm-spirv/compare/1":
        raise UserError(f"{path} is not a rocm-spirv compare report", "pass DIR/report.json from --report DIR")
    return data


def _check(variant: str, metric: str, size: bool, s: dict[str, Any], median: float) -> Check:
    return Check(variant, metric, size, s["median"], s["low"], s["high"],
                 s.get("expected_low"), s.get("expected_high"), median)


def checks(earlier: dict[str, Any], now: Comparison) -> list[Check]:
    before = {r["variant"]["name"]: r["stats"] for r in earlier.get("results", []) if r.get("ok")}
    out: list[Check] = []
    for r in now.results:
        stats = before.get(r.variant.name)
        if not r.ok or stats is None:
            continue
        for m in METRICS:
            if m in stats:
                out.append(_check(r.variant.name, m, m.endswith("_bytes"), stats[m], r.spread(m).median))
    # Reports written before ratio_stats existed simply get no ratio checks.
    for key, s in (earlier.get("ratio_stats") or {}).items():
        spec = RATIOS.get(key)
        ratio = now.paired_ratio(*spec) if spec else None
        if spec and ratio is not None:
            out.append(_check(RATIO_VARIANT, key, spec[2].endswith("_bytes"), s, ratio.median))
    return out


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


def timing_drift(found: list[Check]) -> float | None:
    """How much faster (< 0) or slower (> 0) this run's builds were, as the median over variants
    of this run's build-time median against the earlier one."""
    rel = [c.median / c.earlier_median - 1 for c in found
           if not c.size and c.variant != RATIO_VARIANT and c.metric == "build_s" and c.earlier_median > 0]
    return statistics.median(rel) if rel else None


def to_json(path: Path, found: list[Check]) -> dict[str, Any]:
    sizes = [c for c in found if c.size]
    timings = [c for c in found if not c.size]
    misses = sum(not c.within for c in timings)
    allowed = allowed_misses(len(timings))
    sizes_ok = all(c.within for c in sizes) if sizes else None
    timings_ok = misses <= allowed if timings else None
    return {"against": str(path),
            "reproduced": bool(found) and sizes_ok is not False and timings_ok is not False,
            "all_within": bool(found) and all(c.within for c in found),
            "sizes_within": sizes_ok, "timings_within": timings_ok,
            "timing_checks": len(timings), "timing_misses": misses, "timing_misses_allowed": allowed,
            "timing_misses_of_range": sum(not c.within_range for c in timings),
            "timing_drift": timing_drift(found),
            "checks": [c.to_json() for c in found]}
