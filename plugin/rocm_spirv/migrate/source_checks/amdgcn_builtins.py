"""AMDGCN builtins that exist only on some targets: used unguarded (RSM205), or tested with
__has_builtin, which every builtin passes under amdgcnspirv (RSM206). The rules and their patterns; the
finding builders; the hooks and their topics: BUILTIN_TESTS (__has_builtin in directives and code) and
FEATURE_GUARDS (feature builtins outside a processor_is/is_invocable guard or a guarding #if)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from rocm_spirv.migrate.findings import E, Finding, Rule, W
from rocm_spirv.migrate.pp import IDENT
from rocm_spirv.migrate.source_checks.builtin_table import EVERY_TARGET, TARGET_ONLY
from rocm_spirv.migrate.source_checks.topic import SourceTopic, finding

if TYPE_CHECKING:
    from rocm_spirv.migrate.source_rules import Directive, SourceScan

RSM205 = Rule("RSM205", "unguarded-feature-builtin", W, "feature-gated __builtin_amdgcn_* without a guard",
              "MFMA, WMMA, dot, permlane and every builtin clang declares for only some GPUs, and DPP with controls "
              "some targets lack (row_bcast, wave shifts, row_share), exist only on some targets; guard them at JIT "
              "time.",
              example=('k.hip', '__global__ void k(int* o) {\n'
                                '  o[0] = __builtin_amdgcn_mov_dpp(o[0], 0x142, 15, 15, false);\n}\n'))
RSM206 = Rule("RSM206", "has-builtin-arch-test", E, "__has_builtin(__builtin_amdgcn_…) used as an arch test",
              "Under amdgcnspirv every AMDGCN builtin is 'present', so the test always passes.",
              example=('k.hip', '#if __has_builtin(__builtin_amdgcn_mfma_f32_32x32x8f16)\n'
                       '__global__ void k() {}\n'
                       '#endif\n'))
RULES = (RSM205, RSM206)

# ds_swizzle and s_setprio are not here: every GCN/RDNA target and amdgcnspirv accept them. Nor the packed
# conversions clang declares for every target (cvt_pk_u8_f32, cvt_pk_i16, cvt_pk_u16, as cvt_pkrtz): the
# other cvt_pk_* (fp8/bf8, f16/bf16 from f32) need fp8-conversion-insts or a newer ISA.
EVERY_TARGET_CVT_PK = ("u8_f32", "i16", "u16")
HAND_PICKED = re.compile(
    r"mov_dpp|update_dpp|mfma_\w+|smfmac_\w+|wmma_\w+|swmmac_\w+|(?:s|u|su)?dot\d\w*|fdot2\w*"
    r"|permlane\w+|global_atomic_fadd\w*|flat_atomic_fadd\w*|global_load_lds|ds_bpermute_fi\w*"
    # buffer loads straight into LDS need vmem-to-lds-load-insts (GFX9 only; clang 22 rejects them for gfx1100)
    r"|(?:raw|struct)_(?:ptr_)?buffer_load_lds"
    rf"|cvt_pk_(?!(?:{'|'.join(EVERY_TARGET_CVT_PK)})\b)\w+|s_sleep_var|ballot_w32"
    # GFX6-GFX10.3 only (no s_memtime/s_memrealtime on GFX11+), GFX6-GFX9 only (buffer_wbinvl1); the scalar
    # cache write-back s_dcache_wb: clang 22's backend cannot select it for gfx1030, gfx1100 or gfx1201 (checked;
    # s_dcache_inv it selects everywhere)
    r"|s_memtime|s_memrealtime|buffer_wbinvl1\w*|s_dcache_wb\w*"
    # s_waitcnt's immediate packs vmcnt/lgkmcnt differently on GFX9, GFX10/11 and GFX12; s_getreg's hardware
    # registers differ by generation (HW_ID up to GFX9, HW_ID1/HW_ID2 from GFX10)
    r"|s_waitcnt|s_getreg"
    # BVH ray intersection needs gfx10-insts (clang 22 rejects it for gfx90a and gfx942, checked)
    r"|image_bvh\w*"
    # Hygon DCU matrix cores (gfx928/gfx936): DTK's clang declares mmac_*, upstream clang 22 knows none of them,
    # so an amdgcnspirv compile rejects the call outright
    r"|mmac_\w+")


class FeatureBuiltins:
    """`__builtin_amdgcn_<name>` calls some GPUs lack: the names above and every other one clang 22 declares
    for only some GPUs (builtin_table.TARGET_ONLY, its own answer per target). The same search, finditer and
    fullmatch a compiled pattern offers, answering with a set lookup rather than a 600-name alternation: a
    compiled pattern hashes its whole program on each dict lookup (SourceScan.can is keyed by the rules'
    patterns), which cost the 50,000-file scan benchmark a second."""

    CALL = re.compile(r"\b__builtin_amdgcn_(\w+)")

    @staticmethod
    def target_only(name: str) -> bool:
        return name in TARGET_ONLY or HAND_PICKED.fullmatch(name) is not None

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return (m for m in self.CALL.finditer(text) if self.target_only(m.group(1)))

    def search(self, text: str) -> re.Match[str] | None:
        return next(self.finditer(text), None)

    def fullmatch(self, text: str) -> re.Match[str] | None:
        m = self.CALL.fullmatch(text)
        return m if m is not None and self.target_only(m.group(1)) else None


FEATURE_BUILTIN = FeatureBuiltins()
HAS_BUILTIN = re.compile(r"__has_builtin\s*\(\s*__builtin_amdgcn_(\w+)\s*\)")
# DPP controls that every target with DPP accepts (GFX8 on: all that ROCm and the SPIR-V JIT serve), checked
# with LLVM 22's backend on gfx908, gfx942, gfx1100 and gfx1201: quad_perm (0x00-0xFF), row_shl, row_shr and
# row_ror (0x101-0x12F), row_mirror and row_half_mirror (0x140, 0x141). The wave shifts and rotates
# (0x130-0x13C) and row_bcast:15/31 (0x142, 0x143) are GFX8/9 only ("Invalid dpp_ctrl value" on GFX10+);
# row_share/row_xmask and gfx90a's row_newbcast (0x150-0x16F) are not on gfx908 and older.
EVERY_TARGET_DPP = (range(0x00, 0x100), range(0x101, 0x110), range(0x111, 0x120), range(0x121, 0x130),
                    range(0x140, 0x142))
DPP_LOOKAHEAD = 8  # lines a mov_dpp/update_dpp call may span

GUARD_CALL = re.compile(r"__builtin_amdgcn_(processor_is|is_invocable)\s*\(")
INVOCABLE_FIX = "test with __builtin_amdgcn_is_invocable(<builtin>) in an if (LLVM >= 23)"


def gated_tests(text: str) -> list[re.Match[str]]:
    """The __has_builtin tests in text that ask about a builtin some GPU lacks: a test of one every GPU has
    (`__builtin_amdgcn_is_private`, `__builtin_amdgcn_fence`) is a compiler-version check (builtin_table)."""
    return [m for m in HAS_BUILTIN.finditer(text) if m.group(1) not in EVERY_TARGET]


def has_builtin_tests(path: str, no: int, tests: list[re.Match[str]], snippet: str,
                      conds: tuple[str, ...]) -> Finding:
    """The __has_builtin tests of one directive: one finding naming them all."""
    names = ", ".join(dict.fromkeys(m.group(0) for m in tests))
    return finding(RSM206, path, no, tests[0].start() + 1, f"{names} {'is' if len(tests) == 1 else 'are'} "
                   "always true under amdgcnspirv", INVOCABLE_FIX, snippet, conds)


def has_builtin(path: str, no: int, m: re.Match[str], snippet: str, conds: tuple[str, ...]) -> Finding:
    return finding(RSM206, path, no, m.start() + 1, f"{m.group(0)} is always true under amdgcnspirv", INVOCABLE_FIX,
                   snippet, conds)


def unguarded(path: str, no: int, m: re.Match[str], snippet: str, conds: tuple[str, ...]) -> Finding:
    return finding(RSM205, path, no, m.start() + 1, f"__builtin_amdgcn_{m.group(1)} is target-specific "
                   "and unguarded", f"if (__builtin_amdgcn_is_invocable(__builtin_amdgcn_{m.group(1)})) … "
                   "else portable fallback (LLVM >= 23), or hybrid mode", snippet, conds)


def tests_in_directive(scan: SourceScan, d: Directive) -> None:
    """The __has_builtin tests of a compiled directive, but an arch test's: its RSM201 names the rest."""
    tests = gated_tests(d.full) if scan.live and scan.can[HAS_BUILTIN] and not d.direct else []
    if tests:
        scan.add(has_builtin_tests(scan.path, scan.no, tests, scan.snippet, scan.conds))


def tests_in_code(scan: SourceScan) -> None:
    for m in gated_tests(scan.line):
        scan.add(has_builtin(scan.path, scan.no, m, scan.snippet, scan.conds))


def _call_args(text: str) -> list[str] | None:
    """The top-level arguments of the call whose "(" starts text, or None when it does not close."""
    if not text.startswith("("):
        return None
    depth = 0
    args: list[str] = []
    cur: list[str] = []
    for ch in text:
        if ch == "(":
            depth += 1
            if depth == 1:
                continue
        elif ch == ")":
            depth -= 1
            if depth == 0:
                args.append("".join(cur))
                return args
        elif ch == "," and depth == 1:
            args.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    return None


def _integer(literal: str) -> int | None:
    """A C++ integer literal's value (`0x140`, `0b10'11'00'01`, `5u`, `(0x140)`), or None."""
    text = literal.strip().strip("()").strip().replace("'", "").rstrip("uUlL")
    try:
        return int(text, 0)
    except ValueError:
        return None


def dpp_control_arg(lines: list[str], idx: int, start: int) -> str | None:
    """The dpp_ctrl argument of the mov_dpp/update_dpp call whose name ends at lines[idx][start], as written,
    or None when the call cannot be read. dpp_ctrl is the fourth argument from the end of both builtins;
    counting from the end keeps template commas in the value argument (`pack<int, T>(v)`) out of the way."""
    args = _call_args(" ".join([lines[idx][start:], *lines[idx + 1 : idx + DPP_LOOKAHEAD]]).lstrip())
    return args[-4].strip() if args is not None and len(args) >= 4 else None


_TEMPLATE_HEAD = re.compile(r"\btemplate\s*<")
TEMPLATE_LOOKBACK = 1500  # characters from a DPP call back to the head of the template it sits in


def _angle_args(text: str, start: int) -> tuple[list[str], int] | None:
    """The top-level arguments of the <…> opening at text[start], and the offset after its ">"."""
    depth = 0
    cur: list[str] = []
    args: list[str] = []
    for i in range(start, min(len(text), start + 400)):
        ch = text[i]
        if ch in "<(":
            depth += 1
            if depth == 1:
                continue
        elif ch in ">)":
            depth -= 1
            if depth == 0:
                args.append("".join(cur))
                return [a.strip() for a in args], i + 1
        elif ch == "," and depth == 1:
            args.append("".join(cur))
            cur = []
            continue
        elif ch in ";{}":
            return None
        cur.append(ch)
    return None


def named_control(stripped: str, at: int, name: str) -> int | None:
    """The literal the nearest definition before offset `at` gives `name`: a const or constexpr variable since
    the last top-level `}` (this function's, not another's) or an object-like macro (`const int dppCtrl =
    0x101;`); None when there is none, the name is a template parameter there, or its value is no literal."""
    if _template_param(stripped, at, name) is not None:
        return None
    since = max(stripped.rfind("\n}", 0, at), 0)
    local = re.compile(rf"\b(?:const|constexpr)\b[^;=(){{}}]*\b{re.escape(name)}\s*=\s*([^;]+);")
    macro = re.compile(rf"^[ \t]*#[ \t]*define[ \t]+{re.escape(name)}[ \t]+([^\n]+)$", re.M)
    found = [*local.finditer(stripped, since, at), *macro.finditer(stripped, 0, at)]
    if not found:
        return None
    return _integer(max(found, key=lambda f: f.start()).group(1))


def _template_param(stripped: str, at: int, name: str) -> tuple[list[str], int, int] | None:
    """The parameters of the template head nearest before offset at, name's index among them and the offset
    after the head's `>`; None when name is none of them."""
    window = stripped[max(0, at - TEMPLATE_LOOKBACK):at]
    heads = list(_TEMPLATE_HEAD.finditer(window))
    head = _angle_args(stripped, max(0, at - TEMPLATE_LOOKBACK) + heads[-1].end() - 1) if heads else None
    if head is None:
        return None
    params, after = head
    names = [IDENT.findall(p.split("=")[0])[-1:] for p in params]
    return (params, names.index([name]), after) if [name] in names else None


def template_controls(stripped: str, at: int, name: str) -> list[int] | None:
    """The values a template parameter `name` of the function template around offset `at` takes, from the
    instantiations `f<…>(…)` of the same file (defaults filled in): gpumode's `shfl_dpp<0b10'11'00'01>`,
    comfy-kitchen's `dpp_add<0xB1>`. None when `name` is no such parameter, the file never instantiates the
    template (a library's callers are elsewhere), or some instantiation passes no literal."""
    found = _template_param(stripped, at, name)
    if found is None:
        return None
    params, index, after = found
    default = params[index].split("=", 1)[1] if "=" in params[index] else None
    fn = re.search(r"\b([A-Za-z_]\w*)\s*\(", stripped[after:at])
    if fn is None:
        return None
    values: list[int] = []
    for call in re.finditer(rf"\b{re.escape(fn.group(1))}\s*<", stripped):
        args = _angle_args(stripped, call.end() - 1)
        if args is None:
            return None
        value = _integer(args[0][index] if index < len(args[0]) else default or "")
        if value is None:
            return None
        values.append(value)
    return values or None


def every_target(scan: SourceScan, m: re.Match[str]) -> bool:
    """A DPP builtin with a control every target has: no construct (`row_shr:1` is the same on gfx908 and
    gfx1201); any other feature builtin, or a DPP control that is no literal, is target-specific. An s_getreg
    whose register comes from a macro an arch #if derives (clr's HW_ID, 23 on RDNA, 4 else) is that #if's."""
    if m.group(1) == "s_getreg":
        args = " ".join(scan.lines[scan.idx:scan.idx + 2])[m.end():]
        return any(n in scan.derived for n in IDENT.findall(args[:200]))
    if m.group(1) not in ("mov_dpp", "update_dpp"):
        return False
    arg = dpp_control_arg(scan.lines, scan.idx, m.end())
    ctrl = None if arg is None else _integer(arg)
    if ctrl is not None:
        return any(ctrl in r for r in EVERY_TARGET_DPP)
    if arg is None or not IDENT.fullmatch(arg):
        return False
    at = sum(len(line) for line in scan.stripped.splitlines(keepends=True)[:scan.idx]) + m.start()
    # a template parameter: every value the file's instantiations give it
    values = template_controls(scan.stripped, at, arg)
    if values is not None:
        return all(any(v in r for r in EVERY_TARGET_DPP) for v in values)
    # else a constant given a literal before the call, in the function (`const int dppCtrl = 0x101;`) or by a
    # macro (`#define CTRL 0x4E`)
    named = named_control(scan.stripped, at, arg)
    return named is not None and any(named in r for r in EVERY_TARGET_DPP)


def guarded_builtins(scan: SourceScan) -> None:
    """Feature builtins on a line no guard covers: a processor_is/is_invocable test (its braces, or the next
    statement), an undecided arch branch, or an #if testing __has_builtin."""
    line, depth = scan.line, scan.depth
    # Inside an arch chain, a live line is compiled for SPIR-V (the #else of `#ifdef __gfx12__` is its
    # path) unless the branch is still undecided (`defined(__gfx90a__) || defined(FOO)`).
    # Under `#if __has_builtin(__builtin_amdgcn_…)` the builtin is that test's construct (RSM206).
    guarded_line = scan.guard_next or scan.guard_until is not None or any(
        (g.arch and g.unknown) or g.builtin_test for g in scan.stack)
    gm = GUARD_CALL.search(line)
    if gm:
        guarded_line = True
        if "{" in line[gm.end():]:
            scan.guard_until = depth if scan.guard_until is None else min(scan.guard_until, depth)
        else:
            scan.guard_next = True
    elif scan.guard_next and line.strip():
        scan.guard_next = "{" not in line and ";" not in line
        if "{" in line:
            scan.guard_until = depth if scan.guard_until is None else min(scan.guard_until, depth)
    if not guarded_line:
        for m in FEATURE_BUILTIN.finditer(line):
            # A builtin's name the file #defines (a trap stub under `#if !__has_builtin(<it>)`) is that
            # macro on the targets lacking it: the test is the construct (RSM206), the calls are its.
            if not every_target(scan, m) and m.group(0) not in scan.report.defines and \
                    not declaration(line[:m.start()]):
                scan.add(unguarded(scan.path, scan.no, m, scan.snippet, scan.conds))
    # the guard ends with the line that closes its braces
    if scan.guard_until is not None and depth + line.count("{") - line.count("}") <= scan.guard_until:
        scan.guard_until = None


# `extern "C" __device__ float __builtin_amdgcn_fdot2(half2, half2, float);` (old hipcc code redeclaring a builtin):
# a type name right before the builtin's name declares it, which emits nothing; a call follows an operator, a
# bracket, the start of a statement or one of these keywords
CALL_KEYWORDS = frozenset({"return", "else", "do", "case", "throw", "co_return", "co_yield", "sizeof", "decltype"})
TYPE_BEFORE = re.compile(r"\b([A-Za-z_]\w*)[\s*&]*$")


def declaration(head: str) -> bool:
    """Whether the text before a builtin's name on its line ends with a type, declaring the builtin."""
    m = TYPE_BEFORE.search(head)
    return m is not None and m.group(1) not in CALL_KEYWORDS


# `extern "C" __device__ float16 f(float, float, float16, int, int, int) __asm("llvm.amdgcn.mfma.f32.32x32x2f32");`:
# a declaration bound to the LLVM intrinsic behind __builtin_amdgcn_mfma_f32_32x32x2f32 (old hipcc code)
ASM_LABEL_INTRINSIC = re.compile(r'\b(?:__asm__|__asm|asm)\s*\(\s*"llvm\.amdgcn\.([\w.]+)"\s*\)')
DECLARED = re.compile(r"\b([A-Za-z_]\w*)\s*\([^;]*\)\s*(?:__asm__|__asm|asm)\s*\(")


def asm_label_intrinsics(scan: SourceScan) -> None:
    """An asm label binding a declaration to a target-only intrinsic, reported where it is declared once a line
    the device pass compiles for SPIR-V calls it (an unused one emits nothing; calls only under arch tests are
    theirs), unless an undecided arch branch holds the declaration."""
    if scan.bound:
        _bound_calls(scan)
    raw = scan.snippet
    m = ASM_LABEL_INTRINSIC.search(raw) if "llvm.amdgcn." in raw and scan.live else None
    if m is None or any(g.arch and g.unknown for g in scan.stack):
        return
    builtin = FEATURE_BUILTIN.fullmatch("__builtin_amdgcn_" + m.group(1).replace(".", "_"))
    declared = DECLARED.search(scan.line)
    if declared is None:
        # a declaration over several lines (one parameter per line, then `) __asm("llvm.amdgcn.…");`): its
        # name is on an earlier line, after the statement before it
        head = " ".join(scan.lines[max(0, scan.idx - 16): scan.idx])
        head = head[max(head.rfind(";"), head.rfind("}")) + 1:] + " " + scan.line
        declared = DECLARED.search(head)
    if builtin is None or declared is None or every_target(scan, builtin):
        return
    name = declared.group(1)
    scan.bound[name] = finding(
        RSM205, scan.path, scan.no, m.start() + 1, f"{name} is bound to llvm.amdgcn.{m.group(1)} "
        f"(the intrinsic of __builtin_amdgcn_{builtin.group(1)}): target-specific and unguarded",
        f"call __builtin_amdgcn_{builtin.group(1)} under if (__builtin_amdgcn_is_invocable(…)) with a portable "
        "fallback (LLVM >= 23), or hybrid mode", scan.snippet, scan.conds)


def _bound_calls(scan: SourceScan, first: int | None = None, last: int | None = None) -> None:
    """Report the bound declarations that compiled lines call, once each (not the declaration's own lines):
    the line being read, or lines first..last of a #define body (`#define MFMA(a, b, c) mfma(a, b, c, 0, 0, 0)`,
    whose uses no longer name the declaration)."""
    if any(g.arch and g.unknown for g in scan.stack):
        return
    first = scan.idx if first is None else first
    last = scan.idx if last is None else min(last, len(scan.lines) - 1)
    for i in range(first, last + 1):
        line = scan.line if i == scan.idx else scan.lines[i]
        for name in [n for n in scan.bound if n in line]:
            if scan.bound[name].line <= i and re.search(rf"\b{re.escape(name)}\s*\(", line):
                scan.add(scan.bound.pop(name))


def bound_calls_in_define(scan: SourceScan, d: Directive) -> None:
    if scan.bound and scan.live:
        _bound_calls(scan, scan.idx, scan.skip_to)


BUILTIN_TESTS = SourceTopic(rules=(RSM206,), directive=tests_in_directive, line=tests_in_code,
                            wanted=lambda scan: scan.can[HAS_BUILTIN])
def builtins_in_define(scan: SourceScan, d: Directive) -> None:
    """A feature builtin in a #define body (cdna4-sim's `#define PROBE(…) … __builtin_amdgcn_global_load_lds(…)`,
    expanded by its kernels): one finding at the body line that holds it, unless an arch branch or a
    __has_builtin test still undecided holds the #define. DPP controls and s_getreg registers are read from
    the call site, which a macro's parameters hide: not judged here."""
    if not (scan.live and scan.feature and d.name) or any((g.arch and g.unknown) or g.builtin_test
                                                           for g in scan.stack):
        return
    for i in range(scan.idx, min(scan.skip_to, len(scan.lines) - 1) + 1):
        for m in FEATURE_BUILTIN.finditer(scan.lines[i]):
            if m.group(1) in ("mov_dpp", "update_dpp", "s_getreg") or m.group(0) in scan.report.defines:
                continue
            snippet = scan.raw_lines[i] if i < len(scan.raw_lines) else scan.lines[i]
            scan.add(unguarded(scan.path, i + 1, m, snippet, scan.conds))


# guards matter only to feature builtins: the hooks run where the pattern matches somewhere (SourceScan.feature)
FEATURE_GUARDS = SourceTopic(rules=(RSM205,), defined=builtins_in_define, line=guarded_builtins,
                             wanted=lambda scan: scan.feature)
ASM_LABELS = SourceTopic(rules=(RSM205,), line=asm_label_intrinsics, defined=bound_calls_in_define,
                         wanted=lambda scan: "llvm.amdgcn." in scan.text)
