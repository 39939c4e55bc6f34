"""Findings and edits for one CMake file (CMakeLists.txt, *.cmake). Pure: text in, FileReport out."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field, replace

from rocm_spirv.migrate.cmake_conditions import REF, toolchain_value
from rocm_spirv.migrate.cmake_lexer import Arg, CMakeSyntaxError, Command, parse, refs, split_list
from rocm_spirv.migrate.cmake_targets import Variables, hip_language_sources, is_hip_source
from rocm_spirv.migrate.findings import RULES, UNREACHABLE, Edit, FileReport, Finding, Redirect

TARGET_VARS = frozenset({
    "GPU_TARGETS", "AMDGPU_TARGETS", "CMAKE_HIP_ARCHITECTURES", "HIP_ARCHITECTURES", "AMDGPU_TARGET",
    "GPU_ARCHS", "GPU_ARCHITECTURES", "HIP_OFFLOAD_ARCHS", "ROCM_ARCHS",
})
ENV_VARS = frozenset({"PYTORCH_ROCM_ARCH", "HCC_AMDGPU_TARGET", "GPU_TARGETS", "AMDGPU_TARGETS", "HIP_ARCHITECTURES"})
GFX = re.compile(r"(?<![A-Za-z0-9_])gfx[0-9]{2,4}[a-z]?(?::[a-z]+[+-])*(?![A-Za-z0-9_])", re.IGNORECASE)
ARCH_ITEM = re.compile(r"^(gfx[0-9]{2,4}[a-z]?(:[a-z]+[+-])*|gfx[0-9]+-generic|all|native|amdgcnspirv)$", re.I)
GFX_LOOSE = re.compile(r"gfx", re.IGNORECASE)  # in regexes too: MATCHES "^gfx9", "^gfx[0-9]+$"
ALLOW_NAME = re.compile(r"SUPPORTED|ALLOWED|VALID|KNOWN|WHITELIST|ALLOWLIST|ACCEPTED", re.IGNORECASE)
GUARD_VAR = "ROCM_SPIRV_OFFLOAD"
GUARD_OPEN = f'if(NOT {GUARD_VAR} STREQUAL "spirv")  # rocm-spirv migrate: per-arch list, unused under SPIR-V'
GUARD_ELSE = "else()  # rocm-spirv migrate: what a SPIR-V toolchain file sets"
NOTE = "# rocm-spirv migrate: "
# AMD GPU arch flags only: --offload-arch=sm_80 is CUDA, --cuda-gpu-arch=mp_21 is MUSA.
ARCH_FLAG = re.compile(r"^(?:--offload-arch=(?!(?:sm|mp|compute)_)(.+)|--cuda-gpu-arch=((?:gfx|\$\{|\$<).+))$")
FLAGS_VAR = re.compile(r"^CMAKE_(CXX|HIP|C|CUDA)_FLAGS(_[A-Z]+)?$")
HOST_ONLY_FLAGS = frozenset({"--cuda-host-only", "--offload-host-only"})
HIP_DEVICE = "hip::device"
RETARGET_DIRECTORY_MIN = 4  # this many HIP targets in one file: one rocm_spirv_retarget_directory() call
COMPARISONS = frozenset({"MATCHES", "STREQUAL", "IN_LIST", "STRLESS", "STRGREATER", "VERSION_GREATER",
                         "VERSION_LESS", "VERSION_EQUAL", "VERSION_GREATER_EQUAL", "VERSION_LESS_EQUAL", "EQUAL"})
GENERATOR_BUILTINS = frozenset({
    "set", "list", "if", "elseif", "while", "foreach", "message", "string", "option", "set_property",
    "set_target_properties", "unset", "math", "return", "cmake_parse_arguments", "separate_arguments",
    "target_compile_options", "add_compile_options", "target_link_options", "add_link_options",
    "rocm_check_target_ids", "hip_add_library", "hip_add_executable", "set_source_files_properties",
    "get_property", "get_target_property", "file", "include", "configure_file",
    "rocm_spirv_target", "rocm_spirv_retarget_directory", "target_compile_definitions", "add_definitions",
    "target_sources", "add_library", "add_executable", "function", "macro",
})
GENERATOR_COMMANDS = frozenset({"add_custom_command", "add_custom_target", "execute_process"})
DEFINES_SOURCES = frozenset({"target_sources", "add_library", "add_executable", "add_definitions",
                             "target_compile_definitions", "add_compile_definitions", "configure_file",
                             "add_custom_command", "add_custom_target", "execute_process", "hip_add_library",
                             "hip_add_executable"})


@dataclass(frozen=True)
class Context:
    """What a file inherits from the project: the policy version and whether it is the top-level file."""

    policy_version: tuple[int, int] | None = None
    top_level: bool = False


@dataclass
class _Block:
    kind: str  # if, foreach, while, function, macro, block
    cmd: Command
    guarded: bool = False  # the condition tests ROCM_SPIRV_OFFLOAD
    defaults: frozenset[str] = frozenset()  # variables tested for being unset: `if(NOT GPU_TARGETS)`
    loop_var: str = ""
    over_targets: bool = False
    body: list[str] = field(default_factory=list)
    arch_flags: bool = False  # the body passes --offload-arch=<entry>
    dead: str = ""  # the branch is skipped once the toolchain file has set the lists: the condition that says so
    taken: bool | None = False  # if(): an earlier branch is certainly taken under the toolchain values (None: maybe)
    prior: list[Command] = field(default_factory=list)  # if(): the earlier branches' conditions
    flag_targets: set[str] = field(default_factory=set)  # targets those flags are put on
    pinned_flags: bool = False  # some flag names a gfx target rather than the loop's entry


@dataclass
class CMakeFacts:
    """Per-file facts the project-level planner (apply.py) needs besides findings."""

    policy_version: tuple[int, int] | None = None
    project_end: int | None = None  # offset just after the line holding the first project()
    minimum_end: int | None = None  # offset just after the line holding cmake_minimum_required()
    has_find_package: bool = False
    calls_package: bool = False  # calls a rocm_spirv_*() function, so its project must find the package
    hip_targets: list[str] = field(default_factory=list)
    newline: str = "\n"  # the file's line ending; inserted lines use it too


def parse_version(text: str) -> tuple[int, int] | None:
    """The policy version of `VERSION a.b[...c.d]`: the max of a range, else the minimum."""
    part = text.split("...")[-1]
    m = re.match(r"(\d+)\.(\d+)", part)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _line_end(src: str, pos: int) -> int:
    """Offset of the line ending after pos (before a CRLF's '\\r'), or the end of the text."""
    idx = src.find("\n", pos)
    if idx < 0:
        return len(src)
    return idx - 1 if idx > pos and src[idx - 1] == "\r" else idx


def _line_begin(src: str, pos: int) -> int:
    return src.rfind("\n", 0, pos) + 1


def _names(arg: Arg) -> set[str]:
    """Variable names an argument mentions: bare words (as in if()) and ${…}/$CACHE{…} references."""
    out = {r.name for r in refs(arg.value) if r.kind in ("var", "cache")}
    if arg.kind == "unquoted" and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", arg.value):
        out.add(arg.value)
    return out


def _env_names(cmd: Command) -> set[str]:
    return {r.name for a in cmd.args for r in refs(a.value) if r.kind == "env"}


def _words(cmd: Command) -> list[str]:
    return [w for v in cmd.values() for item in split_list(v) for w in item.split()]


_GENEX_PREFIX = re.compile(r"^(?:\$<(?:\$<[^<>]*>|[^:<>])*:)+")


def _flag(word: str) -> str:
    """A compiler flag as the compiler sees it: `$<$<COMPILE_LANGUAGE:CXX>:SHELL:-mllvm` is `-mllvm`."""
    word = _GENEX_PREFIX.sub("", word)
    word = word[len("SHELL:"):] if word.startswith("SHELL:") else word
    return word.rstrip(">") if word.startswith("-") else word


def _flag_words(cmd: Command) -> list[str]:
    return [_flag(w) for w in _words(cmd)]


def _option_target(cmd: Command) -> str:
    """The one target whose options or properties cmd sets, if any."""
    values = cmd.values()
    if cmd.name in ("target_compile_options", "target_link_options") and values:
        return values[0]
    if cmd.name == "set_property" and values[:1] == ["TARGET"] and len(values) > 2 and values[2] in (
            "APPEND", "APPEND_STRING", "PROPERTY"):
        return values[1]
    return ""


def _compiles_as_hip(words: list[str]) -> bool:
    return "-xhip" in words or any(w == "-x" and nxt == "hip" for w, nxt in itertools.pairwise(words))


def _snippet(src: str, cmd: Command) -> str:
    text = src[cmd.start : cmd.end]
    first = text.splitlines()[0] if text else ""
    return first if len(first) <= 120 else first[:117] + "..."


class _Analyzer:
    def __init__(self, path: str, src: str, ctx: Context) -> None:
        self.path = path
        self.src = src
        self.ctx = ctx
        self.report = FileReport(path, "cmake")
        self.facts = CMakeFacts(policy_version=ctx.policy_version,
                                newline="\r\n" if "\r\n" in src else "\n")
        self.stack: list[_Block] = []
        self.project_seen = False
        self.retargeted: set[str] = set()
        self.retarget_directory = False
        self.hip_sources: set[str] = set()
        self.variables = Variables()  # target names and source lists through set() (cmake_targets.py)
        self.labels: dict[str, str] = {}  # target -> how messages name it (a foreach's items)
        self.more_sources: dict[str, list[str]] = {}  # target -> what target_sources() adds
        self.target_defs: list[tuple[Command, str, list[str]]] = []
        self.property_targets: dict[str, Command] = {}
        self.option_targets: dict[str, Command] = {}  # -x hip / arch flags in target_compile_options
        self.device_links: dict[str, Command] = {}  # target_link_libraries(<t> … hip::device)
        self.host_only: dict[str, list[str]] = {}  # target -> why it has no device code
        self.arch_lists: set[str] = set()  # variables set to gfx names (or copies of a target list) here
        self.find_hip: Command | None = None
        self.find_hip_guarded = False
        self.target_findings: dict[int, set[str]] = {}  # finding index -> targets whose retargeting fixes it

    # -- helpers ---------------------------------------------------------------------------
    def target(self, raw: str) -> str:
        """A target name as this point of the file gives it: `${example_name}` is hip_saxpy."""
        return self.variables.expand(raw)

    def guarded(self) -> bool:
        return any(b.guarded for b in self.stack)

    def toolchain_dead(self) -> str:
        """The condition of an enclosing branch that the toolchain file's list values make false, if any."""
        return next((b.dead for b in self.stack if b.dead), "")

    def add(self, rule: str, cmd: Command, message: str, fix: str, redirect: Redirect,
            handled: bool | None = None) -> Finding:
        dead = self.toolchain_dead()
        if dead:  # e.g. inside if(GPU_TARGETS STREQUAL "all"): never runs once the toolchain file set the list
            message = f"{message}; only under `{dead}`, which the toolchain file's lists make false"
            redirect = Redirect.TOOLCHAIN
        f = Finding(RULES[rule], self.path, cmd.line, cmd.start - _line_begin(self.src, cmd.start) + 1, message,
                    fix, redirect, self.guarded() if handled is None else handled, _snippet(self.src, cmd))
        self.report.findings.append(f)
        return f

    def wrap(self, cmd: Command, spirv: str = "") -> None:
        """Put cmd behind `if(NOT ROCM_SPIRV_OFFLOAD STREQUAL "spirv")`, leaving its text untouched.

        spirv, if given, is the command for the else() branch: the value a SPIR-V toolchain file
        would set, so later readers of the list (filters, hip::device, FindHIP) see amdgcnspirv.
        """
        begin = _line_begin(self.src, cmd.start)
        prefix = self.src[begin : cmd.start]
        indent = cmd.indent if prefix.strip() == "" else re.match(r"[ \t]*", prefix).group(0)  # type: ignore[union-attr]
        nl = self.facts.newline
        self.report.edits.append(Edit(begin, begin, f"{indent}{GUARD_OPEN}{nl}"))
        end = _line_end(self.src, cmd.end)
        other = f"{nl}{indent}{GUARD_ELSE}{nl}{indent}  {spirv}" if spirv else ""
        self.report.edits.append(Edit(end, end, f"{other}{nl}{indent}endif()"))

    def in_loop_over_targets(self) -> _Block | None:
        for b in reversed(self.stack):
            if b.kind == "foreach" and b.over_targets:
                return b
        return None

    def arch_names(self) -> set[str]:
        """Variables that hold GPU arch names here: the target lists, lists set to gfx names in this file
        and loop variables over either. A foreach variable over anything else shadows the name."""
        names = (set(TARGET_VARS) | self.arch_lists)
        for b in self.stack:
            if b.kind == "foreach":
                (names.add if b.over_targets else names.discard)(b.loop_var)
        return names

    def amd_mcpu(self, word: str) -> bool:
        """-mcpu=gfx90a or -mcpu=${arch} over an arch list; not -mcpu=power9 or -mcpu=${CMAKE_SYSTEM_PROCESSOR}."""
        if "-mcpu=" not in word:
            return False
        value = word.split("-mcpu=", 1)[1]
        if GFX.match(value):
            return True
        return bool({r.name for r in refs(value) if r.kind == "var"} & self.arch_names())

    def mentions_targets(self, cmd: Command) -> bool:
        referenced = {r.name for a in cmd.args for r in refs(a.value) if r.kind in ("var", "cache")}
        return bool(referenced & self.arch_names())

    # -- the walk ----------------------------------------------------------------------------
    def run(self) -> tuple[FileReport, CMakeFacts]:
        try:
            commands = parse(self.src)
        except CMakeSyntaxError as err:
            self.report.error = f"CMake syntax error: {err}"
            return self.report, self.facts
        for cmd in commands:
            self.command(cmd)
        self.hip_target_findings()
        self.report.findings.sort(key=lambda f: (f.line, f.column))
        self.notes()
        return self.report, self.facts

    def command(self, cmd: Command) -> None:
        name = cmd.name
        values = cmd.values()
        self.variables.update(cmd)
        self.facts.calls_package = self.facts.calls_package or name.startswith("rocm_spirv_")
        if name in ("endif", "endforeach", "endwhile", "endfunction", "endmacro", "endblock"):
            self.close(name[3:])
            return
        if name in ("else", "elseif") and self.stack and self.stack[-1].kind == "if":
            top = self.stack[-1]
            top.guarded = GUARD_VAR in {n for a in cmd.args for n in _names(a)} if name == "elseif" else top.guarded
            if name == "elseif":  # its condition is evaluated unless an earlier branch is certainly taken
                top.dead = f"the else() of {_snippet(self.src, top.cmd).strip()}" if top.taken is True else ""
                self.condition(cmd)
            self.next_branch(top, cmd if name == "elseif" else None)
            return
        if name == "cmake_minimum_required" and "VERSION" in values:
            idx = values.index("VERSION")
            if idx + 1 < len(values):
                self.facts.policy_version = parse_version(values[idx + 1])
            self.facts.minimum_end = self.facts.minimum_end or _line_end(self.src, cmd.end)
        elif name == "cmake_policy" and values[:1] == ["VERSION"] and len(values) > 1:
            self.facts.policy_version = parse_version(values[1]) or self.facts.policy_version
        elif name == "project":
            if not self.project_seen:
                self.facts.project_end = _line_end(self.src, cmd.end)
            self.project_seen = True
        elif name == "find_package" and values[:1] == ["RocmSpirv"]:
            self.facts.has_find_package = True
        elif name == "find_package" and values[:1] == ["hip"]:
            self.find_hip = cmd
            self.find_hip_guarded = self.guarded()
        elif name == "target_link_libraries" and HIP_DEVICE in values[1:]:
            self.device_links.setdefault(self.target(values[0]), cmd)
        elif name == "target_compile_options" and values:
            words = _flag_words(cmd)
            if _compiles_as_hip(words) or any(ARCH_FLAG.match(w) for w in words):
                self.option_targets.setdefault(self.target(values[0]), cmd)
            host = sorted(set(words) & HOST_ONLY_FLAGS)
            if host:
                self.host_only.setdefault(self.target(values[0]), []).extend(host)
        elif name == "rocm_spirv_target":
            self.retargeted.update(self.target(v) for v in values if v not in (
                "OFFLOAD", "ARCHS", "spirv", "native", "hybrid") and not GFX.fullmatch(v))
        elif name == "rocm_spirv_retarget_directory":
            self.retarget_directory = True

        loop = self.in_loop_over_targets()
        if loop is not None and name in DEFINES_SOURCES:
            loop.body.append(name)
        if loop is not None and any(self.amd_mcpu(w) for w in _words(cmd)):
            loop.body.append("-mcpu=")
        if loop is not None and any("clang-offload-bundler" in w or w.startswith("-targets=") for w in _words(cmd)):
            loop.body.append("clang-offload-bundler")  # one bundle entry per arch: never a mere probe
        if loop is not None and any(ARCH_FLAG.match(w) for w in _flag_words(cmd)):
            loop.arch_flags = True

        if name == "if" or name == "while":
            self.condition(cmd)
            self.open_if(cmd) if name == "if" else self.stack.append(_Block("while", cmd))
            return
        if name == "foreach":
            self.open_foreach(cmd)
            return
        if name in ("function", "macro", "block"):
            self.stack.append(_Block(name, cmd))
            return

        self.flags(cmd)
        self.env(cmd)
        if name == "set":
            self.set_command(cmd)
        elif name == "list":
            self.list_command(cmd)
        elif name in ("set_target_properties", "set_property"):
            self.properties(cmd)
        elif name == "rocm_check_target_ids":
            self.add("RSM113", cmd, "rocm_check_target_ids filters the target list against code-object targets",
                     "skip it when ROCM_SPIRV_OFFLOAD is spirv, or append amdgcnspirv after the check",
                     Redirect.BUILD_FILE)
        elif name in ("hip_add_library", "hip_add_executable"):
            self.hip_add(cmd)
        elif name in ("add_library", "add_executable"):
            self.target_def(cmd)
        elif name == "target_sources" and values:
            self.more_sources.setdefault(self.target(values[0]), []).extend(self.variables.items(values[1:]))
        if name in ("set_source_files_properties", "set_property") and "LANGUAGE" in values:
            self.hip_sources.update(hip_language_sources(cmd, self.variables))
        if name in GENERATOR_COMMANDS or name not in GENERATOR_BUILTINS:
            self.generator(cmd)

    def notes(self) -> None:
        """A comment line above each command with a finding only a hand edit can fix (once: idempotent)."""
        lines = self.src.splitlines(keepends=True)
        starts = [0]
        for text in lines:
            starts.append(starts[-1] + len(text))
        by_line: dict[int, list[str]] = {}
        for f in self.report.findings:
            if not f.handled and f.redirect is Redirect.BUILD_FILE and f.rule.id in UNREACHABLE:
                by_line.setdefault(f.line, [])
                if f"{f.rule.id} {f.rule.name}" not in by_line[f.line]:
                    by_line[f.line].append(f"{f.rule.id} {f.rule.name}")
        for line, rules in by_line.items():
            if line >= 2 and lines[line - 2].lstrip().startswith(NOTE):
                continue
            text = lines[line - 1]
            indent = text[: len(text) - len(text.lstrip(" \t"))]
            self.report.edits.append(Edit(starts[line - 1], starts[line - 1], f"{indent}{NOTE}{', '.join(rules)}: "
                                          f"needs an edit for SPIR-V (rocm-spirv migrate --check){self.facts.newline}"))

    # -- blocks ------------------------------------------------------------------------------
    def close(self, kind: str) -> None:
        while self.stack:
            b = self.stack.pop()
            if b.kind == "foreach" and b.over_targets:
                self.loop_finding(b)
            if b.kind == kind:
                return

    def condition(self, cmd: Command) -> None:
        values = cmd.values()
        names = {n for a in cmd.args for n in _names(a)}
        upper = {v.upper() for v in values}
        if GUARD_VAR in names:
            return
        arch = self.arch_names()
        targets = names & arch
        allow = {n for n in names if ALLOW_NAME.search(n) and n not in TARGET_VARS}
        if "IN_LIST" in upper and allow and (targets or allow & self.arch_lists):
            self.add("RSM108", cmd, f"the condition validates target names against {', '.join(sorted(allow))}",
                     "accept amdgcnspirv (or skip the check when ROCM_SPIRV_OFFLOAD is spirv)", Redirect.BUILD_FILE)
            return
        # Per-arch only when a gfx name is compared: `if(GPU_TARGETS STREQUAL "all")` holds under SPIR-V too.
        compared = any(GFX_LOOSE.search(v) for v in values) or ("IN_LIST" in upper and bool(names & self.arch_lists))
        if targets and compared:
            what = ", ".join(sorted(targets))
            self.add("RSM106", cmd, f"branches on {what}; under amdgcnspirv the per-arch branch is not taken",
                     "decide at JIT time with __builtin_amdgcn_processor_is in device code, or branch on "
                     "ROCM_SPIRV_OFFLOAD", Redirect.BUILD_FILE)

    def open_if(self, cmd: Command) -> None:
        values = cmd.values()
        names = {n for a in cmd.args for n in _names(a)}
        upper = [v.upper() for v in values]
        defaults: frozenset[str] = frozenset()
        if upper[:1] == ["NOT"] and not (set(upper) & COMPARISONS):
            defaults = frozenset(names & TARGET_VARS)
        block = _Block("if", cmd, guarded=GUARD_VAR in names, defaults=defaults)
        self.next_branch(block, cmd)
        self.stack.append(block)

    def next_branch(self, block: _Block, cond: Command | None) -> None:
        """Whether the branch that starts here runs once the toolchain file has set the target lists."""
        value = toolchain_value(cond) if cond is not None else True
        head = _snippet(self.src, block.cmd).strip()
        dead = block.taken is True or value is False
        block.dead = "" if not dead else head if cond is block.cmd else f"the else() of {head}"
        if cond is not None:
            block.prior.append(cond)
        block.taken = True if block.taken is True or value is True else None if (
            block.taken is None or value is None) else False

    def open_foreach(self, cmd: Command) -> None:
        values = cmd.values()
        loop_var = values[0] if values else ""
        over = False
        rest = cmd.args[1:]
        for i, a in enumerate(rest):
            names = _names(a)
            if a.kind == "unquoted" and a.value in ("IN", "LISTS", "ITEMS", "ZIP_LISTS"):
                continue
            listed = a.kind == "unquoted" and any(r.value == "LISTS" for r in rest[:i])
            if (names & self.arch_names() and ("${" in a.value or listed)) or GFX.search(a.value):
                over = True
        self.stack.append(_Block("foreach", cmd, loop_var=loop_var, over_targets=over))

    def loop_finding(self, b: _Block) -> None:
        body = sorted(set(b.body))
        handled = any(x.guarded for x in self.stack) or b.guarded
        if not body and b.arch_flags:
            if b.flag_targets:
                self.target_findings.setdefault(len(self.report.findings), set()).update(b.flag_targets)
            self.add("RSM103", b.cmd, f"foreach over the target list adds one --offload-arch= per entry "
                     f"({b.loop_var}) to options or properties", "rocm_spirv_target() on the targets that get "
                     "these flags strips them (--apply adds it); a toolchain list of amdgcnspirv makes the loop "
                     "add --offload-arch=amdgcnspirv", Redirect.BUILD_FILE if b.pinned_flags else Redirect.TOOLCHAIN,
                     handled=handled)
            return
        if not body:
            return
        if body == ["execute_process"]:
            # A configure-time probe or filter (one compile per target, keep what works) builds
            # nothing per arch: a redirected list hands it amdgcnspirv, which it must accept.
            self.add("RSM107", b.cmd, "foreach over the target list runs execute_process per arch at configure "
                     "time (a probe or filter)", "check the command accepts amdgcnspirv (the redirected list "
                     "hands it that one target)", Redirect.TOOLCHAIN, handled=handled)
            return
        if b.arch_flags:
            body.append("--offload-arch=")
        self.add("RSM107", b.cmd, f"foreach over the target list runs {', '.join(body)} per arch",
                 "under SPIR-V generate one variant (skip the loop when ROCM_SPIRV_OFFLOAD is spirv) or keep these "
                 "kernels native with rocm_spirv_target(<t> OFFLOAD hybrid ARCHS …)", Redirect.BUILD_FILE,
                 handled=handled)

    # -- commands ----------------------------------------------------------------------------
    def redirect_for_set(self, var: str, cache: bool, force: bool) -> tuple[Redirect, str]:
        if self.ctx.top_level and not self.project_seen:
            return Redirect.TOOLCHAIN, ("set before project(); the toolchain file, read at project(), sets "
                                        "a normal variable that shadows it")
        if any(var in b.defaults for b in self.stack):
            return Redirect.TOOLCHAIN, "only a default: skipped when the toolchain file has set it"
        if force:
            return Redirect.BUILD_FILE, "CACHE … FORCE after project() overrides any toolchain file"
        if cache:
            pv = self.facts.policy_version
            if pv is not None and pv < (3, 21):
                return (Redirect.TOOLCHAIN_FORCE,
                        f"policy version {pv[0]}.{pv[1]} < 3.21 (CMP0126 OLD): set(CACHE) drops a normal variable, "
                        f"so the toolchain must use set({var} amdgcnspirv CACHE STRING \"\" FORCE)")
            return Redirect.TOOLCHAIN, f"a cache default: set({var} amdgcnspirv) in the toolchain file wins"
        return Redirect.BUILD_FILE, "a plain set() after project() replaces the toolchain file's value"

    def set_command(self, cmd: Command) -> None:
        values = cmd.values()
        if not values:
            return
        var = values[0]
        if var.startswith("ENV{") and var.endswith("}"):
            env = var[4:-1]
            if env in ENV_VARS:
                self.add("RSM111", cmd, f"sets the environment list {env} for child processes",
                         "set it to amdgcnspirv under ROCM_SPIRV_OFFLOAD=spirv", Redirect.BUILD_FILE)
            return
        rest = values[1:]
        force = "FORCE" in rest and "CACHE" in rest
        cache = "CACHE" in rest
        if cache:
            rest = rest[: rest.index("CACHE")]
        if "PARENT_SCOPE" in rest:
            rest = [v for v in rest if v != "PARENT_SCOPE"]
        items = [i for v in rest for i in split_list(v)]
        gfx_items = [i for i in items if GFX.search(i)]
        copied = [m.group(1) for i in items if (m := REF.match(i))]
        if items and len(copied) == len(items) and set(copied) <= self.arch_names():
            self.arch_lists.add(var)
            return  # a copy of a list: the list's origin is the finding
        if gfx_items and var not in TARGET_VARS:
            self.arch_lists.add(var)
        spirv = f"set({var} amdgcnspirv{' PARENT_SCOPE' if 'PARENT_SCOPE' in values else ''})"
        if var == "HCC_AMDGPU_TARGET":
            if items and all(i.lower() == "amdgcnspirv" for i in items):
                return
            redirect, why = self.redirect_for_set(var, cache, force)
            source = ", ".join(gfx_items[:6]) if gfx_items else " ".join(rest)
            self.add("RSM110", cmd, f"HCC_AMDGPU_TARGET, FindHIP's per-arch list, set to {source or 'an empty list'} "
                     f"({why})", "guard it with ROCM_SPIRV_OFFLOAD (--apply does this, with amdgcnspirv under "
                     "SPIR-V), or redirect it from the toolchain file; better, port to enable_language(HIP)", redirect)
            if gfx_items and not self.guarded():
                self.wrap(cmd, spirv)
            return
        if var in TARGET_VARS:
            if items and all(i.lower() == "amdgcnspirv" for i in items):
                return
            redirect, why = self.redirect_for_set(var, cache, force)
            source = ", ".join(gfx_items[:6]) + (" …" if len(gfx_items) > 6 else "") if gfx_items else " ".join(rest)
            kind = "defaulted" if any(var in b.defaults for b in self.stack) else "set"
            self.add("RSM101", cmd, f"{var} {kind} to {source or 'an empty list'} ({why})",
                     f"{GUARD_OPEN.split('  #')[0]} … endif() around it (--apply does this), or redirect it from "
                     "the toolchain file", redirect)
            if gfx_items and not self.guarded():
                self.wrap(cmd, spirv)
            return
        if gfx_items and items and all(ARCH_ITEM.match(i) for i in items):
            if ALLOW_NAME.search(var):
                self.add("RSM108", cmd, f"{var} is an allow-list of {len(gfx_items)} arch names; amdgcnspirv is "
                         "not in it", "add amdgcnspirv to the list, or skip the check under SPIR-V",
                         Redirect.BUILD_FILE)
            else:
                self.add("RSM101", cmd, f"{var} holds arch names ({', '.join(gfx_items[:6])})",
                         "check where it is passed; under SPIR-V the list is amdgcnspirv", Redirect.BUILD_FILE)

    def list_command(self, cmd: Command) -> None:
        values = cmd.values()
        if len(values) < 2:
            return
        op, var = values[0].upper(), values[1]
        # a list of arch names: a target list, one set to gfx names here, or an allow-list the command
        # itself feeds arch names (list(FIND SUPPORTED ${arch} …)); not list(FIND CURL_KNOWN_PROTOCOLS …)
        others = {r.name for v in values[2:] for r in refs(v) if r.kind == "var"}
        is_target = var in TARGET_VARS or var in self.arch_lists or (
            bool(ALLOW_NAME.search(var)) and bool(others & self.arch_names() or any(GFX.search(v) for v in values)))
        if op in ("FILTER", "REMOVE_ITEM") and is_target:
            self.add("RSM108", cmd, f"list({op} {var} …) filters target names; it can drop amdgcnspirv",
                     "skip the filter when ROCM_SPIRV_OFFLOAD is spirv", Redirect.BUILD_FILE)
        elif op == "FIND" and is_target:
            self.add("RSM108", cmd, f"list(FIND {var} …) validates target names", "accept amdgcnspirv",
                     Redirect.BUILD_FILE)
        elif op == "GET" and var in TARGET_VARS:
            out = values[-1] if len(values) > 3 else ""
            self.add("RSM114", cmd, f"list(GET {var} {' '.join(values[2:-1])} {out}) takes one entry of the target "
                     "list; under SPIR-V it is amdgcnspirv, not a gfx name", "do not name files or settings after "
                     f"{out or 'the entry'} under SPIR-V (branch on ROCM_SPIRV_OFFLOAD)", Redirect.BUILD_FILE)
        elif op in ("APPEND", "PREPEND", "INSERT") and var in TARGET_VARS:
            items = [i for v in values[2:] for i in split_list(v)]
            gfx = [i for i in items if GFX.search(i)]
            if gfx:
                self.add("RSM101", cmd, f"appends {', '.join(gfx[:6])} to {var}; a toolchain value is extended, "
                         "not replaced", "guard it with ROCM_SPIRV_OFFLOAD (--apply does this)", Redirect.BUILD_FILE)
                if not self.guarded():
                    self.wrap(cmd)

    def properties(self, cmd: Command) -> None:
        values = cmd.values()
        if "HIP_ARCHITECTURES" not in values:
            return  # set_property(CACHE GPU_TARGETS PROPERTY STRINGS …) is only a GUI hint
        if cmd.name == "set_target_properties":
            targets = values[: values.index("PROPERTIES")] if "PROPERTIES" in values else []
        elif values[:1] == ["TARGET"]:
            end = values.index("PROPERTY") if "PROPERTY" in values else len(values)
            targets = [v for v in values[1:end] if v not in ("APPEND", "APPEND_STRING")]
        else:
            targets = []
        targets = [self.target(t) for t in targets]
        idx = values.index("HIP_ARCHITECTURES")
        if cmd.name == "set_property":  # PROPERTY HIP_ARCHITECTURES <value>...
            arch = ";".join(values[idx + 1 :])
        else:  # PROPERTIES <name> <value> pairs
            arch = values[idx + 1] if idx + 1 < len(values) else ""
        archs = split_list(arch)
        if archs and all(a.lower() == "amdgcnspirv" for a in archs):
            return
        if arch.upper() in ("FALSE", "OFF"):  # host-only: CMake adds no --offload-arch, retargeting keeps it so
            for t in targets:
                self.host_only.setdefault(t, []).append(f"HIP_ARCHITECTURES {arch}")
            self.add("RSM120", cmd, f"HIP_ARCHITECTURES {arch} keeps {', '.join(targets) or 'a target'} host-only; "
                     "retargeting leaves it so", "nothing to do: no device code, under SPIR-V as before",
                     Redirect.TOOLCHAIN, handled=True)
            return
        for t in targets:
            self.property_targets.setdefault(t, cmd)
            self.target_findings.setdefault(len(self.report.findings), set()).add(t)
        self.add("RSM102", cmd, f"HIP_ARCHITECTURES of {', '.join(targets) or 'a target'} set to "
                 f"{' '.join(archs) or 'an empty list'}",
                 "let rocm_spirv_target() own HIP_ARCHITECTURES (--apply guards this)", Redirect.BUILD_FILE)
        only_arch = cmd.name == "set_property" or (
            "PROPERTIES" in values and len(values) - values.index("PROPERTIES") == 3)
        if only_arch and GFX.search(arch) and not self.guarded():
            self.wrap(cmd)

    def flags(self, cmd: Command) -> None:
        words = _flag_words(cmd)
        legacy = [w for w in words if re.match(r"--?amdgpu-target=", w)]
        if legacy:
            self.add("RSM104", cmd, f"legacy spelling {legacy[0]}", "replace with the target list (GPU_TARGETS / "
                     "rocm_spirv_target); --offload-arch=amdgcnspirv if a flag is unavoidable", Redirect.BUILD_FILE)
        for i, w in enumerate(words):
            if w == "-mllvm" and i + 1 < len(words) and words[i + 1].startswith("-amdgpu-"):
                self.add("RSM105", cmd, f"backend option -mllvm {words[i + 1]}",
                         "drop it under SPIR-V (the JIT does not see it), or keep the kernel native (hybrid)",
                         Redirect.BUILD_FILE)
                break
        arch = [w for w in words if ARCH_FLAG.match(w) and "amdgcnspirv" not in w]
        arch += [words[i + 1] for i, w in enumerate(words[:-1]) if w == "--offload-arch" and
                 words[i + 1] != "amdgcnspirv"]
        mcpu = [w for w in words if self.amd_mcpu(w)]
        loop = self.in_loop_over_targets()
        if loop is not None:
            if not arch:
                return  # -mcpu= in a per-arch loop is the loop's finding (RSM107)
            on = _option_target(cmd)
            if on:
                loop.flag_targets.add(self.target(on))
            if not all(re.fullmatch(r"[^=]+=\$\{[A-Za-z0-9_]+\}", a) for a in arch):
                loop.pinned_flags = True
            return  # one construct: the loop's finding at its foreach() names these flags
        if not (arch or mcpu):
            return
        values = cmd.values()
        flags_var = cmd.name == "set" and bool(values) and bool(FLAGS_VAR.match(values[0]))
        what = (arch or mcpu)[0]
        where = f"{values[0]}" if flags_var else f"{cmd.name}()"
        fix = "remove it and let the target list decide (rocm_spirv_target / ROCM_SPIRV_OFFLOAD)"
        if flags_var:
            fix = (f"keep it out of {values[0]} under SPIR-V (--apply guards a set() that only adds arch flags): "
                   "retargeting strips target options, not a directory's flags")
        index = len(self.report.findings)
        self.add("RSM103", cmd, f"passes {what} in {where}", fix, Redirect.BUILD_FILE)
        if cmd.name == "target_compile_options" and values:
            self.target_findings.setdefault(index, set()).add(self.target(values[0]))
        start = 1 if cmd.name == "target_compile_options" else 0
        flag_only = cmd.name in ("add_compile_options", "target_compile_options") and all(
            v in ("PRIVATE", "PUBLIC", "INTERFACE", "BEFORE") or ARCH_FLAG.match(v) for v in values[start:])
        if flags_var:  # set(CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS} --offload-arch=gfx90a")
            own = {f"${{{values[0]}}}"}
            added = [w for w in _words(cmd)[1:] if w not in own]
            flag_only = bool(added) and all(ARCH_FLAG.match(w) and GFX.search(w) for w in added) and \
                "CACHE" not in values
        if flag_only and not self.guarded():
            self.wrap(cmd)

    def env(self, cmd: Command) -> None:
        found = sorted(_env_names(cmd) & ENV_VARS)
        if found and not (cmd.name == "set" and cmd.values()[:1] and cmd.values()[0].startswith("ENV{")):
            self.add("RSM111", cmd, f"reads the target list from $ENV{{{found[0]}}}",
                     f"export {found[0]}=amdgcnspirv, or give ROCM_SPIRV_OFFLOAD=spirv precedence",
                     Redirect.ENVIRONMENT)

    def generator(self, cmd: Command) -> None:
        if not self.mentions_targets(cmd) or self.in_loop_over_targets():
            return
        self.add("RSM109", cmd, f"{cmd.name}() receives the target list",
                 "pass amdgcnspirv only if the generator supports SPIR-V; otherwise keep its kernels native "
                 "(rocm_spirv_target(<t> OFFLOAD hybrid ARCHS …))", Redirect.BUILD_FILE)

    def hip_add(self, cmd: Command) -> None:
        """FindHIP's hip_add_library/hip_add_executable: hipcc gets one --offload-arch= per HCC_AMDGPU_TARGET entry."""
        values = cmd.values()
        target = values[0] if values else ""
        options: list[str] = []
        mode = ""
        for v in values[1:]:
            if v in ("HIPCC_OPTIONS", "CLANG_OPTIONS", "NVCC_OPTIONS"):
                mode = v
            elif mode in ("HIPCC_OPTIONS", "CLANG_OPTIONS"):
                options += [_flag(w) for item in split_list(v) for w in item.split()]
        pinned = [w for w in options if (ARCH_FLAG.match(w) or re.match(r"--?amdgpu-target=", w))
                  and "amdgcnspirv" not in w]
        if pinned:
            self.add("RSM115", cmd, f"{cmd.name}({target}) passes {pinned[0]} in its options, after every flag a "
                     "toolchain file can set", "drop it from HIPCC_OPTIONS/CLANG_OPTIONS (the list belongs in "
                     "HCC_AMDGPU_TARGET), or port to enable_language(HIP) and rocm_spirv_target()",
                     Redirect.BUILD_FILE)
            return
        self.add("RSM110", cmd, f"{cmd.name}({target}) compiles through FindHIP/hipcc with one --offload-arch= per "
                 "HCC_AMDGPU_TARGET entry", "a toolchain file that sets HCC_AMDGPU_TARGET to amdgcnspirv (CACHE FORCE, "
                 "as the generated one does) redirects it; better, port to enable_language(HIP) and "
                 "rocm_spirv_target()", Redirect.TOOLCHAIN_FORCE)

    def target_def(self, cmd: Command) -> None:
        values = cmd.values()
        if not values or values[1:2] in (["IMPORTED"], ["ALIAS"], ["INTERFACE"]):
            return  # add_library(k) alone is a target too: target_sources() gives it sources
        self.target_defs.append((cmd, self.target(values[0]), self.variables.items(values[1:])))
        self.labels[self.target(values[0])] = self.variables.label(values[0])

    def hip_target_findings(self) -> None:
        # (command to report at, definition, name, how it becomes HIP)
        hip: list[tuple[Command, Command, str, str]] = []
        for cmd, name, items in self.target_defs:
            if any(is_hip_source(i, self.hip_sources) for i in [*items, *self.more_sources.get(name, [])]):
                why = "HIP target"
            elif name in self.property_targets:
                why = "HIP target (HIP_ARCHITECTURES set)"
            elif name in self.option_targets:
                why = "C++ target compiled as HIP (-x hip / --offload-arch in its options)"
            elif name in self.device_links:
                why = "C++ target compiled as HIP (it links hip::device)"
            else:
                continue
            if name in self.host_only:
                self.report.findings.append(Finding(
                    RULES["RSM120"], self.path, cmd.line, cmd.start - _line_begin(self.src, cmd.start) + 1,
                    f"{why} {name} is host-only ({', '.join(self.host_only[name])}): no device code, so it is "
                    "not handed to rocm_spirv_target()", "nothing to do: it stays host-only under SPIR-V",
                    Redirect.TOOLCHAIN, True, _snippet(self.src, cmd)))
                continue
            at = self.device_links[name] if why.endswith("hip::device)") else cmd
            hip.append((at, cmd, name, why))
        self.facts.hip_targets = [n for _, _, n, _ in hip]
        done = {n for _, _, n, _ in hip if self.retarget_directory or n in self.retargeted}
        users = sorted(self.device_links)
        if users and all(u in done for u in users):  # each user gets a copy of hip::device without arch flags
            done.add(HIP_DEVICE)
        for index, targets in self.target_findings.items():  # the retargeting replaces these options/properties
            if targets <= done:
                f = self.report.findings[index]
                self.report.findings[index] = replace(f, handled=True)
        if self.find_hip is not None:
            handled = self.find_hip_guarded or HIP_DEVICE in done
            self.add("RSM103", self.find_hip, "find_package(hip): its hip::device adds one --offload-arch= per "
                     f"GPU_TARGETS entry to every target linking it ({', '.join(users) or 'none in this file'})",
                     "rocm_spirv_target() on those targets swaps in a copy of hip::device without the arch flags "
                     "(--apply adds it); a toolchain GPU_TARGETS of amdgcnspirv also redirects it",
                     Redirect.TOOLCHAIN, handled=handled)
        pending = [(at, c, n) for at, c, n, _ in hip if n not in done]
        for at, cmd, name, why in hip:  # the call is written as the definition spells the name
            self.report.findings.append(Finding(
                RULES["RSM120"], self.path, at.line, at.start - _line_begin(self.src, at.start) + 1,
                f"{why} {self.labels.get(name, name)} is not handed to rocm_spirv_target()",
                "find_package(RocmSpirv REQUIRED) and "
                f"rocm_spirv_target({cmd.values()[0]}) (--apply adds both)", Redirect.BUILD_FILE, name in done,
                _snippet(self.src, at)))
        if not pending:
            return
        if len(hip) >= RETARGET_DIRECTORY_MIN:
            pos = len(self.src)
            nl = self.facts.newline
            lead = "" if self.src.endswith("\n") or not self.src else nl
            self.report.edits.append(Edit(pos, pos, f"{lead}rocm_spirv_retarget_directory()  # rocm-spirv migrate{nl}"))
            return
        for _, cmd, _ in pending:
            end = _line_end(self.src, cmd.end)
            indent = cmd.indent
            call = f"rocm_spirv_target({cmd.values()[0]})"
            self.report.edits.append(Edit(end, end, f"{self.facts.newline}{indent}{call}"))


def analyze(path: str, src: str, ctx: Context | None = None) -> tuple[FileReport, CMakeFacts]:
    """Findings and edits for one CMake file; path is relative to the scan root."""
    return _Analyzer(path, src, ctx or Context()).run()
