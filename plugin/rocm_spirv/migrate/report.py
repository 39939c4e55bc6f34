"""Human (rich) and JSON views of a scan. The JSON layout is documented in docs/migrate.md."""

from __future__ import annotations

from collections import Counter
from typing import Any

from rich.console import Console
from rich.table import Table

from rocm_spirv.migrate.findings import ScanResult
from rocm_spirv.term import esc

JSON_SCHEMA_ID = "rocm-spirv/migrate-report/1"
_STYLE = {"error": "red", "warning": "yellow", "note": "cyan"}


def summary(result: ScanResult) -> dict[str, Any]:
    remaining = result.remaining
    return {
        "files_scanned": result.files_scanned,
        "findings": len(result.findings),
        "remaining": len(remaining),
        "handled": len(result.findings) - len(remaining),
        "by_severity": dict(sorted(Counter(f.severity.value for f in remaining).items())),
        "by_rule": dict(sorted(Counter(f.rule.id for f in remaining).items())),
        "by_redirect": dict(sorted(Counter(f.redirect.value for f in remaining).items())),
        "errors": len(result.errors),
    }


def to_json(result: ScanResult, mode: str, changed: list[str]) -> dict[str, Any]:
    return {
        "schema": JSON_SCHEMA_ID,
        "root": result.root,
        "mode": mode,
        "summary": summary(result),
        "changed_files": sorted(changed),
        "findings": [f.to_json() for f in result.findings],
        "errors": [{"path": r.path, "message": r.error} for r in result.errors],
    }


def print_human(console: Console, result: ScanResult, mode: str, changed: list[str]) -> None:
    remaining = result.remaining
    if remaining:
        table = Table(title=f"rocm-spirv migrate: {esc(result.root)}", show_lines=False)
        for col in ("where", "rule", "severity", "redirect", "finding", "fix"):
            table.add_column(col, overflow="fold")
        for f in remaining:
            sev = f.severity.value
            table.add_row(f"{esc(f.path)}:{f.line}", f"{f.rule.id} {f.rule.name}", f"[{_STYLE[sev]}]{sev}[/]",
                          f.redirect.value, esc(f.message), esc(f.fix))
        console.print(table)
    for r in result.errors:
        console.print(f"[red]skipped[/] {esc(r.path)}: {esc(r.error)}")
    s = summary(result)
    sev = ", ".join(f"{n} {k}" for k, n in s["by_severity"].items()) or "none"
    console.print(f"{s['files_scanned']} files scanned; {s['remaining']} findings remain ({sev}); "
                  f"{s['handled']} already handled")
    if mode == "apply":
        console.print(f"changed {len(changed)} file(s): {esc(', '.join(sorted(changed))) or 'none'}")
    elif changed and mode in ("report", "check"):
        console.print(f"--apply would change {len(changed)} CMake file(s); --diff shows how")
