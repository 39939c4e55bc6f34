"""The rule registry: collected from the modules that declare and report rules, one declaration per id,
each module's examples scanned for their rule, and the lists outside Python that name rules agree."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path
from types import ModuleType

import pytest
from rocm_spirv.migrate import build_scripts, cmake_checks, make_rules, presets, source_checks, source_rules
from rocm_spirv.migrate.cmake_checks.topic import Topic
from rocm_spirv.migrate.findings import Rule, Severity
from rocm_spirv.migrate.oracle import rules as oracle_rules
from rocm_spirv.migrate.registry import RULES, UNREACHABLE, collect, rule_table
from rocm_spirv.migrate.scan import scan
from rocm_spirv.migrate.source_checks.topic import SourceTopic

ROOT = Path(__file__).resolve().parent.parent


def _submodules(package: ModuleType) -> list[ModuleType]:
    return [importlib.import_module(f"{package.__name__}.{m.name}") for m in pkgutil.iter_modules(package.__path__)]


TOPIC_MODULES = _submodules(cmake_checks)
SOURCE_MODULES = [m for m in _submodules(source_checks) if hasattr(m, "RULES")]
DECLARING: list[ModuleType] = [m for m in TOPIC_MODULES if hasattr(m, "TOPIC")] + SOURCE_MODULES + [
    make_rules, build_scripts, presets, oracle_rules]


def _declared(module: ModuleType) -> tuple[Rule, ...]:
    topic = getattr(module, "TOPIC", None)
    return topic.rules if isinstance(topic, Topic) else tuple(module.RULES)


def test_every_topic_module_is_registered() -> None:
    topics = [m.TOPIC for m in TOPIC_MODULES if hasattr(m, "TOPIC")]
    assert len(topics) >= 10
    assert set(map(id, topics)) == set(map(id, cmake_checks.TOPICS))
    assert len(SOURCE_MODULES) >= 4
    assert {r.id for m in SOURCE_MODULES for r in m.RULES} == {r.id for r in source_rules.RULES}


def test_every_source_topic_is_registered() -> None:
    declared = [t for m in SOURCE_MODULES for t in vars(m).values() if isinstance(t, SourceTopic)]
    assert len(declared) >= 8
    assert set(map(id, declared)) == set(map(id, source_checks.TOPICS))
    assert {r.id for t in declared for r in t.rules} == {r.id for r in source_rules.RULES}
    # every-directive hooks run in an order of their own: each such topic is in it once
    assert sorted(map(id, source_checks.DIRECTIVE_TOPICS)) == sorted(
        id(t) for t in source_checks.TOPICS if t.directive is not None)


def test_registry_is_the_union_of_the_declaring_modules() -> None:
    declared = [r for m in DECLARING for r in _declared(m)]
    assert len({r.id for r in declared}) == len(declared), "a rule is declared twice"
    assert sorted(r.id for r in declared) == list(RULES)
    assert all(RULES[r.id] is r for r in declared)


def test_a_rule_id_declared_twice_is_refused() -> None:
    a = Rule("RSM999", "one", Severity.NOTE, "s", "h")
    b = Rule("RSM999", "other", Severity.NOTE, "s", "h")
    with pytest.raises(ValueError, match="RSM999 declared twice: one and other"):
        collect([a], [b])


def test_walker_dispatches_no_block_command_to_a_check() -> None:
    blocks = {"if", "elseif", "else", "while", "foreach", "function", "macro", "block",
              "endif", "endforeach", "endwhile", "endfunction", "endmacro", "endblock"}
    assert not blocks & set(cmake_checks.DISPATCH)


@pytest.mark.parametrize(("module", "rule_id"), [(m.__name__.rsplit(".", 1)[1], r.id)
                                                 for m in DECLARING for r in _declared(m)])
def test_each_module_rule_example_yields_that_rule(module: str, rule_id: str, tmp_path: Path) -> None:
    name, text = RULES[rule_id].example
    assert name and text, f"{module}: {rule_id} declares no example"
    if rule_id in {r.id for r in oracle_rules.RULES}:
        pytest.skip(f"{rule_id} comes from a real compile (migrate --configure): "
                    "tests/test_migrate_oracle.py::test_oracle_only_rule_examples compiles its example")
    (tmp_path / name).write_text(text)
    found = scan(tmp_path).result.findings
    assert rule_id in {f.rule.id for f in found}, (module, rule_id, [(f.line, f.rule.id) for f in found])


def test_docs_rule_table_is_generated_from_the_rules() -> None:
    doc = (ROOT / "docs" / "migrate.md").read_text()
    assert rule_table() in doc, "regenerate the table: python -c 'from rocm_spirv.migrate.registry import " \
        "rule_table; print(rule_table())'"


def test_unreachable_rules_agree_with_the_configure_time_scan_and_the_docs() -> None:
    cmake = (ROOT / "cmake" / "RocmSpirvScan.cmake").read_text()
    m = re.search(r"set\(_ROCM_SPIRV_UNREACHABLE_RULES ([A-Z0-9 ]+)\)", cmake)
    assert m is not None
    assert set(m.group(1).split()) == UNREACHABLE
    doc = " ".join((ROOT / "docs" / "migrate.md").read_text().split())
    m = re.search(r"`build-file` findings of ((?:RSM\d+, )+RSM\d+ and RSM\d+) that are not handled", doc)
    assert m is not None
    assert set(re.findall(r"RSM\d+", m.group(1))) == UNREACHABLE
    assert {"RSM106", "RSM107", "RSM108", "RSM109", "RSM110", "RSM114", "RSM115"} == UNREACHABLE
