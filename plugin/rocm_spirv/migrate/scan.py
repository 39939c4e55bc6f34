"""Run every rule over a tree: the one place that reads files. Returns data; writes nothing."""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rocm_spirv.fsutil import NotRegularFile, read_regular_stat
from rocm_spirv.migrate import build_scripts, cmake_rules, gate, make_rules, presets, source_rules
from rocm_spirv.migrate.cmake_checks import findhip
from rocm_spirv.migrate.cmake_lexer import CMakeSyntaxError, parse
from rocm_spirv.migrate.cmake_rules import CMakeFacts, Context
from rocm_spirv.migrate.cmake_targets import assigned_names, module_paths
from rocm_spirv.migrate.cmake_words import FINDHIP_LIST
from rocm_spirv.migrate.findings import CondDefine, FileReport, Finding, ScanResult
from rocm_spirv.migrate.pp import IDENT
from rocm_spirv.migrate.source_checks import arch_macros, wave_size
from rocm_spirv.migrate.walk import UNREADABLE, walk

MAX_BYTES = 4 << 20  # larger files are generated data, not build logic or kernels
BOM = "\ufeff"


def decode(data: bytes) -> str:
    """Bytes to text and back without losing one: UTF-8, with any other byte kept as a lone surrogate
    (surrogateescape), so Latin-1, mixed encodings and stray bytes survive an edit exactly."""
    return data.decode("utf-8", errors="surrogateescape")


def encode(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogateescape")


@dataclass(frozen=True)
class Stamp:
    """What a file was when it was read; --apply replaces it only while it still is."""

    size: int
    mtime_ns: int
    sha256: str

    @classmethod
    def of(cls, st: os.stat_result, data: bytes) -> Stamp:
        return cls(st.st_size, st.st_mtime_ns, hashlib.sha256(data).hexdigest())


@dataclass
class Scan:
    """A ScanResult plus what planning edits needs: texts and facts of files that may be edited."""

    result: ScanResult
    texts: dict[str, str] = field(default_factory=dict)  # files with edits, the top level, project() files
    stamps: dict[str, Stamp] = field(default_factory=dict)  # of the files in texts
    bom: set[str] = field(default_factory=set)  # files in texts that start with a UTF-8 BOM (texts do not)
    facts: dict[str, CMakeFacts] = field(default_factory=dict)  # of those and of files finding or using RocmSpirv


@dataclass(frozen=True)
class Read:
    text: str | None
    why: str = ""  # why text is None
    st: os.stat_result | None = None
    data: bytes = b""

    def stamp(self) -> Stamp | None:
        """Hashed only for the few files planning may edit."""
        return None if self.st is None else Stamp.of(self.st, self.data)


def _read(path: str) -> Read:
    try:
        # A FIFO named kernels.hip must not hang the scan: read_regular_stat refuses it without blocking.
        st, data = read_regular_stat(path, MAX_BYTES)
    except NotRegularFile as err:
        return Read(None, why=f"{err.strerror}; skipped")
    except FileNotFoundError as err:
        try:  # an editor's lock file (.#k.hip), a link into a submodule not checked out
            return Read(None, why=f"a symbolic link to a missing file ({os.readlink(path)}); skipped")
        except OSError:  # no link (the file went away since the walk listed it)
            return Read(None, why=f"unreadable ({err.strerror or err}); skipped")
    except OSError as err:
        return Read(None, why=f"unreadable ({err.strerror or err}); skipped")
    if data is None:
        return Read(None, why=f"larger than {MAX_BYTES >> 20} MiB; skipped")
    return Read(decode(data), st=st, data=data)


def for_analysis(text: str) -> str:
    """CMake reads a UTF-8 byte order mark as nothing, and so do the rules: it is put back on write."""
    return text[1:] if text.startswith(BOM) else text


def _scope(facts: cmake_rules.CMakeFacts) -> tuple[tuple[tuple[str, str], ...], frozenset[str]]:
    """What a CMakeLists.txt hands the directories below it: its variables at the end, and its arch lists."""
    return tuple(facts.variables.items()), facts.arch_lists


def scan(root: Path, exclude: Sequence[str] = ()) -> Scan:
    base = root if root.is_dir() else root.parent
    result = ScanResult(str(root))
    out = Scan(result)
    modules = _Modules(base if root.is_dir() else None)
    top_policy = None
    # directory -> the scope its CMakeLists.txt ends with: variables, and which of them hold arch names
    scopes: dict[str, tuple[tuple[tuple[str, str], ...], frozenset[str]]] = {}
    # The top-level file is analyzed once, before the walk: every other file needs its policy version and
    # scope, and the walk reuses the result (a second pass doubled the time of a 4 MiB CMakeLists.txt).
    top: tuple[str, tuple[FileReport, CMakeFacts]] | None = None
    if root.is_dir():
        first = _read(os.path.join(base, "CMakeLists.txt")).text
        if first is not None:
            try:
                ctx = Context(top_level=True, module_vars=modules.sets("CMakeLists.txt", first),
                              module_functions=modules.functions("CMakeLists.txt", first))
                analyzed = cmake_rules.analyze("CMakeLists.txt", for_analysis(first), ctx)
                top = first, analyzed
                top_policy, scopes[""] = analyzed[1].policy_version, _scope(analyzed[1])
            except RecursionError:
                pass  # reported with the file itself, in the walk below

    def inherited(rel_dir: str) -> tuple[tuple[tuple[str, str], ...], frozenset[str]]:
        """The scope a CMakeLists.txt in rel_dir starts with: that of the nearest directory above with a
        CMakeLists.txt (the one that add_subdirectory()s it, in the usual layout), at its end."""
        if not root.is_dir() or not rel_dir:
            return (), frozenset()
        parent = posixpath.dirname(rel_dir)
        while parent not in scopes:
            text = _read(os.path.join(base, parent, "CMakeLists.txt")).text
            if text is not None:
                ctx = Context(top_policy, False, *inherited(parent))
                try:
                    scopes[parent] = _scope(cmake_rules.analyze(posixpath.join(parent, "CMakeLists.txt"),
                                                                for_analysis(text), ctx)[1])
                except RecursionError:
                    scopes[parent] = (), frozenset()  # reported with the file itself
            elif not parent:
                scopes[parent] = (), frozenset()
            else:
                parent = posixpath.dirname(parent)
        return scopes[parent]

    arch_macros: set[str] = set()
    live_macros: set[str] = set()
    cond_reports: list[FileReport] = []  # sources with #defines that may turn out arch-derived
    defines: set[str] = set()  # every macro a scanned source #defines
    wave_aliases: set[str] = set()
    arch_tests: set[str] = set()  # macros some source defines as an arch test
    need_reports: list[FileReport] = []  # sources with findings that hold only once every file is read
    graph: dict[str, tuple[frozenset[str], frozenset[str], tuple[str, ...]]] = {}  # path -> arch, live, includes
    foreign: set[str] = set()  # macros a source defines only where no AMD device compile goes
    warp_decls: set[str] = set()  # sources that declare a constant of their own named warpSize
    named: set[str] = set()  # macros defined, or named by a build file, anywhere else
    cmake_functions: set[str] = set()  # FindHIP's command names the project defines as its own function()
    build_arch_defines: set[str] = set()  # macros CMake defines for the compile only in a branch on the target list
    device_defines: set[str] = set()  # macros some source #defines to __device__ (a project's device marker)

    kernel_reports: list[FileReport] = []  # sources with findings inside __global__ function templates
    cmake_calls: set[str] = set()  # every command some CMake file calls
    looped_functions: set[str] = set()  # functions a per-arch loop of some CMake file calls
    caller_reports: list[FileReport] = []  # CMake files with findings in their own function() or macro()
    local_reports: list[FileReport] = []  # translation units with findings in inline code they never name
    header_reports: list[FileReport] = []  # headers with findings inside their helpers

    def take_source(rel: str, text: str, build_macros: frozenset[str]) -> FileReport:
        """One source's findings, and what it tells the scan about the other files."""
        nonlocal foreign, named, arch_macros, live_macros, defines, wave_aliases, arch_tests
        report = source_rules.analyze(rel, text, build_macros=build_macros)
        device_defines.update(source_rules.device_macros(text))
        foreign |= report.foreign_macros
        named |= report.defines - report.foreign_macros if report.defines else _defined_names(text)
        arch_macros |= report.arch_macros
        live_macros |= report.live_macros
        defines |= report.defines
        wave_aliases |= report.wave_aliases
        arch_tests |= report.arch_tests
        if report.needs:
            need_reports.append(report)
        if report.includes or report.arch_macros or report.declares_warp:
            graph[rel] = (frozenset(report.arch_macros), frozenset(report.live_macros), report.includes)
        if report.declares_warp:
            warp_decls.add(rel)
        if report.kernel_templates:
            kernel_reports.append(report)
        if report.local_units:
            local_reports.append(report)
        if report.header_units:
            header_reports.append(report)
        return report

    def keep(report: FileReport, text: str) -> None:
        """Suppression comments applied; the report kept if it says anything."""
        if report.findings:
            gate.mark_suppressed(report.findings, text)
        if report.pending:
            gate.mark_suppressed(report.pending, text)
        if report.cond_defines:
            cond_reports.append(report)
        if report.findings or report.edits or report.error or report.pending:
            result.files.append(report)

    for rel, kind in walk(root, exclude):
        if kind == UNREADABLE:
            result.files.append(FileReport(rel, "folder", error="folder cannot be listed (permission denied?); "
                                           "its files were not checked"))
            continue
        result.files_scanned += 1
        read = _read(os.path.join(base, rel))
        text = read.text
        if text is None:
            result.files.append(FileReport(rel, kind, error=read.why))
            continue
        try:
            if kind == "cmake":
                is_top = rel == "CMakeLists.txt" and root.is_dir()
                rel_dir = posixpath.dirname(rel)
                scope = inherited(rel_dir) if posixpath.basename(rel) == "CMakeLists.txt" else ((), frozenset())
                if is_top and top is not None and top[0] == text:
                    report, facts = top[1]
                else:
                    ctx = Context(top_policy, is_top, *scope, module_vars=modules.sets(rel, text),
                                  module_functions=modules.functions(rel, text))
                    report, facts = cmake_rules.analyze(rel, for_analysis(text), ctx)
                if posixpath.basename(rel) == "CMakeLists.txt":
                    scopes.setdefault(rel_dir, _scope(facts))
                build_arch_defines |= facts.arch_defines
                cmake_calls |= facts.calls
                looped_functions |= facts.looped_functions
                if report.needs:
                    caller_reports.append(report)
                # A project() file may gain find_package(RocmSpirv) for the files below it (projects.py).
                if report.edits or is_top or facts.project_end is not None:
                    out.texts[rel] = for_analysis(text)
                    if text.startswith(BOM):
                        out.bom.add(rel)
                    stamp = read.stamp()
                    if stamp is not None:
                        out.stamps[rel] = stamp
                if rel in out.texts or facts.has_find_package or facts.calls_package:
                    out.facts[rel] = facts
            elif kind == "presets":
                report = presets.analyze(rel, for_analysis(text))
            elif kind == "make":
                report = make_rules.analyze(rel, text)
                build_arch_defines |= report.arch_macros  # -D… set only in a make chain on gfx names
            elif kind in build_scripts.KINDS:
                report = build_scripts.analyze(rel, text, kind)
            else:
                report = take_source(rel, text, frozenset())
            # FindHIP.cmake vendored into the tree defines them too: that is FindHIP (HCC_AMDGPU_TARGET its list)
            if kind == "cmake" and "hip_add_" in text and posixpath.basename(rel).lower() != "findhip.cmake" \
                    and FINDHIP_LIST not in text:
                cmake_functions |= {n.lower() for n in CMAKE_FUNCTION.findall(text)} & set(findhip.FINDHIP_COMMANDS)
            if kind in ("cmake", "make"):
                named |= set(BUILD_WORD.findall(text))  # -DPTX_AVAILABLE, target_compile_definitions(… X)
        except RecursionError as err:  # absurdly nested JSON, CMake or #if: data, not build logic
            why = str(err) if str(err).startswith(("blocks", "#if")) else "nested too deeply to analyze"
            report = FileReport(rel, kind, error=f"{why}; skipped")
        keep(report, text)
    build_arch_defines -= defines  # a macro a source #defines is the project's own
    if build_arch_defines:
        # `#if !defined(HIP_NO_TENSOR_CORE)` where CMake defines it only for gfx906: a source with nothing else
        # a rule looks for, passed over before the build files had all been read. A second walk, not a list of
        # those files: that list grew with the tree (2.4x the traced peak at 50,000 files), and build-defined
        # per-arch macros are rare.
        wanted = frozenset(build_arch_defines)
        for rel, text in _sources(root, base, exclude):
            if any(n in text for n in wanted) and source_rules.passed_over(text):
                try:
                    keep(take_source(rel, text, wanted), text)
                except RecursionError as err:
                    keep(FileReport(rel, "source", error=f"{err}; skipped"), text)
        build_arch_defines -= defines
    arch_tests |= build_arch_defines
    # Three checks need every file read first; one later walk feeds them all, taken only when one has work.
    odd_aliases = frozenset(a for a in wave_aliases if not wave_size.WAVE_WORD.search(a))
    alias_uses = _OddAliasUses(result, odd_aliases) if odd_aliases else None
    name_counts = _NameCounts(kernel_reports) if kernel_reports else None
    includers = _IncluderNames(local_reports) if local_reports else None
    helper_uses = _HelperUses(header_reports) if header_reports else None
    later = [c for c in (alias_uses, name_counts, includers, helper_uses) if c is not None]
    if later:
        for rel, text in _sources(root, base, exclude):
            for collector in later:
                collector.take(rel, text)
    for report in need_reports:
        _keep_needed(report, defines, wave_aliases, arch_tests, build_arch_defines, device_defines)
    if build_arch_defines:
        _drop_build_selected(result, build_arch_defines)
    cond_defines = [d for r in cond_reports for d in r.cond_defines]
    derived = _derive(arch_macros, live_macros, cond_defines)
    for report in cond_reports:
        source_rules.promote(report, derived)
    live_macros |= {d.name for d in cond_defines} - derived
    if cmake_functions:
        _drop_project_findhip(result, cmake_functions)
    for report in caller_reports:
        _drop_uncalled(report, cmake_calls, looped_functions)
    _drop_arch_derived(result, derived)
    _drop_foreign(result, foreign - named - live_macros - arch_macros)
    _drop_include_derived(result, graph, derived, base)
    _drop_project_warp(result, graph, warp_decls, base)
    if name_counts is not None:
        _drop_uninstantiated(kernel_reports, name_counts.once())
    if includers is not None:
        includers.settle()
        _drop_unnamed_locals(local_reports, includers.named, includers.included)
    if helper_uses is not None:
        helper_uses.drop_unused()
    if live_macros & wave_size.WAVEFRONT_NAMES:
        _drop_wavefront_uses(result)
    result.files[:] = [r for r in result.files if r.findings or r.edits or r.error]
    return out


_DEFINES_FUNCTION = re.compile(r"^[ \t]*(?:function|macro)[ \t]*\(", re.IGNORECASE | re.MULTILINE)


class _Modules:
    """What a CMake file's include()d project modules give it, each module read once (where include() looks:
    cmake_targets.module_paths): the variables they set, and their function()s and macro()s that run a per-arch
    flag or command on a parameter."""

    def __init__(self, base: Path | None) -> None:
        self.base = base
        self.known: dict[str, tuple[frozenset[str], tuple[tuple[str, frozenset[str]], ...]]] = {}

    def sets(self, rel: str, text: str) -> frozenset[str]:
        return frozenset().union(*(names for names, _ in self._modules(rel, text)))

    def functions(self, rel: str, text: str) -> tuple[tuple[str, frozenset[str]], ...]:
        return tuple(f for _, functions in self._modules(rel, text) for f in functions)

    def _modules(self, rel: str, text: str) -> list[tuple[frozenset[str], tuple[tuple[str, frozenset[str]], ...]]]:
        if self.base is None:
            return []
        out = []
        for cand in module_paths(posixpath.dirname(rel), text):
            if cand not in self.known:
                self.known[cand] = self._analyze(cand)
            out.append(self.known[cand])
        return out

    def _analyze(self, rel: str) -> tuple[frozenset[str], tuple[tuple[str, frozenset[str]], ...]]:
        assert self.base is not None
        none: tuple[frozenset[str], tuple[tuple[str, frozenset[str]], ...]] = (frozenset(), ())
        path = os.path.join(self.base, rel)
        if not os.path.isfile(path):
            return none
        text = _read(path).text
        if text is None:
            return none
        try:
            names = assigned_names(parse(cmake_rules.untemplated(for_analysis(text))))
            # the module's own walk, only where it defines a function (most modules set variables and call
            # find_package): what it reports is reported with the module itself
            functions = cmake_rules.analyze(rel, for_analysis(text))[1].per_arch_functions \
                if _DEFINES_FUNCTION.search(text) else ()
        except (CMakeSyntaxError, RecursionError):
            return none  # reported with the file itself
        return names, functions


def _derive(arch: set[str], live: set[str], cond_defines: list[CondDefine]) -> set[str]:
    """Macros undefined under SPIR-V: never defined in surely-live code (live) and otherwise only in dead arch
    branches (arch) or in branches that are dead once those are known, to a fixed point: CDNA3 under
    __gfx942__, CDNA under CDNA3, a feature macro under `defined(USE_HIP) && defined(CDNA)` in another file.
    Three-valued evaluation only ever turns an undecided branch dead, so each round can only add macros."""
    by_name: dict[str, list[CondDefine]] = {}
    for d in cond_defines:
        by_name.setdefault(d.name, []).append(d)
    # a branch can only turn dead through a derived macro it tests: a set test before evaluating
    tests = {name: [set(IDENT.findall(" ".join(d.conditions))) for d in defs]
             for name, defs in by_name.items()}
    derived = arch - live - by_name.keys()
    while True:
        new = {name for name, defs in by_name.items() if name not in derived and name not in live
               and all(t & derived for t in tests[name])
               and all(not source_rules.live_under(d.conditions, derived) for d in defs)}
        if not new:
            return derived
        derived |= new


class _OddAliasUses:
    """Uses of a wave-size alias whose name says neither warp nor wave (qiskit-aer's `#define _WS warpSize` in
    one header, `__shared__ double cache[_MAX_THD / _WS]` in another) as a compile-time constant: the first walk
    looks for those by name only in the file that defines them, so the files naming one are read again with
    every file's aliases known."""

    def __init__(self, result: ScanResult, aliases: frozenset[str]) -> None:
        self.result = result
        self.aliases = aliases
        self.word = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, aliases))) + r")\b")
        self.reports = {r.path: r for r in result.files if r.kind == "source"}

    def take(self, rel: str, text: str) -> None:
        if self.word.search(text) is None:
            return
        try:
            again = source_rules.analyze(rel, text, wave_aliases=self.aliases)
        except RecursionError:
            return  # the first walk reported it
        report = self.reports.get(rel)
        seen = {(f.line, f.column) for f in report.findings} if report is not None else set()
        # only uses of these aliases: the same pass also reads names like a template parameter `WarpSize`, which
        # the first walk let go because no file defines them on warpSize (FileReport.needs)
        new = [f for f in again.findings if f.message.endswith(wave_size.ALIAS_USE) and (f.line, f.column) not in seen
               and again.needs.get((f.line, f.column), ("", frozenset()))[1] & self.aliases]
        if not new:
            return
        gate.mark_suppressed(new, text)
        if report is None:
            report = self.reports[rel] = FileReport(rel, "source")
            self.result.files.append(report)
        report.findings.extend(new)
        report.findings.sort(key=lambda f: (f.line, f.column))


def _drop_uncalled(report: FileReport, calls: set[str], looped: set[str]) -> None:
    """Findings in a CMakeLists.txt's function() or macro() that no CMake file of the tree calls: it runs
    nothing (fmha-bwd-gfx1100's `macro(add_hip_test …)` with `--offload-arch=gfx1100`, never used). A function's
    flag of its argument that a per-arch loop of another file calls: that loop is the construct (hcc2's
    bc.cmake macro passing --cuda-gpu-arch=${mcpu}, called per entry by the CMakeLists.txt that includes it)."""
    def dead_at(kind: str, names: frozenset[str]) -> bool:
        uncalled = kind in ("caller", "caller-loop") and not names & calls
        return uncalled or (kind in ("loop", "caller-loop") and bool(names & looped))
    dead = {at for at, (kind, names) in report.needs.items() if dead_at(kind, names)}
    if dead:
        report.findings[:] = [f for f in report.findings if (f.line, f.column) not in dead]


def _keep_needed(report: FileReport, defines: set[str], wave_aliases: set[str], arch_tests: set[str],
                 built: set[str], device_defines: set[str]) -> None:
    """Findings on build-defined macros stand while no scanned source defines every one of them (then they
    are the project's own macros); a wave-size alias in a template default, while some file defines it so; an #if
    on macros this file does not define, when another file defines one as an arch test; asm in a file with no
    device marker of its own, when it names a macro another file defines to __device__."""
    def keep(f: Finding) -> bool:
        kind, names = report.needs.get((f.line, f.column), ("", frozenset()))
        if kind == "test" and f.message:  # another finding at that column (the #if's own are unworded)
            return True
        if kind == "build":  # kept too where another file defines one as an arch test (IS_RDNA3 in a header)
            return not names <= defines or bool(names & arch_tests)
        if kind == "alias":
            return bool(names & wave_aliases)
        if kind == "test":
            return bool(names & arch_tests)
        if kind == "elif":  # an #elif's own candidate: not where the chain's #if is one (one chain, one construct)
            opening = report.elif_openers.get((f.line, f.column), frozenset())
            return bool(names & arch_tests) and not opening & arch_tests
        if kind == "device":
            return bool(names & device_defines)
        return True
    report.findings[:] = [f if f.message or report.needs.get((f.line, f.column), ("",))[0] not in ("test", "elif") else
                          arch_macros.tested_elsewhere(f, arch_tests, built) for f in report.findings if keep(f)]


def _sources(root: Path, base: Path, exclude: Sequence[str]) -> Iterator[tuple[str, str]]:
    """A second walk's readable sources (path, text), for the checks that need every file read first; the first
    walk reported those it could not read."""
    for rel, kind in walk(root, exclude):
        if kind == "source":
            text = _read(os.path.join(base, rel)).text
            if text is not None:
                yield rel, text


class _NameCounts:
    """How often each kernel template with a finding is named over every source: once is only its definition."""

    def __init__(self, reports: list[FileReport]) -> None:
        self.names = {n for r in reports for n in r.kernel_templates}
        self.counts = dict.fromkeys(self.names, 0)
        self.pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, self.names))) + r")\b")

    def take(self, rel: str, text: str) -> None:
        if any(n in text for n in self.names):
            for m in self.pattern.finditer(source_rules.strip(text)):
                self.counts[m.group(1)] += 1

    def once(self) -> set[str]:
        return {n for n, c in self.counts.items() if c <= 1}


def _drop_uninstantiated(reports: list[FileReport], once: set[str]) -> None:
    """Findings in the body of a kernel template nothing instantiates: no code is emitted for them. Only where
    the tree names another kernel template of the same file (its launches were scanned): a kernel named nowhere
    may be launched from files the scan was not given."""
    for r in reports:
        if not set(r.kernel_templates) - once:
            continue
        dead = {at for n in once for at in r.kernel_templates.get(n, ())}
        if dead:
            r.findings[:] = [f for f in r.findings if (f.line, f.column) not in dead]


_WORD = re.compile(r"\b[A-Za-z_]\w*")  # an identifier where \bNAME\b would match it (not the x1F of 0x1F)
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*["<]([^">]+)[">]', re.M)


MAX_FRAGMENT_FILES = 20_000


def _suffix_index(paths: Iterable[str]) -> dict[str, str]:
    """Every path by each of its '/'-suffixes (the first path wins): where `#include "lib/x.h"` may point."""
    out: dict[str, str] = {}
    for path in paths:
        parts = path.split("/")
        for i in range(len(parts)):
            out.setdefault("/".join(parts[i:]), path)
    return out


def _resolve(inc: str, frm: str, known: Callable[[str], bool], by_suffix: dict[str, str]) -> str | None:
    """The file an #include names, as the project's own -I folders would find it: beside the file saying it, then
    above it (`<proj/y.hpp>` from include/proj/x.hpp, -Iinclude), then any known file ending so."""
    folder = posixpath.dirname(frm)
    while True:
        candidate = posixpath.normpath(posixpath.join(folder, inc))
        if known(candidate):
            return candidate
        if not folder:
            return by_suffix.get(posixpath.normpath(inc))
        folder = posixpath.dirname(folder)


def _folder_above(path: str) -> str:
    """The folder above a file's own, as a prefix of the paths under it ("" at the top two levels)."""
    above = posixpath.dirname(posixpath.dirname(path))
    return above + "/" if above else ""


def _fragment_units(edges: dict[str, tuple[str, ...]], fragments: list[str]) -> list[tuple[set[str], set[str]]]:
    """Per fragment, the files that #include it (theirs up to the top too), and the files of the translation
    units holding it: those, and every file the tops reach through their #includes (edges: each file's #include
    words). Bounded by MAX_CLOSURE files per fragment."""
    by_suffix = _suffix_index(edges)
    down: dict[str, list[str]] = {}
    up: dict[str, set[str]] = {}
    for path, includes in edges.items():
        for inc in includes:
            # a file with no #include of its own has no edges: reached by its path beside the includer
            target = _resolve(inc, path, edges.__contains__, by_suffix) or \
                posixpath.normpath(posixpath.join(posixpath.dirname(path), inc))
            down.setdefault(path, []).append(target)
            up.setdefault(target, set()).add(path)
    out = []
    for fragment in fragments:
        tops, todo, seen = set(), [fragment], {fragment}
        while todo and len(seen) < MAX_CLOSURE:
            cur = todo.pop()
            parents = up.get(cur, set())
            if not parents - {fragment}:
                tops.add(cur)
            for parent in parents:
                if parent not in seen:
                    seen.add(parent)
                    todo.append(parent)
        # a cycle of #includes (a header ending with `#include "impl.cu"`, which includes the header back) has
        # no top: every file met on the way up is one
        unit, todo = set(seen), list(tops or seen)
        while todo and len(unit) < MAX_CLOSURE:
            for child in down.get(todo.pop(), ()):
                if child not in unit:
                    unit.add(child)
                    todo.append(child)
        out.append((seen - {fragment}, unit))
    return out


class _IncluderNames:
    """Per translation unit, the names of its never-named inline code that a file #including it names (a
    `*_bridge.cpp` with `#include "phi4.hip"`), or, for a kernel-less fragment, any file of the units it ends
    up in (_fragment_units)."""

    def __init__(self, reports: list[FileReport]) -> None:
        self.by_name: dict[str, list[FileReport]] = {}
        for r in reports:
            self.by_name.setdefault(posixpath.basename(r.path), []).append(r)
        self.named: dict[str, set[str]] = {r.path: set() for r in reports}
        self.included: set[str] = set()  # the units some scanned file #includes
        # A kernel-less unit pulled into a bigger one with its siblings (NexusMiner's cump.cuh ends with
        # `#include "cump.cu"`, which includes asm.cu beside cump_montgomery.cu, the file calling asm.cu's
        # helpers): every file's #include words and the fragments' helper names it says, to find the units
        # the fragment ends up in once every file is read (settle)
        self.fragments = [r for r in reports if r.fragment]
        self.fragment_names = frozenset(n for r in self.fragments for n in r.local_units)
        # kept for the files near a fragment only (under the folder above its own), at most MAX_FRAGMENT_FILES:
        # the scan keeps nothing per file of a whole tree
        self.near = tuple(dict.fromkeys(_folder_above(r.path) for r in self.fragments))
        self.edges: dict[str, tuple[str, ...]] = {}
        self.says: dict[str, set[str]] = {}

    def settle(self) -> None:
        if not self.fragments:
            return
        for r, (includers, unit) in zip(self.fragments, _fragment_units(self.edges, [r.path for r in self.fragments]),
                                        strict=True):
            if includers:
                self.included.add(r.path)
            for member in unit - {r.path}:
                self.named[r.path] |= self.says.get(member, set()) & r.local_units.keys()

    def take(self, rel: str, text: str) -> None:
        if self.fragments and rel.startswith(self.near) and len(self.edges) < MAX_FRAGMENT_FILES:
            if "include" in text:
                self.edges[rel] = tuple(_INCLUDE.findall(text))
            if any(n in text for n in self.fragment_names):
                self.says[rel] = set(IDENT.findall(source_rules.strip(text))) & self.fragment_names
        if not any(n in text for n in self.by_name):
            return
        words: set[str] | None = None
        for inc in _INCLUDE.findall(text):
            for r in self.by_name.get(posixpath.basename(inc), ()):
                local = posixpath.normpath(posixpath.join(posixpath.dirname(rel), inc))
                if r.path not in (local, posixpath.normpath(inc)) and not r.path.endswith("/" + inc.lstrip("./")):
                    continue
                self.included.add(r.path)
                if words is None:
                    words = set(IDENT.findall(source_rules.strip(text)))
                self.named[r.path] |= words & r.local_units.keys()


class _HelperUses:
    """How often each macro of a header with findings is named, in that header and in every other file. A
    macro named only by its definition expands nowhere; its findings are dropped where another macro of the
    same header is named in some other file, which says the header's users are in the scanned tree (a
    library's public header whose users live elsewhere keeps them all). dcu-ops-optimize's intrinsic.h: eight
    asm macros nothing expands beside the ones its kernels use."""

    def __init__(self, reports: list[FileReport]) -> None:
        self.reports = reports
        self.owners: dict[str, set[str]] = {}
        for r in reports:
            for n in r.header_units:
                self.owners.setdefault(n, set()).add(r.path)
        self.inside: Counter[tuple[str, str]] = Counter()  # (header, name) -> names in that header
        self.outside: Counter[tuple[str, str]] = Counter()  # (header, name) -> names in any other file

    def take(self, rel: str, text: str) -> None:
        # substring tests first (most files name none of them), then the file's words against the set of names:
        # one regex alternating the names with \b around them tried each name at every position (relion, 150
        # names: 0.8 s of its 2.2 s CPU; torchcomms, 6 names over 43 MB: 0.8 s, the substring tests 0.07 s)
        if not any(n in text for n in self.owners):
            return
        # another file's `#define SAME_NAME` counts too: a macro several files define is a shim whose users
        # may be outside a tree given in part (rccl's and TransferBench's copies of one helper)
        for word in _WORD.findall(source_rules.strip(text)):
            for header in self.owners.get(word, ()):
                (self.inside if header == rel else self.outside)[(header, word)] += 1

    def drop_unused(self) -> None:
        for r in self.reports:
            used_elsewhere = any(self.outside[(r.path, n)] for n in r.header_units)
            dead = {at for n, ats in r.header_units.items()
                    if not self.outside[(r.path, n)] and self.inside[(r.path, n)] <= 1 for at in ats}
            if used_elsewhere and dead:
                r.findings[:] = [f for f in r.findings if (f.line, f.column) not in dead]


def _drop_unnamed_locals(reports: list[FileReport], named: dict[str, set[str]], included: set[str]) -> None:
    """Findings in a translation unit's inline device functions and macros nothing names (neither the unit nor
    a file that #includes it): no code is emitted for them. A kernel-less unit no scanned file includes is
    pulled in from outside the tree (a tree given in part): its helpers stay."""
    for r in reports:
        if r.fragment and r.path not in included:
            continue
        dead = {at for n, ats in r.local_units.items() if n not in named[r.path] for at in ats}
        if dead:
            r.findings[:] = [f for f in r.findings if (f.line, f.column) not in dead]


def _drop_wavefront_uses(result: ScanResult) -> None:
    """The project #defines the wavefront macro itself (a fallback of 64): that definition is the one finding."""
    for report in result.files:
        if report.kind == "source":
            report.findings[:] = [f for f in report.findings
                                  if not (f.rule.id == "RSM202" and f.message.endswith(wave_size.WAVE_USE))]
    result.files[:] = [r for r in result.files if r.findings or r.edits or r.error]


MAX_CLOSURE = 256  # headers followed from one file: enough for a library's own tree, bounded on generated ones


def _drop_include_derived(result: ScanResult, graph: dict[str, tuple[frozenset[str], frozenset[str], tuple[str, ...]]],
                          derived: set[str], base: Path | None = None) -> None:
    """A macro some header derives from arch macros is undefined under SPIR-V for every file that includes that
    header (through the project's own #includes), even where an unrelated file of the scan defines it in live
    code (a CPU backend's own HAS_X): the include graph decides, not the whole scan."""
    if not graph:
        return
    closure = _closures(graph, base)
    for report in result.files:
        if report.kind != "source" or not any(f.conditions for f in report.findings) or report.path not in graph:
            continue
        seen = closure(report.path) & graph.keys()
        arch = set().union(*(graph[p][0] for p in seen))
        live = set().union(*(graph[p][1] for p in seen))
        local = derived | (arch - live)
        if local != derived:
            report.findings[:] = [f for f in report.findings if source_rules.live_under(f.conditions, local)]
    result.files[:] = [r for r in result.files if r.findings or r.edits or r.error]


def _closures(graph: dict[str, tuple[frozenset[str], frozenset[str], tuple[str, ...]]],
              base: Path | None = None) -> Callable[[str], set[str]]:
    """The files a file reaches through the project's own #includes (itself included), bounded by MAX_CLOSURE.
    A header the graph does not hold (one that only includes others: `config.hpp` with `#include "arch.hpp"`)
    is read again from base for its #include lines when a closure passes through it: the scan keeps nothing of
    the files it read with nothing to say."""
    by_suffix = _suffix_index(graph)
    read: dict[str, tuple[str, ...] | None] = {}  # include words of files outside the graph; None: no such file

    def includes_of(path: str) -> tuple[str, ...] | None:
        if path in graph:
            return graph[path][2]
        if base is None or path == ".." or path.startswith("../") or posixpath.isabs(path):
            return None
        if path not in read:
            text = _read(os.path.join(base, path)).text
            read[path] = None if text is None else tuple(_INCLUDE.findall(text)) if "include" in text else ()
        return read[path]

    def known(path: str) -> bool:
        return includes_of(path) is not None

    def closure(path: str) -> set[str]:
        seen, todo = {path}, [path]
        while todo and len(seen) < MAX_CLOSURE:
            cur = todo.pop()
            for inc in includes_of(cur) or ():
                target = _resolve(inc, cur, known, by_suffix)
                if target is not None and target not in seen:
                    seen.add(target)
                    todo.append(target)
        return seen
    return closure


def _drop_project_warp(result: ScanResult, graph: dict[str, tuple[frozenset[str], frozenset[str], tuple[str, ...]]],
                       decls: set[str], base: Path | None = None) -> None:
    """A file that includes one declaring a constant of its own named warpSize (mallocMC's `constexpr auto
    warpSize = __AMDGCN_WAVEFRONT_SIZE`, itself the RSM202) means that constant: no RSM203 of its uses."""
    if not decls:
        return
    closure = _closures(graph, base)
    for report in result.files:
        if report.kind == "source" and report.path in graph and \
                any(f.message == wave_size.WARP_CONSTANT for f in report.findings) and \
                (closure(report.path) - {report.path}) & decls:
            report.findings[:] = [f for f in report.findings if f.message != wave_size.WARP_CONSTANT]
    result.files[:] = [r for r in result.files if r.findings or r.edits or r.error]


def _drop_arch_derived(result: ScanResult, derived: set[str]) -> None:
    """A macro one header defines only under arch macros (`#define HAS_MFMA` inside `#if defined(__gfx90a__)`)
    is undefined under SPIR-V everywhere: code behind it elsewhere is dead, and its definition is the finding."""
    if not derived:
        return
    for report in result.files:
        if report.kind == "source":
            report.findings[:] = [f for f in report.findings if source_rules.live_under(f.conditions, derived)
                                  and not _tests_only_derived(f, derived)]
    result.files[:] = [r for r in result.files if r.findings or r.edits or r.error]


BUILD_WORD = re.compile(r"[A-Z_][A-Z0-9_]{2,}")
CMAKE_FUNCTION = re.compile(r"^[ \t]*(?:function|macro)[ \t]*\([ \t]*([A-Za-z_]\w*)", re.M | re.I)


def _defined_names(text: str) -> set[str]:
    """The macros a source the rules did not read #defines (no arch token in it): any of them may be live."""
    return set(source_rules.DEFINE_NAME.findall(text)) if "define" in text else set()


def _drop_project_findhip(result: ScanResult, defined: set[str]) -> None:
    for report in result.files:
        if report.kind == "cmake":
            report.findings[:] = [f for f in report.findings if not findhip.project_own(f, defined)]


def _drop_build_selected(result: ScanResult, names: set[str]) -> None:
    """Code under `#ifndef WMMA_WAVE32_DISABLED`, a macro the build defines only in a branch on the target list:
    whether it is compiled is that #if's construct (its RSM201), not one finding per builtin inside."""
    for report in result.files:
        if report.kind == "source":
            report.findings[:] = [f for f in report.findings if f.rule.id == "RSM201" or not any(
                set(IDENT.findall(c)) & names for c in f.conditions)]
    result.files[:] = [r for r in result.files if r.findings or r.edits or r.error]


def _drop_foreign(result: ScanResult, foreign: set[str]) -> None:
    """A macro the project defines only on the CUDA side (`#define PTX_AVAILABLE` under `#if __CUDA_ARCH__ >=
    530` in the #else of `#ifdef __HIP_PLATFORM_AMD__`) and nowhere else, not even in a build file, is undefined
    in every AMD device compile: what it guards (PTX assembly) is no code HIP sees, natively or as SPIR-V."""
    if not foreign:
        return
    for report in result.files:
        if report.kind == "source":
            report.findings[:] = [f for f in report.findings if source_rules.live_under(f.conditions, foreign)]
    result.files[:] = [r for r in result.files if r.findings or r.edits or r.error]


def _tests_only_derived(f: Finding, derived: set[str]) -> bool:
    """An arch test naming only clang-shaped macros the project defines under arch tests in another header
    (composable_kernel's `#define __gfx94__` in ck.hpp, tested in amd_smfmac.hpp): the defining #if covers
    its uses, as it does within one file. A directive continued on the next line may name more: kept."""
    if f.rule is not arch_macros.RSM201 or f.snippet.rstrip().endswith("\\"):
        return False
    names = arch_macros.arch_names(f.snippet)
    return bool(names) and all(n in derived for n in names)
