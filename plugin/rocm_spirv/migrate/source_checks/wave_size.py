"""The wavefront size taken as known at compile time: __AMDGCN_WAVEFRONT_SIZE (RSM202) and warpSize as a
constant (RSM203). The rules and their patterns; the finding builders; the hooks and their topics:
WAVE_USES (the wavefront macro and build-defined wave sizes, in directives and code), WARP_ALIASES (a wave-size
alias as a template argument's default) and WARP_CONSTANTS (warpSize in constant expressions, returned by a
constexpr function)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rocm_spirv.migrate.findings import E, Finding, Rule
from rocm_spirv.migrate.pp import BUILD_WAVE_MACRO, BUILD_WAVE_TEST
from rocm_spirv.migrate.source_checks.library_macros import WAVE_SIZE_NAMES
from rocm_spirv.migrate.source_checks.topic import CONDITIONALS, SourceTopic, finding

if TYPE_CHECKING:
    from rocm_spirv.migrate.source_rules import Directive, Group, SourceScan

RSM202 = Rule("RSM202", "wavefront-size-macro", E, "__AMDGCN_WAVEFRONT_SIZE is used",
              "The wavefront size is not known when SPIR-V is generated; the macro is undefined.",
              example=('k.hip', '__global__ void k(int* o) { o[0] = __AMDGCN_WAVEFRONT_SIZE; }\n'))
RSM203 = Rule("RSM203", "constexpr-warpsize", E, "warpSize is used as a compile-time constant",
              "Under SPIR-V warpSize is a runtime value: not usable in constexpr, template arguments or array bounds.",
              example=('k.hip', '__global__ void k() { __shared__ float tile[warpSize]; }\n'))
RULES = (RSM202, RSM203)

WAVEFRONT = re.compile(r"\b__AMDGCN_WAVEFRONT_SIZE(__)?\b")
WAVEFRONT_NAMES = frozenset({"__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__"})
# What a macro's body takes the wave size from at compile time: it is then a wave-size alias
# (`#define LIB_DEVICE_WARP_THREADS ::prim::device_warp_size()`).
WAVE_SOURCE = re.compile(r"warp_size\s*\(|wavefront_size\s*\(|\bwarpSize\b|\b__AMDGCN_WAVEFRONT_SIZE")
# `template <int warpSize, typename T>` (AMReX's warp reductions): a template parameter of that name
WARP_PARAM = re.compile(r"\btemplate\s*<[^<>;]*\b(?:int|unsigned|short|long|auto|size_t|std::size_t|[A-Za-z_]\w*_t)"
                        r"\s+warpSize\b")
# HIP's warpSize, and a library's device wave size under its own name (library_macros.WAVE_SIZE_NAMES)
LIBRARY_WARP = {w.name: w.include for w in WAVE_SIZE_NAMES}
LIBRARY_WARP_FUNCTIONS = tuple(n for n in LIBRARY_WARP if n[:1].islower())  # device_warp_size(), not C10_WARP_SIZE
_WARP = r"(?:warpSize|" + "|".join(LIBRARY_WARP) + ")"


def _constant_places(name: str, case: bool) -> re.Pattern[str]:
    """Where a name (a regex) must be a compile-time constant: a constexpr's value, a template argument list, an
    array bound, a static_assert, an if constexpr and, with case, a case label."""
    return re.compile(
        rf"\bconstexpr\b[^;{{]*=\s*[^;]*\b{name}\b"
        # a template argument list, not `offset <= warpSize >> 1` (a comparison, then a shift) nor a launch's
        # `<<<1, warpSize>>>` (host code: the device's run-time wave size)
        rf"|(?<!<)<(?![<=])[^<>;]*\b{name}\b[^<>;]*>(?!=|>\s*\d)"
        # an array bound: `[…warpSize…]` after a declarator (`float tile[`, `T* p[2][`), not a subscript
        # (`out[threadIdx.x / warpSize] = v`, `return data[warpSize - 1]`): a type word must come before the name
        r"|(?<![\w\])])(?!(?:return|else|do|case|new|delete|throw|co_return|co_yield|goto|sizeof)\b)"
        rf"[A-Za-z_][\w:]*(?:<[^<>;]*>)?[\s*&]+[A-Za-z_]\w*\s*(?:\[[^\[\];]*\]\s*)*\[[^\[\];]*\b{name}\b[^\[\];]*\]"
        rf"|\bstatic_assert\s*\([^;]*\b{name}\b"
        # a launch bound: `__launch_bounds__(WARPS_PER_CTA * WARP_SIZE)` must be a constant
        rf"|\b__launch_bounds__\s*\([^;{{]*\b{name}\b"
        rf"|\bif\s+constexpr\s*\([^;{{]*\b{name}\b"
        + (rf"|\bcase\s+[^:]*\b{name}\b" if case else ""))


CONSTEXPR_WARP = _constant_places(_WARP, case=True)
WARP_NAME = re.compile(rf"\b{_WARP}\b")
# The same places holding a project macro: a wave-size alias (`#define NUM_WARPS (1024 / warpSize)`) there is
# a compile-time wave size too, once the scan knows the macro is one (FileReport.needs "alias").
# NUM_WARPS, __acpp_warp_size: a macro name (this file's aliases, or one that says warp or wave)
_NAME = r"[A-Za-z_]\w*"
ALIAS_CONSTANT = _constant_places(_NAME, case=False)
MACRO_NAME = re.compile(rf"\b{_NAME}\b")
WAVE_WORD = re.compile(r"warp|wave", re.IGNORECASE)


def amd_wave_name(name: str) -> bool:
    """A wave size named the AMD way, which a build passes per target: PROJ_WAVEFRONT_SIZE (a build-defined wave
    size, BUILD_WAVE_MACRO), __WARP_SIZE_AMDGCN__."""
    return BUILD_WAVE_MACRO.fullmatch(name) is not None or ("AMDGCN" in name and WAVE_WORD.search(name) is not None)
# `constexpr int warpSize = 64;` in a function (OpenMM, since ROCm 7 made HIP's warpSize a run-time value): a
# local of that name, HIP's warpSize no more until its block closes
WARP_LOCAL = re.compile(r"\b(?:constexpr|const)\s+(?:int|unsigned(?:\s+int)?|size_t|std::size_t|auto|u?int32_t)"
                        r"\s+warpSize\s*[={]")
CONSTEXPR_FN = re.compile(r"\bconstexpr\b[^;=(]*?(\w+)\s*\(")  # a constexpr function's head: constexpr int f(
RETURN_WARP = re.compile(r"\breturn\s+warpSize\s*;")
# `return ::rocprim::device_warp_size();`: a wrapper of a library's device wave size (its calls are that size)
RETURN_LIBRARY_WARP = re.compile(r"\breturn\s+(?:::)?(?:\w+::)*(" + "|".join(LIBRARY_WARP_FUNCTIONS)
                                 + r")\s*\(\s*\)\s*;")
WAVE_USE = "has no value under amdgcnspirv"
WAVE_DEFINED = "the project defines the wavefront-size macro when the compiler does not, as"
FALLBACK_GUARD = re.compile(r"^\s*!\s*defined\s*\(?\s*__AMDGCN_WAVEFRONT_SIZE(__)?\s*\)?\s*$")
# a wave-size alias as a template argument's default: `template <int W = LIB_DEVICE_WARP_THREADS>`
ALIAS_DEFAULT = re.compile(r"=\s*([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)\s*[,>]")
WARP_FIX = ("read warpSize at run time; size shared memory for 64 lanes, or template on both 32 and 64 and "
            "dispatch at run time")


def defines_wave_size(path: str, no: int, m: re.Match[str], value: str, snippet: str,
                      conds: tuple[str, ...]) -> Finding:
    """The project's own #define of the wavefront macro: the one finding for every use of it."""
    return finding(RSM202, path, no, m.start() + 1, f"{WAVE_DEFINED} {value.strip() or 'empty'}: "
                   "clang 22 defines the macro for no target (it was removed upstream), so every use sees that "
                   "value, under amdgcnspirv and in native wave32 builds alike",
                   "drop the fallback; read warpSize (or __builtin_amdgcn_wavefrontsize()) at run time and "
                   "size storage for 64 lanes", snippet, conds)


def wave_use(path: str, no: int, m: re.Match[str], snippet: str, conds: tuple[str, ...]) -> Finding:
    return finding(RSM202, path, no, m.start() + 1, f"{m.group(0)} {WAVE_USE}",
                   "use warpSize at run time (or __builtin_amdgcn_wavefrontsize())", snippet, conds)


def build_wave_use(path: str, no: int, col: int, name: str, snippet: str, conds: tuple[str, ...]) -> Finding:
    """A wave size the project's build defines (no source does): per target from the target list, or once at
    configure time (RAJA_HIP_WAVESIZE, a CMake cache value): either way not one an amdgcnspirv binary can have."""
    return finding(RSM202, path, no, col, f"{name}, a wave size the build defines (per target or once at "
                   "configure time), has no right value under amdgcnspirv: one binary runs on wave32 and wave64 "
                   "GPUs", "use warpSize at run time (or __builtin_amdgcn_wavefrontsize())", snippet, conds)


def warp_alias_use(path: str, no: int, col: int, name: str, snippet: str, conds: tuple[str, ...]) -> Finding:
    return finding(RSM203, path, no, col, f"{name}, a compile-time wave size, is a template argument's default",
                   WARP_FIX, snippet, conds)


def warp_returned(path: str, no: int, m: re.Match[str], snippet: str, conds: tuple[str, ...]) -> Finding:
    return finding(RSM203, path, no, m.start() + 1, "a constexpr function returns warpSize", WARP_FIX, snippet,
                   conds)


WARP_CONSTANT = "warpSize used as a compile-time constant"


def warp_constant(path: str, no: int, m: re.Match[str], snippet: str, conds: tuple[str, ...],
                  head: int = 0) -> Finding:
    """head: the length of a previous line's constexpr head put before this line (the column is this line's)."""
    name = next((n for n in WARP_NAME.findall(m.group(0)) if n in LIBRARY_WARP), "warpSize")
    what = "warpSize" if name == "warpSize" else \
        f"{name} (<{LIBRARY_WARP[name]}>'s device wave size, a compile-time value per native target)"
    return finding(RSM203, path, no, max(m.start() - head, 0) + 1, f"{what} used as a compile-time constant",
                   WARP_FIX, snippet, conds)


def build_wave_uses(scan: SourceScan, text: str, pattern: re.Pattern[str] = BUILD_WAVE_MACRO) -> bool:
    """A configure-time wave size (PROJ_AMDGCN_WAVEFRONT_SIZE) no source defines: one finding per line."""
    for m in pattern.finditer(text):
        if m.group(0) not in scan.report.defines:
            scan.add(build_wave_use(scan.path, scan.no, m.start() + 1, m.group(0), scan.snippet, scan.conds))
            scan.report.needs[(scan.no, m.start() + 1)] = ("build", frozenset({m.group(0)}))
            return True
    return False


def _wave_in_macro_body(scan: SourceScan, d: Directive) -> None:
    """A build-defined wave size in a function-like or code macro's body (MIGraphX pastes
    MIGRAPHX_WAVEFRONTSIZE into the DPP steps its reduction macro emits): one finding for the body, at the line
    of its first use. Not a macro named for a wave size itself (`#define WARP_SIZE PROJ_WAVEFRONT_SIZE`, an
    alias whose uses decide)."""
    for j in range(scan.idx, scan.skip_to + 1):
        line = scan.lines[j]
        m = BUILD_WAVE_MACRO.search(line, line.find(d.name) + len(d.name) if j == scan.idx else 0)
        if m and m.group(0) not in scan.report.defines:
            snippet = scan.raw_lines[j] if j < len(scan.raw_lines) else line
            scan.add(build_wave_use(scan.path, j + 1, m.start() + 1, m.group(0), snippet, scan.conds))
            scan.report.needs[(j + 1, m.start() + 1)] = ("build", frozenset({m.group(0)}))
            return


def wave_in_directive(scan: SourceScan, d: Directive) -> None:
    """The project's own #define of the wavefront macro, or a directive using it; build-defined wave sizes in
    an #if or #elif. An arch test's RSM201 names the rest of its line."""
    live, stack, word = scan.live, scan.stack, d.word
    macro, conditional = word in ("define", "undef"), word in CONDITIONALS
    wm = WAVEFRONT.search(d.full) if live and scan.can[WAVEFRONT] and not scan.wave_defined and not d.direct else None
    # One #if/#elif chain on a configure-time wave size picks one value (hypre's `#if HYPRE_WARP_SIZE == 64`
    # / `#elif == 32` chooses its shift and mask): one finding, at the directive that opens it. A warp size
    # is one only in a test: in code `X_WARP_SIZE` is a use, counted where the chain or the build chooses it.
    if live and not wm and not macro and conditional and word not in ("endif", "else") and not d.direct and \
            not (word.startswith("elif") and stack and stack[-1].wave) and \
            build_wave_uses(scan, d.full, BUILD_WAVE_TEST) and stack:
        stack[-1].wave = True
    if live and not wm and word == "define" and "WAVE" in d.body and d.name and not WAVE_WORD.search(d.name):
        _wave_in_macro_body(scan, d)
    if live and not wm and word == "define" and stack and amd_wave_name(d.name) and \
            d.body.strip().strip("()") in ("32", "64") and \
            re.fullmatch(rf"\s*!\s*defined\s*\(?\s*{re.escape(d.name)}\s*\)?\s*", stack[-1].prior[-1]):
        # `#ifndef __WARP_SIZE_AMDGCN__` / `#define __WARP_SIZE_AMDGCN__ 64`: the fallback of a wave size the
        # build passes per target (AMDGPUExperiments: 64 for gfx90a, 32 for gfx1100); with it defined here, the
        # uses are the project's, and this default is what every GPU gets under amdgcnspirv
        scan.add(finding(RSM202, scan.path, scan.no, max(scan.snippet.find(d.name), 0) + 1,
                         f"the project's fallback of its wave size {d.name}, as {d.body.strip()}: under amdgcnspirv "
                         "no per-target value is passed, so every GPU gets it", "use warpSize at run time (or "
                         "__builtin_amdgcn_wavefrontsize()); size storage for 64 lanes", scan.snippet, scan.conds))
    if wm and word == "define" and WAVEFRONT.fullmatch(d.name):
        scan.wave_defined = True
        if stack and stack[-1].direct and d.name in stack[-1].defined_values:
            return  # the fallback arm of an arch chain picking the value (`#ifdef __GFX9__` 64 `#else` 32): RSM207's
        scan.add(defines_wave_size(scan.path, scan.no, wm, d.body, scan.snippet, scan.conds))
    elif wm and not macro and not (conditional and FALLBACK_GUARD.match(d.cond)) and not (stack and stack[-1].wave):
        if conditional and word not in ("endif", "else"):
            stack[-1].wave = True
            stack[-1].wave_finding = len(scan.report.findings)
        scan.add(wave_use(scan.path, scan.no, wm, scan.snippet, scan.conds))


def wave_chain_closed(scan: SourceScan, g: Group) -> None:
    """A wave-size test whose chain holds only #error/#warning (lucebox's `#if __AMDGCN_WAVEFRONT_SIZE__ != 32
    #error …`) rejects a build, as an arch chain of #error does: inert under SPIR-V, where the test is false."""
    at = g.wave_finding
    findings = scan.report.findings
    if at is not None and not g.code and at < len(findings) and findings[at].rule is RSM202:
        del findings[at]


def wave_in_code(scan: SourceScan) -> None:
    """The first use of the wavefront macro on a line, else of a build-defined wave size."""
    line = scan.line
    for m in (WAVEFRONT.finditer(line) if scan.can[WAVEFRONT] and not scan.wave_defined else ()):
        scan.add(wave_use(scan.path, scan.no, m, scan.snippet, scan.conds))
        break
    else:
        if "SIZE" in line and "WAVE" in line:
            build_wave_uses(scan, line)


# `constexpr int N =` at the end of a line: its value is on the next one (clang-format breaks long ones so)
CONSTEXPR_OPEN = re.compile(r"\bconstexpr\b[^;{}]*=\s*$")


def _continued(scan: SourceScan) -> tuple[str, int]:
    """The line, with the head of a constexpr the previous line opens put before it, and that head's length:
    matches that start in the head and reach into this line are this line's."""
    prev = scan.lines[scan.idx - 1].rstrip() if scan.idx > 0 else ""
    if prev and CONSTEXPR_OPEN.search(prev):
        return f"{prev} {scan.line}", len(prev) + 1
    return scan.line, 0


ALIAS_USE = "a wave-size alias (a macro on warpSize) used as a compile-time constant"


def alias_defaults(scan: SourceScan) -> None:
    """A wave-size alias (defined by no source, or by one to the wave size) as a template argument's default,
    else in an array bound, a template argument, a constexpr or a static_assert: kept once the scan knows every
    file's aliases (FileReport.needs)."""
    line, idx = scan.line, scan.idx
    # an alias whose name says neither warp nor wave (`#define _WS warpSize`) is looked for by name
    odd = scan.other_aliases
    if scan.report.wave_aliases:
        odd = odd | {a for a in scan.report.wave_aliases if not WAVE_WORD.search(a)}
    if WAVE_WORD.search(line) or (odd and any(a in line for a in odd)):
        alias_line = "template" in line or (idx > 0 and "template" in scan.lines[idx - 1])
        for m in (ALIAS_DEFAULT.finditer(line) if alias_line else ()):
            if m.group(1) not in scan.report.defines or m.group(1) in scan.report.wave_aliases:
                scan.add(warp_alias_use(scan.path, scan.no, m.start(1) + 1, m.group(1), scan.snippet, scan.conds))
                scan.report.needs[(scan.no, m.start(1) + 1)] = ("alias", frozenset({m.group(1)}))
                return
        text, head = _continued(scan)
        for m in ALIAS_CONSTANT.finditer(text) if scan.warp_param is None else ():
            # not LIBRARY_WARP (warp_constants) nor a configure-time wave size (RSM202, wave_in_code)
            aliases, defines = scan.report.wave_aliases, scan.report.defines
            part = text[max(m.start(), head):m.end()]  # this line's share of the match
            names = [n for n in dict.fromkeys(MACRO_NAME.findall(part)) if n in aliases or (
                     n not in defines and n not in LIBRARY_WARP and n != "warpSize" and (
                         n in scan.other_aliases or (WAVE_WORD.search(n) and not BUILD_WAVE_TEST.fullmatch(n))))]
            names = [n for n in names if n in aliases] or names  # this file's aliases first
            if names and not WARP_NAME.search(m.group(0)) and \
                    not any(f.line == scan.no for f in scan.report.findings[-4:]):  # one construct a line
                col = max(m.start(), head) - head + part.find(names[0]) + 1
                scan.add(finding(RSM203, scan.path, scan.no, col, f"{', '.join(names)}: {ALIAS_USE}", WARP_FIX,
                                 scan.snippet, scan.conds))
                scan.report.needs[(scan.no, col)] = ("alias", frozenset(names))
                return


def warp_constants(scan: SourceScan) -> None:
    """warpSize returned by a constexpr function (followed from its head to its closing brace), then the first
    use of warpSize as a compile-time constant on the line."""
    line, depth = scan.line, scan.depth
    head = CONSTEXPR_FN.search(line)
    if head:
        scan.constexpr_fn = depth if "{" in line[head.end():] else -1
        scan.pending_fn = scan.constexpr_fn == -1 and ";" not in line
        scan.constexpr_name = head.group(1)
    elif scan.pending_fn and "{" in line:
        scan.constexpr_fn, scan.pending_fn = depth, False
    ret = RETURN_WARP.search(line) if scan.constexpr_fn is not None and scan.constexpr_fn >= 0 else None
    if ret:
        scan.add(warp_returned(scan.path, scan.no, ret, scan.snippet, scan.conds))
        scan.constexpr_fn = None
    elif scan.constexpr_fn is not None and scan.constexpr_fn >= 0 and scan.constexpr_name and \
            (m_lib := RETURN_LIBRARY_WARP.search(line)) is not None:
        # the wrapper's definition is no construct (the library's size is made elsewhere); its uses as a
        # compile-time constant are, as the library function's own are
        scan.warp_functions[scan.constexpr_name] = m_lib.group(1)
    param = WARP_PARAM.search(line)
    if param:
        scan.warp_param = depth if "{" in line[param.end():] else -1
    elif WARP_LOCAL.search(line) and scan.warp_param is None:
        scan.warp_param = depth - 1 if depth > 0 else -2  # -2: at namespace scope, to the end of the file
        scan.report.declares_warp = True
    elif scan.warp_param == -1 and "{" in line:
        scan.warp_param = depth
    if scan.warp_param is None and scan.warp_functions and not head and \
            any(n in line for n in scan.warp_functions):
        text, lead = _continued(scan)
        names = "|".join(map(re.escape, sorted(scan.warp_functions)))
        m = _constant_places(rf"(?:{names})(?=\s*\(\s*\))", case=True).search(text, lead)
        if m is not None:
            called = next(n for n in scan.warp_functions if re.search(rf"\b{re.escape(n)}\s*\(", m.group(0)))
            col = m.start() - lead + 1 if m.start() >= lead else 1
            f = finding(RSM203, scan.path, scan.no, col, f"{called}() (a constexpr wrapper of "
                        f"{scan.warp_functions[called]}, a library's device wave size) used as a compile-time constant",
                        WARP_FIX, scan.snippet, scan.conds)
            # kept while no scanned file defines the library's function (its own tree: its definition decides)
            scan.report.needs[(f.line, f.column)] = ("build", frozenset({scan.warp_functions[called]}))
            scan.add(f)
            return
    if scan.warp_param is None:
        text, lead = _continued(scan)
        for m in CONSTEXPR_WARP.finditer(text):
            if lead and not WARP_NAME.search(text, lead, m.end()):
                continue  # the constant is the previous line's own
            f = warp_constant(scan.path, scan.no, m, scan.snippet, scan.conds, lead)
            named = WARP_NAME.findall(m.group(0))
            library = frozenset(n for n in named if n in LIBRARY_WARP)
            if library and "warpSize" not in named:
                # kept while no scanned file defines it (the library's own tree: its definition decides)
                scan.report.needs[(f.line, f.column)] = ("build", library)
            scan.add(f)
            break
    elif scan.warp_param >= 0 and depth + line.count("{") - line.count("}") <= scan.warp_param:
        scan.warp_param = None  # the template's body is closed
    # the function ends with the line that closes its body
    if scan.constexpr_fn is not None and scan.constexpr_fn >= 0 and \
            depth + line.count("{") - line.count("}") <= scan.constexpr_fn:
        scan.constexpr_fn = None


WAVE_USES = SourceTopic(rules=(RSM202,), directive=wave_in_directive, line=wave_in_code, closed=wave_chain_closed)
WARP_ALIASES = SourceTopic(rules=(RSM203,), line=alias_defaults)
# Without warpSize in the file no constexpr function is followed: none can return it.
WARP_CONSTANTS = SourceTopic(rules=(RSM203,), line=warp_constants, wanted=lambda scan: scan.can[CONSTEXPR_WARP])
