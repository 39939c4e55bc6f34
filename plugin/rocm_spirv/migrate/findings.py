"""Result types of a migrate scan: rules, findings, edits. Plain data, no I/O."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Literal

# the static scan, the oracle (the real CMake and clang), or both for one construct
Source = Literal["static", "configure", "both"]
# After ruff's RuleStatus: a preview rule is reported only under --preview (its precision is not yet
# measured on code it was not written against); a deprecated one still runs, and --select naming it
# says so. New rules start in preview; a blind batch that holds them promotes them to stable.
RuleStatus = Literal["stable", "preview", "deprecated"]
RULE_STATUSES: tuple[RuleStatus, ...] = ("stable", "preview", "deprecated")
# The release every rule of the first release carries as `since`.
FIRST_RELEASE = "0.1.0"


class Severity(Enum):
    ERROR = "error"  # the SPIR-V build fails or computes the wrong thing
    WARNING = "warning"  # per-arch behaviour is silently lost or kept
    NOTE = "note"  # worth a look; usually a one-line build change

    @property
    def sarif_level(self) -> str:
        return self.value


class Redirect(Enum):
    """Whether a toolchain file alone can send this setting to amdgcnspirv."""

    TOOLCHAIN = "toolchain"  # setting GPU_TARGETS etc. in the toolchain file is enough
    TOOLCHAIN_FORCE = "toolchain-force"  # only with set(… CACHE … FORCE) in the toolchain file
    ENVIRONMENT = "environment"  # the value comes from the environment; export amdgcnspirv
    MAKE_VARIABLE = "make-variable"  # a Makefile list: `make VAR=amdgcnspirv` overrides it, no edit
    USER_VARIABLE = "user-variable"  # the user's own -DVAR=… list, which nothing in the project sets
    BUILD_FILE = "build-file"  # the build file itself must change
    SOURCE = "source"  # a source change (never edited by --apply)


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    severity: Severity
    summary: str
    help: str
    # The smallest file that shows the rule, as (file name, text): tests scan each one and require this
    # rule's finding; SARIF shows it in the rule's help.
    example: tuple[str, str] = ("", "")
    # Neither a toolchain file nor retargeting changes its build-file findings: --apply notes each one, and
    # cmake/RocmSpirvScan.cmake (_ROCM_SPIRV_UNREACHABLE_RULES) warns about them at configure time.
    unreachable: bool = False
    status: RuleStatus = "stable"
    since: str = FIRST_RELEASE  # the rocm-spirv version that first reported it
    # An adoption step, not a per-arch construct (RSM120: a HIP target not yet handed to rocm_spirv_target()):
    # reported only where --select names it, by id or prefix, so the default report lists what ties the
    # build to GPUs and nothing else; `--apply` makes its edits either way, and the summary counts those left out.
    opt_in: bool = False


@dataclass(frozen=True)
class Finding:
    rule: Rule
    path: str  # relative to the scanned root, '/'-separated
    line: int
    column: int
    message: str
    fix: str
    redirect: Redirect
    handled: bool = False  # already behind ROCM_SPIRV_OFFLOAD / rocm_spirv_target: nothing left to do
    snippet: str = ""
    # Source findings: enclosing #if conditions the device environment alone could not decide, as one
    # expression each; the scan re-evaluates them once every file's arch-derived macros are known.
    conditions: tuple[str, ...] = ()
    suppressed: bool = False  # a `rocm-spirv: ignore[…]` comment on its line or the line above
    source: Source = "static"
    # the last line of the command that carries it, when that command spans several (`target_compile_options(`
    # on one line, the flag three lines below): editors and SARIF viewers mark the whole command; 0: one line
    end_line: int = 0

    @property
    def severity(self) -> Severity:
        return self.rule.severity

    def to_json(self) -> dict[str, object]:
        return {
            "rule": self.rule.id,
            "name": self.rule.name,
            "severity": self.severity.value,
            "path": self.path,
            "line": self.line,
            "end_line": max(self.end_line, self.line),
            "column": self.column,
            "message": self.message,
            "fix": self.fix,
            "redirect": self.redirect.value,
            "handled": self.handled,
            "snippet": self.snippet,
            "suppressed": self.suppressed,
            "source": self.source,
        }


@dataclass(frozen=True)
class Edit:
    """Insert or replace text at [start, end) of one file's original contents."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class CondDefine:
    """A #define in a branch the device environment alone cannot decide (`#if defined(USE_HIP) && defined(CDNA)`):
    dead, and the macro arch-derived, once the scan knows that a macro its conditions test is (from any file)."""

    name: str
    conditions: tuple[str, ...]  # the undecided enclosing conditions, innermost last
    pending: int  # index in FileReport.pending of the finding at the innermost #if, -1 when one is reported there


@dataclass
class FileReport:
    path: str
    kind: str  # cmake, make, presets, source
    findings: list[Finding] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)
    error: str = ""  # unreadable or unparsable: reported, never edited
    # Sources: macros #defined in live code, and macros defined only where an arch macro decides
    # (under `#if defined(__gfx90a__)`, or with an arch macro in their body): undefined under SPIR-V.
    live_macros: set[str] = field(default_factory=set)
    arch_macros: set[str] = field(default_factory=set)
    # #defines whose branch may turn out dead, and the findings reported if it does (see CondDefine)
    cond_defines: list[CondDefine] = field(default_factory=list)
    pending: list[Finding] = field(default_factory=list)
    # Sources: every macro the file #defines (in any branch), the macros it defines to a compile-time wave
    # size, and findings that hold only once every file is read: (line, column) -> (kind, names);
    # "build": the names are per-arch macros no scanned source defines (the build does, from its target
    # list); "alias": some name is a wave-size alias another file defines; "test": some name is a macro another
    # file defines as an arch test (arch_tests); "device": asm in a file with no device marker of its own, the
    # names the file uses (kept if another file defines one of them to __device__).
    defines: set[str] = field(default_factory=set)
    # macros the file defines only in branches no AMD device compile takes (the CUDA side of
    # `#ifdef __HIP_PLATFORM_AMD__`, `#if __CUDA_ARCH__ >= 530`): undefined for HIP unless another file defines them
    foreign_macros: set[str] = field(default_factory=set)
    # "elif" needs: the macros the chain's opening #if tests, for each #elif candidate (line, column); the #elif
    # stands alone only where none of those is an arch test (one chain, one construct)
    elif_openers: dict[tuple[int, int], frozenset[str]] = field(default_factory=dict)
    # the file declares a constant of its own named warpSize (mallocMC's `constexpr auto warpSize = …`): files
    # that include it mean that one
    declares_warp: bool = False
    arch_tests: set[str] = field(default_factory=set)  # macros whose #define body is an arch test
    includes: tuple[str, ...] = ()  # what it #includes, kept for files that define macros or have findings
    wave_aliases: set[str] = field(default_factory=set)
    needs: dict[tuple[int, int], tuple[str, frozenset[str]]] = field(default_factory=dict)
    # findings (line, column) inside the body of a __global__ function template, by its name, every kernel
    # template of the file listed: dropped when no file of the tree names the kernel again (nothing
    # instantiates it, so it emits no code)
    kernel_templates: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    # findings inside a translation unit's inline/static/template __device__ functions and macros its own text
    # names only once (the definition), by name: dropped unless a file that #includes this one names them
    local_units: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    # a translation unit with no __global__ kernel: code another file #includes (remi-or/rocm_dev's
    # consumers/*.cu, pulled into skinny_gemm_kernel.cu); where no scanned file includes it, its includer was
    # not given, so its local units stay
    fragment: bool = False
    # a header's macros, every one listed, with the findings inside each (kept only when some have findings): a
    # macro no file of the tree names besides its definition is dropped where another macro of the header is
    # named in another file (its users were scanned)
    header_units: dict[str, list[tuple[int, int]]] = field(default_factory=dict)


@dataclass
class ScanResult:
    root: str
    files_scanned: int = 0
    files: list[FileReport] = field(default_factory=list)  # only files with findings, edits or errors

    @property
    def findings(self) -> list[Finding]:
        return [f for r in self.files for f in r.findings]

    @property
    def remaining(self) -> list[Finding]:
        return [f for f in self.findings if not f.handled and not f.suppressed]

    @property
    def errors(self) -> list[FileReport]:
        return [r for r in self.files if r.error]


E, W, N = Severity.ERROR, Severity.WARNING, Severity.NOTE  # short for rule declarations

