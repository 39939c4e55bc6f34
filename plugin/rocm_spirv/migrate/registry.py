"""Every migrate rule, collected from the modules that declare and report them. The gate, SARIF, the
reports, the CLI and docs/migrate.md's rule table read rules from here."""

from __future__ import annotations

from collections.abc import Iterable

from rocm_spirv.migrate import build_scripts, cmake_checks, make_rules, presets, source_rules
from rocm_spirv.migrate.findings import Rule
from rocm_spirv.migrate.oracle import rules as oracle_rules


def collect(*groups: Iterable[Rule]) -> dict[str, Rule]:
    """The rules by id, in id order; an id declared twice is a programming error."""
    out: dict[str, Rule] = {}
    for rule in (r for g in groups for r in g):
        if rule.id in out:
            raise ValueError(f"rule id {rule.id} declared twice: {out[rule.id].name} and {rule.name}")
        out[rule.id] = rule
    return dict(sorted(out.items()))


RULES = collect(cmake_checks.RULES, presets.RULES, source_rules.RULES, make_rules.RULES, build_scripts.RULES,
                oracle_rules.RULES)
UNREACHABLE = frozenset(r.id for r in RULES.values() if r.unreachable)


def rule_table() -> str:
    """The rule table of docs/migrate.md, which tests/test_migrate_registry.py holds to this text."""
    rows = [f'| <a id="{r.id.lower()}"></a>{r.id} | {r.name} | {r.severity.value} | {r.status} | {r.since} | {r.help} |'
            for r in RULES.values()]
    return "\n".join(["| id | name | severity | status | since | why |", "|---|---|---|---|---|---|", *rows]) + "\n"
