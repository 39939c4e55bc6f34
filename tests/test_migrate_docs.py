"""docs/migrate.md against the code: the rule table is the rule definitions, the text example is real output."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rocm_spirv.cli import main
from rocm_spirv.migrate.registry import RULES

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "migrate.md").read_text()
ROW = re.compile(r'^\| <a id="(rsm\d+)"></a>(RSM\d+) \| ([a-z0-9-]+) \| (error|warning|note) \| ([a-z]+) \| '
                 r'([0-9.]+) \| (.+) \|$', re.M)


def test_rule_table_is_the_rule_definitions() -> None:
    rows = ROW.findall(DOC)
    assert rows == [(r.id.lower(), r.id, r.name, r.severity.value, r.status, r.since, r.help) for r in RULES.values()]


def test_text_output_example_is_real_output(capsys: pytest.CaptureFixture[str]) -> None:
    block = DOC.split("## Text output", 1)[1].split("```", 2)[1]
    example = [line for line in block.splitlines()[1:] if line]
    assert main(["migrate", str(ROOT / "tests" / "data" / "migrate" / "rocmlib")]) == 0
    out = capsys.readouterr().out.splitlines()
    for line in example:
        assert line in out, line


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_each_rule_example_shows_that_rule(rule_id: str, tmp_path: Path) -> None:
    from rocm_spirv.migrate.oracle.rules import RULES as ORACLE_ONLY
    from rocm_spirv.migrate.scan import scan

    if rule_id in {r.id for r in ORACLE_ONLY}:
        pytest.skip(f"{rule_id} comes from a real compile (migrate --configure): "
                    "tests/test_migrate_oracle.py::test_oracle_only_rule_examples compiles its example")
    name, text = RULES[rule_id].example
    assert name and text, f"{rule_id} declares no example"
    (tmp_path / name).write_text(text)
    found = scan(tmp_path).result.findings
    assert rule_id in {f.rule.id for f in found}, (rule_id, [(f.line, f.rule.id) for f in found])


def test_sarif_rule_help_carries_the_example(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import json

    assert main(["migrate", str(tmp_path), "--format", "sarif"]) == 0
    rules = json.loads(capsys.readouterr().out)["runs"][0]["tool"]["driver"]["rules"]
    for r in rules:
        name, text = RULES[r["id"]].example
        assert text.splitlines()[0] in r["help"]["markdown"] and f"`{name}`" in r["help"]["markdown"]
