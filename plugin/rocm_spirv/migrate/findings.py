"""Result types of a migrate scan: rules, findings, edits. Plain data, no I/O."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


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
            "column": self.column,
            "message": self.message,
            "fix": self.fix,
            "redirect": self.redirect.value,
            "handled": self.handled,
            "snippet": self.snippet,
            "suppressed": self.suppressed,
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


def _rules(*rules: Rule) -> dict[str, Rule]:
    return {r.id: r for r in rules}


E, W, N = Severity.ERROR, Severity.WARNING, Severity.NOTE

# Rules whose build-file findings neither a toolchain file nor retargeting can change: --apply marks each
# with a note comment, and cmake/RocmSpirvScan.cmake (_ROCM_SPIRV_UNREACHABLE_RULES) warns at configure time.
UNREACHABLE = frozenset({"RSM106", "RSM107", "RSM108", "RSM109", "RSM110", "RSM114", "RSM115"})

RULES = _rules(
    # CMake
    Rule("RSM101", "arch-list", W, "a per-arch target list is set or defaulted",
         "GPU_TARGETS, AMDGPU_TARGETS, CMAKE_HIP_ARCHITECTURES and friends decide which code objects are built; "
         "under SPIR-V the list is `amdgcnspirv`.",
         example=('CMakeLists.txt', 'project(p LANGUAGES HIP)\nset(GPU_TARGETS gfx90a gfx942)\n')),
    Rule("RSM102", "hip-architectures-property", W, "HIP_ARCHITECTURES is set on a target",
         "A target property overrides CMAKE_HIP_ARCHITECTURES, so no toolchain file can redirect it.",
         example=('CMakeLists.txt', 'project(p LANGUAGES HIP)\n'
                  'add_library(k k.hip)\n'
                  'set_target_properties(k PROPERTIES HIP_ARCHITECTURES gfx90a)\n')),
    Rule("RSM103", "offload-arch-flag", W, "--offload-arch=gfx… is passed in options or flags",
         "Explicit --offload-arch flags add native code objects next to (or instead of) SPIR-V.",
         example=('CMakeLists.txt', 'project(p LANGUAGES HIP)\nadd_compile_options(--offload-arch=gfx90a)\n')),
    Rule("RSM104", "legacy-target-flag", E, "legacy --amdgpu-target= / -amdgpu-target= spelling",
         "The legacy HCC spelling is not accepted for amdgcnspirv; use --offload-arch= or, better, the target list.",
         example=('CMakeLists.txt', 'project(p)\nset(CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS} --amdgpu-target=gfx906")\n')),
    Rule("RSM105", "amdgpu-backend-option", W, "-mllvm -amdgpu-* backend option",
         "AMDGPU backend options do not reach the runtime's JIT compile of SPIR-V; they are dropped or rejected.",
         example=('CMakeLists.txt', 'project(p)\nadd_compile_options(-mllvm -amdgpu-early-inline-all=true)\n')),
    Rule("RSM106", "arch-branch", W, "the build branches on the target list",
         "A condition such as `GPU_TARGETS MATCHES gfx90a` is false under amdgcnspirv, so its branch is lost.",
         example=('CMakeLists.txt', 'project(p)\n'
                  'if(GPU_TARGETS MATCHES "gfx90a")\n'
                  '  add_definitions(-DMI200)\n'
                  'endif()\n')),
    Rule("RSM107", "per-arch-loop", W, "a loop over targets adds per-arch sources, definitions or commands",
         "Loops over the target list run once for `amdgcnspirv`; per-arch sources or -mcpu= commands break.",
         example=('CMakeLists.txt', 'project(p)\n'
                  'foreach(arch ${GPU_TARGETS})\n'
                  '  add_custom_command(OUTPUT k_${arch}.co COMMAND clang -mcpu=${arch} -o k_${arch}.co k.cl)\n'
                  'endforeach()\n')),
    Rule("RSM108", "arch-allow-list", E, "an allow-list validates or filters target names",
         "Allow-lists and filters reject or silently drop `amdgcnspirv`.",
         example=('CMakeLists.txt', 'project(p)\nlist(FILTER GPU_TARGETS INCLUDE REGEX "^gfx9")\n')),
    Rule("RSM109", "kernel-generator", W, "the target list is handed to a kernel generator",
         "Generators invoked per arch (Tensile, CK, custom scripts) emit native objects, not SPIR-V.",
         example=('CMakeLists.txt', 'project(p)\ntensile_create_library(ARCHITECTURE "${GPU_TARGETS}")\n')),
    Rule("RSM110", "findhip", W, "FindHIP hip_add_* / HCC_AMDGPU_TARGET",
         "The FindHIP module compiles through hipcc with HCC_AMDGPU_TARGET: a toolchain file that forces it to "
         "amdgcnspirv redirects it; port to enable_language(HIP).",
         example=('CMakeLists.txt', 'project(p)\nhip_add_library(k k.cpp)\n')),
    Rule("RSM111", "env-arch-list", W, "an environment variable supplies the target list",
         "PYTORCH_ROCM_ARCH / HCC_AMDGPU_TARGET / GPU_TARGETS from the environment feed the arch list.",
         example=('CMakeLists.txt', 'project(p)\nset(ARCHS $ENV{PYTORCH_ROCM_ARCH})\n')),
    Rule("RSM112", "preset-arch-list", W, "a CMake preset sets a per-arch list",
         "Preset cacheVariables are applied with -D before the toolchain file, so only CACHE FORCE overrides them.",
         example=('CMakePresets.json', '{"version": 3, "configurePresets": [{"name": "mi300",\n'
                                       '  "cacheVariables": {"GPU_TARGETS": "gfx942"}}]}\n')),
    Rule("RSM113", "rocm-check-target-ids", E, "rocm_check_target_ids filters the list",
         "rocm_check_target_ids keeps only targets the compiler accepts as code objects; it can drop amdgcnspirv.",
         example=('CMakeLists.txt', 'project(p)\nrocm_check_target_ids(GPU_TARGETS TARGETS "${GPU_TARGETS}")\n')),
    Rule("RSM114", "arch-list-entry", W, "one entry of the target list is taken by index",
         "list(GET GPU_TARGETS 0 …) names a file or setting after a gfx target; under SPIR-V the entry is "
         "`amdgcnspirv`.",
         example=('CMakeLists.txt', 'project(p)\nlist(GET GPU_TARGETS 0 first)\n')),
    Rule("RSM115", "findhip-arch-option", E, "hip_add_* passes an arch flag in HIPCC_OPTIONS/CLANG_OPTIONS",
         "Per-target options come after every flag a toolchain file can set, so --offload-arch= there always "
         "builds that native code object.",
         example=('CMakeLists.txt', 'project(p)\nhip_add_library(k k.cpp HIPCC_OPTIONS --offload-arch=gfx90a)\n')),
    Rule("RSM120", "hip-target", N, "a HIP target is not retargeted",
         "Add find_package(RocmSpirv REQUIRED) and rocm_spirv_target(<target>) so ROCM_SPIRV_OFFLOAD picks "
         "spirv, native or hybrid.",
         example=('CMakeLists.txt', 'project(p LANGUAGES HIP)\nadd_library(k k.hip)\n')),
    # sources
    Rule("RSM201", "arch-macro", E, "device code tests a per-arch macro",
         "__gfx*__, __GFX*__ and __amdgcn_processor__ are not defined when compiling for amdgcnspirv.",
         example=('k.hip', '#if defined(__gfx90a__)\n__global__ void k() {}\n#endif\n')),
    Rule("RSM202", "wavefront-size-macro", E, "__AMDGCN_WAVEFRONT_SIZE is used",
         "The wavefront size is not known when SPIR-V is generated; the macro is undefined.",
         example=('k.hip', '__global__ void k(int* o) { o[0] = __AMDGCN_WAVEFRONT_SIZE; }\n')),
    Rule("RSM203", "constexpr-warpsize", E, "warpSize is used as a compile-time constant",
         "Under SPIR-V warpSize is a runtime value: not usable in constexpr, template arguments or array bounds.",
         example=('k.hip', '__global__ void k() { __shared__ float tile[warpSize]; }\n')),
    Rule("RSM204", "inline-asm", E, "inline assembly in device code",
         "GCN/RDNA assembly cannot be expressed in SPIR-V; the kernel must use builtins or stay native (hybrid).",
         example=('k.hip', '__global__ void k() { asm volatile("s_waitcnt vmcnt(0)"); }\n')),
    Rule("RSM205", "unguarded-feature-builtin", W, "feature-gated __builtin_amdgcn_* without a guard",
         "DPP, MFMA, WMMA, dot and permlane builtins exist only on some targets; guard them at JIT time.",
         example=('k.hip', '__global__ void k(int* o) {\n'
                           '  o[0] = __builtin_amdgcn_mov_dpp(o[0], 0x111, 15, 15, false);\n}\n')),
    Rule("RSM206", "has-builtin-arch-test", E, "__has_builtin(__builtin_amdgcn_…) used as an arch test",
         "Under amdgcnspirv every AMDGCN builtin is 'present', so the test always passes.",
         example=('k.hip', '#if __has_builtin(__builtin_amdgcn_mfma_f32_32x32x8f16)\n'
                  '__global__ void k() {}\n'
                  '#endif\n')),
    Rule("RSM207", "arch-enum-helper", W, "a helper derives the architecture from macros",
         "Functions returning an arch enum/value from #if __gfx…__ return the fallback under SPIR-V.",
         example=('k.hip', '__device__ int wave() {\n'
                  '#if defined(__GFX9__)\n'
                  '  return 64;\n'
                  '#else\n'
                  '  return 32;\n'
                  '#endif\n'
                  '}\n')),
    # Makefiles
    Rule("RSM301", "make-arch-list", W, "a Makefile sets a per-arch target list",
         "HIP_ARCHITECTURES ?= gfx… and friends decide which code objects make builds; a command-line "
         "`make HIP_ARCHITECTURES=amdgcnspirv` overrides them unless they are `override`.",
         example=('Makefile', 'HIP_ARCHITECTURES ?= gfx90a gfx942\n')),
    Rule("RSM302", "make-arch-flag", W, "a Makefile hard-codes --offload-arch= or builds per arch",
         "A literal --offload-arch=gfx… in flags or recipes, or a pattern rule passing its stem as the arch, "
         "builds native code objects whatever the list says.",
         example=('Makefile', 'k.o: k.hip\n\thipcc --offload-arch=gfx90a -c $< -o $@\n')),
)

