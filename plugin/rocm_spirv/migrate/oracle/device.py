"""What clang keeps and says for each HIP translation unit, per target, read as findings. Pure: preprocessed
text, diagnostics and LLVM IR in, findings out (oracle/run.py runs clang).

Each TU is preprocessed device-only (with -dD, so `#define`s stay where they are) for amdgcnspirv and for
one native target per family. Line markers map every kept line back to its file. A conditional chain is
arch-dependent when a native target that reaches it takes another branch than SPIR-V does; it is reported
once per file across TUs, at the directive that opens it, naming the macros it tests.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from rocm_spirv.migrate.findings import Finding, Redirect, Rule
from rocm_spirv.migrate.registry import RULES
from rocm_spirv.migrate.source_checks.arch_macros import ARCH_FIX
from rocm_spirv.offload import SPIRV_TARGET

__all__ = ["ARCH_FIX", "FAMILIES"]

FAMILIES = ("gfx90a", "gfx942", "gfx1100", "gfx1201")  # CDNA2, CDNA3, RDNA3, RDNA4: one native target per family
MARKER = re.compile(r'^#\s*(\d+)\s+"((?:[^"\\]|\\.)*)"')
DIRECTIVE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b(.*)$")
IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
NOT_MACROS = frozenset({"defined", "__has_builtin", "__has_include", "__has_feature", "__has_attribute",
                        "__has_cpp_attribute", "__has_extension", "__has_include_next"})
DIAG = re.compile(r"^(.+?):(\d+):(\d+): (error|fatal error): (.*)$")
WAVE = re.compile(r"WAVE|WARP", re.IGNORECASE)


def kept_lines(text: Iterable[str], cwd: str) -> dict[str, set[int]]:
    """file -> the source lines a preprocessed TU kept (code and, with -dD, #define lines)."""
    out: dict[str, set[int]] = {}
    current: set[int] | None = None
    line = 0
    for raw in text:
        m = MARKER.match(raw)
        if m:
            name = m.group(2).encode().decode("unicode_escape") if "\\" in m.group(2) else m.group(2)
            line = int(m.group(1))
            if name.startswith("<"):
                current = None
            else:
                path = os.path.normpath(os.path.join(cwd, name))
                current = out.setdefault(path, set())
            continue
        if current is not None and raw.strip() and not raw.lstrip().startswith("#pragma"):
            current.add(line)
        line += 1
    return out


def names_builtin(text: Iterable[str], cwd: str, mine: Callable[[str], bool]) -> bool:
    """A kept line of the project's own files calls an AMDGCN builtin."""
    own = False
    for raw in text:
        m = MARKER.match(raw)
        if m:
            own = not m.group(2).startswith("<") and mine(os.path.normpath(os.path.join(cwd, m.group(2))))
        elif own and "__builtin_amdgcn_" in raw:
            return True
    return False


@dataclass
class Branch:
    line: int  # of its directive
    end: int = 0  # the line of the next directive of its chain


@dataclass
class Chain:
    start: int  # the opening #if line
    directives: list[str] = field(default_factory=list)
    branches: list[Branch] = field(default_factory=list)
    parent: tuple[Chain, int] | None = None  # enclosing chain and branch index
    end: int = 0


def chains(text: str) -> list[Chain]:
    """The conditional chains of a file (continuation lines joined), outer before inner."""
    out: list[Chain] = []
    stack: list[Chain] = []
    lines = text.splitlines()
    no = 0
    while no < len(lines):
        first = no + 1
        line = lines[no]
        while line.endswith("\\") and no + 1 < len(lines):
            no += 1
            line = line[:-1] + " " + lines[no]
        no += 1
        m = DIRECTIVE.match(line)
        if not m:
            continue
        kind, rest = m.group(1), m.group(2)
        if kind in ("if", "ifdef", "ifndef"):
            c = Chain(first, [f"#{kind}{rest}"], [Branch(first)],
                      (stack[-1], len(stack[-1].branches) - 1) if stack else None)
            out.append(c)
            stack.append(c)
        elif stack and kind == "endif":
            c = stack.pop()
            c.branches[-1].end = first
            c.end = first
        elif stack:
            c = stack[-1]
            c.branches[-1].end = first
            c.branches.append(Branch(first))
            c.directives.append(f"#{kind}{rest}")
    return out


def _taken(chain: Chain, kept: set[int]) -> int:
    """The branch whose lines this target kept; -1 when it kept none of them."""
    for i, b in enumerate(chain.branches):
        if any(line in kept for line in range(b.line + 1, b.end)):
            return i
    return -1


def _live(chain: Chain, kept: set[int]) -> bool:
    """The target reached the chain: every enclosing branch is one it took (the file itself: it kept a line)."""
    if chain.parent is None:
        return True  # the target included the file (targets that did not are not asked)
    parent, index = chain.parent
    return _live(parent, kept) and _taken(parent, kept) == index


def macros(chain: Chain) -> list[str]:
    names = [n for d in chain.directives for n in IDENT.findall(d.split(None, 1)[1] if " " in d else "")
             if n not in NOT_MACROS and not n.isdigit()]
    return list(dict.fromkeys(names))


@dataclass
class Region:
    """An arch-dependent chain, as the TUs that reached it saw it."""

    path: str
    chain: Chain
    taken: dict[str, int] = field(default_factory=dict)  # target -> branch index


def regions(path: str, text: str, per_target: dict[str, set[int]]) -> list[Region]:
    """Chains of one file where some native target takes another branch than amdgcnspirv."""
    spirv = per_target.get(SPIRV_TARGET)
    if spirv is None:
        return []
    out = []
    for c in chains(text):
        if not _live(c, spirv):
            continue
        mine = _taken(c, spirv)
        taken = {t: _taken(c, kept) for t, kept in per_target.items() if t != SPIRV_TARGET and _live(c, kept)}
        if any(v != mine for v in taken.values()):
            out.append(Region(path, c, {SPIRV_TARGET: mine, **taken}))
    return out


def region_finding(root: str, region: Region, tus: int) -> Finding:
    c = region.chain
    names = macros(c)
    wave = any(WAVE.search(n) for n in names)
    rule: Rule = RULES["RSM202" if wave else "RSM201"]

    def branch(i: int) -> str:
        return "no branch" if i < 0 else f"the branch at line {c.branches[i].line}"

    spirv = region.taken[SPIRV_TARGET]
    others = sorted({t for t, i in region.taken.items() if t != SPIRV_TARGET and i != spirv})
    message = (f"arch-dependent region (preprocessor, {tus} TU{'s' if tus != 1 else ''}): "
               f"{', '.join(others)} take{'s' if len(others) == 1 else ''} {branch(region.taken[others[0]])}, "
               f"amdgcnspirv takes {branch(spirv)}; it tests {', '.join(names) or 'no macro'}")
    fix = f"read the wave size at run time (warpSize), not at build time; {ARCH_FIX}" if wave else ARCH_FIX
    return Finding(rule, _rel(root, region.path), c.start, 1, message, fix, Redirect.SOURCE,
                   snippet=c.directives[0].strip()[:120], source="configure")


@dataclass(frozen=True)
class Diagnostic:
    path: str
    line: int
    column: int
    message: str


def diagnostics(stderr: str, cwd: str) -> list[Diagnostic]:
    out = []
    for raw in stderr.splitlines():
        m = DIAG.match(raw)
        if m and not m.group(1).startswith("clang"):
            out.append(Diagnostic(os.path.normpath(os.path.join(cwd, m.group(1))), int(m.group(2)),
                                  int(m.group(3)), m.group(5)))
    return out


BUILTIN_FEATURE = re.compile(r"'(__builtin_amdgcn_\w+)' needs target feature (\S+)")


def rule_of(message: str) -> str:
    """The rule a SPIR-V device-compile error belongs to."""
    if "__AMDGCN_WAVEFRONT_SIZE" in message or "wavefront" in message.lower():
        return "RSM202"
    if "warpSize" in message:
        return "RSM203"
    if "asm" in message.lower() or "instruction" in message.lower():
        return "RSM204"
    if "__builtin_amdgcn" in message:
        return "RSM205"
    return "RSM208"


FIXES = {
    "RSM202": "read the wave size at run time (warpSize, __builtin_amdgcn_wavefrontsize()) instead of the macro",
    "RSM203": "read warpSize at run time; size arrays for the largest wave (64)",
    "RSM204": "replace the assembly with builtins, or keep this kernel native: rocm_spirv_target(<t> OFFLOAD "
              "hybrid ARCHS …)",
    "RSM205": "guard it at JIT time: if (__builtin_amdgcn_is_invocable(__builtin_amdgcn_…)) (LLVM >= 23), or keep "
              "the kernel native (hybrid)",
    "RSM208": "make the TU compile for amdgcnspirv, or keep it native (hybrid)",
}


def compile_finding(root: str, d: Diagnostic, target: str) -> Finding:
    rule = rule_of(d.message)
    return Finding(RULES[rule], _rel(root, d.path), d.line, d.column,
                   f"the {target} device compile fails: {d.message}", FIXES[rule], Redirect.SOURCE,
                   source="configure")


def feature_finding(root: str, d: Diagnostic, targets: list[str]) -> Finding:
    m = BUILTIN_FEATURE.search(d.message)
    what = f"{m.group(1)} needs target feature {m.group(2)}" if m else d.message
    return Finding(RULES["RSM205"], _rel(root, d.path), d.line, d.column,
                   f"{what}, which {', '.join(targets)} lack{'s' if len(targets) == 1 else ''}: amdgcnspirv accepts "
                   "it and the JIT compile fails on such GPUs", FIXES["RSM205"], Redirect.SOURCE, source="configure")


# LLVM IR: `call void asm sideeffect "s_waitcnt vmcnt(0)", ""() #3, !dbg !42`
IR_ASM = re.compile(r'\basm (?:sideeffect )?(?:alignstack )?(?:inteldialect )?"((?:[^"\\]|\\.)*)".*!dbg !(\d+)')
IR_META = re.compile(r"^!(\d+) = (?:distinct )?(!\w+)\((.*)\)$")
IR_FIELD = re.compile(r"(\w+): (!\d+|\d+|\"(?:[^\"\\]|\\.)*\")")


def asm_sites(ir: Iterable[str]) -> list[tuple[str, int, int, str]]:
    """(file, line, column, assembly) of every inline-asm call of an LLVM IR module with debug locations."""
    calls: list[tuple[str, str]] = []
    meta: dict[str, tuple[str, dict[str, str]]] = {}
    for raw in ir:
        m = IR_ASM.search(raw)
        if m and "call" in raw:
            calls.append((m.group(1), m.group(2)))
            continue
        mm = IR_META.match(raw.strip())
        if mm:
            meta[mm.group(1)] = (mm.group(2), dict(IR_FIELD.findall(mm.group(3))))
    out = []
    for text, ref in calls:
        loc = meta.get(ref)
        if loc is None or loc[0] != "!DILocation":
            continue
        fields = loc[1]
        path = _scope_file(meta, fields.get("scope", ""), 0)
        if path:
            out.append((path, int(fields.get("line", "0")), int(fields.get("column", "0")), text))
    return out


def _scope_file(meta: dict[str, tuple[str, dict[str, str]]], ref: str, depth: int) -> str:
    entry = meta.get(ref.lstrip("!"))
    if entry is None or depth > 64:
        return ""
    kind, fields = entry
    if kind == "!DIFile":
        name, folder = fields.get("filename", '""')[1:-1], fields.get("directory", '""')[1:-1]
        return os.path.normpath(os.path.join(folder, name))
    if "file" in fields:
        return _scope_file(meta, fields["file"], depth + 1)
    return _scope_file(meta, fields.get("scope", ""), depth + 1)


def asm_finding(root: str, path: str, line: int, column: int, text: str) -> Finding:
    return Finding(RULES["RSM204"], _rel(root, path), line, max(1, column),
                   f"inline assembly reaches the amdgcnspirv device pass (\"{' '.join(text.split())}\"): the SPIR-V "
                   "module carries it to the JIT unchanged, and it must then be valid on every GPU",
                   FIXES["RSM204"], Redirect.SOURCE, source="configure")


def _rel(root: str, path: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")
