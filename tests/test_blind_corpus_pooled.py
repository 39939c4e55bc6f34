"""benchmarks/blind_corpus.py pools each batch's first (blind) score; rescoring after fixes is left out."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import blind_corpus


def _run(label: str, tree: str, constructs: int, tp: int, naive: int, fps: list[str]) -> dict[str, Any]:
    row = {"tree": tree, "naive_candidates": naive, "constructs": constructs, "findings": tp + len(fps),
           "true_positives": tp, "false_positives": len(fps), "missed": constructs - tp,
           "recall": tp / constructs if constructs else 1.0, "false_positive_share_of_naive": len(fps) / naive,
           "false_positive_list": fps, "missed_list": []}
    return {"label": label, "held_out": "", "trees": [row], "total": blind_corpus._total([row])}


def test_pooled_sums_first_scores_only_and_counts_trap_lines() -> None:
    runs = [_run("blind batch 1 (a), rules at x", "a", 10, 9, 100, ["a.h:3 RSM201", "CMakeLists.txt:9 RSM120"]),
            _run("batch 1 after its fixes", "a", 10, 10, 100, []),
            _run("batch 2 blind (rules at y)", "b", 10, 10, 100, []),
            _run("blind batch 2 (b), rules at z", "b", 10, 0, 100, ["b.h:1 RSM201"])]  # a second run of 2: not first
    labels = {"a": {"candidates": [{"path": "a.h", "line": 3, "yes": False, "why": ""}]}}
    text = "\n".join(blind_corpus.pooled(runs, labels))
    # batches 1-2: 20 constructs, 19 found; 2 false positives of 200 naive candidates, one on a trap line;
    # batch 1 misses recall (90 %), batch 2 meets both
    assert "| 1-2 | 2 | 2 | 20 | 95.0% (19) | 200 | 1.0% (2) | 0.5% (1) | 1 of 2 |" in text
    assert blind_corpus.pooled([runs[1]], labels) == []
