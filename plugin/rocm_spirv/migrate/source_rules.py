"""Findings for HIP/C++ sources. Reported only: --apply never edits a source file."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from rocm_spirv.migrate.findings import RULES, CondDefine, FileReport, Finding, Redirect
from rocm_spirv.migrate.pp import ARCH_MACRO, Value, directive_condition, evaluate, lookup_device

WAVEFRONT = re.compile(r"\b__AMDGCN_WAVEFRONT_SIZE(__)?\b")
WAVEFRONT_NAMES = frozenset({"__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__"})
CONSTEXPR_WARP = re.compile(
    r"\bconstexpr\b[^;{]*=\s*[^;]*\bwarpSize\b"
    r"|<[^<>;]*\bwarpSize\b[^<>;]*>"
    r"|\[[^\[\];]*\bwarpSize\b[^\[\];]*\]"
    r"|\bstatic_assert\s*\([^;]*\bwarpSize\b"
    r"|\bcase\s+[^:]*\bwarpSize\b")
INLINE_ASM = re.compile(r"\b(__asm__|__asm|asm)\b(\s+(volatile|__volatile__|goto|inline))*\s*\(")
FEATURE_BUILTIN = re.compile(
    r"\b__builtin_amdgcn_(mov_dpp|update_dpp|mfma_\w+|smfmac_\w+|wmma_\w+|swmmac_\w+|s?dot\d\w*|fdot2\w*"
    r"|permlane\w+|ds_swizzle|global_atomic_fadd\w*|flat_atomic_fadd\w*|global_load_lds|ds_bpermute_fi\w*"
    r"|cvt_pk_\w+|s_setprio|s_sleep_var|ballot_w64|ballot_w32"
    r"|s_waitcnt)\b")  # s_waitcnt's immediate packs vmcnt/lgkmcnt differently on GFX9, GFX10/11 and GFX12
HAS_BUILTIN = re.compile(r"__has_builtin\s*\(\s*__builtin_amdgcn_\w+\s*\)")
# Substrings a rule's pattern cannot match without. Stripping comments and strings only removes
# matches, so a text lacking them cannot produce that rule's finding. Substring tests, as regex
# searches over the whole text cost more than the line loop they would save.
RULE_TOKENS = {ARCH_MACRO: ("__gfx", "__GFX", "__amdgcn_processor__"), WAVEFRONT: ("__AMDGCN_WAVEFRONT",),
               HAS_BUILTIN: ("__has_builtin",), CONSTEXPR_WARP: ("warpSize",), INLINE_ASM: ("asm",),
               FEATURE_BUILTIN: ("__builtin_amdgcn_",)}
_CHEAP = tuple(t for rx, ts in RULE_TOKENS.items() if rx is not FEATURE_BUILTIN for t in ts)


def may_match(text: str) -> bool:
    """The prefilter on raw text: most kernels call some __builtin_amdgcn_*, so that token alone is
    confirmed with the pattern."""
    if any(t in text for t in _CHEAP):
        return True
    return "__builtin_amdgcn_" in text and FEATURE_BUILTIN.search(text) is not None


GUARD_CALL = re.compile(r"__builtin_amdgcn_(processor_is|is_invocable)\s*\(")
PP_IF = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b(.*)$")
# a constant: a number, an enumerator (Arch::gfx90a), an ALL_CAPS macro, true/false; not a local variable
CONSTEXPR_FN = re.compile(r"\bconstexpr\b[^;=(]*\(")  # a constexpr function's head: constexpr int f(
RETURN_WARP = re.compile(r"\breturn\s+warpSize\s*;")
RETURN_VALUE = re.compile(r"\breturn\s+(?:\d+[uUlL]*|[A-Za-z_]\w*(?:::\w+)+|[A-Z][A-Z0-9_]*|true|false)\s*;")

ARCH_FIX = ("branch at JIT time: if (__builtin_amdgcn_processor_is(\"gfx90a\")) … (LLVM >= 23); or keep this kernel "
            "native with rocm_spirv_target(<t> OFFLOAD hybrid ARCHS gfx90a)")


_LEXEMES = re.compile(
    r"(?P<num>(?<![\w.])\d[\w.]*(?:'\w+)+)"  # C++14 digit separators: 1'000'000 is not a char literal
    r'|(?P<raw>(?<!\w)(?:u8|[uUL])?R"(?P<d>[^()\\ \t\n]{0,16})\((?:[\s\S]*?)\)(?P=d)")'
    r"|(?P<line>//(?:[^\n\\]|\\[\s\S])*)"  # a backslash-newline splice continues the comment
    r"|(?P<block>/\*[\s\S]*?(?:\*/|\Z))"
    r'|(?P<str>"(?:[^"\\\n]|\\[\s\S])*"?)'
    r"|(?P<chr>'(?:[^'\\\n]|\\[\s\S])*'?)")
_NOT_NEWLINE = re.compile(r"[^\n]")


def _blank(m: re.Match[str]) -> str:
    text = m.group(0)
    kind = m.lastgroup
    if kind == "num":
        return text
    if kind in ("line", "block"):
        return _NOT_NEWLINE.sub(" ", text)
    if kind == "raw":
        head = text.index("(") + 1
        tail = len(text) - len(m.group("d")) - 2
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


def _find(path: str, rule: str, line: int, col: int, msg: str, fix: str, snippet: str,
          conditions: tuple[str, ...] = ()) -> Finding:
    return Finding(RULES[rule], path, line, col, msg, fix, Redirect.SOURCE, False, snippet.strip()[:120], conditions)


# Markers of a file a HIP compile sees: HIP/CUDA sources, and headers declaring device code. A C++ file
# without any (a CPU backend, a host tool) never reaches the device pass, so its asm is host asm.
DEVICE_SUFFIXES = (".hip", ".cu", ".cuh")
DEVICE_MARKERS = ("__global__", "__device__", "hip_runtime", "__HIP_DEVICE_COMPILE__", "__builtin_amdgcn_",
                  "__HIPCC__", "__launch_bounds__", "__CUDA_ARCH__")
# Whole tokens only: miniaudio's `ma_job_process__device__aaudio_reroute` holds "__device__" and is host code.
DEVICE_MARKER = re.compile(r"(?<!\w)(?:" + "|".join(DEVICE_MARKERS) + ")")
DEFINE = re.compile(r"^\s*#\s*(define|undef)\s+([A-Za-z_]\w*)(.*)$")
IDENT = re.compile(r"[A-Za-z_]\w*")


ERROR_DIRECTIVE = re.compile(r"^\s*#\s*(error|warning)\b")
WAVE_USE = "has no value under amdgcnspirv"
WAVE_DEFINED = "the project defines the wavefront-size macro when the compiler does not, as"
FALLBACK_GUARD = re.compile(r"^\s*!\s*defined\s*\(?\s*__AMDGCN_WAVEFRONT_SIZE(__)?\s*\)?\s*$")


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
    defines: list[str] = field(default_factory=list)  # macros its dead arch branches define
    direct: bool = False  # some condition names an arch macro itself (an arch-value helper's #if)
    code: bool = False  # the chain holds more than #error/#warning lines
    wave: bool = False  # the chain's test of the wavefront macro is reported
    line: int = 0  # the current branch's directive: where a finding about its condition goes
    col: int = 1  # of its `#`
    snippet: str = ""
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
    derived = set(arch_derived)
    raw_lines = text.splitlines()
    lines = stripped.splitlines()
    if not any(can.values()):
        return report
    directives = _directives(lines) if "#" in stripped else {}
    visible = device_visible(path, text)

    def lookup(name: str) -> Value:
        return 0 if name in derived and name not in report.live_macros else lookup_device(name)

    def is_arch(cond: str) -> bool:
        return bool(ARCH_MACRO.search(cond)) or any(
            n in derived and n not in report.live_macros for n in IDENT.findall(cond))

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
                _asm_in_macro(path, idx, skip_to, lines, raw_lines, dm.group(2), add, conds, visible)
            if dm and live:
                name, body = dm.group(2), dm.group(3)
                if dm.group(1) == "define" and ARCH_MACRO.search(body):
                    report.arch_macros.add(name)
                    derived.add(name)
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
            if pm:
                word, rest = pm.group(1), pm.group(2)
                cond = directive_condition(word, rest)
                if word in ("if", "ifdef", "ifndef"):
                    g = _Group(parent_live=live, arch=is_arch(cond), direct=bool(ARCH_MACRO.search(cond)),
                               line=no, col=_indent(snippet), snippet=snippet)
                    v = evaluate(cond, lookup)
                    g.live, g.taken, g.unknown = live and v != 0, v, cond if v is None else ""
                    g.prior.append(cond)
                    stack.append(g)
                    if live and ARCH_MACRO.search(cond):
                        g.finding = len(report.findings)
                        add(_arch_finding(path, no, cond, full, snippet, conds))
                elif word in ("elif", "elifdef", "elifndef") and stack:
                    g = stack[-1]
                    v = evaluate(cond, lookup)
                    g.arch = g.arch or is_arch(cond)
                    g.direct = g.direct or bool(ARCH_MACRO.search(cond))
                    g.live = g.parent_live and g.taken != 1 and v != 0
                    g.unknown = _effective(cond, g.prior) if (v is None or g.taken is None) and g.live else ""
                    g.taken = 1 if g.taken == 1 or v == 1 else None if g.taken is None or v is None else 0
                    g.line, g.col, g.snippet, g.pending = no, _indent(snippet), snippet, -1
                    g.prior.append(cond)
                    if g.parent_live and ARCH_MACRO.search(cond):
                        outer = tuple(x.unknown for x in stack[:-1] if x.unknown)
                        add(_arch_finding(path, no, cond, full, snippet, outer))
                elif word == "else" and stack:
                    g = stack[-1]
                    g.live = g.parent_live and g.taken != 1
                    g.unknown = _effective("", g.prior) if g.taken is None and g.live else ""
                    g.taken = 1
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
            arch_directive = bool(pm and ARCH_MACRO.search(cond))  # its RSM201 finding names the rest
            tests = [m for m in HAS_BUILTIN.finditer(full)] if live and can[HAS_BUILTIN] and not arch_directive else []
            if tests:
                names = ", ".join(dict.fromkeys(m.group(0) for m in tests))
                add(_find(path, "RSM206", no, tests[0].start() + 1, f"{names} {'is' if len(tests) == 1 else 'are'} "
                          "always true under amdgcnspirv",
                          "test with __builtin_amdgcn_is_invocable(<builtin>) in an if (LLVM >= 23)", snippet, conds))
            wm = WAVEFRONT.search(full) if live and can[WAVEFRONT] and not wave_defined and not arch_directive else None
            if wm and dm and dm.group(1) == "define" and WAVEFRONT.fullmatch(dm.group(2)):
                wave_defined = True
                add(_find(path, "RSM202", no, wm.start() + 1, f"{WAVE_DEFINED} {dm.group(3).strip() or 'empty'}: "
                          "under amdgcnspirv every use sees that value, whatever the GPU's wavefront size",
                          "drop the fallback; read warpSize (or __builtin_amdgcn_wavefrontsize()) at run time and "
                          "size storage for 64 lanes", snippet, conds))
            elif wm and not dm and not (pm and FALLBACK_GUARD.match(cond)) and not (stack and stack[-1].wave):
                if pm and word not in ("endif", "else"):
                    stack[-1].wave = True
                add(_find(path, "RSM202", no, wm.start() + 1, f"{wm.group(0)} {WAVE_USE}",
                          "use warpSize at run time (or __builtin_amdgcn_wavefrontsize())", snippet, conds))
            continue
        if stack and not stack[-1].code and line.strip():
            for g in stack:
                g.code = True
        if not live:
            if stack and _arch_dead(stack) and stack[-1].direct and not stack[-1].live:
                _enum_helper(path, no, line, snippet, stack, enum_reported, add, conds)
            continue
        arch_uses = list(dict.fromkeys(m.group(0) for m in ARCH_MACRO.finditer(line)))
        if arch_uses:
            add(_find(path, "RSM201", no, line.index(arch_uses[0]) + 1,
                      f"{', '.join(arch_uses)} {'is' if len(arch_uses) == 1 else 'are'} undefined under amdgcnspirv",
                      ARCH_FIX, snippet, conds))
        for m in (WAVEFRONT.finditer(line) if can[WAVEFRONT] and not wave_defined else ()):
            add(_find(path, "RSM202", no, m.start() + 1, f"{m.group(0)} {WAVE_USE}",
                      "use warpSize at run time (or __builtin_amdgcn_wavefrontsize())", snippet, conds))
            break
        for m in (HAS_BUILTIN.finditer(line) if can[HAS_BUILTIN] else ()):
            add(_find(path, "RSM206", no, m.start() + 1, f"{m.group(0)} is always true under amdgcnspirv",
                      "test with __builtin_amdgcn_is_invocable(<builtin>) in an if (LLVM >= 23)", snippet, conds))
        head = CONSTEXPR_FN.search(line) if can[CONSTEXPR_WARP] else None
        if head:
            constexpr_fn = depth if "{" in line[head.end():] else -1
            pending_fn = constexpr_fn == -1 and ";" not in line
        elif pending_fn and "{" in line:
            constexpr_fn, pending_fn = depth, False
        ret = RETURN_WARP.search(line) if constexpr_fn is not None and constexpr_fn >= 0 else None
        if ret:
            add(_find(path, "RSM203", no, ret.start() + 1, "a constexpr function returns warpSize",
                      "read warpSize at run time; size shared memory for 64 lanes, or template on both 32 and 64 "
                      "and dispatch at run time", snippet, conds))
            constexpr_fn = None
        for m in (CONSTEXPR_WARP.finditer(line) if can[CONSTEXPR_WARP] else ()):
            add(_find(path, "RSM203", no, m.start() + 1, "warpSize used as a compile-time constant",
                      "read warpSize at run time; size shared memory for 64 lanes, or template on both 32 and 64 "
                      "and dispatch at run time", snippet, conds))
            break
        for m in (INLINE_ASM.finditer(line) if can[INLINE_ASM] else ()):
            if _asm_label(line, m.start(), raw_lines[idx] if idx < len(raw_lines) else line, m.end()) or \
                    not _gpu_asm(_asm_text(raw_lines, idx, m.start()), visible):
                continue
            add(_find(path, "RSM204", no, m.start() + 1, "inline assembly cannot be lowered to SPIR-V",
                      "replace with __builtin_amdgcn_* builtins, or build this kernel native (hybrid mode: "
                      "rocm_spirv_target(<t> OFFLOAD hybrid ARCHS …))", snippet, conds))
        guarded_line = guard_next or guard_until is not None or any(g.arch for g in stack)
        gm = GUARD_CALL.search(line)
        if gm:
            guarded_line = True
            if "{" in line[gm.end():]:
                guard_until = depth if guard_until is None else min(guard_until, depth)
            else:
                guard_next = True
        elif guard_next and line.strip():
            guard_next = "{" not in line and ";" not in line
            if "{" in line:
                guard_until = depth if guard_until is None else min(guard_until, depth)
        if not guarded_line and can[FEATURE_BUILTIN]:
            for m in FEATURE_BUILTIN.finditer(line):
                add(_find(path, "RSM205", no, m.start() + 1, f"__builtin_amdgcn_{m.group(1)} is target-specific "
                          "and unguarded", f"if (__builtin_amdgcn_is_invocable(__builtin_amdgcn_{m.group(1)})) … "
                          "else portable fallback (LLVM >= 23), or hybrid mode", snippet, conds))
        if stack and stack[-1].direct:
            _enum_helper(path, no, line, snippet, stack, enum_reported, add, conds)
        depth += line.count("{") - line.count("}")
        if guard_until is not None and depth <= guard_until:
            guard_until = None
        if constexpr_fn is not None and constexpr_fn >= 0 and depth <= constexpr_fn:
            constexpr_fn = None
    if report.findings and derived - set(arch_derived):
        report.findings[:] = [f for f in report.findings if live_under(f.conditions, derived - report.live_macros)]
    # what the scan sees as surely live; the rest waits for every file's arch-derived macros
    report.live_macros -= {d.name for d in report.cond_defines} - sure
    report.findings.sort(key=lambda f: (f.line, f.column))
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
        report.pending.append(_find(path, "RSM201", g.line, g.col, "", ARCH_FIX, g.snippet, conds[:-1]))
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
        verb = "is" if len(tested) == 1 else "are"
        at = f.snippet.find(tested[0])  # the snippet starts at the `#`
        report.findings.append(replace(
            f, column=f.column + max(at, 0),
            message=f"{', '.join(tested)} {verb} undefined under amdgcnspirv (derived from arch macros); so is "
                    f"{', '.join(dict.fromkeys(defined))}, defined under it (its uses are covered here)"))
    report.findings.sort(key=lambda f: (f.line, f.column))


def _arch_dead(stack: list[_Group]) -> bool:
    """The line is dead because the outermost dead chain tests an arch (or arch-derived) macro."""
    for g in stack:
        if not g.live:
            return g.arch and g.parent_live
    return False


def _arch_finding(path: str, no: int, cond: str, full: str, snippet: str, conds: tuple[str, ...]) -> Finding:
    names = list(dict.fromkeys(m.group(0) for m in ARCH_MACRO.finditer(cond)))
    col = full.find(names[0]) + 1
    verb = "is" if len(names) == 1 else "are"
    return _find(path, "RSM201", no, col, f"{', '.join(names)} {verb} undefined under amdgcnspirv", ARCH_FIX,
                 snippet, conds)


def _enum_helper(path: str, no: int, line: str, snippet: str, stack: list[_Group], reported: set[int],
                 add: Callable[[Finding], None], conds: tuple[str, ...]) -> None:
    m = RETURN_VALUE.search(line)
    if m is None or len(stack) in reported:
        return
    reported.add(len(stack))
    add(_find(path, "RSM207", no, m.start() + 1,
              "returns a value chosen by an arch #if; under SPIR-V only the fallback is compiled",
              "query __builtin_amdgcn_processor_is (or warpSize) at run time in device code, or "
              "hipDeviceProp_t.gcnArchName on the host", snippet, conds))


# A mnemonic starts an instruction: right after a template's opening quote, an escaped newline or a `;`
# (line splices between). Elsewhere a GCN-looking word is an operand name (`%[s_vec]`, `[v_acc] "m"(…)`).
_INSN = r'(?:"|\\n|;)(?:\s|\\(?=\s))*'
GCN_ASM = re.compile(_INSN + r"(?:s|v|ds|flat|global|buffer|scratch|image|exp)_[a-z][a-z0-9_]*\b(?!\.)")
# Dotted mnemonics (PTX cp.async/ldmatrix.sync/mma.sync, RISC-V flw.ps: AMDGPU has none), trap;, x86 (%%eax,
# rdtsc, cpuid), POWER/ARM barriers: not AMD GPU assembly.
FOREIGN_ASM = re.compile(_INSN + r"[a-z][a-z0-9_]*\.[a-z0-9]"
                         r"|\b(?:mov|ld|st|add|mad|mul|cvt|setp|shfl|bar|membar|vote|activemask|prmt|bfe|brev)\.[a-z]"
                         r"|\btrap;|%%[re]?[a-d]x\b|%%[re]?[sd]i\b|\b(?:rdtscp?|cpuid|xgetbv|lfence|mfence|sfence|pause"
                         r"|isync|lwsync|hwsync|dmb|dsb|isb|yield)\b|\bnop\b")


def _asm_text(raw_lines: list[str], i: int, col: int) -> str:
    """The raw text of an asm statement from its keyword to the first `;`, over at most three lines."""
    text = " ".join([raw_lines[i][col:], *raw_lines[i + 1 : i + 3]]) if i < len(raw_lines) else ""
    end = text.find(";")
    return text if end < 0 else text[: end + 1]  # PTX's own `;` ends the template: its opcode is before it


def _gpu_asm(text: str, visible: bool) -> bool:
    """AMD GPU assembly: GCN/RDNA mnemonics anywhere, or any asm but clearly foreign asm in a device file."""
    if GCN_ASM.search(text):
        return True
    return visible and not FOREIGN_ASM.search(text)


def _asm_label(line: str, start: int, raw: str, end: int) -> bool:
    """`int f(int) __asm("llvm.amdgcn.ubfe");` names the symbol of a declaration: no assembly is emitted."""
    return line[:start].rstrip().endswith(")") or raw[end:].lstrip().startswith('"llvm.')


def _asm_in_macro(path: str, first: int, last: int, lines: list[str], raw_lines: list[str], name: str,
                  add: Callable[[Finding], None], conds: tuple[str, ...], visible: bool) -> None:
    """Inline assembly in a #define body (with continuation lines): one finding at its first asm line."""
    for i in range(first, last + 1):
        for m in INLINE_ASM.finditer(lines[i]):
            raw = raw_lines[i] if i < len(raw_lines) else lines[i]
            if not _asm_label(lines[i], m.start(), raw, m.end()) and _gpu_asm(_asm_text(raw_lines, i, m.start()),
                                                                               visible):
                add(_find(path, "RSM204", i + 1, m.start() + 1, f"inline assembly in macro {name} cannot be "
                          "lowered to SPIR-V", "replace with __builtin_amdgcn_* builtins, or build the kernels "
                          "using it native (hybrid mode)", raw, conds))
                return
