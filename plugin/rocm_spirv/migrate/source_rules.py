"""The walk over one HIP/C++ source: the device pass's view of its preprocessor branches, brace depth and
guards, line by line, calling the hooks of source_checks, which declare the rules and word the findings.
Reported only: --apply never edits a source file.

- may_match, strip: the prefilter on raw text, and the text the rules read (comments and literals blanked);
- device_visible and the device markers: whether a HIP compile sees the file;
- Group, Directive: an open #if chain; one directive, continuation lines joined;
- SourceScan: the state of one file's walk, what conditions mean in it (build, lookup, direct_names, is_arch,
  need_build, arch_dead), reading a line (at, directive, code) and the steps by directive word (STEPS);
- analyze: the walk, then the findings a value chain absorbed or a derived macro kills are dropped;
- promote: after the scan, the #ifs whose defines turned out arch-derived."""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from rocm_spirv.migrate.findings import CondDefine, FileReport, Finding
from rocm_spirv.migrate.pp import (
    ARCH_MACRO,
    BUILD_ARCH_MACRO,
    IDENT,
    Value,
    arch_dependent,
    directive_condition,
    evaluate,
    lookup_device,
)
from rocm_spirv.migrate.source_checks import (
    BRANCHED_HOOKS,
    CLOSED_HOOKS,
    DEAD_HOOKS,
    DEFINED_HOOKS,
    DIRECTIVE_HOOKS,
    OPENED_HOOKS,
    TOPICS,
    amdgcn_builtins,
    arch_macros,
    asm,
    library_macros,
    wave_size,
)
from rocm_spirv.migrate.source_checks.amdgcn_builtins import FEATURE_BUILTIN, HAS_BUILTIN, FeatureBuiltins, gated_tests
from rocm_spirv.migrate.source_checks.arch_macros import arch_names
from rocm_spirv.migrate.source_checks.asm import INLINE_ASM
from rocm_spirv.migrate.source_checks.topic import LineHook
from rocm_spirv.migrate.source_checks.wave_size import (
    CONSTEXPR_WARP,
    LIBRARY_WARP,
    LIBRARY_WARP_FUNCTIONS,
    WAVE_SOURCE,
    WAVEFRONT,
)

MAX_NESTING = 1000  # #if groups open at once
RULES = (*arch_macros.RULES, *wave_size.RULES, *asm.RULES, *amdgcn_builtins.RULES)

# Substrings a rule's pattern cannot match without. Stripping comments and strings only removes
# matches, so a text lacking them cannot produce that rule's finding. Substring tests, as regex
# searches over the whole text cost more than the line loop they would save.
RulePattern = re.Pattern[str] | FeatureBuiltins
RULE_TOKENS: dict[RulePattern, tuple[str, ...]] = {
    ARCH_MACRO: ("__gfx", "__GFX", "__amdgcn_processor__", "__amdgcn_target_id__"), WAVEFRONT: ("__AMDGCN_WAVEFRONT",),
    HAS_BUILTIN: ("__has_builtin",), CONSTEXPR_WARP: ("warpSize", *LIBRARY_WARP), INLINE_ASM: ("asm",),
    FEATURE_BUILTIN: ("__builtin_amdgcn_",)}
# build-defined per-arch macros (PROJ_ARCH_AMD_GFX90A, TEST_ON_RDNA4), configure-time wave sizes, wave-size aliases
PROJECT_TOKENS = ("GFX", "RDNA", "CDNA", "WAVEFRONT_SIZE", "WAVEFRONTSIZE", "WAVE_SIZE", "WAVESIZE", "WARP",
                  "warp_size")
# a file that tells the CUDA side from HIP's may #define macros only the CUDA side sees (foreign_macros)
PLATFORM_TOKENS = ("__CUDA_ARCH__", "__HIP_PLATFORM_", "__NVCC__")
_CHEAP = (*(t for rx, ts in RULE_TOKENS.items() if rx is not FEATURE_BUILTIN for t in ts), *PROJECT_TOKENS,
          *PLATFORM_TOKENS, *library_macros.INCLUDE_TOKENS)


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
# The performance-portability layers' device-function markers (public API of Kokkos, RAJA, AMReX, alpaka): a
# Kokkos functor in a .cpp is compiled for the GPU in a HIP build as a __device__ function is.
FRAMEWORK_DEVICE = ("KOKKOS_INLINE_FUNCTION", "KOKKOS_FUNCTION", "KOKKOS_FORCEINLINE_FUNCTION", "KOKKOS_LAMBDA",
                    "KOKKOS_CLASS_LAMBDA", "RAJA_HOST_DEVICE", "RAJA_DEVICE", "AMREX_GPU_DEVICE",
                    "AMREX_GPU_HOST_DEVICE", "AMREX_GPU_GLOBAL", "ALPAKA_FN_ACC", "ALPAKA_FN_HOST_ACC")
DEVICE_MARKERS = ("__global__", "__device__", "hip_runtime", "__HIP_DEVICE_COMPILE__", "__builtin_amdgcn_",
                  "__HIPCC__", "__launch_bounds__", "__CUDA_ARCH__", *FRAMEWORK_DEVICE)
# Whole tokens only: miniaudio's `ma_job_process__device__aaudio_reroute` holds "__device__" and is host code.
# A project's own device-function marker (ROCPRIM_DEVICE, LIB_DEVICE, defined to __device__) marks one too,
# where it starts a declaration (`ROCPRIM_DEVICE __forceinline__ T f(…)`), not an enumerator (MA_NO_DEVICE = …).
PROJECT_DEVICE = r"^[ \t]*(?:template\s*<[^>]*>\s*)?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_DEVICE[ \t]+[A-Za-z_]"
DEVICE_MARKER = re.compile(r"(?<!\w)(?:" + "|".join(DEVICE_MARKERS) + r")|(?m:" + PROJECT_DEVICE + ")")
BUILD_SCOPE_SUFFIXES = (*DEVICE_SUFFIXES, ".h", ".hh", ".hpp", ".hxx", ".inl", ".ipp", ".tpp")
# `#define LIB_DEV __forceinline__ __device__`: a project's own device marker, whatever it is called; a file that
# marks its functions with one is device code (scan.py learns the names from every file)
DEVICE_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+[^\n]*?(?<!\w)"
                           r"(?:__device__|__global__)(?!\w)", re.M)


def device_macros(text: str) -> set[str]:
    """The project device markers a file #defines (outside comments)."""
    if ("__device__" not in text and "__global__" not in text) or not DEVICE_DEFINE.search(text):
        return set()
    return set(DEVICE_DEFINE.findall(strip(text)))


DEVICE_CODE = re.compile(r"(?<!\w)(?:__global__|__device__|" + "|".join(FRAMEWORK_DEVICE) + r")(?!\w)|(?m:"
                         + PROJECT_DEVICE + ")")
# `static_assert(false, "…")` under an arch test rejects a configuration, like #error: inert under SPIR-V
INERT_ASSERT = re.compile(r"^\s*static_assert\s*\(\s*(?:false|0)\s*,")
DEFINE_NAME = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.M)
DEFINE = re.compile(r"^\s*#\s*(define|undef)\s+([A-Za-z_]\w*)(.*)$")
_NUMBER = re.compile(r"\(?\s*(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9]\d*)[uUlL]*\s*\)?")
STRING_DEFINE = re.compile(r'^\s*#\s*define\s+([A-Za-z_]\w*)\s+("(?:[^"\\\n]|\\.)*")\s*(?://.*)?$')
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]', re.M)
STRING_LITERAL = re.compile(r'"(?:[^"\\\n]|\\.)*"')
# `constexpr unsigned int device_warp_size()` at the head of its definition: a library wave-size function
LIBRARY_WARP_FUNCTION = re.compile(r"^[ \t]*constexpr\b[\w:<> \t]*\b("
                                   + "|".join(LIBRARY_WARP_FUNCTIONS) + r")\s*\(\s*\)", re.M)
ERROR_DIRECTIVE = re.compile(r"^\s*#\s*(error|warning)\b")


def device_visible(path: str, text: str) -> bool:
    return path.lower().endswith(DEVICE_SUFFIXES) or DEVICE_MARKER.search(text) is not None


@dataclass(slots=True)
class Group:
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
    # macros a branch #defines to 0 or 1 (a flag): a flag in two branches is a derived macro, not a value chain
    flag_defines: set[str] = field(default_factory=set)
    wave: bool = False  # the chain's test of the wavefront macro is reported
    wave_finding: int | None = None  # index of that finding when a directive of the chain made it
    line: int = 0  # the current branch's directive: where a finding about its condition goes
    col: int = 1  # of its `#`
    snippet: str = ""
    # an undecided #if naming macros no file here defines: the chain's RSM201 if another file defines one as
    # an arch test (`#if IS_CDNA` with IS_CDNA from an included header)
    elsewhere: list[str] = field(default_factory=list)
    opened: tuple[int, int, str] = (0, 1, "")  # line, column and snippet of the #if that opens the chain
    # the same for an #elif of such a chain (`#if defined(__NVIDIA90__)` … `#elif defined(__MI250X__)`): line,
    # column, snippet and names of each, a candidate of its own at its #elif
    elsewhere_elifs: list[tuple[int, int, str, list[str]]] = field(default_factory=list)
    # An #elif-started value chain's one finding: its index, where it opens and the return; later #elif lines
    # add their macros to it.
    value_chain: tuple[int, Finding, Finding] | None = None
    # macro -> the line of the branch that #defines it to a constant: a second branch doing so makes a value chain
    defined_values: dict[str, int] = field(default_factory=dict)
    pending: int = -1  # index in FileReport.pending of the current branch's finding, if its defines may die
    valued: set[str] = field(default_factory=set)  # macros an undecided branch of the chain defines
    branches: list[int] = field(default_factory=list)  # line index of each directive of the chain
    has_else: bool = False


@dataclass(slots=True)
class Directive:
    """One directive, its continuation lines joined. word: the directive word for the conditional ones and
    #define/#undef (their steps and hooks tell them apart by it), "" for the rest (#include, #pragma, #error)."""

    word: str
    full: str
    cond: str = ""  # a conditional's condition, as an #if would test it
    direct: list[str] = field(default_factory=list)  # its arch macros (direct_names): its RSM201 names them
    name: str = ""  # #define/#undef: the macro
    body: str = ""  # #define: the rest of the line


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


@dataclass(slots=True)
class SourceScan:
    """One source file as the walk reads it, line by line: its text, the open #if chains, brace depth and the
    state the checks of source_checks keep across lines. `at` moves to a line; `directive` and `code` read it,
    calling the steps (STEPS, by directive word) and the topics' hooks."""

    path: str
    text: str
    stripped: str  # comments and literals blanked: what the rules read
    can: dict[RulePattern, bool]  # per rule pattern: its tokens occur in the stripped text
    arch_derived: frozenset[str]  # macros other files define only under arch macros
    # macros other files #define on warpSize whose names say neither warp nor wave (qiskit-aer's `_WS`): the
    # scan reads a file for them only once every file's aliases are known
    other_aliases: frozenset[str]
    report: FileReport
    add: Callable[[Finding], None] = field(init=False)  # report.findings.append
    # Most kernels call some __builtin_amdgcn_*, few a feature one: the line loop looks for those (and at
    # their guards) only when the pattern matches somewhere.
    feature: bool = field(init=False)
    derived: set[str] = field(init=False)  # arch_derived and the macros this file defines from arch macros
    includes: tuple[str, ...] = field(init=False)  # what the file #includes, as written
    library: dict[str, str] = field(init=False)  # per-arch macro -> the included library header defining it
    # macros #defined (in any branch) to one string literal, raw: an asm template may start with one
    # (`asm volatile(LD_NC_FUNC ".s32 %0, [%1];" …)`, LD_NC_FUNC "ld.global.nc…"), judged with its text
    strings: dict[str, str] = field(default_factory=dict)
    raw_lines: list[str] = field(init=False)
    lines: list[str] = field(init=False)  # of the stripped text
    directives: dict[int, tuple[int, str]] = field(init=False)
    visible: bool = field(init=False)  # a HIP compile sees the file (device_visible)
    line_hooks: list[LineHook] = field(init=False)  # the topics' line hooks this file wants, in TOPICS order
    # The build defines its per-arch macros for the host pass too: a .cpp without device functions tests
    # them in host code (a warning about the chosen GPU), not in the device code SPIR-V changes.
    scope: bool | None = None  # decided on the first _GFX name: most files have none
    stack: list[Group] = field(default_factory=list)
    depth: int = 0  # brace depth of compiled code
    skip_to: int = -1  # the last continuation line of the directive read last
    inert: bool = False  # inside a static_assert(false, …) under an #if
    sure: set[str] = field(default_factory=set)  # macros #defined where no undecided condition can turn out false
    # Macros whose #define body is itself an arch test (`#define IS_CDNA (defined(__gfx908__) || …)`, or one
    # made of such macros), defined outside any arch #if: no #if covers them, so an #if testing one is the
    # construct (RSM201), and what it picks is part of it.
    tests: set[str] = field(init=False)  # report.arch_tests
    # The line being read: index, number, stripped text, raw text, compiled or not, undecided conditions.
    idx: int = 0
    no: int = 0
    line: str = ""
    snippet: str = ""
    live: bool = True
    conds: tuple[str, ...] = ()
    # What the checks keep across lines.
    wave_defined: bool = False  # the file #defines the wavefront macro itself: that definition is the finding
    constexpr_fn: int | None = None  # brace depth of the constexpr function being read (-1: its { is to come)
    pending_fn: bool = False
    # brace depth of a template whose parameter is named warpSize (-1: its { is to come): the name is that
    # parameter there, not HIP's warpSize
    warp_param: int | None = None
    guard_until: int | None = None  # brace depth above which a processor_is/is_invocable guard holds
    # constexpr functions of this file that only return a library's device wave size (mray's
    # `static constexpr uint32_t WarpSize() { return rocprim::device_warp_size(); }`), each with the library
    # function it returns, and the name of the constexpr function being read: their calls are that wave size
    warp_functions: dict[str, str] = field(default_factory=dict)
    constexpr_name: str = ""
    guard_next: bool = False
    # #if nesting levels whose arch chain is already reported as a helper
    enum_reported: set[int] = field(default_factory=set)
    # macros #defined to a number outside any #if (`#define USE_BUFFER_LOADS 0`): a later `#if USE_BUFFER_LOADS`
    # reads that number, until an #undef or another #define
    fixed: dict[str, int] = field(default_factory=dict)
    drop: set[int] = field(default_factory=set)  # indices of findings a value chain absorbed
    # declarations an asm label binds to a target-only intrinsic, by name: reported once a compiled line calls
    # one (calls only under `#if defined(__gfx12__)` are that test's, and SPIR-V never compiles them)
    bound: dict[str, Finding] = field(default_factory=dict)
    names: frozenset[str] | None = None  # every identifier of the file, once some asm needs them (need_device)
    # indices of the lines only an arch branch SPIR-V never takes compiles: a helper called only there emits
    # nothing under SPIR-V (tnn-miner's v_dot8_u32_u4 asm, called only under `#if AMD_VDOT_U32_U4`)
    arch_dead_lines: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        report, stripped = self.report, self.stripped
        self.add = report.findings.append
        self.tests = report.arch_tests
        self.feature = self.can[FEATURE_BUILTIN] and FEATURE_BUILTIN.search(stripped) is not None
        self.derived = set(self.arch_derived)
        self.raw_lines = self.text.splitlines()
        self.lines = stripped.splitlines()
        self.directives = _directives(self.lines) if "#" in stripped else {}
        self.visible = device_visible(self.path, self.text)
        report.defines = set(DEFINE_NAME.findall(stripped)) if "define" in stripped else set()
        if "constexpr" in stripped and LIBRARY_WARP_FUNCTION.search(stripped):
            # the library's own tree (rocPRIM defining device_warp_size()): its definition decides, as for a macro
            report.defines |= set(LIBRARY_WARP_FUNCTION.findall(stripped))
        self.includes = tuple(INCLUDE.findall(self.text)) if "include" in self.text else ()
        self.library = library_macros.included(self.includes) if "include" in stripped else {}
        self.line_hooks = [t.line for t in TOPICS if t.line is not None and (t.wanted is None or t.wanted(self))]

    # -- what a condition means here -----------------------------------------------------------
    def build(self, name: str) -> bool:
        """A per-arch macro the build, or an included library's header, defines (no #define here; the scan
        checks the other files)."""
        if name in self.library and name not in self.report.defines:
            return True
        if ("GFX" not in name and "DNA" not in name) or name in self.report.defines or \
                BUILD_ARCH_MACRO.fullmatch(name) is None or ARCH_MACRO.fullmatch(name):  # __GFX9__ is clang's
            return False
        if self.scope is None:
            self.scope = self.path.lower().endswith(BUILD_SCOPE_SUFFIXES) or \
                DEVICE_CODE.search(self.stripped) is not None
        return self.scope

    def lookup(self, name: str) -> Value:
        if name in self.fixed:
            return self.fixed[name]
        return 0 if (name in self.derived and name not in self.report.live_macros) or self.build(name) else \
            lookup_device(name)

    def direct_names(self, cond: str) -> list[str]:
        """The arch macros (and build-defined per-arch macros) an arch-dependent condition names."""
        # `#define __gfx12__` under `#if defined(__gfx1200__) || …`: a name shaped like clang's that the project
        # defines under an arch test is derived, and the defining #if covers its uses.
        names = [*(n for n in arch_names(cond) if n not in self.derived),
                 *dict.fromkeys(n for n in IDENT.findall(cond) if self.build(n) or n in self.tests)]
        return names if names and arch_dependent(cond, self.lookup) else []

    def is_arch(self, cond: str, direct: list[str]) -> bool:
        return bool(direct) or any(n in self.derived and n not in self.report.live_macros
                                   for n in IDENT.findall(cond))

    def need_device(self, finding: Finding) -> None:
        """A finding that holds only if this file uses a macro another file defines to __device__."""
        if self.names is None:
            self.names = frozenset(IDENT.findall(self.stripped))
        self.report.needs[(finding.line, finding.column)] = ("device", self.names)

    def need_build(self, finding: Finding, names: list[str]) -> None:
        """A finding that stands on build-defined macros only: dropped if another file defines them all."""
        if names and all(self.build(n) for n in names):
            self.report.needs[(finding.line, finding.column)] = ("build", frozenset(names))

    def arch_dead(self) -> bool:
        """The line is dead because the outermost dead chain tests an arch (or arch-derived) macro."""
        for g in self.stack:
            if not g.live:
                return g.arch and g.parent_live
        return False

    # -- reading a line ------------------------------------------------------------------------
    def at(self, idx: int, line: str) -> None:
        self.idx, self.no, self.line = idx, idx + 1, line
        self.snippet = self.raw_lines[idx] if idx < len(self.raw_lines) else line
        stack = self.stack
        self.live = not stack or stack[-1].live
        self.conds = tuple(g.unknown for g in stack if g.unknown)

    def directive(self) -> None:
        """A directive: its step (STEPS, by word) and the hooks after it."""
        self.skip_to, full = self.directives[self.idx]
        pm = PP_IF.match(full)
        dm = DEFINE.match(full) if pm is None else None  # the words differ: at most one matches
        if pm:
            word = pm.group(1)
            cond = directive_condition(word, pm.group(2))
            d = Directive(word, full, cond, self.direct_names(cond) if word not in ("else", "endif") else [])
        elif dm:
            d = Directive(dm.group(1), full, name=dm.group(2), body=dm.group(3))
        else:
            d = Directive("", full)
        stack = self.stack
        if stack and not stack[-1].code and not (pm or ERROR_DIRECTIVE.match(full)):
            for g in stack:  # code in a nested chain is code of every chain around it
                g.code = True
        # An #elif is read whenever its chain gets that far: after a dead first branch (`#ifdef __CUDA_ARCH__`) its
        # own test (`#elif defined(__AMDGCN_WAVEFRONT_SIZE)`) is still what the device pass evaluates
        reached = stack[-1].parent_live and stack[-1].taken != 1 if stack and d.word.startswith("elif") else None
        step = STEPS.get(d.word)
        if step is not None:
            step(self, d)
        if reached is not None:
            self.live = reached
        for hook in DIRECTIVE_HOOKS:
            hook(self, d)

    def code(self) -> None:
        """A line of code: the topics' line hooks if compiled, their dead hooks if not; then its braces."""
        line, stack = self.line, self.stack
        if self.inert or (stack and INERT_ASSERT.match(line)):
            self.inert = ";" not in line
            return
        if stack and not stack[-1].code and line.strip():
            for g in stack:
                g.code = True
        if not self.live:
            for hook in DEAD_HOOKS:
                hook(self)
            return
        for hook in self.line_hooks:
            hook(self)
        self.depth += line.count("{") - line.count("}")

    # -- the steps, by directive word ---------------------------------------------------------
    def open(self, d: Directive) -> None:
        """#if, #ifdef, #ifndef: a new chain, live if its parent is and its condition may hold."""
        stack, no, snippet = self.stack, self.no, self.snippet
        if len(stack) >= MAX_NESTING:  # every line looks at every open #if: refuse, not quadratic
            raise RecursionError(f"#if nested more than {MAX_NESTING} deep")
        g = Group(parent_live=self.live, arch=self.is_arch(d.cond, d.direct), direct=bool(d.direct),
                  line=no, col=_indent(snippet), snippet=snippet, opened=(no, _indent(snippet), snippet))
        v = evaluate(d.cond, self.lookup)
        g.live, g.taken, g.unknown = self.live and v != 0, v, d.cond if v is None else ""
        g.builtin_test = bool(gated_tests(d.cond))
        g.prior.append(d.cond)
        g.branches.append(self.idx)
        stack.append(g)
        for hook in OPENED_HOOKS:
            hook(self, d)

    def branch(self, d: Directive) -> None:
        """#elif, #elifdef, #elifndef: the chain's next branch, live unless an earlier one is surely taken."""
        if not self.stack:
            return
        g, cond = self.stack[-1], d.cond
        v = evaluate(cond, self.lookup)
        g.arch = g.arch or self.is_arch(cond, d.direct)
        g.direct = g.direct or bool(d.direct)
        g.live = g.parent_live and g.taken != 1 and v != 0
        g.unknown = _effective(cond, g.prior) if (v is None or g.taken is None) and g.live else ""
        g.taken = 1 if g.taken == 1 or v == 1 else None if g.taken is None or v is None else 0
        g.line, g.col, g.snippet, g.pending = self.no, _indent(self.snippet), self.snippet, -1
        g.builtin_test = bool(gated_tests(cond))
        g.prior.append(cond)
        g.branches.append(self.idx)
        for hook in BRANCHED_HOOKS:
            hook(self, d)

    def otherwise(self, d: Directive) -> None:
        """#else: live unless an earlier branch is surely taken."""
        if not self.stack:
            return
        g = self.stack[-1]
        g.live = g.parent_live and g.taken != 1
        g.unknown = _effective("", g.prior) if g.taken is None and g.live else ""
        g.taken = 1
        g.builtin_test = False
        g.branches.append(self.idx)
        g.has_else = True
        g.line, g.col, g.snippet, g.pending = self.no, _indent(self.snippet), self.snippet, -1

    def close(self, d: Directive) -> None:
        """#endif: the chain ends; the topics settle what they reported about it."""
        if not self.stack:
            return
        g = self.stack.pop()
        before = len(self.report.findings)
        for hook in CLOSED_HOOKS:
            hook(self, g)
        if g.arch and g.has_else and self._same_branches(g):
            # `#ifdef TEST_ON_RDNA4 / constexpr int WARP_M = 4; / #else / constexpr int WARP_M = 4;`: every
            # GPU and SPIR-V compile the same code, so the chain is no construct
            directives = {i + 1 for i in g.branches}
            self.drop.update(i for i, f in enumerate(self.report.findings)
                             if f.line in directives and (i >= before or f.rule.id.startswith("RSM20")))

    def _same_branches(self, g: Group) -> bool:
        """Whether every branch of a chain holds the same code, comments and spacing aside. The stripped text
        blanks string literals too, so they are compared as written: two asm strings that differ differ."""
        ends = [*g.branches[1:], self.idx]
        bodies = {(" ".join(" ".join(self.lines[self.directives[a][0] + 1:b]).split()),
                   tuple(STRING_LITERAL.findall("\n".join(self.raw_lines[self.directives[a][0] + 1:b]))))
                  for a, b in zip(g.branches, ends, strict=True)}
        return len(bodies) == 1

    def undefine(self, d: Directive) -> None:
        self.fixed.pop(d.name, None)

    def define(self, d: Directive) -> None:
        """#define: what the macro means under SPIR-V (live, arch-derived, or undecided until the scan ends)."""
        report, derived, name, body = self.report, self.derived, d.name, d.body
        number = _NUMBER.fullmatch(body.strip())
        if number is not None and not self.stack:
            digits = number.group(1)
            self.fixed[name] = int(digits, 16) if digits[:2] in ("0x", "0X") else int(digits, 8 if
                                                                                  digits.startswith("0") else 10)
        else:
            self.fixed.pop(name, None)
        if body.strip().startswith('"') and name not in self.strings:
            raw = STRING_DEFINE.match(self.snippet)
            if raw is not None and raw.group(1) == name:
                self.strings[name] = raw.group(2)
        if self.live:
            if WAVE_SOURCE.search(body):
                report.wave_aliases.add(name)
            test = self.arch_test(body)
            if test or ARCH_MACRO.search(body):
                report.arch_macros.add(name)
                derived.add(name)
                if test:
                    self.tests.add(name)
            elif body.strip() in ("0", "(0)") and (
                    (name in derived and name not in report.live_macros) or
                    # `#if <test> / #define X 1 / #else / #define X 0`: X is 0, as undefined, unless the test holds
                    any(name in g.valued for g in self.stack)):
                pass  # `#if !defined(X) / #define X 0` for an arch-derived X: 0 under SPIR-V, as undefined
            else:
                report.live_macros.add(name)
                if self.conds and _may_die(self.conds):
                    self.cond_define(name)
                else:
                    self.sure.add(name)
        elif self.stack and self.arch_dead():
            report.arch_macros.add(name)
            derived.add(name)
            top = next(g for g in self.stack if not g.live)
            top.defines.append(name)
        elif self.stack:
            report.foreign_macros.add(name)
        for hook in DEFINED_HOOKS:
            hook(self, d)

    def arch_test(self, body: str) -> bool:
        """A #define body that is an arch test (0 under SPIR-V, its names arch macros or other such tests),
        defined where no arch #if covers it."""
        names = [n for n in IDENT.findall(body) if n != "defined"]
        return bool(names) and all(ARCH_MACRO.fullmatch(n) or n in self.tests or self.build(n) for n in names) and \
            evaluate(body, self.lookup) == 0 and not any(g.arch for g in self.stack)

    def cond_define(self, name: str) -> None:
        """A live #define under a condition that may turn out false: kept, with the finding the innermost undecided
        #if gets if it does, for the scan to judge once it knows every file's arch-derived macros (promote)."""
        conds, report = self.conds, self.report
        g = next(x for x in reversed(self.stack) if x.unknown)
        g.valued.add(name)
        if g.direct:  # the chain's own RSM201 covers it
            index = -1
        elif g.pending >= 0:
            index = g.pending
        else:
            index = g.pending = len(report.pending)
            report.pending.append(arch_macros.pending_derived(self.path, g.line, g.col, g.snippet, conds[:-1]))
        report.cond_defines.append(CondDefine(name, conds, index))


# The step of each directive word; #undef, #include, #pragma, #error and the rest have none.
STEPS: dict[str, Callable[[SourceScan, Directive], None]] = {
    "if": SourceScan.open, "ifdef": SourceScan.open, "ifndef": SourceScan.open,
    "elif": SourceScan.branch, "elifdef": SourceScan.branch, "elifndef": SourceScan.branch,
    "else": SourceScan.otherwise, "endif": SourceScan.close, "define": SourceScan.define,
    "undef": SourceScan.undefine}


def _prefilter(text: str, forced: bool = False) -> tuple[str, dict[RulePattern, bool]] | None:
    """The text without comments and strings, and which rule patterns may match it; None for a file with no
    token any rule looks for (most files of a tree), unless forced."""
    if not forced and not may_match(text):  # an arch-derived #define needs an arch macro, so this file defines none
        return None
    stripped = strip(text)
    can = {rx: any(t in stripped for t in ts) for rx, ts in RULE_TOKENS.items()}
    if not forced and not any(can.values()) and not any(t in stripped for t in (*PROJECT_TOKENS, *PLATFORM_TOKENS)) \
            and not any(t in text for t in library_macros.INCLUDE_TOKENS):  # `#include "…"` is a string: blanked
        return None
    return stripped, can


def passed_over(text: str) -> bool:
    """Whether analyze() without build macros reads nothing of this file."""
    return _prefilter(text) is None


def analyze(path: str, text: str, arch_derived: frozenset[str] = frozenset(),
            build_macros: frozenset[str] = frozenset(), wave_aliases: frozenset[str] = frozenset()) -> FileReport:
    """Findings of one source file. arch_derived: macros other files define only under arch macros;
    build_macros: per-arch macros the build defines, which the file is read for even if nothing else is there;
    wave_aliases: macros other files define on warpSize, the same."""
    report = FileReport(path, "source")
    forced = any(n in text for n in build_macros) or any(n in text for n in wave_aliases)
    read = _prefilter(text, forced)
    if read is None:
        return report
    stripped, can = read
    scan = SourceScan(path, text, stripped, can, arch_derived, wave_aliases, report)
    directives = scan.directives
    for idx, line in enumerate(scan.lines):
        if idx <= scan.skip_to:
            continue
        scan.at(idx, line)
        if idx in directives:
            scan.directive()
        else:
            if not scan.live and scan.arch_dead():
                scan.arch_dead_lines.add(idx)
            scan.code()
    _drop_absorbed(scan)
    _drop_dead(scan)
    _settle(scan)
    if report.findings:
        _tag_unused_candidates(scan)
    return report


_GLOBAL = re.compile(r"\b__global__\b")
_DEVICE = re.compile(r"\b__device__\b")
_NOT_NAMES = frozenset({"void", "__launch_bounds__", "__attribute__", "static", "inline", "__forceinline__",
                        "extern", "__device__", "__host__", "__declspec", "alignas", "decltype"})
# a __device__ function with one of these in its head is emitted only where something calls it: an inline or
# static one (a header's helpers must be, or two TUs would define them) or a template
_EMITTED_ON_USE = re.compile(r"\b(?:inline|__inline__|__forceinline__|static|template|constexpr)\b")
_MACRO = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.M)


def _body_end(text: str, brace: int) -> int:
    depth, i = 0, brace
    while i < len(text):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            break
        i += 1
    return i


def _function_units(text: str, marker: re.Pattern[str], head_needs: re.Pattern[str] | None,
                    template: bool) -> Iterator[tuple[str, int, int]]:
    """(name, first offset, last offset) of each function definition the marker introduces: for __global__
    only templates (`template <…>` before it), for __device__ only heads with head_needs."""
    for g in marker.finditer(text):
        head = text[max(0, g.start() - 400):g.start()]
        cut = max(head.rfind(";"), head.rfind("{"), head.rfind("}"), head.rfind("#"))
        own = head[cut + 1:]  # the declaration's words before the marker
        if template and "template" not in own:
            continue  # not a template's head
        name = next((m for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", text[g.end():g.end() + 400])
                     if m.group(1) not in _NOT_NAMES), None)
        if name is None or any(c in text[g.end():g.end() + name.start()] for c in ";{}=#"):
            continue  # a lambda, a variable, or a name past the declaration
        if head_needs is not None and not head_needs.search(own + text[g.end():g.end() + name.start()]):
            continue
        after = g.end() + name.end()
        brace, semi = text.find("{", after), text.find(";", after)
        if brace < 0 or (0 <= semi < brace):
            continue  # a declaration
        yield name.group(1), g.start(), _body_end(text, brace)


def _macro_units(text: str) -> Iterator[tuple[str, int, int]]:
    """(name, first offset, last offset) of each #define, continuation lines included."""
    for m in _MACRO.finditer(text):
        end = text.find("\n", m.end())
        while end > 0 and text[end - 1] == "\\":
            end = text.find("\n", end + 1)
        yield m.group(1), m.start(), end if end >= 0 else len(text)


# a translation unit's inline, static and template code and its macros are named from the unit alone, or from
# a file that #includes it (`#include "phase2.cu"`)
UNIT_SUFFIXES = (".hip", ".cu", ".cpp", ".cc", ".cxx", ".c++", ".c")


def _tag_unused_candidates(scan: SourceScan) -> None:
    """The findings inside code that emits nothing unless something names it, by name, for the scan to drop
    once it has read every file (scan.py): the body of a `template <…> __global__` kernel (every kernel
    template of the file listed, with findings or not), and in a translation unit the body of an inline,
    static or template `__device__` function or of a macro its own text names only once. A header's device
    functions stay: a library's callers are outside the tree, and a tree given in part (a corpus of its files)
    holds only some of its own (dropping those nothing in the scanned files calls cost 40 labelled constructs on
    the blind corpus). A header's macros are listed (header_units): scan.py drops those no file names where
    another macro of the header is named in some other file."""
    text, report = scan.stripped, scan.report
    lines = [0, *(m.end() for m in re.finditer("\n", text))]

    def tag(into: dict[str, list[tuple[int, int]]], name: str, begin: int, end: int) -> None:
        first, last = bisect.bisect_right(lines, begin), bisect.bisect_right(lines, end)
        into.setdefault(name, []).extend((f.line, f.column) for f in report.findings if first <= f.line <= last)

    if "__global__" in text and "template" in text:
        for unit in _function_units(text, _GLOBAL, None, template=True):
            tag(report.kernel_templates, *unit)
        if not any(report.kernel_templates.values()):
            report.kernel_templates.clear()
    if scan.path.endswith(UNIT_SUFFIXES):
        # a unit that defines no kernel launches nothing of its own: code another file #includes (scan.py keeps
        # its helpers when no scanned file includes it). A kernel may come under a library's macro for
        # __global__ (rocWMMA's `ROCWMMA_KERNEL void __launch_bounds__(256) k(…)`): launch bounds are a kernel's.
        report.fragment = "__global__" not in text and "__launch_bounds__" not in text
        units = [*(_function_units(text, _DEVICE, _EMITTED_ON_USE, template=False) if "__device__" in text
                   else ()), *(_macro_units(text) if "define" in text else ())]
        names = {u[0] for u in units}
        said = text
        if scan.arch_dead_lines:  # a name said only where SPIR-V compiles nothing is not called under SPIR-V
            said = "\n".join("" if i in scan.arch_dead_lines else t for i, t in enumerate(text.split("\n")))
        once = {n for n, c in Counter(m.group() for m in IDENT.finditer(said) if m.group() in names).items()
                if c == 1}
        for name, begin, end in units:
            if name in once:
                tag(report.local_units, name, begin, end)
        report.local_units = {n: at for n, at in report.local_units.items() if at}
    elif "define" in text:
        for name, begin, end in _macro_units(text):
            tag(report.header_units, name, begin, end)
        if not any(report.header_units.values()):
            report.header_units.clear()


def _drop_absorbed(scan: SourceScan) -> None:
    """The RSM201 findings of #elif lines a helper's value chain made part of its one finding."""
    if scan.drop:
        scan.report.findings[:] = [f for i, f in enumerate(scan.report.findings) if i not in scan.drop]


def _drop_dead(scan: SourceScan) -> None:
    """Findings under a condition that is false once this file's own arch-derived macros are undefined."""
    report, derived = scan.report, scan.derived
    if report.findings and derived - set(scan.arch_derived):
        report.findings[:] = [f for f in report.findings if live_under(f.conditions, derived - report.live_macros)]


def _settle(scan: SourceScan) -> None:
    """The macros the scan may count as live, the findings in line order, the includes the scan follows."""
    report = scan.report
    # what the scan sees as surely live; the rest waits for every file's arch-derived macros
    report.live_macros -= {d.name for d in report.cond_defines} - scan.sure
    report.foreign_macros -= report.live_macros | report.arch_macros | {d.name for d in report.cond_defines}
    report.findings.sort(key=lambda f: (f.line, f.column))
    if report.findings or report.arch_macros or report.live_macros or report.declares_warp:
        report.includes = scan.includes  # the include graph: derived macros of other headers


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip()) + 1


def _unknown_as_undefined(name: str) -> Value:
    v = lookup_device(name)
    return 0 if v is None else v


def _may_die(conds: tuple[str, ...]) -> bool:
    """Some condition is false once its unknown macros are undefined: an include guard (`!defined(X_H)`) is
    not, `defined(USE_HIP) && defined(CDNA)` is. Only those defines are kept for the scan to re-judge."""
    return any(evaluate(c, _unknown_as_undefined) == 0 for c in conds)


def promote(report: FileReport, derived: set[str]) -> None:
    """Report the #ifs whose defines the scan found dead because they test macros derived from arch macros
    (in this file or another), naming those macros and the ones defined under them."""
    names: dict[int, list[str]] = {}
    for d in report.cond_defines:
        if d.pending >= 0 and d.name in derived:
            names.setdefault(d.pending, []).append(d.name)
    reported = {f.line for f in report.findings}
    for index, defined in names.items():
        f = report.pending[index]
        if f.line in reported:
            continue  # the test of a macro another file defines as an arch test is there already
        cond = next(d.conditions[-1] for d in report.cond_defines if d.pending == index)
        tested = [n for n in dict.fromkeys(IDENT.findall(cond)) if n in derived]
        if not tested or live_under((cond,), derived):  # dead for an enclosing #if: that one is the construct
            continue
        at = f.snippet.find(tested[0])  # the snippet starts at the `#`
        report.findings.append(replace(f, column=f.column + max(at, 0),
                                       message=arch_macros.derived_message(tested, defined)))
    report.findings.sort(key=lambda f: (f.line, f.column))
