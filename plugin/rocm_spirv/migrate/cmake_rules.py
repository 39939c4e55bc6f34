"""The walk over one CMake file (CMakeLists.txt, *.cmake): the block stack of if()/foreach()/function(),
the facts --apply needs, and the dispatch of each command to the checks of cmake_checks, which declare
the rules. Pure: text in, FileReport out."""

from __future__ import annotations

import functools
import posixpath
import re
from dataclasses import dataclass, field, replace

from rocm_spirv.migrate.cmake_checks import CONDITIONS, DISPATCH, ENDS, EVERY, LOOP_ENDS, SEEN
from rocm_spirv.migrate.cmake_checks.fixes import notes
from rocm_spirv.migrate.cmake_conditions import toolchain_value
from rocm_spirv.migrate.cmake_lexer import CMakeSyntaxError, Command, parse, refs
from rocm_spirv.migrate.cmake_targets import Variables
from rocm_spirv.migrate.cmake_words import (
    ENV_VARS,
    FINDHIP_LIST,
    GFX,
    GUARD_VAR,
    TARGET_VARS,
    arg_names,
    line_begin,
    line_end,
    snippet,
)
from rocm_spirv.migrate.findings import FileReport, Finding, Redirect, Rule
from rocm_spirv.offload import LEGACY_PROCESSOR

COMPARISONS = frozenset({"MATCHES", "STREQUAL", "IN_LIST", "STRLESS", "STRGREATER", "VERSION_GREATER",
                         "VERSION_LESS", "VERSION_EQUAL", "VERSION_GREATER_EQUAL", "VERSION_LESS_EQUAL", "EQUAL"})


@dataclass(frozen=True)
class Context:
    """What a file inherits from the project: the policy version, whether it is the top-level file, and the
    variables its directory's scope starts with (add_subdirectory() hands a child the parent's scope), with
    those of them that hold arch names (`rocm_check_target_ids(SUPPORTED_GPU_TARGETS …)` in the parent), and
    the names its include()d project modules set."""

    policy_version: tuple[int, int] | None = None
    top_level: bool = False
    inherited: tuple[tuple[str, str], ...] = ()
    inherited_arch_lists: frozenset[str] = frozenset()
    # variables the project's own modules that the file include()s set (a module runs in its includer's scope)
    module_vars: frozenset[str] = frozenset()
    # function()s and macro()s of those modules that run a per-arch flag or command on a parameter, each with the
    # module's functions it reaches: a loop over the target list calling one here is the construct, as for one
    # defined in this file
    module_functions: tuple[tuple[str, frozenset[str]], ...] = ()


@dataclass
class Block:
    kind: str  # if, foreach, while, function, macro, block
    cmd: Command
    guarded: bool = False  # the condition tests ROCM_SPIRV_OFFLOAD
    defaults: frozenset[str] = frozenset()  # variables tested for being unset: `if(NOT GPU_TARGETS)`
    loop_var: str = ""
    over_targets: bool = False
    over_lists: frozenset[str] = frozenset()  # foreach(): the variables it iterates
    body: list[str] = field(default_factory=list)
    arch_flags: bool = False  # the body passes --offload-arch=<entry>
    dead: str = ""  # the branch is skipped once the toolchain file has set the lists: the condition that says so
    taken: bool | None = False  # if(): an earlier branch is certainly taken under the toolchain values (None: maybe)
    prior: list[Command] = field(default_factory=list)  # if(): the earlier branches' conditions
    flag_targets: set[str] = field(default_factory=set)  # targets those flags are put on
    pinned_flags: bool = False  # some flag names a gfx target rather than the loop's entry
    var_flags: bool = False  # the body only turns entries into --offload-arch=<entry> words of a variable
    arch_branch: bool = False  # if(): some branch of the chain compares the target list with a gfx name (RSM106)
    branch: Command | None = None  # if(): the current branch's condition (None in the else())


@dataclass
class CMakeFacts:
    """Per-file facts the project-level planner (apply.py) needs besides findings."""

    policy_version: tuple[int, int] | None = None
    project_end: int | None = None  # offset just after the line holding the first project()
    minimum_end: int | None = None  # offset just after the line holding cmake_minimum_required()
    has_find_package: bool = False
    calls_package: bool = False  # calls a rocm_spirv_*() function, so its project must find the package
    hip_targets: list[str] = field(default_factory=list)
    variables: dict[str, str] = field(default_factory=dict)  # the directory scope at the end of the file
    arch_lists: frozenset[str] = frozenset()  # the variables of that scope that hold arch names
    # macros the file defines for the compile (add_compile_definitions(X), -DX) only in a branch on the target
    # list: per-arch macros of the project's sources, which no source #defines
    arch_defines: frozenset[str] = frozenset()
    newline: str = "\n"  # the file's line ending; inserted lines use it too
    # the commands the file calls (lower case; cmake_language(CALL <name>) too): a function() or macro() of a
    # CMakeLists.txt that no file calls runs nothing (scan._drop_uncalled)
    calls: frozenset[str] = frozenset()
    # the file's function()s and macro()s that run a per-arch flag or command on a parameter (lower case), and
    # those of any file a per-arch loop here calls: an included module's flag is that loop's construct
    per_arch_functions: tuple[tuple[str, frozenset[str]], ...] = ()  # each with the functions it reaches
    looped_functions: frozenset[str] = frozenset()


def parse_version(text: str) -> tuple[int, int] | None:
    """The policy version of `VERSION a.b[...c.d]`: the max of a range, else the minimum."""
    part = text.split("...")[-1]
    m = re.match(r"(\d+)\.(\d+)", part)
    return (int(m.group(1)), int(m.group(2))) if m else None


MAX_NESTING = 1000  # if()/foreach()/function() blocks open at once
# A line of configure_file() placeholders (`@CONTENT@`, `@HIP_HOST_FLAGS@` in FindHIP's run_hipcc.cmake) or of
# Jinja statements (`{% if torch_minver %}` in a generator's .cmake templates): the file is a template, and the
# line is no command. Read as blank (same length: offsets and lines stay those of the file), not as a syntax error
# that would skip the file.
_TEMPLATE_LINE = re.compile(r"^[ \t]*(?:(?:@[A-Za-z_][A-Za-z0-9_]*@|\{%[^\n]*?%\}|\{#[^\n]*?#\})[ \t]*)+$",
                            re.MULTILINE)


def untemplated(src: str) -> str:
    if "@" not in src and "{" not in src:
        return src
    return _TEMPLATE_LINE.sub(lambda m: " " * len(m.group(0)), src)


# One CMake command is one construct: a rule that reports the whole of what it carries covers another's finding
# on the same command. `set(CMAKE_HIP_ARCHITECTURES "--offload-arch=gfx908")` is a target list set to a flag
# (RSM101, with its guard and toolchain redirect); its flag (RSM103) is that list's value, not a second construct.
# A covered finding that says something the coverer does not (a backend option beside an arch flag) is folded
# into its message (True), the rest dropped (False).
COVERS: dict[str, dict[str, bool]] = {"RSM101": {"RSM103": False},
                                      "RSM103": {"RSM109": False, "RSM105": True}}


def covered(findings: list[Finding]) -> list[Finding]:
    """findings with those another finding on the same command covers (COVERS) dropped or folded into it. Not a
    finding still to act on under one that is handled: retargeting strips an arch flag (RSM103 handled), not the
    backend option beside it (RSM105 stays)."""
    groups: dict[tuple[int, int], list[Finding]] = {}
    for f in findings:
        groups.setdefault((f.line, f.column), []).append(f)
    out: list[Finding] = []
    for group in groups.values():
        drop: set[int] = set()
        also: dict[int, list[str]] = {}
        for i, f in enumerate(group):
            cover = COVERS.get(f.rule.id, {})
            for j, g in enumerate(group):
                if j != i and i not in drop and g.rule.id in cover and (g.handled or not f.handled):
                    drop.add(j)
                    if cover[g.rule.id]:
                        also.setdefault(i, []).append(f"also {g.message} ({g.rule.id})")
        out += [replace(f, message="; ".join([f.message, *also[i]])) if i in also else f
                for i, f in enumerate(group) if i not in drop]
    return out


class Analyzer:
    """One file's walk: the block stack, and what the checks learn about the file and report."""

    def __init__(self, path: str, src: str, ctx: Context) -> None:
        self.path = path
        self.src = src
        self.ctx = ctx
        self.report = FileReport(path, "cmake")
        self.facts = CMakeFacts(policy_version=ctx.policy_version,
                                newline="\r\n" if "\r\n" in src else "\n")
        self.stack: list[Block] = []
        self.commands: list[Command] = []  # the whole file, for checks that look at later reads of a variable
        self.project_seen = False
        # whether the toolchain file is read at this file's own project(): the top-level CMakeLists.txt, or a
        # .cmake file that calls project() itself (a test harness includes it before any project())
        self.starts_configure = ctx.top_level
        self.retargeted: set[str] = set()
        self.retarget_directory = False
        self.hip_sources: set[str] = set()
        # target names and source lists through set() (cmake_targets.py), from the parent scope on
        self.variables = Variables(dict(ctx.inherited))
        self.labels: dict[str, str] = {}  # target -> how messages name it (a foreach's items)
        self.more_sources: dict[str, list[str]] = {}  # target -> what target_sources() adds
        # each target definition: the command, the name, its sources, the function() or macro() it is in ("")
        self.target_defs: list[tuple[Command, str, list[str], str]] = []
        self.property_targets: dict[str, Command] = {}
        self.option_targets: dict[str, Command] = {}  # -x hip / arch flags in target_compile_options
        self.device_links: dict[str, Command] = {}  # target_link_libraries(<t> … hip::device)
        self.host_only: dict[str, list[str]] = {}  # target -> why it has no device code
        # variables set to gfx names (or copies of a target list) here or in the parent directory's scope
        self.arch_lists: set[str] = set(ctx.inherited_arch_lists)
        self.find_hip: Command | None = None
        self.find_hip_guarded = False
        self.target_findings: dict[int, set[str]] = {}  # finding index -> targets whose retargeting fixes it
        # function()/macro() bodies: those passing a per-arch flag of a variable (--offload-arch=${FLAG}, the
        # command that does), what each calls, and those a per-arch loop calls (the loop is the construct)
        self.fn_arch: dict[str, Command] = {}
        # functions running per-arch commands on a parameter
        self.fn_commands: set[str] = {fn for fn, _ in ctx.module_functions}
        self.fn_calls: dict[str, set[str]] = {}
        self.fn_looped: set[str] = set()
        # loop variables of finished foreach() loops over an arch list (`foreach(a IN LISTS AMDGPU_ARCHS)
        # list(APPEND flags --offload-arch=${a})`): a flag of one, passed on later, is built from that list
        self.spent_arch_loops: set[str] = set()
        # variables holding OpenMP offload flags (a set() whose name or CACHE docstring says OpenMP)
        self.openmp_flags: set[str] = set()
        self.flag_lists: set[str] = set()  # variables whose set() was reported for the arch flags it holds
        self.arch_defines: set[str] = set()
        self.detected: dict[str, str] = {}  # execute_process OUTPUT_VARIABLE -> the GPU-listing tool it ran
        self.detect_programs: dict[str, str] = {}  # find_program(<var> rocminfo …) -> that tool
        # `foreach(t ${GPU_TARGETS}) list(APPEND HIP_HIPCC_FLAGS --offload-arch=${t})`: FindHIP's compiles get
        # their GPUs from a target list the toolchain file sets
        self.hipcc_flags_from_targets = False
        # variables set in a branch on the target list (`set(HAS_MI50 TRUE)` under `if(arch STREQUAL gfx906)`),
        # and copies of them: a later if() on one is a branch on the target list, one step removed
        self.arch_switches: set[str] = set()
        # project functions handing back an arch list (`set(${out_var} "${_result}" PARENT_SCOPE)` with _result a
        # list of gfx names): the position of that output among the call's arguments
        self.fn_arch_outputs: dict[str, int] = {}
        # variables whose set() of gfx names is reported (RSM101), by where: in a branch the toolchain file's lists
        # skip (a default's else()), or where they run (literal_lists is both)
        self.toolchain_dead_lists: set[str] = set()
        self.live_literal_lists: set[str] = set()

    # -- helpers ---------------------------------------------------------------------------
    def target(self, raw: str) -> str:
        """A target name as this point of the file gives it: `${example_name}` is hip_saxpy."""
        return self.variables.expand(raw)

    def guarded(self) -> bool:
        return any(b.guarded for b in self.stack)

    def toolchain_dead(self) -> str:
        """The condition of an enclosing branch that the toolchain file's list values make false, if any."""
        return next((b.dead for b in self.stack if b.dead), "")

    def add(self, rule: Rule, cmd: Command, message: str, fix: str, redirect: Redirect,
            handled: bool | None = None) -> Finding:
        dead = self.toolchain_dead()
        if dead:  # e.g. inside if(GPU_TARGETS STREQUAL "all"): never runs once the toolchain file set the list
            message = f"{message}; only under `{dead}`, which the toolchain file's lists make false"
            redirect = Redirect.TOOLCHAIN
        f = Finding(rule, self.path, cmd.line, cmd.start - line_begin(self.src, cmd.start) + 1, message,
                    fix, redirect, self.guarded() if handled is None else handled, snippet(self.src, cmd),
                    end_line=cmd.end_line if cmd.end_line > cmd.line else 0)
        self.report.findings.append(f)
        fn = self.function()
        if fn and posixpath.basename(self.path) == "CMakeLists.txt" and not any(
                c.name in ("add_subdirectory", "subdirs") for c in self.commands):
            # a leaf CMakeLists.txt's own function or macro: kept once the scan knows some file calls it. Not
            # a .cmake module's (the projects that include it call it), nor one of a file that adds
            # subdirectories (those call it, and a tree scanned in part may not hold them)
            self.report.needs[(f.line, f.column)] = ("caller", frozenset({fn}))
        return f

    @functools.cached_property
    def assigned(self) -> frozenset[str]:
        """The variables the file's set() and option() commands write."""
        return frozenset(v[0] for c in self.commands if c.name in ("set", "option") and (v := c.values()))

    @functools.cached_property
    def list_gets(self) -> tuple[tuple[int, str, str], ...]:
        """Every `list(GET <list> <index>… <out>)` of the file: (offset, list, out). Read once: a check asking
        at each if() walked the commands before it, quadratic in a long file (CMake's own tests)."""
        return tuple((c.start, v[1], v[-1]) for c in self.commands
                     if c.name == "list" and (v := c.values())[:1] == ["GET"] and len(v) >= 4)

    @property
    def literal_lists(self) -> set[str]:
        return self.toolchain_dead_lists | self.live_literal_lists

    def function_block(self) -> Block | None:
        """The innermost function() or macro() whose body this command is in."""
        return next((b for b in reversed(self.stack) if b.kind in ("function", "macro")), None)

    def function(self) -> str:
        """The function() or macro() whose body this command is in, if any (lower case, as CMake calls it)."""
        b = self.function_block()
        return b.cmd.values()[0].lower() if b is not None and b.cmd.values() else ""

    def per_arch_function(self, name: str) -> list[str]:
        """The chain of calls from function name to one that passes a per-arch flag, or [] if none does."""
        todo, seen = [[name.lower()]], set()
        while todo:
            chain = todo.pop()
            if chain[-1] in seen:
                continue
            seen.add(chain[-1])
            if chain[-1] in self.fn_arch or chain[-1] in self.fn_commands:
                return chain
            todo.extend([*chain, c] for c in sorted(self.fn_calls.get(chain[-1], ())))
        return []

    def reached(self, name: str) -> frozenset[str]:
        """The functions a call of name runs, itself included."""
        seen, todo = set(), [name.lower()]
        while todo:
            fn = todo.pop()
            if fn not in seen:
                seen.add(fn)
                todo.extend(self.fn_calls.get(fn, ()))
        return frozenset(seen)

    def function_params(self) -> set[str]:
        b = self.function_block()
        return set() if b is None else set(b.cmd.values()[1:]) | {"ARGN", "ARGV0", "ARGV1"}

    def in_loop_over_targets(self) -> Block | None:
        for b in reversed(self.stack):
            if b.kind == "foreach" and b.over_targets:
                return b
        return None

    def arch_names(self) -> set[str]:
        """Variables that hold GPU arch names here: the target lists, lists set to gfx names in this file
        and loop variables over either. A foreach variable over anything else shadows the name. A variable named
        like an environment target list (PYTORCH_ROCM_ARCH) holds that list: projects copy it in, often through
        a macro (`torch_hip_get_arch_list(PYTORCH_ROCM_ARCH)`) the walk cannot follow. FindHIP's own list is
        not walked so: the module's per-arch hipcc command is RSM110's and its flags stay where they are."""
        names = (set(TARGET_VARS) | (ENV_VARS - {FINDHIP_LIST}) | self.arch_lists)
        for b in self.stack:
            if b.kind == "foreach":
                (names.add if b.over_targets else names.discard)(b.loop_var)
        return names

    def amd_mcpu(self, word: str) -> bool:
        """-mcpu=gfx90a or -mcpu=${arch} over an arch list; not -mcpu=power9 or -mcpu=${CMAKE_SYSTEM_PROCESSOR}."""
        if "-mcpu=" not in word:
            return False
        value = word.split("-mcpu=", 1)[1]
        if GFX.match(value) or LEGACY_PROCESSOR.fullmatch(value):
            return True
        return bool({r.name for r in refs(value) if r.kind == "var"} & self.arch_names())

    def mentions_targets(self, cmd: Command) -> bool:
        referenced = {r.name for a in cmd.args for r in refs(a.value) if r.kind in ("var", "cache")}
        return bool(referenced & self.arch_names())

    # -- the walk ----------------------------------------------------------------------------
    def run(self) -> tuple[FileReport, CMakeFacts]:
        try:
            commands = parse(untemplated(self.src))
        except CMakeSyntaxError as err:
            self.report.error = f"CMake syntax error: {err}"
            return self.report, self.facts
        self.commands = commands
        self.starts_configure = self.ctx.top_level or _calls_project_itself(self.path, commands)
        for cmd in commands:
            self.command(cmd)
        for end in ENDS:
            end(self)
        self.facts.variables = dict(self.variables.values)
        self.facts.arch_lists = frozenset(self.arch_lists)
        self.facts.arch_defines = frozenset(self.arch_defines)
        self.facts.calls = frozenset(c.name for c in commands) | frozenset(
            c.values()[1].lower() for c in commands
            if c.name == "cmake_language" and c.values()[:1] == ["CALL"] and len(c.values()) > 1)
        defined = sorted({c.values()[0].lower() for c in commands if c.name in ("function", "macro") and c.values()})
        self.facts.per_arch_functions = tuple((fn, self.reached(fn)) for fn in defined if self.per_arch_function(fn))
        reach = dict(self.ctx.module_functions)
        self.facts.looped_functions = frozenset(self.fn_looped).union(*(reach.get(fn, ()) for fn in self.fn_looped))
        self.report.findings.sort(key=lambda f: (f.line, f.column))
        self.report.findings = covered(self.report.findings)
        notes(self)
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
            top.guarded = GUARD_VAR in {n for a in cmd.args for n in arg_names(a)} if name == "elseif" else top.guarded
            if name == "elseif":  # its condition is evaluated unless an earlier branch is certainly taken
                top.dead = f"the else() of {snippet(self.src, top.cmd).strip()}" if top.taken is True else ""
                top.arch_branch = self.condition(cmd) or top.arch_branch
            self.next_branch(top, cmd if name == "elseif" else None)
            return
        if name == "cmake_minimum_required" and "VERSION" in values:
            idx = values.index("VERSION")
            if idx + 1 < len(values):
                self.facts.policy_version = parse_version(values[idx + 1])
            self.facts.minimum_end = self.facts.minimum_end or line_end(self.src, cmd.end)
        elif name == "cmake_policy" and values[:1] == ["VERSION"] and len(values) > 1:
            self.facts.policy_version = parse_version(values[1]) or self.facts.policy_version
        elif name == "project":
            if not self.project_seen:
                self.facts.project_end = line_end(self.src, cmd.end)
            self.project_seen = True
        elif name == "find_package" and values[:1] == ["RocmSpirv"]:
            self.facts.has_find_package = True
        for seen in SEEN:  # before a block opens: a foreach() in a loop is part of that loop's body
            seen(self, cmd)

        if name in ("if", "while", "foreach", "function", "macro", "block") and len(self.stack) >= MAX_NESTING:
            # Each command looks at every enclosing block: 50,000 levels would be quadratic, and no
            # build file nests like that. scan reports the file as not analyzed (an error under --check).
            raise RecursionError(f"blocks nested more than {MAX_NESTING} deep")
        if name == "if" or name == "while":
            arch_branch = self.condition(cmd)
            self.open_if(cmd, arch_branch) if name == "if" else self.stack.append(Block("while", cmd))
            return
        if name == "foreach":
            self.open_foreach(cmd)
            return
        if name in ("function", "macro", "block"):
            self.stack.append(Block(name, cmd))
            return

        for check in DISPATCH.get(name, EVERY):
            check(self, cmd)

    # -- blocks ------------------------------------------------------------------------------
    def close(self, kind: str) -> None:
        while self.stack:
            b = self.stack.pop()
            if b.kind == "foreach" and b.over_targets:
                self.spent_arch_loops.add(b.loop_var)
                for loop_end in LOOP_ENDS:
                    loop_end(self, b)
            if b.kind == kind:
                return

    def condition(self, cmd: Command) -> bool:
        """Run the condition checks; whether they found the condition branching on the target list (RSM106)."""
        before = len(self.report.findings)
        for check in CONDITIONS:
            check(self, cmd)
        return any(f.rule.id == "RSM106" and f.line == cmd.line for f in self.report.findings[before:])

    def picked(self) -> str | None:
        """In a branch taken only when a variable equals one literal (`elseif(OPT STREQUAL "gfx906")`), that
        literal: what the user chose, which a set() of the same value only passes on."""
        top = self.stack[-1] if self.stack else None
        values = top.branch.values() if top is not None and top.kind == "if" and top.branch is not None else []
        return values[2] if len(values) == 3 and values[1] == "STREQUAL" else None

    def arch_branch(self) -> bool:
        """Whether this command is in a branch of an if() chain on the target list."""
        return any(b.kind == "if" and b.arch_branch for b in self.stack)

    def open_if(self, cmd: Command, arch_branch: bool = False) -> None:
        values = cmd.values()
        names = {n for a in cmd.args for n in arg_names(a)}
        upper = [v.upper() for v in values]
        defaults: frozenset[str] = frozenset()
        if upper[:1] == ["NOT"] and not (set(upper) & COMPARISONS):
            defaults = frozenset(names & TARGET_VARS)
        block = Block("if", cmd, guarded=GUARD_VAR in names, defaults=defaults, arch_branch=arch_branch)
        self.next_branch(block, cmd)
        self.stack.append(block)

    def next_branch(self, block: Block, cond: Command | None) -> None:
        """Whether the branch that starts here runs once the toolchain file has set the target lists."""
        value = toolchain_value(cond) if cond is not None else True
        head = snippet(self.src, block.cmd).strip()
        dead = block.taken is True or value is False
        block.dead = "" if not dead else head if cond is block.cmd else f"the else() of {head}"
        block.branch = cond
        if cond is not None:
            block.prior.append(cond)
        block.taken = True if block.taken is True or value is True else None if (
            block.taken is None or value is None) else False

    def open_foreach(self, cmd: Command) -> None:
        values = cmd.values()
        loop_var = values[0] if values else ""
        over = False
        rest = cmd.args[1:]
        iterated: set[str] = set()
        for i, a in enumerate(rest):
            names = arg_names(a)
            if a.kind == "unquoted" and a.value in ("IN", "LISTS", "ITEMS", "ZIP_LISTS"):
                continue
            listed = a.kind == "unquoted" and any(r.value == "LISTS" for r in rest[:i])
            if "${" in a.value or listed:
                iterated |= names
            if (names & self.arch_names() and ("${" in a.value or listed)) or GFX.search(a.value):
                over = True
            tool = next((self.detected[n] for n in sorted(names) if n in self.detected), None)
            if tool is not None and ("${" in a.value or listed):  # foreach(m ${GFX_MATCHES}): rocminfo's names
                self.detected[loop_var] = tool
        self.stack.append(Block("foreach", cmd, loop_var=loop_var, over_targets=over,
                                over_lists=frozenset(iterated)))



def _calls_project_itself(path: str, commands: list[Command]) -> bool:
    """A `.cmake` file that calls project() outside any function() or macro() starts a configure of its own:
    project() is the first in a configure (CMake reads the toolchain file there), so whoever include()s such
    a file has not called project() yet. A CMakeLists.txt below the top may be add_subdirectory()d after the
    top-level project(), so it does not count."""
    if posixpath.basename(path) == "CMakeLists.txt":
        return False
    depth = 0
    for cmd in commands:
        if cmd.name in ("function", "macro"):
            depth += 1
        elif cmd.name in ("endfunction", "endmacro"):
            depth -= 1
        elif cmd.name == "project" and depth == 0:
            return True
    return False


def analyze(path: str, src: str, ctx: Context | None = None) -> tuple[FileReport, CMakeFacts]:
    """Findings and edits for one CMake file; path is relative to the scan root."""
    return Analyzer(path, src, ctx or Context()).run()
