"""The walk over one HIP/C++ source: the device pass's view of its preprocessor branches, brace depth and
guards, line by line, calling the checks of source_checks, which declare the rules and word the findings.
Reported only: --apply never edits a source file."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from rocm_spirv.migrate.findings import CondDefine, FileReport, Finding
from rocm_spirv.migrate.pp import (
    ARCH_MACRO,
    BUILD_ARCH_MACRO,
    BUILD_WAVE_MACRO,
    Value,
    arch_dependent,
    directive_condition,
    evaluate,
    lookup_device,
)
from rocm_spirv.migrate.source_checks import amdgcn_builtins, arch_macros, asm, wave_size
from rocm_spirv.migrate.source_checks.amdgcn_builtins import (
    FEATURE_BUILTIN,
    GUARD_CALL,
    HAS_BUILTIN,
    has_builtin,
    has_builtin_tests,
    unguarded,
)
from rocm_spirv.migrate.source_checks.arch_macros import arch_finding, arch_names, arch_use, enum_helper
from rocm_spirv.migrate.source_checks.asm import INLINE_ASM, asm_in_macro, asm_label, asm_text, gpu_asm, inline_asm
from rocm_spirv.migrate.source_checks.wave_size import (
    CONSTEXPR_FN,
    CONSTEXPR_WARP,
    FALLBACK_GUARD,
    RETURN_WARP,
    WAVE_SOURCE,
    WAVEFRONT,
    build_wave_use,
    defines_wave_size,
    warp_alias_use,
    warp_constant,
    warp_returned,
    wave_use,
)

MAX_NESTING = 1000  # #if groups open at once
RULES = (*arch_macros.RULES, *wave_size.RULES, *asm.RULES, *amdgcn_builtins.RULES)

# Substrings a rule's pattern cannot match without. Stripping comments and strings only removes
# matches, so a text lacking them cannot produce that rule's finding. Substring tests, as regex
# searches over the whole text cost more than the line loop they would save.
RULE_TOKENS = {ARCH_MACRO: ("__gfx", "__GFX", "__amdgcn_processor__"), WAVEFRONT: ("__AMDGCN_WAVEFRONT",),
               HAS_BUILTIN: ("__has_builtin",), CONSTEXPR_WARP: ("warpSize",), INLINE_ASM: ("asm",),
               FEATURE_BUILTIN: ("__builtin_amdgcn_",)}
# build-defined per-arch macros (PROJ_ARCH_AMD_GFX90A), configure-time wave sizes, wave-size aliases
PROJECT_TOKENS = ("_GFX", "WAVEFRONT_SIZE", "WAVEFRONTSIZE", "WAVE_SIZE", "WAVESIZE", "WARP")
_CHEAP = (*(t for rx, ts in RULE_TOKENS.items() if rx is not FEATURE_BUILTIN for t in ts), *PROJECT_TOKENS)


def may_match(text: str) -> bool:
    """The prefilter on raw text: most kernels call some __builtin_amdgcn_*, so that token alone is
    confirmed with the pattern."""
    if any(t in text for t in _CHEAP):
        return True
    return "__builtin_amdgcn_" in text and FEATURE_BUILTIN.search(text) is not None


PP_IF = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b(.*)$")


# Every alternative starts with one literal character, so the regex engine skips to the next character that
# can start a lexeme instead of trying each alternative at every position (3x faster on sources). The lookbehinds
# come after that character: `(?<![\w.])` before a digit d is `(?<![\w.]d)` after it.
_RAW = r'"(?P<d{i}>[^()\\ \t\n]{{0,16}})\((?:[\s\S]*?)\)(?P=d{i})"'
_LEXEMES = re.compile("|".join((
    *(rf"{d}(?<![\w.]{d})[\w.]*(?:'\w+)+" for d in "0123456789"),  # C++14 digit separators: 1'000'000
    *(rf"{p}(?<!\w{p}){rest}{_RAW.format(i=i)}"  # raw strings: R"d( … )d", u8R, uR, UR, LR
      for i, (p, rest) in enumerate((("R", ""), ("u", "8?R"), ("U", "R"), ("L", "R")))),
    r"/(?:/(?:[^\n\\]|\\[\s\S])*|\*[\s\S]*?(?:\*/|\Z))",  # a backslash-newline splice continues a // comment
    r'"(?:[^"\\\n]|\\[\s\S])*"?',
    r"'(?:[^'\\\n]|\\[\s\S])*'?")))
_NOT_NEWLINE = re.compile(r"[^\n]")


def _blank(m: re.Match[str]) -> str:
    text = m.group(0)
    first = text[0]
    if first in "0123456789":
        return text
    if first == "/":
        return _NOT_NEWLINE.sub(" ", text)
    if first not in "\"'":  # a raw string: its delimiter d sits between the quote and the (
        head = text.index("(") + 1
        tail = len(text) - len(text[text.index('"') + 1:head - 1]) - 2
        return text[:head] + _NOT_NEWLINE.sub(" ", text[head:tail]) + text[tail:]
    # closed when the last quote is not itself escaped (an even run of backslashes before it)
    closed = len(text) > 1 and text.endswith(text[0]) and (len(text) - 1 - len(text[:-1].rstrip("\\"))) % 2 == 0
    body = text[1:-1] if closed else text[1:]
    return text[0] + _NOT_NEWLINE.sub(" ", body) + (text[0] if closed else "")


def strip(text: str) -> str:
    """Blank out comments and the contents of string and character literals, keeping every newline
    (and so line numbers) and each literal's quotes. Handles escapes, line splices, raw strings and
    digit separators."""
    return _LEXEMES.sub(_blank, text)


# Markers of a file a HIP compile sees: HIP/CUDA sources, and headers declaring device code. A C++ file
# without any (a CPU backend, a host tool) never reaches the device pass, so its asm is host asm.
DEVICE_SUFFIXES = (".hip", ".cu", ".cuh")
DEVICE_MARKERS = ("__global__", "__device__", "hip_runtime", "__HIP_DEVICE_COMPILE__", "__builtin_amdgcn_",
                  "__HIPCC__", "__launch_bounds__", "__CUDA_ARCH__")
# Whole tokens only: miniaudio's `ma_job_process__device__aaudio_reroute` holds "__device__" and is host code.
# A project's own device-function marker (ROCPRIM_DEVICE, LIB_DEVICE, defined to __device__) marks one too,
# where it starts a declaration (`ROCPRIM_DEVICE __forceinline__ T f(…)`), not an enumerator (MA_NO_DEVICE = …).
PROJECT_DEVICE = r"^[ \t]*(?:template\s*<[^>]*>\s*)?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_DEVICE[ \t]+[A-Za-z_]"
DEVICE_MARKER = re.compile(r"(?<!\w)(?:" + "|".join(DEVICE_MARKERS) + r")|(?m:" + PROJECT_DEVICE + ")")
BUILD_SCOPE_SUFFIXES = (*DEVICE_SUFFIXES, ".h", ".hh", ".hpp", ".hxx", ".inl", ".ipp", ".tpp")
DEVICE_CODE = re.compile(r"(?<!\w)(?:__global__|__device__)(?!\w)|(?m:" + PROJECT_DEVICE + ")")
# `static_assert(false, "…")` under an arch test rejects a configuration, like #error: inert under SPIR-V
INERT_ASSERT = re.compile(r"^\s*static_assert\s*\(\s*(?:false|0)\s*,")
DEFINE_NAME = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.M)
# a wave-size alias as a template argument's default: `template <int W = LIB_DEVICE_WARP_THREADS>`
ALIAS_DEFAULT = re.compile(r"=\s*([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)\s*[,>]")
DEFINE = re.compile(r"^\s*#\s*(define|undef)\s+([A-Za-z_]\w*)(.*)$")
IDENT = re.compile(r"[A-Za-z_]\w*")
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]', re.M)
ERROR_DIRECTIVE = re.compile(r"^\s*#\s*(error|warning)\b")


def device_visible(path: str, text: str) -> bool:
    return path.lower().endswith(DEVICE_SUFFIXES) or DEVICE_MARKER.search(text) is not None


@dataclass
class _Group:
    """One #if … #endif chain as the device pass sees it."""

    parent_live: bool
    arch: bool  # some condition of the chain tests an arch macro or an arch-derived one
    live: bool = True  # the current branch is compiled
    taken: Value = 0  # 1: an earlier branch is certainly taken, None: maybe
    prior: list[str] = field(default_factory=list)  # conditions of the earlier branches
    unknown: str = ""  # the current branch's effective condition when undecidable
    finding: int | None = None  # index of the chain's RSM201 finding
    macros: list[str] = field(default_factory=list)  # the arch macros that finding names
    defines: list[str] = field(default_factory=list)  # macros its dead arch branches define
    direct: bool = False  # some condition names an arch macro itself (an arch-value helper's #if)
    helper: bool = False  # the chain picks a value (RSM207): one construct, its #elif lines are not more
    builtin_test: bool = False  # the current branch tests __has_builtin (RSM206 covers the builtins in it)
    elifs: list[int] = field(default_factory=list)  # indices of the RSM201 findings of its #elif lines
    elif_macros: list[str] = field(default_factory=list)  # the arch macros those findings name
    code: bool = False  # the chain holds more than #error/#warning lines
    wave: bool = False  # the chain's test of the wavefront macro is reported
    line: int = 0  # the current branch's directive: where a finding about its condition goes
    col: int = 1  # of its `#`
    snippet: str = ""
    opened: tuple[int, int, str] = (0, 1, "")  # line, column and snippet of the #if that opens the chain
    # An #elif-started value chain's one finding: its index, where it opens and the return; later #elif lines
    # add their macros to it.
    value_chain: tuple[int, Finding, Finding] | None = None
    pending: int = -1  # index in FileReport.pending of the current branch's finding, if its defines may die


def _effective(cond: str, prior: list[str]) -> str:
    return " && ".join(([f"({cond})"] if cond else []) + [f"!({c})" for c in prior]) or "1"


def _directives(lines: list[str]) -> dict[int, tuple[int, str]]:
    """Line index of each directive -> (index of its last continuation line, the joined text)."""
    out: dict[int, tuple[int, str]] = {}
    i = 0
    while i < len(lines):
        if lines[i].lstrip().startswith("#"):
            j, text = i, lines[i]
            while text.endswith("\\") and j + 1 < len(lines):
                j += 1
                text = text[:-1] + " " + lines[j]
            out[i] = (j, text)
            i = j + 1
        else:
            i += 1
    return out


def live_under(conditions: tuple[str, ...], arch_derived: set[str]) -> bool:
    """False when one of a finding's undecided conditions is false once arch-derived macros are undefined."""
    def lookup(name: str) -> Value:
        return 0 if name in arch_derived else lookup_device(name)
    return all(evaluate(c, lookup) != 0 for c in conditions)


def analyze(path: str, text: str, arch_derived: frozenset[str] = frozenset()) -> FileReport:
    """Findings of one source file. arch_derived: macros other files define only under arch macros."""
    report = FileReport(path, "source")
    if not may_match(text):  # an arch-derived #define needs an arch macro, so this file defines none
        return report
    stripped = strip(text)
    can = {rx: any(t in stripped for t in ts) for rx, ts in RULE_TOKENS.items()}
    if not any(can.values()) and not any(t in stripped for t in PROJECT_TOKENS):
        return report
    # Most kernels call some __builtin_amdgcn_*, few a feature one: the line loop looks for those (and at
    # their guards) only when the pattern matches somewhere; ARCH_MACRO only where its tokens are.
    feature = can[FEATURE_BUILTIN] and FEATURE_BUILTIN.search(stripped) is not None
    arch_tokens = can[ARCH_MACRO]
    derived = set(arch_derived)
    raw_lines = text.splitlines()
    lines = stripped.splitlines()
    directives = _directives(lines) if "#" in stripped else {}
    visible = device_visible(path, text)
    report.defines = set(DEFINE_NAME.findall(stripped)) if "define" in stripped else set()
    # The build defines its per-arch macros for the host pass too: a .cpp without device functions tests
    # them in host code (a warning about the chosen GPU), not in the device code SPIR-V changes.
    scope: list[bool] = []  # decided on the first _GFX name: most files have none

    def build(name: str) -> bool:
        """A per-arch macro the build defines (no #define here; the scan checks the other files)."""
        if "_GFX" not in name or name in report.defines or BUILD_ARCH_MACRO.fullmatch(name) is None:
            return False
        if not scope:
            scope.append(path.lower().endswith(BUILD_SCOPE_SUFFIXES) or DEVICE_CODE.search(stripped) is not None)
        return scope[0]

    def lookup(name: str) -> Value:
        return 0 if (name in derived and name not in report.live_macros) or build(name) else lookup_device(name)

    def direct_names(cond: str) -> list[str]:
        """The arch macros (and build-defined per-arch macros) an arch-dependent condition names."""
        # `#define __gfx12__` under `#if defined(__gfx1200__) || …`: a name shaped like clang's that the project
        # defines under an arch test is derived, and the defining #if covers its uses.
        names = [*(n for n in arch_names(cond) if n not in derived),
                 *dict.fromkeys(n for n in IDENT.findall(cond) if build(n))]
        return names if names and arch_dependent(cond, lookup) else []

    def is_arch(cond: str, direct: list[str]) -> bool:
        return bool(direct) or any(n in derived and n not in report.live_macros for n in IDENT.findall(cond))

    def need_build(finding: Finding, names: list[str]) -> None:
        """A finding that stands on build-defined macros only: dropped if another file defines them all."""
        if names and all(build(n) for n in names):
            report.needs[(finding.line, finding.column)] = ("build", frozenset(names))

    stack: list[_Group] = []
    enum_reported: set[int] = set()  # #if nesting levels whose arch chain is already reported as a helper
    depth = 0
    guard_until: int | None = None  # brace depth above which a processor_is/is_invocable guard holds
    guard_next = False
    add = report.findings.append
    skip_to = -1
    constexpr_fn: int | None = None  # brace depth of the constexpr function being read (-1: its { is to come)
    pending_fn = False
    wave_defined = False  # the file #defines the wavefront macro itself: that definition is the finding
    pm: re.Match[str] | None = None
    cond = word = ""
    direct: list[str] = []
    inert = False  # inside a static_assert(false, …) under an #if
    drop: set[int] = set()  # indices of findings a value chain absorbed
    sure: set[str] = set()  # macros #defined where no undecided condition can turn out false
    for idx, line in enumerate(lines):
        if idx <= skip_to:
            continue
        no = idx + 1
        snippet = raw_lines[idx] if idx < len(raw_lines) else line
        live = not stack or stack[-1].live
        conds = tuple(g.unknown for g in stack if g.unknown)
        if idx in directives:
            skip_to, full = directives[idx]
            pm = PP_IF.match(full)
            dm = DEFINE.match(full)
            if dm and live and dm.group(1) == "define" and can[INLINE_ASM]:
                asm_in_macro(path, idx, skip_to, lines, raw_lines, dm.group(2), add, conds, visible)
            if dm and live:
                name, body = dm.group(2), dm.group(3)
                if dm.group(1) == "define" and WAVE_SOURCE.search(body):
                    report.wave_aliases.add(name)
                if dm.group(1) == "define" and ARCH_MACRO.search(body):
                    report.arch_macros.add(name)
                    derived.add(name)
                elif dm.group(1) == "define" and name in derived and name not in report.live_macros and \
                        body.strip() in ("0", "(0)"):
                    pass  # `#if !defined(X) / #define X 0` for an arch-derived X: 0 under SPIR-V, as undefined
                elif dm.group(1) == "define":
                    report.live_macros.add(name)
                    if conds and _may_die(conds):
                        _cond_define(path, report, stack, name, conds)
                    else:
                        sure.add(name)
            elif dm and dm.group(1) == "define" and stack and _arch_dead(stack):
                report.arch_macros.add(dm.group(2))
                derived.add(dm.group(2))
                top = next(g for g in stack if not g.live)
                top.defines.append(dm.group(2))
            cond = word = ""
            if stack and not stack[-1].code and not (pm or ERROR_DIRECTIVE.match(full)):
                for g in stack:  # code in a nested chain is code of every chain around it
                    g.code = True
            direct = []
            if pm:
                word, rest = pm.group(1), pm.group(2)
                cond = directive_condition(word, rest)
                direct = direct_names(cond) if word not in ("else", "endif") else []
                if word in ("if", "ifdef", "ifndef"):
                    if len(stack) >= MAX_NESTING:  # every line looks at every open #if: refuse, not quadratic
                        raise RecursionError(f"#if nested more than {MAX_NESTING} deep")
                    g = _Group(parent_live=live, arch=is_arch(cond, direct), direct=bool(direct),
                               line=no, col=_indent(snippet), snippet=snippet,
                               opened=(no, _indent(snippet), snippet))
                    v = evaluate(cond, lookup)
                    g.live, g.taken, g.unknown = live and v != 0, v, cond if v is None else ""
                    g.builtin_test = HAS_BUILTIN.search(cond) is not None
                    g.prior.append(cond)
                    stack.append(g)
                    if live and direct:
                        g.finding, g.macros = len(report.findings), direct
                        add(arch_finding(path, no, cond, full, snippet, conds, direct))
                        need_build(report.findings[-1], direct)
                elif word in ("elif", "elifdef", "elifndef") and stack:
                    g = stack[-1]
                    v = evaluate(cond, lookup)
                    g.arch = g.arch or is_arch(cond, direct)
                    g.direct = g.direct or bool(direct)
                    g.live = g.parent_live and g.taken != 1 and v != 0
                    g.unknown = _effective(cond, g.prior) if (v is None or g.taken is None) and g.live else ""
                    g.taken = 1 if g.taken == 1 or v == 1 else None if g.taken is None or v is None else 0
                    g.line, g.col, g.snippet, g.pending = no, _indent(snippet), snippet, -1
                    g.builtin_test = HAS_BUILTIN.search(cond) is not None
                    g.prior.append(cond)
                    if g.parent_live and direct and g.value_chain is not None:
                        g.elif_macros.extend(direct)
                        at, opening, value = g.value_chain
                        report.findings[at] = arch_macros.helper_chain(opening, value,
                                                                       list(dict.fromkeys(g.elif_macros)))
                    elif g.parent_live and direct and not g.helper:
                        outer = tuple(x.unknown for x in stack[:-1] if x.unknown)
                        g.elifs.append(len(report.findings))
                        g.elif_macros.extend(direct)
                        add(arch_finding(path, no, cond, full, snippet, outer, direct))
                        need_build(report.findings[-1], direct)
                elif word == "else" and stack:
                    g = stack[-1]
                    g.live = g.parent_live and g.taken != 1
                    g.unknown = _effective("", g.prior) if g.taken is None and g.live else ""
                    g.taken = 1
                    g.builtin_test = False
                    g.line, g.col, g.snippet, g.pending = no, _indent(snippet), snippet, -1
                elif word == "endif" and stack:
                    g = stack.pop()
                    enum_reported.discard(len(stack) + 1)
                    if g.finding is not None and not g.code:  # `#if defined(__gfx…) #error …`: inert under SPIR-V
                        del report.findings[g.finding:]
                        g.finding = None
                    if g.finding is not None and g.defines:
                        f = report.findings[g.finding]
                        names = ", ".join(n for n in dict.fromkeys(g.defines) if n not in report.live_macros)
                        if names:
                            report.findings[g.finding] = replace(
                                f, message=f"{f.message}; so is {names}, defined under it (its uses are covered here)")
            arch_directive = bool(direct)  # its RSM201 finding names the rest
            tests = [m for m in HAS_BUILTIN.finditer(full)] if live and can[HAS_BUILTIN] and not arch_directive else []
            if tests:
                add(has_builtin_tests(path, no, tests, snippet, conds))
            wm = WAVEFRONT.search(full) if live and can[WAVEFRONT] and not wave_defined and not arch_directive else None
            if live and not wm and not dm and pm and word not in ("endif", "else") and not arch_directive:
                _build_wave(report, path, no, full, snippet, conds)
            if wm and dm and dm.group(1) == "define" and WAVEFRONT.fullmatch(dm.group(2)):
                wave_defined = True
                add(defines_wave_size(path, no, wm, dm.group(3), snippet, conds))
            elif wm and not dm and not (pm and FALLBACK_GUARD.match(cond)) and not (stack and stack[-1].wave):
                if pm and word not in ("endif", "else"):
                    stack[-1].wave = True
                add(wave_use(path, no, wm, snippet, conds))
            continue
        if inert or (stack and INERT_ASSERT.match(line)):
            inert = ";" not in line
            continue
        if stack and not stack[-1].code and line.strip():
            for g in stack:
                g.code = True
        if not live:
            if stack and _arch_dead(stack) and stack[-1].direct and not stack[-1].live:
                _helper(report, stack[-1], enum_helper(path, no, line, snippet, stack, enum_reported, conds), drop)
            continue
        arch_uses = list(dict.fromkeys(m.group(0) for m in ARCH_MACRO.finditer(line))) if arch_tokens else []
        if arch_uses:
            add(arch_use(path, no, line, arch_uses, snippet, conds))
        for m in (WAVEFRONT.finditer(line) if can[WAVEFRONT] and not wave_defined else ()):
            add(wave_use(path, no, m, snippet, conds))
            break
        else:
            if "SIZE" in line and "WAVE" in line:
                _build_wave(report, path, no, line, snippet, conds)
        if "WARP" in line or "WAVE" in line:
            alias_line = "template" in line or (idx > 0 and "template" in lines[idx - 1])
            for m in (ALIAS_DEFAULT.finditer(line) if alias_line else ()):
                if m.group(1) not in report.defines or m.group(1) in report.wave_aliases:
                    add(warp_alias_use(path, no, m.start(1) + 1, m.group(1), snippet, conds))
                    report.needs[(no, m.start(1) + 1)] = ("alias", frozenset({m.group(1)}))
                    break
        for m in (HAS_BUILTIN.finditer(line) if can[HAS_BUILTIN] else ()):
            add(has_builtin(path, no, m, snippet, conds))
        head = CONSTEXPR_FN.search(line) if can[CONSTEXPR_WARP] else None
        if head:
            constexpr_fn = depth if "{" in line[head.end():] else -1
            pending_fn = constexpr_fn == -1 and ";" not in line
        elif pending_fn and "{" in line:
            constexpr_fn, pending_fn = depth, False
        ret = RETURN_WARP.search(line) if constexpr_fn is not None and constexpr_fn >= 0 else None
        if ret:
            add(warp_returned(path, no, ret, snippet, conds))
            constexpr_fn = None
        for m in (CONSTEXPR_WARP.finditer(line) if can[CONSTEXPR_WARP] else ()):
            add(warp_constant(path, no, m, snippet, conds))
            break
        for m in (INLINE_ASM.finditer(line) if can[INLINE_ASM] else ()):
            if asm_label(line, m.start(), raw_lines[idx] if idx < len(raw_lines) else line, m.end()) or \
                    not gpu_asm(asm_text(raw_lines, idx, m.start()), visible):
                continue
            add(inline_asm(path, no, m, snippet, conds))
        # Inside an arch chain, a live line is compiled for SPIR-V (the #else of `#ifdef __gfx12__` is its
        # path) unless the branch is still undecided (`defined(__gfx90a__) || defined(FOO)`).
        # Under `#if __has_builtin(__builtin_amdgcn_…)` the builtin is that test's construct (RSM206).
        guarded_line = not feature or guard_next or guard_until is not None or any(
            (g.arch and g.unknown) or g.builtin_test for g in stack)
        gm = GUARD_CALL.search(line) if feature else None  # guards matter only to feature builtins
        if gm:
            guarded_line = True
            if "{" in line[gm.end():]:
                guard_until = depth if guard_until is None else min(guard_until, depth)
            else:
                guard_next = True
        elif feature and guard_next and line.strip():
            guard_next = "{" not in line and ";" not in line
            if "{" in line:
                guard_until = depth if guard_until is None else min(guard_until, depth)
        if not guarded_line:
            for m in FEATURE_BUILTIN.finditer(line):
                add(unguarded(path, no, m, snippet, conds))
        if stack and stack[-1].direct:
            _helper(report, stack[-1], enum_helper(path, no, line, snippet, stack, enum_reported, conds), drop)
        depth += line.count("{") - line.count("}")
        if guard_until is not None and depth <= guard_until:
            guard_until = None
        if constexpr_fn is not None and constexpr_fn >= 0 and depth <= constexpr_fn:
            constexpr_fn = None
    if drop:
        report.findings[:] = [f for i, f in enumerate(report.findings) if i not in drop]
    if report.findings and derived - set(arch_derived):
        report.findings[:] = [f for f in report.findings if live_under(f.conditions, derived - report.live_macros)]
    # what the scan sees as surely live; the rest waits for every file's arch-derived macros
    report.live_macros -= {d.name for d in report.cond_defines} - sure
    report.findings.sort(key=lambda f: (f.line, f.column))
    if report.findings or report.arch_macros or report.live_macros:
        report.includes = tuple(INCLUDE.findall(text))  # the include graph: derived macros of other headers
    return report


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip()) + 1


def _unknown_as_undefined(name: str) -> Value:
    v = lookup_device(name)
    return 0 if v is None else v


def _may_die(conds: tuple[str, ...]) -> bool:
    """Some condition is false once its unknown macros are undefined: an include guard (`!defined(X_H)`) is
    not, `defined(USE_HIP) && defined(CDNA)` is. Only those defines are kept for the scan to re-judge."""
    return any(evaluate(c, _unknown_as_undefined) == 0 for c in conds)


def _cond_define(path: str, report: FileReport, stack: list[_Group], name: str, conds: tuple[str, ...]) -> None:
    g = next(x for x in reversed(stack) if x.unknown)
    if g.direct:  # the chain's own RSM201 covers it
        index = -1
    elif g.pending >= 0:
        index = g.pending
    else:
        index = g.pending = len(report.pending)
        report.pending.append(arch_macros.pending_derived(path, g.line, g.col, g.snippet, conds[:-1]))
    report.cond_defines.append(CondDefine(name, conds, index))


def promote(report: FileReport, derived: set[str]) -> None:
    """Report the #ifs whose defines the scan found dead because they test macros derived from arch macros
    (in this file or another), naming those macros and the ones defined under them."""
    names: dict[int, list[str]] = {}
    for d in report.cond_defines:
        if d.pending >= 0 and d.name in derived:
            names.setdefault(d.pending, []).append(d.name)
    for index, defined in names.items():
        f = report.pending[index]
        cond = next(d.conditions[-1] for d in report.cond_defines if d.pending == index)
        tested = [n for n in dict.fromkeys(IDENT.findall(cond)) if n in derived]
        if not tested or live_under((cond,), derived):  # dead for an enclosing #if: that one is the construct
            continue
        at = f.snippet.find(tested[0])  # the snippet starts at the `#`
        report.findings.append(replace(f, column=f.column + max(at, 0),
                                       message=arch_macros.derived_message(tested, defined)))
    report.findings.sort(key=lambda f: (f.line, f.column))


def _helper(report: FileReport, g: _Group, ret: Finding | None, drop: set[int]) -> None:
    """A helper's arch-chosen return: the chain's own RSM201, if it has one, becomes this one finding, and the
    RSM201s of its #elif lines are part of it."""
    if ret is None:
        return
    if g.finding is not None and report.findings[g.finding].rule is arch_macros.RSM201:
        report.findings[g.finding] = arch_macros.helper_chain(report.findings[g.finding], ret, g.macros)
        g.helper = True
        drop.update(g.elifs)
    elif g.elifs and not g.helper:
        # `#if !defined(USE_DISPATCH) … #elif defined(__gfx900__) return …`: the arch tests start in an #elif,
        # and the chain is still one construct, reported where it opens.
        line, col, snippet = g.opened
        first = replace(report.findings[g.elifs[0]], line=line, column=col, snippet=snippet)
        report.findings[g.elifs[0]] = arch_macros.helper_chain(first, ret, list(dict.fromkeys(g.elif_macros)))
        g.helper, g.value_chain = True, (g.elifs[0], first, ret)
        drop.update(g.elifs[1:])
    elif not g.helper:
        report.findings.append(ret)


def _build_wave(report: FileReport, path: str, no: int, text: str, snippet: str, conds: tuple[str, ...]) -> None:
    """A configure-time wave size (PROJ_AMDGCN_WAVEFRONT_SIZE) no source defines: one finding per line."""
    for m in BUILD_WAVE_MACRO.finditer(text):
        if m.group(0) not in report.defines:
            report.findings.append(build_wave_use(path, no, m.start() + 1, m.group(0), snippet, conds))
            report.needs[(no, m.start() + 1)] = ("build", frozenset({m.group(0)}))
            return


def _arch_dead(stack: list[_Group]) -> bool:
    """The line is dead because the outermost dead chain tests an arch (or arch-derived) macro."""
    for g in stack:
        if not g.live:
            return g.arch and g.parent_live
    return False
