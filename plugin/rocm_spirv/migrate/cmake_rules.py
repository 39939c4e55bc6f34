"""Findings and edits for one CMake file (CMakeLists.txt, *.cmake). Pure: text in, FileReport out."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rocm_spirv.migrate.cmake_lexer import Arg, CMakeSyntaxError, Command, parse, refs, split_list
from rocm_spirv.migrate.findings import RULES, Edit, FileReport, Finding, Redirect

TARGET_VARS = frozenset({
    "GPU_TARGETS", "AMDGPU_TARGETS", "CMAKE_HIP_ARCHITECTURES", "HIP_ARCHITECTURES", "AMDGPU_TARGET",
    "GPU_ARCHS", "GPU_ARCHITECTURES", "HIP_OFFLOAD_ARCHS", "ROCM_ARCHS",
})
ENV_VARS = frozenset({"PYTORCH_ROCM_ARCH", "HCC_AMDGPU_TARGET", "GPU_TARGETS", "AMDGPU_TARGETS", "HIP_ARCHITECTURES"})
GFX = re.compile(r"(?<![A-Za-z0-9_])gfx[0-9]{2,4}[a-z]?(?::[a-z]+[+-])*(?![A-Za-z0-9_])", re.IGNORECASE)
ARCH_ITEM = re.compile(r"^(gfx[0-9]{2,4}[a-z]?(:[a-z]+[+-])*|gfx[0-9]+-generic|all|native|amdgcnspirv)$", re.I)
ALLOW_NAME = re.compile(r"SUPPORTED|ALLOWED|VALID|KNOWN|WHITELIST|ALLOWLIST|ACCEPTED", re.IGNORECASE)
GUARD_VAR = "ROCM_SPIRV_OFFLOAD"
GUARD_OPEN = f'if(NOT {GUARD_VAR} STREQUAL "spirv")  # rocm-spirv migrate: per-arch list, unused under SPIR-V'
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


@dataclass
class CMakeFacts:
    """Per-file facts the project-level planner (apply.py) needs besides findings."""

    policy_version: tuple[int, int] | None = None
    project_end: int | None = None  # offset just after the line holding the first project()
    minimum_end: int | None = None  # offset just after the line holding cmake_minimum_required()
    has_find_package: bool = False
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
        self.target_defs: list[tuple[Command, str, list[str]]] = []
        self.property_targets: dict[str, Command] = {}

    # -- helpers ---------------------------------------------------------------------------
    def guarded(self) -> bool:
        return any(b.guarded for b in self.stack)

    def add(self, rule: str, cmd: Command, message: str, fix: str, redirect: Redirect,
            handled: bool | None = None) -> Finding:
        f = Finding(RULES[rule], self.path, cmd.line, cmd.start - _line_begin(self.src, cmd.start) + 1, message,
                    fix, redirect, self.guarded() if handled is None else handled, _snippet(self.src, cmd))
        self.report.findings.append(f)
        return f

    def wrap(self, cmd: Command) -> None:
        """Put cmd behind `if(NOT ROCM_SPIRV_OFFLOAD STREQUAL "spirv")`, leaving its text untouched."""
        begin = _line_begin(self.src, cmd.start)
        prefix = self.src[begin : cmd.start]
        indent = cmd.indent if prefix.strip() == "" else re.match(r"[ \t]*", prefix).group(0)  # type: ignore[union-attr]
        nl = self.facts.newline
        self.report.edits.append(Edit(begin, begin, f"{indent}{GUARD_OPEN}{nl}"))
        end = _line_end(self.src, cmd.end)
        self.report.edits.append(Edit(end, end, f"{nl}{indent}endif()"))

    def in_loop_over_targets(self) -> _Block | None:
        for b in reversed(self.stack):
            if b.kind == "foreach" and b.over_targets:
                return b
        return None

    def mentions_targets(self, cmd: Command) -> bool:
        loops = {b.loop_var for b in self.stack if b.kind == "foreach" and b.over_targets}
        referenced = {r.name for a in cmd.args for r in refs(a.value) if r.kind in ("var", "cache")}
        return bool(referenced & (TARGET_VARS | loops))

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
        return self.report, self.facts

    def command(self, cmd: Command) -> None:
        name = cmd.name
        values = cmd.values()
        if name in ("endif", "endforeach", "endwhile", "endfunction", "endmacro", "endblock"):
            self.close(name[3:])
            return
        if name in ("else", "elseif") and self.stack and self.stack[-1].kind == "if":
            top = self.stack[-1]
            top.guarded = GUARD_VAR in {n for a in cmd.args for n in _names(a)} if name == "elseif" else top.guarded
            if name == "elseif":
                self.condition(cmd)
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
        elif name == "rocm_spirv_target":
            self.retargeted.update(v for v in values if v not in ("OFFLOAD", "ARCHS", "spirv", "native", "hybrid")
                                   and not GFX.fullmatch(v))
        elif name == "rocm_spirv_retarget_directory":
            self.retarget_directory = True

        loop = self.in_loop_over_targets()
        if loop is not None and name in DEFINES_SOURCES:
            loop.body.append(name)
        if loop is not None and any("-mcpu=" in w for w in _words(cmd)):
            loop.body.append("-mcpu=")

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
            self.add("RSM110", cmd, f"{name}({values[0] if values else ''}) compiles through FindHIP/hipcc",
                     "use enable_language(HIP) with add_library/add_executable, then rocm_spirv_target()",
                     Redirect.BUILD_FILE)
        elif name in ("add_library", "add_executable"):
            self.target_def(cmd)
        elif name == "set_source_files_properties" and "LANGUAGE" in values:
            idx = values.index("LANGUAGE")
            if values[idx + 1 : idx + 2] == ["HIP"]:
                self.hip_sources.update(values[: values.index("PROPERTIES")] if "PROPERTIES" in values else [])
        if name in GENERATOR_COMMANDS or name not in GENERATOR_BUILTINS:
            self.generator(cmd)

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
        targets = names & TARGET_VARS
        allow = {n for n in names if ALLOW_NAME.search(n) and n not in TARGET_VARS}
        if "IN_LIST" in upper and allow:
            self.add("RSM108", cmd, f"the condition validates target names against {', '.join(sorted(allow))}",
                     "accept amdgcnspirv (or skip the check when ROCM_SPIRV_OFFLOAD is spirv)", Redirect.BUILD_FILE)
            return
        loop_vars = {b.loop_var for b in self.stack if b.kind == "foreach" and b.over_targets}
        compared = bool(upper & COMPARISONS) or any(GFX.search(v) for v in values)
        if (targets or names & loop_vars) and compared:
            what = ", ".join(sorted(targets or names & loop_vars))
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
        self.stack.append(_Block("if", cmd, guarded=GUARD_VAR in names, defaults=defaults))

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
            if (names & TARGET_VARS and ("${" in a.value or listed)) or GFX.search(a.value):
                over = True
        self.stack.append(_Block("foreach", cmd, loop_var=loop_var, over_targets=over))

    def loop_finding(self, b: _Block) -> None:
        body = sorted(set(b.body))
        if not body:
            return
        self.add("RSM107", b.cmd, f"foreach over the target list runs {', '.join(body)} per arch",
                 "under SPIR-V generate one variant (skip the loop when ROCM_SPIRV_OFFLOAD is spirv) or keep these "
                 "kernels native with rocm_spirv_target(<t> OFFLOAD hybrid ARCHS …)", Redirect.BUILD_FILE,
                 handled=any(x.guarded for x in self.stack) or b.guarded)

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
        if var == "HCC_AMDGPU_TARGET":
            self.add("RSM110", cmd, "HCC_AMDGPU_TARGET selects FindHIP's per-arch code objects",
                     "port to enable_language(HIP) and rocm_spirv_target()", Redirect.BUILD_FILE)
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
                self.wrap(cmd)
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
        is_target = var in TARGET_VARS or bool(ALLOW_NAME.search(var))
        if op in ("FILTER", "REMOVE_ITEM") and (var in TARGET_VARS or ALLOW_NAME.search(var)):
            self.add("RSM108", cmd, f"list({op} {var} …) filters target names; it can drop amdgcnspirv",
                     "skip the filter when ROCM_SPIRV_OFFLOAD is spirv", Redirect.BUILD_FILE)
        elif op == "FIND" and is_target:
            self.add("RSM108", cmd, f"list(FIND {var} …) validates target names", "accept amdgcnspirv",
                     Redirect.BUILD_FILE)
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
        idx = values.index("HIP_ARCHITECTURES")
        arch = values[idx + 1] if idx + 1 < len(values) else ""
        if arch.lower() == "amdgcnspirv":
            return
        for t in targets:
            self.property_targets.setdefault(t, cmd)
        self.add("RSM102", cmd, f"HIP_ARCHITECTURES of {', '.join(targets) or 'a target'} set to {arch}",
                 "let rocm_spirv_target() own HIP_ARCHITECTURES (--apply guards this)", Redirect.BUILD_FILE)
        only_arch = cmd.name == "set_property" or (
            "PROPERTIES" in values and len(values) - values.index("PROPERTIES") == 3)
        if only_arch and GFX.search(arch) and not self.guarded():
            self.wrap(cmd)

    def flags(self, cmd: Command) -> None:
        words = _words(cmd)
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
        arch = [w for w in words if re.match(r"--offload-arch=", w) and "amdgcnspirv" not in w]
        arch += [words[i + 1] for i, w in enumerate(words[:-1]) if w == "--offload-arch" and
                 words[i + 1] != "amdgcnspirv"]
        mcpu = [w for w in words if w.startswith("-mcpu=gfx") or w.startswith("-mcpu=${")]
        if (arch or mcpu) and not self.in_loop_over_targets():
            what = (arch or mcpu)[0]
            self.add("RSM103", cmd, f"passes {what} in {cmd.name}()", "remove it and let the target list decide "
                     "(rocm_spirv_target / ROCM_SPIRV_OFFLOAD)", Redirect.BUILD_FILE)
            values = cmd.values()
            start = 1 if cmd.name == "target_compile_options" else 0
            flag_only = cmd.name in ("add_compile_options", "target_compile_options") and all(
                v in ("PRIVATE", "PUBLIC", "INTERFACE", "BEFORE") or v.startswith("--offload-arch=")
                for v in values[start:])
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

    def target_def(self, cmd: Command) -> None:
        values = cmd.values()
        if len(values) < 2 or values[1] in ("IMPORTED", "ALIAS", "INTERFACE"):
            return
        self.target_defs.append((cmd, values[0], values[1:]))

    def hip_target_findings(self) -> None:
        hip: list[tuple[Command, str]] = []
        for cmd, name, sources in self.target_defs:
            items = [i for s in sources for i in split_list(s)]
            if any(i.endswith(".hip") or i in self.hip_sources for i in items) or name in self.property_targets:
                hip.append((cmd, name))
        self.facts.hip_targets = [n for _, n in hip]
        pending = [(c, n) for c, n in hip if n not in self.retargeted and not self.retarget_directory]
        for cmd, name in hip:
            handled = self.retarget_directory or name in self.retargeted
            self.report.findings.append(Finding(
                RULES["RSM120"], self.path, cmd.line, cmd.start - _line_begin(self.src, cmd.start) + 1,
                f"HIP target {name} is not handed to rocm_spirv_target()", "find_package(RocmSpirv REQUIRED) and "
                f"rocm_spirv_target({name}) (--apply adds both)", Redirect.BUILD_FILE, handled,
                _snippet(self.src, cmd)))
        if not pending:
            return
        if len(hip) >= RETARGET_DIRECTORY_MIN:
            pos = len(self.src)
            nl = self.facts.newline
            lead = "" if self.src.endswith("\n") or not self.src else nl
            self.report.edits.append(Edit(pos, pos, f"{lead}rocm_spirv_retarget_directory()  # rocm-spirv migrate{nl}"))
            return
        for cmd, name in pending:
            end = _line_end(self.src, cmd.end)
            indent = cmd.indent
            self.report.edits.append(Edit(end, end, f"{self.facts.newline}{indent}rocm_spirv_target({name})"))


def analyze(path: str, src: str, ctx: Context | None = None) -> tuple[FileReport, CMakeFacts]:
    """Findings and edits for one CMake file; path is relative to the scan root."""
    return _Analyzer(path, src, ctx or Context()).run()
