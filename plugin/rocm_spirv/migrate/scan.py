"""Run every rule over a tree: the one place that reads files. Returns data; writes nothing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rocm_spirv.fsutil import NotRegularFile, read_regular
from rocm_spirv.migrate import cmake_rules, presets, source_rules
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


def _read(path: Path) -> tuple[str | None, str]:
    """(text, "") or (None, why the file is skipped). FIFOs and devices are refused, never opened
    blocking: a FIFO named kernels.hip would otherwise hang the scan."""
    try:
        data = read_regular(path, MAX_BYTES)
    except NotRegularFile as err:
        return None, f"{err.strerror}; skipped"
    except OSError as err:
        return None, f"unreadable ({err.strerror or err}); skipped"
    if data is None:
        return None, "larger than 4 MiB; skipped"
    return data.decode("utf-8", errors="replace"), ""


def scan(root: Path, exclude: Sequence[str] = ()) -> Scan:
    base = root if root.is_dir() else root.parent
    result = ScanResult(str(root))
    out = Scan(result)
    top = base / "CMakeLists.txt"
    top_policy = None
    if root.is_dir() and top.is_file():
        text, _ = _read(top)
        if text is not None:
            top_policy = cmake_rules.analyze("CMakeLists.txt", text, Context(top_level=True))[1].policy_version
    for rel, kind in walk(root, exclude):
        result.files_scanned += 1
        text, why = _read(base / rel)
        if text is None:
            result.files.append(FileReport(rel, kind, error=why))
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
        else:
            report = source_rules.analyze(rel, text)
        if report.findings or report.edits or report.error:
            result.files.append(report)
    return out
