"""Findings for GNU Makefiles (Makefile, makefile, GNUmakefile, *.mk). Reported only: --apply never edits
a Makefile; the remedy says how to retarget it from the make command line."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from rocm_spirv.migrate.cmake_checks.flags import BACKEND_OPTION_FIX, RSM105
from rocm_spirv.migrate.cmake_words import ARCH_ITEM, DETECT, GFX, KOKKOS_AMD_ARCH, TARGET_VARS
from rocm_spirv.migrate.findings import FileReport, Finding, Redirect, Rule, W
from rocm_spirv.migrate.pp import HAND_ARCH_DEFINE
from rocm_spirv.offload import ARCH_OPTION_PATTERN, LEGACY_PROCESSOR, SPIRV_TARGET

# Make variables projects keep their GPU list in, besides the CMake spellings.
MAKE_LIST_VARS = TARGET_VARS | {"OFFLOAD_ARCH", "OFFLOAD_ARCHS", "HIP_ARCH", "HIP_ARCHS", "GPU_ARCH", "AMDGPU_ARCH",
                                "AMDGPU_ARCHS", "GFX_ARCH", "GFX_ARCHS", "ROCM_ARCH", "HIP_OFFLOAD_ARCH"}
ASSIGN = re.compile(r"^(?P<override>override\s+)?(?:export\s+)?(?P<var>[A-Za-z_][A-Za-z0-9_.-]*)\s*"
                    r"(?P<op>\?=|::?=|:::=|\+=|!=|=)\s*(?P<value>.*)$")
# the compiler's arch options (offload.py's list: hipcc's old `-amdgpu-target=` too) and -mcpu, as whole words
ARCH_FLAG = re.compile(rf"(?<![\w-]){ARCH_OPTION_PATTERN}=(?P<value>\S+)")
REF = re.compile(r"\$[({](?P<name>[A-Za-z_][A-Za-z0-9_.-]*)[)}]")
GFX_TEMPLATE = re.compile(r"^gfx\$[({]")  # --offload-arch=gfx$(gfx): only gfx names, never amdgcnspirv


def names_gpu(value: str) -> bool:
    """An arch flag's value that hard-codes a GPU: a gfx name (not amdgcnspirv) or one of clang's legacy
    processor names (`fiji`)."""
    return bool((GFX.search(value) and SPIRV_TARGET not in value) or LEGACY_PROCESSOR.fullmatch(value))


# text printed, not passed: the command (after the last ; && || |) is echo or printf (`@echo "default:
# --offload-arch=gfx803"` in a help recipe), or make's $(info …), $(warning …), $(error …) is still open
SHELL_SEPARATOR = re.compile(r"[;|]|&&")
SAY_COMMAND = re.compile(r"^[@+\-\s]*(?:echo|printf)\b")
SAY_FUNCTION = re.compile(r"\$\((?:info|warning|error)\s[^)]*$")


def _said(text: str, at: int) -> bool:
    """The flag at `at` is inside printed text."""
    before = text[:at]
    return SAY_COMMAND.match(SHELL_SEPARATOR.split(before)[-1]) is not None or SAY_FUNCTION.search(before) is not None


STEM = re.compile(r"^\$(?:\*|\(\*[DF]?\)|\{\*[DF]?\})$")  # $* $(*F): a pattern rule's stem

RSM301 = Rule("RSM301", "make-arch-list", W, "a Makefile sets a per-arch target list",
              "HIP_ARCHITECTURES ?= gfx… and friends decide which code objects make builds; a command-line "
              "`make HIP_ARCHITECTURES=amdgcnspirv` overrides them unless they are `override`.",
              example=('Makefile', 'HIP_ARCHITECTURES ?= gfx90a gfx942\n'))
RSM302 = Rule("RSM302", "make-arch-flag", W, "a Makefile hard-codes --offload-arch= or builds per arch",
              "A literal --offload-arch=gfx… in flags or recipes, or a pattern rule passing its stem as the arch, "
              "builds native code objects whatever the list says.",
              example=('Makefile', 'k.o: k.hip\n\thipcc --offload-arch=gfx90a -c $< -o $@\n'))
RULES = (RSM301, RSM302)


@dataclass(frozen=True)
class _Line:
    no: int  # first physical line
    text: str  # backslash continuations joined, comment removed
    recipe: bool
    first: int = 0  # the length of its first physical line: offsets past it are on a continuation line


RULE_HEAD = re.compile(r"^[^\s#=:][^=#]*?:(?![=:])")  # `target: prereqs`, not `X := v` or `X ::= v`
CONDITIONAL = re.compile(r"^\s*(?:ifeq|ifneq|ifdef|ifndef|else|endif)\b")


def _logical_lines(text: str) -> list[_Line]:
    """Logical lines, continuations joined. A tab-indented line is a recipe only after a rule's head: magma
    indents `HIP_ARCH_ += gfx803` with tabs inside ifneq blocks, which make reads as assignments."""
    out: list[_Line] = []
    lines = text.splitlines()
    i = 0
    in_rule = False
    while i < len(lines):
        raw = lines[i]
        if not raw.startswith("\t") and raw.strip() and not raw.lstrip().startswith("#") and \
                not CONDITIONAL.match(raw):
            in_rule = RULE_HEAD.match(raw) is not None and ASSIGN.match(raw.strip()) is None
        start, recipe = i, raw.startswith("\t") and in_rule
        buf = lines[i]
        while buf.endswith("\\") and i + 1 < len(lines):
            i += 1
            buf = buf[:-1] + " " + lines[i].lstrip()
        if not recipe:  # a recipe's '#' belongs to the shell line; elsewhere it starts a comment
            buf = re.sub(r"(?<!\\)#.*$", "", buf)
        out.append(_Line(start + 1, buf, recipe, len(raw)))
        i += 1
    return out


MAKE_CONDITIONAL = re.compile(r"^\s*(?P<word>ifeq|ifneq|ifdef|ifndef|else|endif)\b(?P<rest>.*)$")
# Kokkos' make build (`include $(KOKKOS_PATH)/Makefile.kokkos`) reads its GPU from KOKKOS_ARCH, a list of CPU and
# GPU names (`KOKKOS_ARCH = "Zen3,AMD_GFX90A"`), and turns an AMD one into --offload-arch=gfx…
KOKKOS_MAKE_ARCH = re.compile(rf"^[\"']?{KOKKOS_AMD_ARCH}[\"']?$", re.IGNORECASE)
# a test of gfx names: `ifneq ($(filter gfx1100,$(AMDGPU_TARGETS)),)`, `ifeq ($(GPU),gfx90a)`
GFX_TEST = re.compile(r"^\s*(?:ifeq|ifneq)?\s*[(\"'].*\bgfx[0-9]", re.IGNORECASE)
# tools that list the build machine's GPUs
OPENMP = re.compile(r"(?<![\w-])-fopenmp\b")
FORTRAN = re.compile(r"(?<![\w-])(?:amdflang|flang(?:-new)?)\b")
# a Makefile that compiles HIP: `-fopenmp` beside an arch flag there is host OpenMP in a HIP compile (MMseqs2's
# libmarv: `NVCC_FLAGS = --offload-arch=native -fopenmp` with COMPILER = hipcc)
# SYCL's compile for AMD GPUs (`icpx -fsycl -fsycl-targets=amdgcn-amd-amdhsa -Xsycl-target-backend
# --offload-arch=$(HIP_ARCH)`): another compiler's device build, which a HIP toolchain does not reach
# AdaptiveCpp (hipSYCL) names its AMD targets `--acpp-targets=hip:gfx90a` / `--acpp-gpu-arch=`: SYCL too
SYCL = re.compile(r"(?<![\w-])(?:-fsycl\b|--acpp-|--hipsycl-)")
# a line of a conditional's branch that only prints (`$(info Compiling code for gfx90a)`): $(error …) stops the
# build, so it is no such line
MESSAGE_ONLY = re.compile(r"^\s*\$[({](?:info|warning)\s.*[)}]\s*$")
HIP_MAKE = re.compile(r"\bhipcc\b|-x\s*hip\b|--hip-link\b|--hipstdpar\b|\.hip\b")
# --offload-arch=$(GPUARCH):xnack+ : a target feature appended to the list's value. clang 22 rejects
# `amdgcnspirv:xnack+` ("unsupported HIP gpu architecture"), so the flag itself must change under SPIR-V.
FEATURE_SUFFIX = re.compile(r"^(?:\$[({][^)}]+[)}])+:(?:xnack|sramecc)[+-]")
DEFINE_FLAG = re.compile(r"(?<![\w-])-D\s*([A-Za-z_]\w*)")
BACKEND_OPTION = re.compile(r"(?<!\S)-mllvm(?:\s+|=)(?P<option>--?amdgpu-\S+)")  # RSM105, as in CMake


@dataclass(slots=True)
class _Conditional:
    """One open make conditional. arch: the chain tests gfx names (its one finding is made; what its branches
    assign is part of it). finding: that finding's index (-1: made by an outer chain, or none). busy: a branch
    does more than print ($(info)): a chain on gfx names whose branches only print changes nothing under SPIR-V."""

    arch: bool
    finding: int = -1
    busy: bool = False


def _arch_branch(path: str, line: _Line) -> Finding:
    return _finding(path, RSM301, line, 1, "a make conditional branches on gfx names (one chain, one "
                    "construct): under SPIR-V the list holds amdgcnspirv and no branch matches",
                    "give the chain an amdgcnspirv branch (or keep this build native)", Redirect.BUILD_FILE)


def _finding(path: str, rule: Rule, line: _Line, col: int, message: str, fix: str, redirect: Redirect) -> Finding:
    """At the logical line's first physical line (where the assignment or recipe line starts); the column of
    what was found when it is on that line, else 1."""
    col = col if col <= line.first else 1
    return Finding(rule, path, line.no, col, message, fix, redirect, False, line.text.strip()[:120])


def _expansion(var: str) -> str:
    """A pattern for `$(var)` or `${var}`."""
    return rf"\$[({{]{re.escape(var)}[)}}]"


def _whole_expansion(text: str, start: int, value: int) -> str:
    """The flag from start with its value's `$(shell …)` or backquoted command whole (it has spaces)."""
    if text.startswith("`", value):
        end = text.find("`", value + 1)
        return text[start:end + 1] if end > 0 else text[start:].rstrip()
    depth = 0
    for i in range(value + 1, len(text)):
        depth += text[i] in "({"
        depth -= text[i] in ")}"
        if depth == 0:
            return text[start:i + 1]
    return text[start:].rstrip()


def _detected(lines: list[_Line]) -> set[str]:
    """Variables holding the build machine's GPU: set from amdgpu-arch/rocm_agent_enumerator output, or from
    such a variable (`ROCM_GPU ?= $(INSTALLED_GPU)` above the `INSTALLED_GPU = $(shell …)` it reads: make
    expands lazily, so the order of the lines does not matter)."""
    values: dict[str, str] = {}
    for line in lines:
        m = None if line.recipe else ASSIGN.match(line.text.strip())
        if m is not None:
            var, value = m.group("var"), m.group("value").strip()
            own = _expansion(var)
            if re.fullmatch(rf"\$[({{]strip\s+{own}[)}}]|{own}", value):
                continue  # `HIP_ARCH := $(strip $(HIP_ARCH))` (openlb): the value it had, reformatted
            values[var] = values.get(var, "") + " " + value
    # `HIP_ARCH ?= native` (openlb): clang's own detection of the build machine's GPU, as a variable's only value
    found = {v for v, value in values.items() if DETECT.search(value) or value.split() == ["native"]}
    while True:
        more = {v for v, value in values.items() if v not in found
                and {r.group("name") for r in REF.finditer(value)} & found}
        if not more:
            return found
        found |= more


def analyze(path: str, text: str) -> FileReport:
    report = FileReport(path, "make")
    # -mcpu=fiji: a legacy processor name; GFX: -D__HIP_ARCH_GFX908__
    if "gfx" not in text and "offload-arch" not in text and "amdgpu-target" not in text and "-amdgpu-" not in text \
            and "-mcpu=" not in text and "KOKKOS_ARCH" not in text and "GFX" not in text:
        return report
    lists: set[str] = set()  # variables set to arch names here: flags built from them are theirs
    add = report.findings.append
    chains: list[_Conditional] = []  # make conditionals open here, innermost last
    logical = _logical_lines(text)
    detected = _detected(logical) if "offload-arch" in text else set()
    hip = HIP_MAKE.search(text) is not None

    def openmp(line: str) -> bool:
        """An OpenMP offload line, no HIP compile: Fortran, or -fopenmp in a Makefile that compiles no HIP."""
        return FORTRAN.search(line) is not None or (not hip and OPENMP.search(line) is not None)

    def other_compiler(var: str) -> bool:
        """Every line of this file that reads var is a SYCL or OpenMP offload line (OPS' icpx make files set
        `HIP_ARCH=gfx90a` for `-fsycl-targets=amdgcn-amd-amdhsa … --offload-arch=$(HIP_ARCH)` only)."""
        # the lines that pass it on: not its own assignment, a conditional testing it, nor a message printing it
        readers = [r.text for r in logical if re.search(_expansion(var), r.text) and not
                   (not r.recipe and (a := ASSIGN.match(r.text.strip())) is not None and a.group("var") == var)
                   and (r.recipe or MAKE_CONDITIONAL.match(r.text) is None) and MESSAGE_ONLY.match(r.text) is None]
        # a reader line with -fopenmp and no HIP compile of its own (`OPTOMPGPU = … -fopenmp --offload-arch=$(GPUARCH)`)
        # is the OpenMP offload build, even in a Makefile whose other rules compile HIP (Gaia's)
        return bool(readers) and all(SYCL.search(t) is not None or openmp(t) or
                                     (OPENMP.search(t) is not None and HIP_MAKE.search(t) is None) for t in readers)
    for line in logical:
        word = None if line.recipe else MAKE_CONDITIONAL.match(line.text)
        if word is not None:
            kind, rest = word.group("word"), word.group("rest")
            if kind == "endif":
                if chains:
                    done = chains.pop()
                    if done.finding >= 0 and not done.busy:  # Gaia's chains that only $(info) the GPU
                        del report.findings[done.finding]
                    if chains:
                        chains[-1].busy = chains[-1].busy or done.busy
                continue
            if kind == "else":
                rest = rest.strip()
                if chains and not chains[-1].arch and GFX_TEST.search(rest):
                    chains[-1].arch = True  # `else ifneq ($(filter gfx906,…),)`: the chain tests arch names from here
                    if not any(c.arch for c in chains[:-1]):
                        add(_arch_branch(path, line))
                        chains[-1].finding, chains[-1].busy = len(report.findings) - 1, False
                continue
            arch = kind in ("ifeq", "ifneq") and GFX_TEST.search(rest) is not None
            found_here = arch and not any(c.arch for c in chains)
            if found_here:
                add(_arch_branch(path, line))
            chains.append(_Conditional(arch, len(report.findings) - 1 if found_here else -1))
            continue
        if chains and line.text.strip() and MESSAGE_ONLY.match(line.text) is None:
            chains[-1].busy = True
        if any(c.arch for c in chains):
            # inside a chain that tests gfx names: its assignments and flags are that construct. A macro it
            # defines (`else ifeq ("$(GPUARCH)","gfx90a")` / `PLATFORM = -D__MI250X__`) is a build-defined
            # per-arch macro: undefined under SPIR-V, so the source branches on it are constructs (scan.py)
            report.arch_macros.update(m.group(1) for m in DEFINE_FLAG.finditer(line.text)
                                      if not _said(line.text, m.start()))
            continue
        m = None if line.recipe else ASSIGN.match(line.text.strip())
        if m is not None:
            var, op, value = m.group("var"), m.group("op"), m.group("value")
            # `ASAN_ARCH ?= gfx942;gfx950` and `GPUS := gfx90a,gfx942` are lists too (handed to CMake or a script)
            items = [i for i in re.split(r"[\s;,]+", value) if i]
            gfx = [i for i in items if GFX.search(i)]
            names_only = all(ARCH_ITEM.match(i) for i in items)
            # `GPU_ARCH := $(shell amd-smi … | grep -o gfx…)` feeding `--offload-arch=$(GPU_ARCH)` here: the flag is
            # where the build machine's GPU becomes the target (RSM302 there, as for any detected variable)
            fed = re.search(rf"--offload-arch={_expansion(var)}", text) is not None
            if not gfx and var in MAKE_LIST_VARS and not fed and (tool := DETECT.search(value)) is not None:
                lists.add(var)
                add(_finding(path, RSM301, line, 1, f"{var} {op} the GPUs of the build machine "
                             f"({tool.group(0)}): native targets", f"build with `make "
                             f"{var}=amdgcnspirv`; --apply leaves Makefiles alone", Redirect.MAKE_VARIABLE))
                continue
            kokkos = [i for i in items if KOKKOS_MAKE_ARCH.match(i)] if var == "KOKKOS_ARCH" else []
            if kokkos:
                add(_finding(path, RSM301, line, 1, f"KOKKOS_ARCH {op} {' '.join(kokkos)}: Kokkos' make build "
                             "compiles its HIP backend for this GPU", "under SPIR-V leave the AMD GPU out of "
                             "KOKKOS_ARCH and pass --offload-arch=amdgcnspirv if Kokkos supports it; otherwise keep "
                             "this build native", Redirect.BUILD_FILE))
                continue
            if gfx and (names_only or (var in MAKE_LIST_VARS and not ARCH_FLAG.search(value))):
                lists.add(var)
                if other_compiler(var):
                    continue
                if m.group("override"):
                    add(_finding(path, RSM301, line, 1, f"override {var} {op} {' '.join(gfx)}: the command "
                                 "line cannot change it", f"drop `override`, then `make {var}=amdgcnspirv`",
                                 Redirect.BUILD_FILE))
                else:
                    how = "an environment variable or " if op == "?=" else ""
                    add(_finding(path, RSM301, line, 1, f"{var} {op} {' '.join(gfx)}: a per-arch target "
                                 f"list", f"build with `make {var}=amdgcnspirv` ({how}a command-line value "
                                 f"overrides `{op}`); --apply leaves Makefiles alone", Redirect.MAKE_VARIABLE))
                continue
        before = len(report.findings)
        for fm in ARCH_FLAG.finditer(line.text):
            if _said(line.text, fm.start()):
                continue
            value = fm.group("value")
            refs = {r.group("name") for r in REF.finditer(value)}
            if STEM.match(value):
                add(_finding(path, RSM302, line, fm.start() + 1, f"{fm.group(0)}: a pattern rule builds one "
                             "object per arch from its stem", "under SPIR-V build one object: a rule for "
                             "--offload-arch=amdgcnspirv (or keep native objects for hybrid)",
                             Redirect.BUILD_FILE))
                break
            if names_gpu(value) or GFX_TEMPLATE.match(value):
                what = "names only gfx targets" if GFX_TEMPLATE.match(value) else "is hard-coded"
                add(_finding(path, RSM302, line, fm.start() + 1, f"{fm.group(0)} {what}",
                             "take the arch from a list variable (--offload-arch=$(HIP_ARCHITECTURES) with "
                             "HIP_ARCHITECTURES ?= gfx…), then `make HIP_ARCHITECTURES=amdgcnspirv`",
                             Redirect.BUILD_FILE))
                break
            if FEATURE_SUFFIX.match(value) and OPENMP.search(line.text) is None and SYCL.search(line.text) is None:
                add(_finding(path, RSM302, line, fm.start() + 1, f"{fm.group(0)} appends a target feature to "
                             "the list's value: amdgcnspirv takes none (clang rejects amdgcnspirv"
                             f"{value[value.index(':'):]})", "under SPIR-V pass the list without the feature "
                             "(the JIT compile on the GPU picks its features); keep the suffix for native builds",
                             Redirect.BUILD_FILE))
                break
            if refs & lists:
                break  # fed by a list reported at its assignment: the list is the construct
            # OpenMP offload (`amdflang -fopenmp --offload-arch=…`) is no HIP compile: not this check's
            # `--offload-arch=$(shell amdgpu-arch | head -1)`: the detection inline, in the flag's own value
            command = _whole_expansion(line.text, fm.start(), fm.start("value")) \
                if value.startswith(("$(shell", "${shell", "`")) else None
            inline = command is not None and DETECT.search(command) is not None
            # -mcpu=native beside no GPU triple tunes the host compiler for the build machine's CPU (a Darwin
            # branch's NATIVE_CPU_FLAG): only --offload-arch=native, or -mcpu=native for amdgcn, names its GPU
            host_cpu = value == "native" and fm.group(0).startswith("-mcpu") and "amdgcn" not in line.text
            if (value == "native" or refs & detected or inline) and not host_cpu and not openmp(line.text):
                flag = command if inline and command is not None else fm.group(0)
                add(_finding(path, RSM302, line, fm.start() + 1, f"{flag} builds for the build machine's "
                             "GPU", "take the arch from a list variable (--offload-arch=$(HIP_ARCHITECTURES)), "
                             "then `make HIP_ARCHITECTURES=amdgcnspirv`", Redirect.BUILD_FILE))
                break
        if len(report.findings) == before and (dm := HAND_ARCH_DEFINE.search(line.text)) is not None and \
                not _said(line.text, dm.start()) and not openmp(line.text):
            # `CPPFLAGS += -D__HIP_ARCH_GFX908__` (PENNANT's Cray Makefile): the macro clang or old hipcc defines
            # for one GPU, now in every compile; a statement that also hard-codes an arch flag is that flag's
            add(_finding(path, RSM302, line, dm.start() + 1, f"-D{dm.group('name')} defines a GPU's arch macro for "
                         "every compile: the SPIR-V device pass takes that GPU's branches too",
                         "drop it; the compiler defines the arch macros of each native target itself (under "
                         "SPIR-V none: branch at JIT time in device code)", Redirect.BUILD_FILE))
        bo = next((o for o in BACKEND_OPTION.finditer(line.text) if not _said(line.text, o.start())), None)
        if bo is not None and not openmp(line.text):
            # HIPCC_FLAGS = … -mllvm -amdgpu-early-inline-all=true: the SPIR-V JIT compile never sees it. One
            # statement, one finding: beside a hard-coded arch flag it is said in that finding.
            option = f"backend option -mllvm {bo.group('option')}"
            if len(report.findings) > before:
                last = report.findings[-1]
                report.findings[-1] = replace(last, message=f"{last.message}; it also passes the {option}, which "
                                              "the SPIR-V JIT does not see (drop it under SPIR-V)")
            else:
                add(_finding(path, RSM105, line, bo.start() + 1, option, BACKEND_OPTION_FIX, Redirect.BUILD_FILE))
    return report
