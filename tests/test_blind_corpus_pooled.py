"""benchmarks/blind_corpus.py pools each batch's first (blind) score; rescoring after fixes is left out."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

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


def test_diff_names_the_findings_that_changed_between_two_trials(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    def trial(findings: dict[str, list[str]]) -> Path:
        rows = []
        for tree, found in findings.items():
            row = _run("trial", tree, 1, 1, 10, [])["trees"][0]
            row["finding_list"] = found
            rows.append(row)
        path = tmp_path / f"t{len(list(tmp_path.iterdir()))}.json"
        path.write_text(json.dumps({"trees": rows, "total": blind_corpus._total(rows)}))
        return path

    old = trial({"a": ["x.h:1 RSM201"], "b": ["CMakeLists.txt:2 RSM101"]})
    same = trial({"a": ["x.h:1 RSM201"], "b": ["CMakeLists.txt:2 RSM101"]})
    new = trial({"a": ["x.h:1 RSM201", "x.h:9 RSM205"], "b": ["CMakeLists.txt:2 RSM101"]})
    assert blind_corpus.diff(old, same) == 0
    assert "0 trees changed" in capsys.readouterr().out
    assert blind_corpus.diff(old, new) == 1
    out = capsys.readouterr().out
    assert "  + x.h:9 RSM205" in out and "1 tree changed" in out and "b:" not in out
