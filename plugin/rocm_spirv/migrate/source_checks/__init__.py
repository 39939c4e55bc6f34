"""The source checks, one module per topic, each declaring its rules beside the code that words their
findings; source_rules walks a file's lines and preprocessor branches and calls them."""

from __future__ import annotations

from rocm_spirv.migrate.findings import Finding, Redirect, Rule


def finding(rule: Rule, path: str, line: int, col: int, msg: str, fix: str, snippet: str,
            conditions: tuple[str, ...] = ()) -> Finding:
    """A source finding: reported only (--apply never edits a source), its snippet the line, trimmed."""
    return Finding(rule, path, line, col, msg, fix, Redirect.SOURCE, False, snippet.strip()[:120], conditions)
