"""Does a run reproduce an earlier report? Each median against the earlier run's min-max range."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rocm_spirv.compare.model import Comparison
from rocm_spirv.errors import UserError

METRICS = ("build_s", "cpu_s", "fatbin_bytes", "file_bytes")


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

    def to_json(self) -> dict[str, Any]:
        return {"variant": self.variant, "metric": self.metric, "earlier_median": self.earlier_median,
                "earlier_low": self.earlier_low, "earlier_high": self.earlier_high, "median": self.median,
                "within": self.within}


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
    return out


def to_json(path: Path, found: list[Check]) -> dict[str, Any]:
    return {"against": str(path), "all_within": all(c.within for c in found) and bool(found),
            "checks": [c.to_json() for c in found]}
