"""Inline assembly a HIP device compile sees (RSM204): GCN/RDNA mnemonics anywhere, or any asm but
clearly foreign (PTX, x86, POWER/ARM) in a device file. The rule and its patterns; the finding builder and
the tests of an asm statement (its text, GPU or not, a symbol label); the hooks and their topic,
INLINE_ASSEMBLY (asm in a #define body, asm in code)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal

from rocm_spirv.migrate.findings import E, Finding, Rule
from rocm_spirv.migrate.source_checks.topic import SourceTopic, finding

if TYPE_CHECKING:
    from rocm_spirv.migrate.source_rules import Directive, SourceScan

RSM204 = Rule("RSM204", "inline-asm", E, "inline assembly in device code",
              "GCN/RDNA assembly cannot be expressed in SPIR-V; the kernel must use builtins or stay native (hybrid).",
              example=('k.hip', '__global__ void k() { asm volatile("s_waitcnt vmcnt(0)"); }\n'))
RULES = (RSM204,)

INLINE_ASM = re.compile(r"\b(__asm__|__asm|asm)\b(\s+(volatile|__volatile__|goto|inline))*\s*\(")
# A mnemonic starts an instruction: right after a template's opening quote, an escaped newline or a `;`
# (line splices between). Elsewhere a GCN-looking word is an operand name (`%[s_vec]`, `[v_acc] "m"(…)`).
# `"{\n" "\t.reg .pred p;\n"`: escaped tabs and PTX's braces may come first too; a raw string's `R"(` (or
# `R"delim(`) opens a template as a quote does (`asm volatile(R"( { div.full.f32 %0, %1, %2; })" …)`).
_INSN = r'(?:R"[^(\s"]{0,16}\(|"|\\n|;)(?:\s|\\t|\\(?=\s)|\{)*'
GCN_ASM = re.compile(_INSN + r"(?:s|v|ds|flat|global|buffer|scratch|image|exp)_[a-z][a-z0-9_]*\b(?!\.)")
# Dotted mnemonics (PTX cp.async/ldmatrix.sync/mma.sync, RISC-V flw.ps: AMDGPU has none), PTX's `.reg .pred`
# (or `.reg.pred`), trap;, x86 (%%eax, rdtsc, cpuid), POWER/ARM barriers: not AMD GPU assembly. So is an operand
# constraint of NVPTX's register classes (`"+f"(acc)`, `"l"(desc)`, `"=h"`, `"d"`; x86 has `f` and `d` too),
# which AMDGPU rejects: `asm volatile("" : "+f"(reg))` pins a CUDA register, `"{\n" ".reg.pred p;\n"` opens PTX.
FOREIGN_ASM = re.compile(_INSN + r"(?:[a-z][a-z0-9_]*\.[a-z0-9]|\.reg\s*\.[a-z])"
                         r'|"[=+&]*[fhld]"\s*\('
                         r"|\b(?:mov|ld|st|add|mad|mul|cvt|setp|shfl|bar|membar|vote|activemask|prmt|bfe|brev)\.[a-z]"
                         r"|\b(?:trap|exit);|%%[re]?[a-d]x\b|%%[re]?[sd]i\b|\b(?:rdtscp?|cpuid|xgetbv|lfence|mfence|sfence|pause"
                         r"|isync|lwsync|hwsync|dmb|dsb|isb|yield)\b|\bnop\b"
                         # `.pushsection ".debug_gdb_scripts"` (LvArray's GDB printers), `.incbin`: file-scope
                         # asm embedding data in the host object; a HIP device compile drops file-scope asm
                         # (no module asm in the amdgcnspirv bitcode, checked with clang 22)
                         r"|" + _INSN + r"\.(?:pushsection|section|incbin)\b")


# An empty template (`asm volatile("" ::: "memory")`, `asm volatile("" : : "v"(x))`) holds no instruction:
# LLVM 22's SPIR-V backend turns it into a valid OpAsmINTEL with nothing in it. With an output operand
# (`asm volatile("" : "+v"(x))`, a register-class pin) the backend stops: "unable to translate
# instruction: call", so that one is reported like any assembly. A template that is one AMDGPU assembler
# comment (`asm volatile(";;# grid barrier incoming")`, a marker to find in the ISA dump) holds none either,
# nor does one C++-style comment (`asm volatile("//--open 0")`, EigenG's loop markers: the AMDGPU assembler
# reads `//` as a line comment too; clang 22 builds it for gfx90a, and llc for spirv64-amd-amdhsa).
_COMMENT = r'\s*(?:;|//)[^"\\]*'  # one assembler comment, no escape (a `\n` would start another line)
EMPTY_ASM = re.compile(rf'\(\s*"(?:{_COMMENT})?"\s*(?:\)|:\s*(?:\)|:))')
COMMENT_TEMPLATE = re.compile(rf'\w+(?:\s+\w+)*\s*\(\s*"{_COMMENT}"')
TEMPLATE_MACRO = re.compile(r"\s*\w+(?:\s+\w+)*\s*\(\s*([A-Za-z_]\w*)\s*\"")  # asm volatile(NAME "…"
# `if constexpr (N >= 1) asm volatile(…)` (Primus-Turbo): the `)` closes a condition, not a declarator
CONTROL_HEAD = re.compile(r"\b(?:if|while|for|switch)\s*(?:constexpr\s*)?\(.*\)\s*$")
MACRO_HEAD = re.compile(r"^\s*#\s*define\s+\w+\([^()]*\)\s*$")


def inline_asm(path: str, no: int, m: re.Match[str], snippet: str, conds: tuple[str, ...]) -> Finding:
    return finding(RSM204, path, no, m.start() + 1, "inline assembly cannot be lowered to SPIR-V",
                   "replace with __builtin_amdgcn_* builtins, or build this kernel native (hybrid mode: "
                   "rocm_spirv_target(<t> OFFLOAD hybrid ARCHS …))", snippet, conds)


def asm_text(raw_lines: list[str], i: int, col: int, strings: Mapping[str, str] | None = None) -> str:
    """The raw text of an asm statement from its keyword to the first `;`, over at most three lines; a
    template that starts with a macro the file #defines to a string literal starts with that literal."""
    text = " ".join([raw_lines[i][col:], *raw_lines[i + 1 : i + 3]]) if i < len(raw_lines) else ""
    if strings:
        m = TEMPLATE_MACRO.match(text)
        if m is not None and m.group(1) in strings:
            text = text[: m.start(1)] + strings[m.group(1)] + text[m.end(1):]
    comment = COMMENT_TEMPLATE.match(text)  # `asm volatile(";;# marker")`: its `;` start a comment
    end = text.find(";", comment.end() if comment else 0)
    return text if end < 0 else text[: end + 1]  # PTX's own `;` ends the template: its opcode is before it


_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_OUTPUT = re.compile(r'"[=+]')
STATEMENT_LINES = 12  # lines an asm statement's template may span


def asm_statement(raw_lines: list[str], i: int, col: int) -> str:
    """The raw text of the asm statement at raw_lines[i][col:] up to its closing parenthesis (string literals
    skipped), over at most STATEMENT_LINES lines; "" when it does not close there."""
    text = "\n".join([raw_lines[i][col:], *raw_lines[i + 1 : i + STATEMENT_LINES]]) if i < len(raw_lines) else ""
    depth, pos = 0, 0
    while pos < len(text):
        ch = text[pos]
        if ch == '"':
            m = _LITERAL.match(text, pos)
            if m is None:
                return ""
            pos = m.end()
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return text[: pos + 1]
        pos += 1
    return ""


def directives_only(statement: str) -> bool:
    """A template of assembler comments and directives only, with no output operand (hostrpc's
    `__asm__("; hostcall_invoke\\n\\t.type needs_hostcall_buffer,@object\\n\\t.global …\\n\\t.comm …,4" ::)`,
    a symbol the runtime looks for): the same text for every GPU, no instruction to encode. The SPIR-V backend
    carries an operand-less template as it is (see EMPTY_ASM); the JIT's assembler reads it for the GPU found.
    statement: asm_statement's text."""
    literals = list(_LITERAL.finditer(statement))
    if not literals:
        return False
    template = [literals[0]]
    for m in literals[1:]:  # the template: adjacent literals, whitespace between
        if statement[template[-1].end(): m.start()].strip():
            break
        template.append(m)
    if _OUTPUT.search(statement[template[-1].end():]):
        return False
    lines = [ln.replace("\\t", " ").strip() for ln in "".join(m.group(1) for m in template).split("\\n")]
    return all(not ln or ln.startswith((";", "//", ".")) for ln in lines) and any(ln.startswith(".") for ln in lines)


def gpu_asm(text: str, visible: bool) -> bool:
    """AMD GPU assembly: GCN/RDNA mnemonics anywhere, or any asm but clearly foreign asm in a device file."""
    if GCN_ASM.search(text):
        return True
    if EMPTY_ASM.search(text):
        return False
    return visible and not FOREIGN_ASM.search(text)


# `kernel_descriptor name_desc asm("sym.kd")`: a variable declared under a symbol name (head ends in its name)
VARIABLE_HEAD = re.compile(r"[A-Za-z_][\w#]*\s*$")
NOT_DECLARATOR = frozenset({"else", "do", "return", "case", "default", "goto", "volatile", "inline"})
OBJECT_MACRO_HEAD = re.compile(r"\s*#\s*define\s+\w+\s*$")  # `#define BARRIER asm volatile(…)`
SYMBOL_TEMPLATE = re.compile(r'\(\s*(?:\\\s*)?"[^"\s\\]*"(?:\s*(?:#\s*\w+|"[^"\s\\]*"|\\))*\s*\)')


def asm_label(line: str, start: int, raw: str, end: int, statement: str = "") -> bool:
    """`int f(int) __asm("llvm.amdgcn.ubfe");` names the symbol of a declaration: no assembly is emitted; so
    does `T name asm("sym.kd")` (a variable, its template one symbol name: no space, no escape).
    (`#define OP(op, x) asm volatile(#op …)`: the `)` closes the macro's parameters, not a declarator;
    `#define BARRIER asm volatile("s_barrier")`: the name is the macro's.) statement: asm_statement's text."""
    head = line[:start]
    if (head.rstrip().endswith(")") and not MACRO_HEAD.match(head) and not CONTROL_HEAD.search(head)) or \
            raw[end:].lstrip().startswith('"llvm.'):
        return True
    name = VARIABLE_HEAD.search(head)
    return name is not None and name.group(0).strip() not in NOT_DECLARATOR and \
        not OBJECT_MACRO_HEAD.match(head) and bool(SYMBOL_TEMPLATE.match(statement[statement.find("("):]))


def _device_asm(scan: SourceScan, text: str, statement: str) -> Literal["yes", "pending", ""]:
    """Whether the statement is AMD GPU assembly. Asm that is neither GCN-shaped nor clearly foreign, in a
    file with no device marker of its own, is device asm only if the file marks its functions with a project
    macro another file defines to __device__ (`LIB_DEV int f(…)`, `#define LIB_DEV __device__` in a config
    header): "pending", reported and kept by the scan once every file is read only if so."""
    if not GCN_ASM.search(text) and directives_only(statement):
        return ""
    if gpu_asm(text, scan.visible):
        return "yes"
    return "pending" if not scan.visible and gpu_asm(text, True) else ""


def _add(scan: SourceScan, f: Finding, verdict: str) -> None:
    scan.add(f)
    if verdict == "pending":
        scan.need_device(f)


def asm_in_define(scan: SourceScan, d: Directive) -> None:
    """Inline assembly in a #define body (with continuation lines): one finding, at its first GCN asm line, or at
    its first device asm line when none is GCN-shaped."""
    # `#define asm(x)` (an IDE parser's stub under #ifdef __INTELLISENSE__) names asm, it assembles nothing
    if not (scan.live and scan.can[INLINE_ASM]) or d.name in ("asm", "__asm", "__asm__"):
        return
    lines, raw_lines = scan.lines, scan.raw_lines

    def report(i: int, col: int, verdict: str) -> None:
        raw = raw_lines[i] if i < len(raw_lines) else lines[i]
        _add(scan, finding(RSM204, scan.path, i + 1, col + 1, f"inline assembly in macro {d.name} cannot be lowered "
                           "to SPIR-V", "replace with __builtin_amdgcn_* builtins, or build the kernels using it "
                           "native (hybrid mode)", raw, scan.conds), verdict)

    pending: tuple[int, int] | None = None  # the first asm that is device asm only if the file is device code
    for i in range(scan.idx, scan.skip_to + 1):
        for m in INLINE_ASM.finditer(lines[i]):
            raw = raw_lines[i] if i < len(raw_lines) else lines[i]
            statement = asm_statement(raw_lines, i, m.start())
            if asm_label(lines[i], m.start(), raw, m.end(), statement):
                continue
            verdict = _device_asm(scan, asm_text(raw_lines, i, m.start()), statement)
            if verdict == "yes":  # GCN assembly: the macro's finding, in any file
                report(i, m.start(), verdict)
                return
            if verdict and pending is None:
                pending = i, m.start()
    if pending is not None:
        report(*pending, "pending")


def asm_in_code(scan: SourceScan) -> None:
    line, idx, raw_lines = scan.line, scan.idx, scan.raw_lines
    for m in INLINE_ASM.finditer(line):
        statement = asm_statement(raw_lines, idx, m.start())
        if asm_label(line, m.start(), raw_lines[idx] if idx < len(raw_lines) else line, m.end(), statement):
            continue
        verdict = _device_asm(scan, asm_text(raw_lines, idx, m.start(), scan.strings), statement)
        if verdict:
            _add(scan, inline_asm(scan.path, scan.no, m, scan.snippet, scan.conds), verdict)


INLINE_ASSEMBLY = SourceTopic(rules=(RSM204,), defined=asm_in_define, line=asm_in_code,
                              wanted=lambda scan: scan.can[INLINE_ASM])
