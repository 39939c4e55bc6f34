"""Views of a scan: compiler-style text, the rich table, JSON. The JSON layout is documented in docs/migrate.md."""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Callable
from typing import Any, TextIO

from rich.console import Console
from rich.table import Table

from rocm_spirv.jsondoc import schema_id
from rocm_spirv.migrate.findings import Finding, ScanResult
from rocm_spirv.migrate.gate import TOOLCHAIN_HANDLED, Gate, Verdict, fingerprints
from rocm_spirv.term import PIPE_WIDTH, columns, esc, plain, table_or_lines

JSON_SCHEMA_ID = schema_id("migrate")
_STYLE = {"error": "red", "warning": "yellow", "note": "cyan"}


def summary(result: ScanResult) -> dict[str, Any]:
    remaining = result.remaining
    return {
        "files_scanned": result.files_scanned,
        "findings": len(result.findings),
        "remaining": len(remaining),
        "handled": sum(f.handled for f in result.findings),
        "suppressed": sum(f.suppressed and not f.handled for f in result.findings),
        "by_severity": dict(sorted(Counter(f.severity.value for f in remaining).items())),
        "by_rule": dict(sorted(Counter(f.rule.id for f in remaining).items())),
        "by_redirect": dict(sorted(Counter(f.redirect.value for f in remaining).items())),
        "errors": len(result.errors),
    }


def to_json(result: ScanResult, mode: str, changed: list[str], verdict: Verdict | None = None,
            gate: Gate | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "schema": JSON_SCHEMA_ID,
        "root": result.root,
        "mode": mode,
        "summary": summary(result),
        "changed_files": sorted(changed),
        "findings": [f.to_json() | {"fingerprint": fp}
                     for f, fp in zip(result.findings, fingerprints(result.findings), strict=True)],
        "errors": [{"path": r.path, "message": r.error} for r in result.errors],
    }
    if verdict is not None and gate is not None:
        out["gate"] = {"fail_on": gate.fail_on, "failing": len(verdict.failing), "baselined": verdict.baselined,
                       "suppressed": verdict.suppressed, "toolchain_handled": verdict.toolchain,
                       "left_out": dict(verdict.left_out)}
    return out


def _wrap(text: str, width: int) -> list[str]:
    """Indented continuation lines; words (paths, ids, flags) are never split."""
    return textwrap.wrap(text, width=width, initial_indent="    ", subsequent_indent="      ",
                         break_long_words=False, break_on_hyphens=False) or ["    "]


def finding_lines(f: Finding, width: int, markup: bool = False) -> list[str]:
    """One finding as `path:line:col: severity: message [RSMxxx]`, its remedy wrapped under it. With
    markup: rich markup (user text escaped, the severity colored) for a console, same text."""
    text = esc if markup else plain
    sev = f"[{_STYLE[f.severity.value]}]{f.severity.value}[/]" if markup else f.severity.value
    lines = [f"{text(f.path)}:{f.line}:{max(1, f.column)}: {sev}: {text(f.message)} {text(f'[{f.rule.id}]')}"]
    lines += [text(line) for line in _wrap(f"fix: {plain(f.fix)}", width)]
    if f.redirect in TOOLCHAIN_HANDLED:
        lines.append(text(f"    (the generated toolchain file handles this: redirect {f.redirect.value})"))
    return lines


def write_text(out: TextIO, result: ScanResult, mode: str, changed: list[str], verdict: Verdict, gate: Gate,
               width: int = PIPE_WIDTH) -> None:
    """`path:line:col: severity: message [RSMxxx]` per finding (one line, whole, for editors and CI
    problem matchers), the remedy wrapped under it, then one summary line."""
    for f in result.remaining:
        for line in finding_lines(f, width):
            out.write(line + "\n")
    for r in result.errors:
        out.write(f"{plain(r.path)}: error: {plain(r.error)}\n")
    s = summary(result)
    by = s["by_severity"]
    counts = ", ".join(f"{by[k]} {k}{'s' if by[k] != 1 else ''}" for k in ("error", "warning", "note") if k in by)
    extra = [f"{verdict.toolchain} handled by the toolchain file" if verdict.toolchain else "",
             f"{s['handled']} already handled" if s["handled"] else "",
             f"{verdict.suppressed} suppressed" if verdict.suppressed else "",
             f"{verdict.baselined} in the baseline" if verdict.baselined else "",
             f"{len(result.errors)} unreadable" if result.errors else "",
             *(f"{n} {rid} left out (adoption, not per-arch: --select {rid} lists "
               f"{'them' if n != 1 else 'it'}, --apply makes the edits)" for rid, n in verdict.left_out)]
    tail = "; ".join(e for e in extra if e)
    files = f"{s['files_scanned']} file{'s' if s['files_scanned'] != 1 else ''}"
    out.write(f"{files} scanned: {counts or 'no findings'}; {len(verdict.failing)} fail --check "
              f"(--fail-on {gate.fail_on}){'; ' + tail if tail else ''}\n")
    line = changes_line(mode, changed, plain)
    if line:
        out.write(line + "\n")


def changes_line(mode: str, changed: list[str], quote: Callable[[object], str]) -> str:
    """What --apply changed, or would change; "" when there is nothing to say. quote: plain or esc."""
    if mode == "apply":
        return f"changed {len(changed)} file(s): {quote(', '.join(sorted(changed))) or 'none'}"
    if changed and mode in ("report", "check"):
        return f"--apply would change {len(changed)} CMake file(s); --diff shows how"
    return ""


def print_table(console: Console, result: ScanResult, mode: str, changed: list[str], width: int = PIPE_WIDTH) -> None:
    """The findings as a table on a terminal wide enough for every value whole; else (narrower, or a
    pipe) as the text format's lines, colored the same, so nothing is folded or cut (term.table_or_lines)."""
    remaining = result.remaining
    if remaining:
        title = f"rocm-spirv migrate: {esc(result.root)}"
        table = Table(title=title, show_lines=False)
        for col in ("where", "rule", "severity", "redirect"):
            table.add_column(col, no_wrap=True)  # ids and paths whole; the prose columns wrap between words
        for col in ("finding", "fix"):
            table.add_column(col)
        for f in remaining:
            sev = f.severity.value
            table.add_row(f"{esc(f.path)}:{f.line}", f"{f.rule.id} {f.rule.name}", f"[{_STYLE[sev]}]{sev}[/]",
                          f.redirect.value, esc(f.message), esc(f.fix))
        table_or_lines(console, table, [title, *(line for f in remaining for line in finding_lines(f, width, True))],
                       markup=True)
    for r in result.errors:
        console.print(f"[red]skipped[/] {esc(r.path)}: {esc(r.error)}")
    s = summary(result)
    sev = ", ".join(f"{n} {k}" for k, n in s["by_severity"].items()) or "none"
    console.print(f"{s['files_scanned']} files scanned; {s['remaining']} findings remain ({sev}); "
                  f"{s['handled']} already handled")
    line = changes_line(mode, changed, esc)
    if line:
        console.print(line)


def write_statistics(out: TextIO, result: ScanResult) -> None:
    """`--statistics`: one line per rule with findings left, most first (as ruff's), for a first look at a
    large tree; the lines stay whole in a pipe."""
    counts = Counter(f.rule for f in result.remaining)
    # The severity column is as wide as "warning" whatever the rules shown; name and summary run on.
    rows = [[str(n), rule.id, f"{rule.severity.value:<7}", f"{rule.name}  {plain(rule.summary)}"]
            for rule, n in sorted(counts.items(), key=lambda item: (-item[1], item[0].id))]
    for line in columns(rows, right={0}):
        out.write(line + "\n")
    total = sum(counts.values())
    out.write(f"{total} finding{'s' if total != 1 else ''} in {len(counts)} rule{'s' if len(counts) != 1 else ''}"
              f"{f'; {len(result.errors)} unreadable' if result.errors else ''}\n")
