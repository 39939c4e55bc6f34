"""migrate --statistics: one line per rule, most findings first, counts that add up to the report's."""

from __future__ import annotations

import json

import pytest
from conftest import REPO
from rocm_spirv.cli import main

COLLECTION = REPO / "tests" / "data" / "example_collection"


def test_statistics_count_what_the_report_lists(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["migrate", str(COLLECTION), "--json"]) == 0
    by_rule = json.loads(capsys.readouterr().out)["summary"]["by_rule"]
    assert main(["migrate", str(COLLECTION), "--statistics"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [ln.split()[:3] for ln in lines[:-1]]
    assert {rule: int(n) for n, rule, _ in rows} == by_rule
    counts = [int(n) for n, _, _ in rows]
    assert counts == sorted(counts, reverse=True)
    assert lines[-1] == f"{sum(counts)} findings in {len(rows)} rule{'s' if len(rows) != 1 else ''}"
    assert main(["migrate", str(COLLECTION), "--statistics", "--select", "RSM101"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"{by_rule['RSM101']} findings in 1 rule"


def test_statistics_keep_the_check_gate(capsys: pytest.CaptureFixture[str]) -> None:
    # The example collection has nothing --check fails on (its findings follow the target list the
    # toolchain file redirects); the migration samples have warnings that fail it.
    assert main(["migrate", str(COLLECTION), "--statistics", "--check"]) == 0
    assert main(["migrate", str(REPO / "samples" / "migration"), "--statistics", "--check"]) == 1
    assert "RSM101  warning  arch-list" in capsys.readouterr().out
