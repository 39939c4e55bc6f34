"""SARIF 2.1.0 for GitHub code scanning: one run, rules from registry.RULES, one result per finding."""

from __future__ import annotations

from typing import Any

from rocm_spirv import __version__
from rocm_spirv.migrate.findings import ScanResult
from rocm_spirv.migrate.gate import FINGERPRINT_KEY, fingerprints
from rocm_spirv.migrate.registry import RULES

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFO_URI = "https://github.com/rocm-spirv/rocm-spirv/blob/main/docs/migrate.md"


def to_sarif(result: ScanResult, include_handled: bool = False) -> dict[str, Any]:
    rules = [{
        "id": r.id,
        "name": r.name,
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": r.help},
        "help": {"text": r.help, "markdown": f"**{r.summary}**\n\n{r.help}\n\nExample (`{r.example[0]}`):\n\n"
                 f"```\n{r.example[1]}```"},
        "helpUri": f"{INFO_URI}#{r.id.lower()}",
        "defaultConfiguration": {"level": r.severity.sarif_level},
        "properties": {"tags": ["rocm-spirv", "portability"]},
    } for r in RULES.values()]
    index = {r.id: i for i, r in enumerate(RULES.values())}
    results = []
    for f, fp in zip(result.findings, fingerprints(result.findings), strict=True):
        if f.handled and not include_handled:
            continue
        entry: dict[str, Any] = {
            "ruleId": f.rule.id,
            "ruleIndex": index[f.rule.id],
            "level": f.severity.sarif_level,
            "message": {"text": f"{f.message}. Fix: {f.fix}"},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": f.path, "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": f.line, "startColumn": max(1, f.column),
                           **({"endLine": f.end_line} if f.end_line > f.line else {})},
            }}],
            "partialFingerprints": {FINGERPRINT_KEY: fp},
            "properties": {"redirect": f.redirect.value, "source": f.source},
        }
        if f.suppressed:
            entry["suppressions"] = [{"kind": "inSource", "justification": "rocm-spirv: ignore comment"}]
        results.append(entry)
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "rocm-spirv-migrate", "version": __version__,
                                "informationUri": INFO_URI, "rules": rules}},
            "results": results,
        }],
    }
