"""What CMake itself ran, under the native and the SPIR-V toolchain file, read as findings. Pure: trace
records, the project's CMake texts and the SPIR-V compile flags in, findings out.

A command of the project whose expanded arguments still carry a gfx name (or a per-arch flag) under the
SPIR-V toolchain is a construct the toolchain does not reach. One that carries gfx names only under the
native configure took them from the target list the toolchain redirects: handled, unless it runs a tool
(a custom command, a per-arch generator), which then gets `amdgcnspirv` where it expects a GPU. An `if()`
that both configures run but whose branches run differently is an arch branch, whatever it tests.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from rocm_spirv.migrate.cmake_lexer import CMakeSyntaxError, parse
from rocm_spirv.migrate.cmake_words import TARGET_VARS
from rocm_spirv.migrate.findings import Finding, Redirect, Rule
from rocm_spirv.migrate.oracle.trace import Command, Record
from rocm_spirv.migrate.registry import RULES
from rocm_spirv.offload import GPU_NAME_PATTERN, SPIRV_TARGET

# A gfx name anywhere in a word: `-mcpu=gfx90a`, `k_gfx942.o`, `MATCHES "^gfx9"`, `"gfx[0-9]+"`.
GFX = re.compile(r"(?<![A-Za-z0-9])gfx(?:[0-9]|\[|\(|\.)", re.IGNORECASE)
GFX_NAME = re.compile(rf"(?<![A-Za-z0-9]){GPU_NAME_PATTERN}(?![0-9])", re.IGNORECASE)  # gfx942, gfx11-generic
# Commands whose arguments never reach a build: messages, docs, tests, definitions of functions.
INERT = frozenset({"message", "mark_as_advanced", "option", "cmake_minimum_required", "project", "include",
                   "add_subdirectory", "find_package", "function", "macro", "return", "add_test",
                   "set_tests_properties", "cmake_policy", "include_guard", "install", "configure_file",
                   "cmake_dependent_option", "foreach", "endforeach", "else", "endif"})
DEFINES = frozenset({"set", "list", "string", "unset", "math", "separate_arguments", "cmake_parse_arguments"})
TOOLS = frozenset({"add_custom_command", "add_custom_target"})
PROBES = frozenset({"execute_process", "try_compile", "try_run", "check_cxx_source_compiles"})
FLAGS = frozenset({"add_compile_options", "target_compile_options", "set_target_properties", "set_property",
                   "set_source_files_properties", "target_link_options", "add_link_options", "add_definitions",
                   "add_compile_definitions", "target_compile_definitions", "target_link_libraries"})
CONDITIONS = frozenset({"if", "elseif", "while"})
MAX_ARGS = 32  # distinct argument lists kept per command site: a loop over 500 files needs no more


@dataclass
class Site:
    """One command of the project, as every run of it expanded."""

    cmd: str
    file: str
    line: int
    stack: tuple[Command, ...]
    native: list[tuple[str, ...]] = field(default_factory=list)
    spirv: list[tuple[str, ...]] = field(default_factory=list)

    def add(self, which: str, args: tuple[str, ...]) -> None:
        seen = self.native if which == "native" else self.spirv
        if len(seen) < MAX_ARGS and args not in seen:
            seen.append(args)


@dataclass
class Traces:
    """The project's commands from both configures, and the functions and macros they defined."""

    root: str
    sites: dict[tuple[str, int], Site] = field(default_factory=dict)
    ran: dict[str, dict[str, set[int]]] = field(default_factory=lambda: {"native": {}, "spirv": {}})
    defined: set[str] = field(default_factory=set)

    def mine(self, path: str) -> bool:
        return path == self.root or path.startswith(self.root + os.sep)

    def add(self, which: str, recs: Iterable[Record]) -> None:
        ran = self.ran[which]
        for r in recs:
            c = r.command
            if c.cmd in ("function", "macro") and c.args:
                self.defined.add(c.args[0].lower())
            if not self.mine(c.file):
                continue
            ran.setdefault(c.file, set()).add(c.line)
            site = self.sites.get((c.file, c.line))
            if site is None:
                site = self.sites[(c.file, c.line)] = Site(c.cmd, c.file, c.line, r.stack)
            elif which == "spirv" and not site.spirv:
                site.stack = r.stack  # the chain that reached it under SPIR-V
            site.add(which, c.args)


def _gfx(args: Iterable[tuple[str, ...]]) -> set[str]:
    return {m.group(0).lower() for a in args for w in a for m in GFX_NAME.finditer(w)} | (
        {"gfx"} if any(GFX.search(w) for a in args for w in a) else set())


def _spirv_in(args: Iterable[tuple[str, ...]]) -> bool:
    return any(SPIRV_TARGET in w for a in args for w in a)


@dataclass(frozen=True)
class Verdict:
    rule: str
    unreached: bool  # False: the toolchain file (or its retargeting) already handles it
    why: str


def _judge(site: Site, defined: set[str], spirv_flag_gfx: set[str], consumed: set[str]) -> Verdict | None:
    sp, nat = _gfx(site.spirv), _gfx(site.native)
    cmd = site.cmd
    words = " ".join(w for a in site.spirv for w in a)
    if cmd in INERT or cmd in defined or not site.spirv:
        if cmd == "foreach" and sp:
            return Verdict("RSM107", True, f"loops over arch names under amdgcnspirv ({_names(sp)})")
        return None
    if cmd in DEFINES:
        var = site.spirv[0][1] if cmd in ("list", "string") and len(site.spirv[0]) > 1 else (
            site.spirv[0][0] if site.spirv[0] else "")
        if not sp:
            return None
        names = sp - {"gfx"}
        if names & (spirv_flag_gfx | consumed):
            return Verdict("RSM101", True, f"sets {var} to arch names ({_names(sp)}) that reach the SPIR-V "
                                           "build")
        if var.upper() in TARGET_VARS or var in ("HCC_AMDGPU_TARGET",):
            return Verdict("RSM101", False, f"sets {var} to arch names ({_names(sp)}); the SPIR-V toolchain "
                                            "file's value wins")
        return None
    if cmd in CONDITIONS:
        if sp:
            rule = "RSM108" if "IN_LIST" in words else "RSM106"
            return Verdict(rule, True, f"tests arch names under amdgcnspirv: {cmd}({words})")
        return None
    if cmd in TOOLS:
        if sp:
            return Verdict("RSM109", True, f"runs a command with arch names under amdgcnspirv ({_names(sp)})")
        if nat and _spirv_in(site.spirv):
            return Verdict("RSM109", True, f"runs once per target-list entry ({_names(nat)} natively); under "
                                           f"SPIR-V it gets {SPIRV_TARGET} where it expects a GPU")
        return None
    if cmd in PROBES:
        if sp:
            return Verdict("RSM109", True, f"runs a command with arch names under amdgcnspirv ({_names(sp)})")
        return Verdict("RSM107", False, "probes each target-list entry; under SPIR-V it probes "
                                        f"{SPIRV_TARGET}") if nat and _spirv_in(site.spirv) else None
    if cmd in FLAGS:
        if sp:
            rule = "RSM102" if "HIP_ARCHITECTURES" in words else "RSM104" if "--amdgpu-target" in words else "RSM103"
            if (sp - {"gfx"}) & spirv_flag_gfx:
                return Verdict(rule, True, f"passes arch names ({_names(sp)}) that reach the SPIR-V compile "
                                           "commands")
            return Verdict(rule, False, f"passes arch names ({_names(sp)}); the SPIR-V configure's "
                                        "retargeting drops them")
        return None
    if sp:  # a call of a module's function (rocm_check_target_ids) or anything else with arch names
        return Verdict("RSM101", True, f"{cmd}() gets arch names under amdgcnspirv ({_names(sp)})")
    return None


def _names(names: set[str]) -> str:
    real = sorted(names - {"gfx"})
    return ", ".join(real) if real else "a gfx pattern"


def _lift(site: Site, traces: Traces) -> tuple[Command | None, list[Command]]:
    """The outermost call of a project function or macro that led to site (None: site itself), and the chain
    of calls from there."""
    chain: list[Command] = []
    for c in reversed(site.stack):
        if c.cmd not in traces.defined or not traces.mine(c.file):
            break
        chain.insert(0, c)
    return (chain[0] if chain else None), chain


@dataclass(frozen=True)
class Block:
    """An if() ... endif() of a project file: the lines of each branch directive and of its end."""

    start: int
    end: int


def if_blocks(text: str) -> list[Block]:
    """Every if() block of a CMake file, outer before inner."""
    try:
        commands = parse(text)
    except (CMakeSyntaxError, RecursionError):
        return []
    out: list[Block] = []
    open_: list[int] = []
    for c in commands:
        if c.name == "if":
            open_.append(c.line)
        elif c.name == "endif" and open_:
            out.append(Block(open_.pop(), c.end_line))
    return sorted(out, key=lambda b: (b.start, -b.end))


def _branches(traces: Traces, read: Callable[[str], str | None]) -> dict[tuple[str, int], str]:
    """if() blocks both configures entered whose inside ran differently: (file, line) -> what differs.
    Each differing line counts for the innermost block around it that both configures entered."""
    out: dict[tuple[str, int], str] = {}
    native, spirv = traces.ran["native"], traces.ran["spirv"]
    for path in sorted(set(native) & set(spirv)):
        only_native, only_spirv = native[path] - spirv[path], spirv[path] - native[path]
        if not only_native and not only_spirv:
            continue
        text = read(path)
        both = native[path] & spirv[path]
        blocks = [b for b in if_blocks(text or "") if b.start in both]
        for line in sorted(only_native | only_spirv):
            inner = [b for b in blocks if b.start < line <= b.end]
            if not inner:
                continue
            block = max(inner, key=lambda b: b.start)
            side = "native" if line in only_native else "SPIR-V"
            out.setdefault((path, block.start), f"line {line} runs only in the {side} configure")
    return out


def findings(traces: Traces, spirv_flags: str, read: Callable[[str], str | None]) -> list[Finding]:
    """The oracle's CMake findings, one per construct (the outermost project frame that reached it)."""
    spirv_flag_gfx = {m.group(0).lower() for m in GFX_NAME.finditer(spirv_flags)}
    verdicts: dict[tuple[str, int], tuple[Verdict, list[Command], Site]] = {}
    # Consumers first: an arch name a command really used makes the definition that set it a finding.
    consumed: set[str] = set()
    ordered = sorted(traces.sites.values(), key=lambda s: s.cmd in DEFINES)
    for site in ordered:
        v = _judge(site, traces.defined, spirv_flag_gfx, consumed)
        if v is None:
            continue
        if v.unreached and site.cmd not in DEFINES:
            consumed |= _gfx(site.spirv) - {"gfx"}
        top, chain = _lift(site, traces)
        key = (top.file, top.line) if top else (site.file, site.line)
        old = verdicts.get(key)
        if old is None or (v.unreached and not old[0].unreached):
            verdicts[key] = (v, chain, site)
    for key, what in _branches(traces, read).items():
        if key in verdicts and verdicts[key][0].unreached:
            continue
        site = traces.sites[key]
        words = " ".join(w for a in site.spirv[:1] for w in a)
        handled = "ROCM_SPIRV" in words  # a branch on the offload mode: the migration itself
        rule = "RSM108" if "IN_LIST" in words else "RSM106"
        verdicts[key] = (Verdict(rule, not handled, f"if({words}) goes another way under amdgcnspirv: {what}"),
                         [], site)
    out = []
    for (path, line), (v, chain, site) in verdicts.items():
        rel = os.path.relpath(path, traces.root).replace(os.sep, "/")
        via = " -> ".join(f"{c.cmd}() at {os.path.relpath(c.file, traces.root)}:{c.line}" for c in chain[1:])
        if chain:
            last = f"{site.cmd}() at {os.path.relpath(site.file, traces.root)}:{site.line}"
            via = f"{via} -> {last}" if via else last
        found: Rule = RULES[v.rule]
        message = f"configure: {v.why}" + (f"; reached through {via}" if via else "")
        out.append(Finding(found, rel, line, 1, message, _fix(v), Redirect.BUILD_FILE if v.unreached
                           else Redirect.TOOLCHAIN, snippet=_snippet(read(path), line), source="configure"))
    return sorted(out, key=lambda f: (f.path, f.line))


def _fix(v: Verdict) -> str:
    if not v.unreached:
        return "nothing: the SPIR-V toolchain file redirects it (keep it for native builds)"
    fixes = {
        "RSM101": "put the list behind if(NOT ROCM_SPIRV_OFFLOAD STREQUAL \"spirv\") or derive it from GPU_TARGETS",
        "RSM102": "hand the target to rocm_spirv_target(), which replaces HIP_ARCHITECTURES",
        "RSM103": "drop the flag under SPIR-V or hand the target to rocm_spirv_target()",
        "RSM104": "use the target list (GPU_TARGETS) instead of the legacy flag",
        "RSM106": "branch on ROCM_SPIRV_OFFLOAD, or make the per-arch choice at JIT time in the source",
        "RSM107": "build one SPIR-V object instead of one per arch, or keep the loop for native builds only",
        "RSM108": "accept amdgcnspirv in the allow-list, or skip the check under SPIR-V",
        "RSM109": "generate one SPIR-V kernel set, or keep this generator for native builds only "
                  "(rocm_spirv_target(<t> OFFLOAD hybrid ARCHS …))",
    }
    return fixes.get(v.rule, RULES[v.rule].help)


def _snippet(text: str | None, line: int) -> str:
    if not text:
        return ""
    lines = text.splitlines()
    return lines[line - 1].strip()[:120] if 0 < line <= len(lines) else ""
