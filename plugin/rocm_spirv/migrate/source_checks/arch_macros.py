"""Per-arch macros in device code (RSM201) and helpers returning a value an arch #if chose (RSM207). The
rules and their patterns; the finding builders; the hooks and their topics: ARCH_TESTS (an #if chain testing
arch macros, arch macros in code) and HELPER_CHAINS (the chain and the value it picks as one finding)."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sized
from dataclasses import replace
from typing import TYPE_CHECKING

from rocm_spirv.migrate.findings import E, Finding, Rule
from rocm_spirv.migrate.pp import ARCH_MACRO, IDENT, lookup_device
from rocm_spirv.migrate.source_checks.topic import SourceTopic, finding

if TYPE_CHECKING:
    from rocm_spirv.migrate.source_rules import Directive, Group, SourceScan

RSM201 = Rule("RSM201", "arch-macro", E, "device code tests a per-arch macro",
              "__gfx*__, __GFX*__ and __amdgcn_processor__ are not defined when compiling for amdgcnspirv.",
              example=('k.hip', '#if defined(__gfx90a__)\n__global__ void k() {}\n#endif\n'))
RSM207 = Rule("RSM207", "arch-enum-helper", E, "a helper derives the architecture from macros",
              "Functions returning an arch enum/value from #if __gfx…__ return the fallback under SPIR-V.",
              example=('k.hip', '__device__ int wave() {\n'
                       '#if defined(__GFX9__)\n'
                       '  return 64;\n'
                       '#else\n'
                       '  return 32;\n'
                       '#endif\n'
                       '}\n'))
RULES = (RSM201, RSM207)

# a constant: a number, an enumerator (Arch::gfx90a), an ALL_CAPS macro, true/false; not a local variable
_CONSTANT = r"(?:0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|[A-Za-z_]\w*(?:::\w+)+|[A-Z][A-Z0-9_]*|true|false)"
RETURN_VALUE = re.compile(r"\breturn\s+" + _CONSTANT + r"\s*;")
# or a compile-time constant defined to one: `static constexpr int WarpSize = 64;`
CONSTANT_DEF = re.compile(r"\bconstexpr\b[^;=(){}]*?\b(?P<name>[A-Za-z_]\w*)\s*=\s*" + _CONSTANT + r"\s*;")
# or a variable assigned an enumerator as the branch's statement: `arch = gcnarch::gfx906;` (dh_comms' chain
# that records which GPU the code was built for), also wrapped in a type (`gfx_arch_ = GFXArch(Family::GFX9);`,
# embers); a number or a macro assigned is too common a statement
_ENUMERATOR = r"[A-Za-z_]\w*(?:::\w+)+"
ENUM_ASSIGN = re.compile(r"^\s*(?P<name>[A-Za-z_][\w.]*(?:->\w+)*)\s*=\s*(?:" + _ENUMERATOR +
                         r"|[A-Za-z_][\w:]*\s*\(\s*" + _ENUMERATOR + r"\s*\)|[A-Za-z_][\w:]*\s*\{\s*" +
                         _ENUMERATOR + r"\s*\})\s*;\s*$")

ENUM_FIX = ("query __builtin_amdgcn_processor_is (or warpSize) at run time in device code, or "
            "hipDeviceProp_t.gcnArchName on the host")
ARCH_FIX = ("branch at JIT time: if (__builtin_amdgcn_processor_is(\"gfx90a\")) … (LLVM >= 23); or keep this kernel "
            "native with rocm_spirv_target(<t> OFFLOAD hybrid ARCHS gfx90a)")


def arch_use(path: str, no: int, line: str, arch_uses: list[str], snippet: str, conds: tuple[str, ...]) -> Finding:
    """Arch macros named on a line of live code (outside #if): one finding naming them all."""
    return finding(RSM201, path, no, line.index(arch_uses[0]) + 1,
                   f"{', '.join(arch_uses)} {'is' if len(arch_uses) == 1 else 'are'} undefined under amdgcnspirv",
                   ARCH_FIX, snippet, conds)


def arch_names(cond: str) -> list[str]:
    """The arch macros a condition names, each once, in order."""
    return list(dict.fromkeys(m.group(0) for m in ARCH_MACRO.finditer(cond)))


def arch_finding(path: str, no: int, cond: str, full: str, snippet: str, conds: tuple[str, ...],
                 names: list[str] | None = None, tests: Collection[str] = (),
                 library: Mapping[str, str] | None = None) -> Finding:
    """An arch test; names: its arch macros, per-arch macros the build or an included library's header defines
    (no source does; library: name -> that header) and macros whose #define is an arch test (tests)."""
    names = names or arch_names(cond)
    library = library or {}
    col = full.find(names[0]) + 1
    verb = "is" if len(names) == 1 else "are"
    own = [n for n in names if not ARCH_MACRO.fullmatch(n) and n not in tests and n not in library]
    why = (f" ({'a per-arch macro' if len(own) == 1 else 'per-arch macros'} the build defines from its target "
           "list; none is defined for amdgcnspirv)") if own else ""
    for header in dict.fromkeys(library[n] for n in names if n in library):
        its = [n for n in names if library.get(n) == header]
        what = ("it" if len(its) == 1 else "them") if len(its) == len(names) else ", ".join(its)
        why += f" (<{header}> defines {what} for some GPUs only)"
    if any(n in tests for n in names):
        why += " (defined as a test of arch macros, which are: the test is 0)"
    return finding(RSM201, path, no, col, f"{', '.join(names)} {verb} undefined under amdgcnspirv{why}", ARCH_FIX,
                   snippet, conds)


# `#if defined(__gfx1030__) …` / `__launch_bounds__(32, 8)` / `#elif …` / `__launch_bounds__(32, 10)` between a
# kernel's `__global__` and its name (bm3dcuda): the chain picks one value, the kernel's launch bounds
LAUNCH_BOUNDS = re.compile(r"^\s*(__launch_bounds__)\s*\([^()]*\)\s*$")


def enum_helper(path: str, no: int, line: str, snippet: str, stack: Sized, reported: set[int],
                conds: tuple[str, ...], alone: bool = True) -> Finding | None:
    """A `return <constant>` inside an arch #if chain, once per chain level; an enumerator assigned only where it
    is its branch's one statement (alone): beside assembly in a branch that picks code it is part of that code."""
    m = RETURN_VALUE.search(line) or CONSTANT_DEF.search(line)
    assigned = ENUM_ASSIGN.match(line) if m is None and alone else None
    bounds = LAUNCH_BOUNDS.match(line) if m is None and assigned is None and alone else None
    if (m or assigned or bounds) is None or len(stack) in reported:
        return None
    reported.add(len(stack))
    if bounds is not None:
        return finding(RSM207, path, no, bounds.start(1) + 1, "__launch_bounds__ chosen by an arch #if; under SPIR-V "
                       "only the fallback is compiled", ENUM_FIX, snippet, conds)
    if assigned is not None:
        return finding(RSM207, path, no, assigned.start("name") + 1, f"assigns {assigned.group('name')} a value "
                       "chosen by an arch #if; under SPIR-V only the fallback is compiled", ENUM_FIX, snippet, conds)
    assert m is not None
    what = f"defines {m.group('name')} as a value" if "name" in m.groupdict() else "returns a value"
    return finding(RSM207, path, no, m.start() + 1,
                   f"{what} chosen by an arch #if; under SPIR-V only the fallback is compiled", ENUM_FIX, snippet,
                   conds)


def helper_chain(chain: Finding, ret: Finding, macros: list[str]) -> Finding:
    """The #if chain that picks a helper's return value and the return are one construct: one RSM207 where
    the chain starts (its RSM201 is replaced), naming its macros and the line of the value it picks."""
    what = ret.message.split(" chosen by ", 1)[0]
    return replace(ret, line=chain.line, column=chain.column, snippet=chain.snippet, conditions=chain.conditions,
                   message=f"{what} chosen by {', '.join(macros)} (line {ret.line}), undefined under "
                           "amdgcnspirv: only the fallback is compiled")




def tested_elsewhere(f: Finding, tests: Collection[str], built: Collection[str] = ()) -> Finding:
    """The #if on macros another file defines as arch tests, or the build defines only in a branch on the target
    list, worded once the scan knows which."""
    names = [n for n in dict.fromkeys(IDENT.findall(f.snippet)) if n in tests]
    verb = "is" if len(names) == 1 else "are"
    if names and all(n in built for n in names):
        return replace(f, message=f"{', '.join(names)} {verb} defined by the build per GPU target (in a CMake "
                                  "branch on the target list or a make chain on gfx names, or with each target's own "
                                  "value): under amdgcnspirv one value decides for every GPU")
    return replace(f, message=f"{', '.join(names)} {verb} undefined under amdgcnspirv (defined as a test of arch "
                              "macros, which are: the test is 0)")


def pending_derived(path: str, line: int, col: int, snippet: str, conds: tuple[str, ...]) -> Finding:
    """An #if whose #defines die if the macros it tests turn out arch-derived, which the scan learns only once
    every file is read; derived_message words it then."""
    return finding(RSM201, path, line, col, "", ARCH_FIX, snippet, conds)


def derived_message(tested: list[str], defined: list[str]) -> str:
    verb = "is" if len(tested) == 1 else "are"
    return (f"{', '.join(tested)} {verb} undefined under amdgcnspirv (derived from arch macros); so is "
            f"{', '.join(dict.fromkeys(defined))}, defined under it (its uses are covered here)")



def _project_macros(scan: SourceScan, cond: str) -> list[str]:
    return [n for n in dict.fromkeys(IDENT.findall(cond)) if n != "defined" and
            not n.startswith(("__has_", "__builtin")) and n not in scan.report.defines and lookup_device(n) is None]


def test_opened(scan: SourceScan, d: Directive) -> None:
    """An #if naming arch macros in compiled code: the chain's RSM201."""
    g = scan.stack[-1]
    if scan.live and not d.direct and not g.arch and g.unknown:
        # not the implementation's names (__has_builtin, __builtin_amdgcn_…, the device macros): a project's
        # macros, `__MI250X__` included (Gaia's makefiles define it in a chain on gfx names); a candidate only,
        # kept where another file defines one of them as an arch test
        g.elsewhere = _project_macros(scan, d.cond)
    if scan.live and d.direct:
        g = scan.stack[-1]
        g.finding, g.macros = len(scan.report.findings), d.direct
        scan.add(arch_finding(scan.path, scan.no, d.cond, d.full, scan.snippet, scan.conds, d.direct, scan.tests,
                              scan.library))
        scan.need_build(scan.report.findings[-1], d.direct)


def test_branched(scan: SourceScan, d: Directive) -> None:
    """An #elif naming arch macros: one more RSM201, unless the chain is already a helper's (RSM207)."""
    g = scan.stack[-1]
    if g.parent_live and not d.direct and not g.arch and g.elsewhere and (names := _project_macros(scan, d.cond)):
        # an #elif on project macros in a chain that opened on others: a candidate of its own, at this #elif
        g.elsewhere_elifs.append((scan.no, g.col + max(scan.snippet.lstrip().find(names[0]), 0), scan.snippet, names))
    if g.parent_live and d.direct and not g.helper:
        outer = tuple(x.unknown for x in scan.stack[:-1] if x.unknown)
        g.elifs.append(len(scan.report.findings))
        g.elif_macros.extend(d.direct)
        scan.add(arch_finding(scan.path, scan.no, d.cond, d.full, scan.snippet, outer, d.direct, scan.tests,
                              scan.library))
        scan.need_build(scan.report.findings[-1], d.direct)


def chain_closed(scan: SourceScan, g: Group) -> None:
    """The chain's RSM201 goes if the chain holds no code, and names the macros its dead branches define."""
    report = scan.report
    line, col, snippet = g.opened
    at = (line, col + max(snippet.lstrip().find(g.elsewhere[0]), 0)) if g.elsewhere else (0, 0)
    # a chain that #defines under such a test is pending too (promoted if it derives a macro); the test need
    # stands beside it, for a macro the build defines per arch (AliceO2's GPUCA_GPUTYPE_MI2xx), promote()
    # adding no second finding at the line - unless a chain around it tests one of the same macros (rocrtst's
    # `#if ROCRTST_GPU < 0x1000` around `#if ROCRTST_GPU == 0x908 …`: one construct, the outer one)
    pending = any(p.line == line for p in report.pending)
    nested = pending and any(set(x.elsewhere) & set(g.elsewhere) for x in scan.stack if x is not g)
    if g.elsewhere and g.code and at not in report.needs and not nested:
        # kept once the scan knows another file defines one of these as an arch test (scan._keep_needed)
        report.findings.append(finding(RSM201, scan.path, line, at[1], "", ARCH_FIX, snippet,
                                       tuple(x.unknown for x in scan.stack if x.unknown)))
        report.needs[at] = ("test", frozenset(g.elsewhere))
    for eline, ecol, esnippet, enames in g.elsewhere_elifs if g.code and not nested else ():
        # kept where one of its names is an arch test and none of the opening #if's is (then the chain is one
        # construct, at its #if: scan._keep_needed)
        if (eline, ecol) not in report.needs:
            report.findings.append(finding(RSM201, scan.path, eline, ecol, "", ARCH_FIX, esnippet,
                                           tuple(x.unknown for x in scan.stack if x.unknown)))
            report.needs[(eline, ecol)] = ("elif", frozenset(enames))
            report.elif_openers[(eline, ecol)] = frozenset(g.elsewhere)
    if g.finding is not None and not g.code:  # `#if defined(__gfx…) #error …`: inert under SPIR-V
        del report.findings[g.finding:]
        g.finding = None
    if g.finding is not None and g.defines:
        f = report.findings[g.finding]
        names = ", ".join(n for n in dict.fromkeys(g.defines) if n not in report.live_macros)
        if names:
            report.findings[g.finding] = replace(
                f, message=f"{f.message}; so is {names}, defined under it (its uses are covered here)")


def uses_in_code(scan: SourceScan) -> None:
    line = scan.line
    arch_uses = list(dict.fromkeys(m.group(0) for m in ARCH_MACRO.finditer(line)))
    if arch_uses:
        scan.add(arch_use(scan.path, scan.no, line, arch_uses, scan.snippet, scan.conds))


def helper_found(scan: SourceScan, g: Group, ret: Finding | None) -> None:
    """A helper's arch-chosen return: the chain's own RSM201, if it has one, becomes this one finding, and the
    RSM201s of its #elif lines are part of it."""
    if ret is None:
        return
    report = scan.report
    if g.finding is not None and report.findings[g.finding].rule is RSM201:
        report.findings[g.finding] = helper_chain(report.findings[g.finding], ret, g.macros)
        g.helper = True
        scan.drop.update(g.elifs)
    elif g.elifs and not g.helper:
        # `#if !defined(USE_DISPATCH) … #elif defined(__gfx900__) return …`: the arch tests start in an #elif,
        # and the chain is still one construct, reported at that first arch test (what the #if before it asks,
        # host or CUDA or a switch, is not per arch).
        first = report.findings[g.elifs[0]]
        report.findings[g.elifs[0]] = helper_chain(first, ret, list(dict.fromkeys(g.elif_macros)))
        g.helper, g.value_chain = True, (g.elifs[0], first, ret)
        scan.drop.update(g.elifs[1:])
    elif not g.helper:
        scan.add(ret)


# fullmatch on a body stripped of its parentheses; a string too (`#define v_addc_co_u32 "v_add_co_ci_u32 "`: sppark
# picks an instruction mnemonic per family for its inline assembly)
DEFINED_VALUE = re.compile(rf'{_CONSTANT}|"[^"\n]*"')


def helper_define(scan: SourceScan, d: Directive) -> None:
    """`#define WARP_THREADS 64` in the branches of an arch chain picks one value, as a helper's return does
    (mamba's wave-size chain): one construct. Where the chain opens with a finding of its own (a test of the
    wavefront macro, RSM202), that one is the construct and the RSM201s of its #elif lines are part of it."""
    stack = scan.stack
    body = d.body.strip().strip("()").strip()
    if not stack or not d.name or not DEFINED_VALUE.fullmatch(body):
        return
    g = stack[-1]
    if not g.direct or g.helper or len(stack) in scan.enum_reported:
        return
    flag = body in ("0", "1", "true", "false")
    first = g.defined_values.setdefault(d.name, g.line)
    if first == g.line:
        if flag:
            g.flag_defines.add(d.name)
        return  # one branch defining a macro is a derived macro (RSM201 names it), not yet a choice of value
    if flag and d.name in g.flag_defines:
        return  # a flag set to 1 here and 0 in the #else is a derived macro (undefined, as 0, under SPIR-V)
    opened = g.opened[0]
    if g.finding is None and any(f.line == opened for f in scan.report.findings):
        scan.drop.update(g.elifs)
        g.helper = True
        return
    scan.enum_reported.add(len(stack))
    col = scan.snippet.find(d.name) + 1
    helper_found(scan, g, finding(RSM207, scan.path, scan.no, max(col, 1), f"defines {d.name} as a value chosen by "
                                  "an arch #if; under SPIR-V only the fallback is compiled", ENUM_FIX, scan.snippet,
                                  scan.conds))


def value_chain_branched(scan: SourceScan, d: Directive) -> None:
    """An #elif naming arch macros in a value chain (which is a helper's, so test_branched adds no RSM201): its
    macros join the chain's one finding."""
    g = scan.stack[-1]
    if g.parent_live and d.direct and g.value_chain is not None:
        g.elif_macros.extend(d.direct)
        at, opening, value = g.value_chain
        scan.report.findings[at] = helper_chain(opening, value, list(dict.fromkeys(g.elif_macros)))


def level_closed(scan: SourceScan, g: Group) -> None:
    scan.enum_reported.discard(len(scan.stack) + 1)


def _alone(scan: SourceScan) -> bool:
    """The line is its branch's one statement: directives the nearest non-blank lines before and after it."""
    def near(step: int) -> str:
        i = scan.idx + step
        while 0 <= i < len(scan.lines) and not scan.lines[i].strip():
            i += step
        return scan.lines[i].lstrip() if 0 <= i < len(scan.lines) else "#"
    return near(-1).startswith("#") and near(1).startswith("#")


def helper_return(scan: SourceScan) -> None:
    """A value returned (or a constant defined) in compiled code of a chain naming arch macros."""
    stack = scan.stack
    if stack and stack[-1].direct:
        helper_found(scan, stack[-1], enum_helper(scan.path, scan.no, scan.line, scan.snippet, stack,
                                                  scan.enum_reported, scan.conds, _alone(scan)))


def helper_return_dead(scan: SourceScan) -> None:
    """The same in a branch the arch test kills: the value SPIR-V never gets."""
    stack = scan.stack
    if stack and scan.arch_dead() and stack[-1].direct and not stack[-1].live:
        helper_found(scan, stack[-1], enum_helper(scan.path, scan.no, scan.line, scan.snippet, stack,
                                                  scan.enum_reported, scan.conds, _alone(scan)))


# arch macros in code are looked for only where their tokens are (RULE_TOKENS)
ARCH_TESTS = SourceTopic(rules=(RSM201,), opened=test_opened, branched=test_branched, closed=chain_closed,
                         line=uses_in_code, wanted=lambda scan: scan.can[ARCH_MACRO])
HELPER_CHAINS = SourceTopic(rules=(RSM207,), branched=value_chain_branched, closed=level_closed,
                            defined=helper_define, line=helper_return, dead=helper_return_dead)
