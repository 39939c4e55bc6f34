"""Where SPIR-V starts to win: the number of native targets at which a per-arch build costs more.

From the native builds with different numbers of targets (native-1, scaling-N, native) and the
one SPIR-V build, per metric: the smallest target count at which the per-arch figure reaches
SPIR-V's, interpolated linearly between measured counts. Below it the per-arch build is cheaper;
above it SPIR-V is. "never within N" when even the largest measured count stays below.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from rocm_spirv.compare.metrics import break_even_rows
from rocm_spirv.compare.model import Comparison


@dataclass(frozen=True)
class BreakEven:
    key: str
    label: str
    targets: float | None  # interpolated target count where per-arch reaches SPIR-V; None: not within
    measured_from: int  # smallest native target count measured
    measured_up_to: int  # largest native target count measured (0: no data)
    spirv: float | None  # SPIR-V's figure

    @property
    def text(self) -> str:
        if self.measured_up_to == 0 or self.spirv is None:
            return "not measured"
        if self.targets is None:
            return f"never within {self.measured_up_to} targets"
        if self.targets <= self.measured_from:
            return "from 1 target" if self.measured_from <= 1 else f"from {self.measured_from} targets or fewer"
        return f"from {self.targets:.1f} targets"


def crossing(points: list[tuple[int, float]], spirv: float) -> float | None:
    """The smallest x where the piecewise-linear curve through points reaches spirv; None if never."""
    pts = sorted(points)
    if not pts:
        return None
    if pts[0][1] >= spirv:
        return float(pts[0][0])
    for (x0, y0), (x1, y1) in pairwise(pts):
        if y0 < spirv <= y1:
            return x0 + (spirv - y0) * (x1 - x0) / (y1 - y0)
    return None


def points(c: Comparison, metric: str, compressed: bool) -> list[tuple[int, float]]:
    """Per-arch medians by target count (one variant per count: the first found)."""
    found: dict[int, float] = {}
    for r in c.results:
        v = r.variant
        if r.ok and v.mode == "native" and v.compress == compressed:
            found.setdefault(len(v.archs), r.spread(metric).median)
    return sorted(found.items())


def break_even(c: Comparison) -> list[BreakEven]:
    """One row per break-even the metrics table declares, in its order."""
    out = []
    build = c.kind
    for row, metric in break_even_rows(build):
        spirv_run = c.get("spirv+compress" if row.compressed else "spirv")
        pts = points(c, metric.key, row.compressed)
        spirv = spirv_run.spread(metric.key).median if spirv_run is not None else None
        at = crossing(pts, spirv) if spirv is not None and len(pts) >= 1 else None
        label = (row.wheel_label or row.label) if build == "wheel" else row.label
        out.append(BreakEven(row.key, label, at, min((p[0] for p in pts), default=0),
                             max((p[0] for p in pts), default=0), spirv))
    return out
