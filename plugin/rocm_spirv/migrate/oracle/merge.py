"""One report from two sources: the static scan's findings and the oracle's, one finding per construct.
Pure: a ScanResult and oracle findings in, the same ScanResult with both merged."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from rocm_spirv.migrate import gate
from rocm_spirv.migrate.cmake_lexer import CMakeSyntaxError, parse
from rocm_spirv.migrate.findings import FileReport, Finding, ScanResult

SOURCE_SUFFIXES = (".hip", ".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hh", ".hpp", ".hxx", ".inl", ".ipp")


def _family(rule: str) -> str:
    """RSM1xx (CMake) and RSM2xx (sources) constructs are compared within their kind."""
    return rule[:4]


LOOP_RULES = frozenset({"RSM107", "RSM109"})  # a per-arch loop is one construct with the commands in it


def _loops_around(text: str | None, line: int) -> set[int]:
    """The lines of the foreach() commands whose loop holds line (the static scan reports a per-arch loop
    at its foreach; the oracle at the command in it)."""
    if not text:
        return set()
    try:
        commands = parse(text)
    except (CMakeSyntaxError, RecursionError):
        return set()
    out, open_ = set(), []
    for c in commands:
        if c.name == "foreach":
            open_.append(c.line)
        elif c.name == "endforeach" and open_:
            start = open_.pop()
            if start < line <= c.line:
                out.add(start)
    return out


def merge(result: ScanResult, oracle: list[Finding], read: Callable[[str], str | None]) -> tuple[int, int]:
    """Put the oracle's findings into result. A static finding on the same construct (file, line and
    rule family) is kept, marked `both`; the rest of the oracle's are added as `configure`. Returns
    (oracle findings also found statically, oracle findings only the oracle found)."""
    reports = {r.path: r for r in result.files}
    both = only = 0
    added = False
    for f in oracle:
        report = reports.get(f.path)
        match = None
        if report is not None:
            lines = {f.line} | (_loops_around(read(f.path), f.line) if f.rule.id.startswith("RSM1") else set())
            match = next((i for i, s in enumerate(report.findings)
                          if s.line in lines and _family(s.rule.id) == _family(f.rule.id)
                          and (s.line == f.line or s.rule.id in LOOP_RULES)), None)
        if report is not None and match is not None:
            if report.findings[match].source == "static":
                report.findings[match] = replace(report.findings[match], source="both")
            both += 1
            continue
        if report is None:
            kind = "source" if f.path.endswith(SOURCE_SUFFIXES) else "cmake"
            report = reports[f.path] = FileReport(f.path, kind)
            result.files.append(report)
            added = True
        if any(o.line == f.line and _family(o.rule.id) == _family(f.rule.id) for o in report.findings):
            continue  # two oracle findings on one construct (a compile error and a region): the first stands
        text = read(f.path)
        found = [f]
        if text is not None:
            gate.mark_suppressed(found, text)
        report.findings.append(found[0])
        only += 1
    for r in result.files:
        r.findings.sort(key=lambda x: (x.line, x.column))
    if added:  # the oracle's files among the scan's, by path
        result.files.sort(key=lambda r: r.path)
    return both, only
