"""Does a run reproduce an earlier report? Each figure against the earlier run's min-max range.

Three kinds of figure, judged apart because they fail for different reasons: sizes (clang's
output is deterministic for fixed build paths, so they must match), ratios (taken repeat by
repeat, so a machine that got faster or slower overall moves both sides alike) and absolute
timings (which follow the machine's state; `timing_drift` says by how much it moved).
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rocm_spirv.compare.model import RATIOS, Comparison
from rocm_spirv.errors import UserError

METRICS = ("build_s", "cpu_s", "fatbin_bytes", "file_bytes")
RATIO_VARIANT = "ratio"  # the Check.variant of a summary ratio


@dataclass(frozen=True)
class Check:
    variant: str
    metric: str
    earlier_median: float
    earlier_low: float
    earlier_high: float
    median: float

    @property
    def within(self) -> bool:
        return self.earlier_low <= self.median <= self.earlier_high

    @property
    def kind(self) -> str:
        if self.variant == RATIO_VARIANT:
            return "ratio"
        return "size" if self.metric.endswith("_bytes") else "timing"

    def to_json(self) -> dict[str, Any]:
        return {"variant": self.variant, "metric": self.metric, "kind": self.kind,
                "earlier_median": self.earlier_median, "earlier_low": self.earlier_low,
                "earlier_high": self.earlier_high, "median": self.median, "within": self.within}


def load(path: Path) -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise UserError(f"cannot read the earlier report {path} ({err})",
                        "pass the report.json a previous `rocm-spirv compare --report DIR` wrote") from None
    if not isinstance(data, dict) or data.get("schema") != "rocm-spirv/compare/1":
        raise UserError(f"{path} is not a rocm-spirv compare report", "pass DIR/report.json from --report DIR")
    return data


def checks(earlier: dict[str, Any], now: Comparison) -> list[Check]:
    before = {r["variant"]["name"]: r["stats"] for r in earlier.get("results", []) if r.get("ok")}
    out: list[Check] = []
    for r in now.results:
        stats = before.get(r.variant.name)
        if not r.ok or stats is None:
            continue
        for m in METRICS:
            if m in stats:
                s = stats[m]
                out.append(Check(r.variant.name, m, s["median"], s["low"], s["high"], r.spread(m).median))
    # Reports written before ratio_stats existed simply get no ratio checks.
    for key, s in (earlier.get("ratio_stats") or {}).items():
        spec = RATIOS.get(key)
        ratio = now.paired_ratio(*spec) if spec else None
        if ratio is not None:
            out.append(Check(RATIO_VARIANT, key, s["median"], s["low"], s["high"], ratio.median))
    return out


def timing_drift(found: list[Check]) -> float | None:
    """How much faster (< 0) or slower (> 0) this run's builds were, as the median over variants
    of this run's build-time median against the earlier one."""
    rel = [c.median / c.earlier_median - 1 for c in found
           if c.kind == "timing" and c.metric == "build_s" and c.earlier_median > 0]
    return statistics.median(rel) if rel else None


def to_json(path: Path, found: list[Check]) -> dict[str, Any]:
    def within(kind: str) -> bool | None:
        of_kind = [c for c in found if c.kind == kind]
        return all(c.within for c in of_kind) if of_kind else None

    return {"against": str(path), "all_within": all(c.within for c in found) and bool(found),
            "sizes_within": within("size"), "ratios_within": within("ratio"),
            "timings_within": within("timing"), "timing_drift": timing_drift(found),
            "checks": [c.to_json() for c in found]}
