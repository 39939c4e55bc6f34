"""Run every rule over a tree: the one place that reads files. Returns data; writes nothing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rocm_spirv.migrate import cmake_rules, gate, make_rules, presets, source_rules
from rocm_spirv.migrate.cmake_rules import CMakeFacts, Context
from rocm_spirv.migrate.findings import FileReport, ScanResult
from rocm_spirv.migrate.walk import walk

MAX_BYTES = 4 << 20  # larger files are generated data, not build logic or kernels


@dataclass
class Scan:
    """A ScanResult plus what planning edits needs: texts and facts of files that may be edited."""

    result: ScanResult
    texts: dict[str, str] = field(default_factory=dict)  # files with edits, and the top-level CMakeLists.txt
    facts: dict[str, CMakeFacts] = field(default_factory=dict)
    any_find_package: bool = False


def _read(path: Path) -> str | None:
    try:
        if path.stat().st_size > MAX_BYTES:
            return None
        return path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return None


def scan(root: Path, exclude: Sequence[str] = ()) -> Scan:
    base = root if root.is_dir() else root.parent
    result = ScanResult(str(root))
    out = Scan(result)
    top = base / "CMakeLists.txt"
    top_policy = None
    if root.is_dir() and top.is_file():
        text = _read(top)
        if text is not None:
            top_policy = cmake_rules.analyze("CMakeLists.txt", text, Context(top_level=True))[1].policy_version
    arch_macros: set[str] = set()
    live_macros: set[str] = set()
    for rel, kind in walk(root, exclude):
        result.files_scanned += 1
        text = _read(base / rel)
        if text is None:
            result.files.append(FileReport(rel, kind, error="unreadable or larger than 4 MiB; skipped"))
            continue
        if kind == "cmake":
            is_top = rel == "CMakeLists.txt" and root.is_dir()
            report, facts = cmake_rules.analyze(rel, text, Context(top_policy, is_top))
            out.any_find_package = out.any_find_package or facts.has_find_package
            if report.edits or is_top:
                out.texts[rel] = text
                out.facts[rel] = facts
        elif kind == "presets":
            report = presets.analyze(rel, text)
        elif kind == "make":
            report = make_rules.analyze(rel, text)
        else:
            report = source_rules.analyze(rel, text)
            arch_macros |= report.arch_macros
            live_macros |= report.live_macros
        if report.findings:
            gate.mark_suppressed(report.findings, text)
        if report.findings or report.edits or report.error:
            result.files.append(report)
    _drop_arch_derived(result, arch_macros - live_macros)
    if live_macros & source_rules.WAVEFRONT_NAMES:
        _drop_wavefront_uses(result)
    return out


def _drop_wavefront_uses(result: ScanResult) -> None:
    """The project #defines the wavefront macro itself (a fallback of 64): that definition is the one finding."""
    for report in result.files:
        if report.kind == "source":
            report.findings[:] = [f for f in report.findings
                                  if not (f.rule.id == "RSM202" and f.message.endswith(source_rules.WAVE_USE))]
    result.files[:] = [r for r in result.files if r.findings or r.edits or r.error]


def _drop_arch_derived(result: ScanResult, derived: set[str]) -> None:
    """A macro one header defines only under arch macros (`#define HAS_MFMA` inside `#if defined(__gfx90a__)`)
    is undefined under SPIR-V everywhere: code behind it elsewhere is dead, and its definition is the finding."""
    if not derived:
        return
    for report in result.files:
        if report.kind == "source":
            report.findings[:] = [f for f in report.findings if source_rules.live_under(f.conditions, derived)]
    result.files[:] = [r for r in result.files if r.findings or r.edits or r.error]
