"""Findings for HIP/C++ sources. Reported only: --apply never edits a source file."""

from __future__ import annotations

import re

from rocm_spirv.migrate.findings import RULES, FileReport, Finding, Redirect

ARCH_MACRO = re.compile(r"\b__(gfx[0-9]{2,4}[a-z]?|GFX[0-9]{1,2})__\b|\b__amdgcn_processor__\b")
WAVEFRONT = re.compile(r"\b__AMDGCN_WAVEFRONT_SIZE(__)?\b")
CONSTEXPR_WARP = re.compile(
    r"\bconstexpr\b[^;{]*=\s*[^;]*\bwarpSize\b"
    r"|<[^<>;]*\bwarpSize\b[^<>;]*>"
    r"|\[[^\[\];]*\bwarpSize\b[^\[\];]*\]"
    r"|\bstatic_assert\s*\([^;]*\bwarpSize\b"
    r"|\bcase\s+[^:]*\bwarpSize\b")
INLINE_ASM = re.compile(r"\b(__asm__|__asm|asm)\b(\s+(volatile|__volatile__|goto|inline))*\s*\(")
FEATURE_BUILTIN = re.compile(
    r"\b__builtin_amdgcn_(mov_dpp|update_dpp|mfma_\w+|smfmac_\w+|wmma_\w+|swmmac_\w+|s?dot\d\w*|fdot2\w*"
    r"|permlane\w+|ds_swizzle|global_atomic_fadd\w*|flat_atomic_fadd\w*|global_load_lds|ds_bpermute_fi\w*"
    r"|cvt_pk_\w+|s_setprio|s_sleep_var|ballot_w64|ballot_w32)\b")
HAS_BUILTIN = re.compile(r"__has_builtin\s*\(\s*__builtin_amdgcn_\w+\s*\)")
# Substrings a rule's pattern cannot match without. Stripping comments and strings only removes
# matches, so a text lacking them cannot produce that rule's finding. Substring tests, as regex
# searches over the whole text cost more than the line loop they would save.
RULE_TOKENS = {ARCH_MACRO: ("__gfx", "__GFX", "__amdgcn_processor__"), WAVEFRONT: ("__AMDGCN_WAVEFRONT",),
               HAS_BUILTIN: ("__has_builtin",), CONSTEXPR_WARP: ("warpSize",), INLINE_ASM: ("asm",),
               FEATURE_BUILTIN: ("__builtin_amdgcn_",)}
_CHEAP = tuple(t for rx, ts in RULE_TOKENS.items() if rx is not FEATURE_BUILTIN for t in ts)


def may_match(text: str) -> bool:
    """The prefilter on raw text: most kernels call some __builtin_amdgcn_*, so that token alone is
    confirmed with the pattern."""
    if any(t in text for t in _CHEAP):
        return True
    return "__builtin_amdgcn_" in text and FEATURE_BUILTIN.search(text) is not None


GUARD_CALL = re.compile(r"__builtin_amdgcn_(processor_is|is_invocable)\s*\(")
PP_IF = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b(.*)$")
RETURN_VALUE = re.compile(r"\breturn\s+[A-Za-z_][\w:]*\s*;")

ARCH_FIX = ("branch at JIT time: if (__builtin_amdgcn_processor_is(\"gfx90a\")) … (LLVM >= 23); or keep this kernel "
            "native with rocm_spirv_target(<t> OFFLOAD hybrid ARCHS gfx90a)")


_LEXEMES = re.compile(
    r"(?P<num>(?<![\w.])\d[\w.]*(?:'\w+)+)"  # C++14 digit separators: 1'000'000 is not a char literal
    r'|(?P<raw>(?<!\w)(?:u8|[uUL])?R"(?P<d>[^()\\ \t\n]{0,16})\((?:[\s\S]*?)\)(?P=d)")'
    r"|(?P<line>//(?:[^\n\\]|\\[\s\S])*)"  # a backslash-newline splice continues the comment
    r"|(?P<block>/\*[\s\S]*?(?:\*/|\Z))"
    r'|(?P<str>"(?:[^"\\\n]|\\[\s\S])*"?)'
    r"|(?P<chr>'(?:[^'\\\n]|\\[\s\S])*'?)")
_NOT_NEWLINE = re.compile(r"[^\n]")


def _blank(m: re.Match[str]) -> str:
    text = m.group(0)
    kind = m.lastgroup
    if kind == "num":
        return text
    if kind in ("line", "block"):
        return _NOT_NEWLINE.sub(" ", text)
    if kind == "raw":
        head = text.index("(") + 1
        tail = len(text) - len(m.group("d")) - 2
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


def _find(path: str, rule: str, line: int, col: int, msg: str, fix: str, snippet: str) -> Finding:
    return Finding(RULES[rule], path, line, col, msg, fix, Redirect.SOURCE, False, snippet.strip()[:120])


def analyze(path: str, text: str) -> FileReport:
    report = FileReport(path, "source")
    if not may_match(text):
        return report
    stripped = strip(text)
    can = {rx: any(t in stripped for t in ts) for rx, ts in RULE_TOKENS.items()}
    if not any(can.values()):
        return report
    raw_lines = text.splitlines()
    lines = stripped.splitlines()
    # preprocessor conditional stack: True when the group's condition tests an arch macro
    pp: list[bool] = []
    enum_reported: set[int] = set()  # #if nesting levels whose arch chain is already reported as a helper
    depth = 0
    guard_until: int | None = None  # brace depth above which a processor_is/is_invocable guard holds
    guard_next = False
    add = report.findings.append
    for no, line in enumerate(lines, start=1):
        snippet = raw_lines[no - 1] if no - 1 < len(raw_lines) else line
        pm = PP_IF.match(line)
        if pm:
            word, cond = pm.group(1), pm.group(2)
            if word in ("if", "ifdef", "ifndef"):
                pp.append(bool(ARCH_MACRO.search(cond)))
            elif word.startswith("el") and word != "else" and pp:
                pp[-1] = pp[-1] or bool(ARCH_MACRO.search(cond))
            elif word == "endif" and pp:
                enum_reported.discard(len(pp))
                pp.pop()
        for m in ARCH_MACRO.finditer(line):
            add(_find(path, "RSM201", no, m.start() + 1, f"{m.group(0)} is undefined under amdgcnspirv",
                      ARCH_FIX, snippet))
        for m in (WAVEFRONT.finditer(line) if can[WAVEFRONT] else ()):
            add(_find(path, "RSM202", no, m.start() + 1, f"{m.group(0)} has no value under amdgcnspirv",
                      "use warpSize at run time (or __builtin_amdgcn_wavefrontsize())", snippet))
        for m in (HAS_BUILTIN.finditer(line) if can[HAS_BUILTIN] else ()):
            add(_find(path, "RSM206", no, m.start() + 1, f"{m.group(0)} is always true under amdgcnspirv",
                      "test with __builtin_amdgcn_is_invocable(<builtin>) in an if (LLVM >= 23)", snippet))
        if pm:
            continue
        for m in (CONSTEXPR_WARP.finditer(line) if can[CONSTEXPR_WARP] else ()):
            add(_find(path, "RSM203", no, m.start() + 1, "warpSize used as a compile-time constant",
                      "read warpSize at run time; size shared memory for 64 lanes, or template on both 32 and 64 "
                      "and dispatch at run time", snippet))
            break
        for m in (INLINE_ASM.finditer(line) if can[INLINE_ASM] else ()):
            add(_find(path, "RSM204", no, m.start() + 1, "inline assembly cannot be lowered to SPIR-V",
                      "replace with __builtin_amdgcn_* builtins, or build this kernel native (hybrid mode: "
                      "rocm_spirv_target(<t> OFFLOAD hybrid ARCHS …))", snippet))
        guarded_line = guard_next or guard_until is not None or any(pp)
        if GUARD_CALL.search(line):
            guarded_line = True
            if "{" in line[GUARD_CALL.search(line).end():]:  # type: ignore[union-attr]
                guard_until = depth if guard_until is None else min(guard_until, depth)
            else:
                guard_next = True
        elif guard_next and line.strip():
            guard_next = "{" not in line and ";" not in line
            if "{" in line:
                guard_until = depth if guard_until is None else min(guard_until, depth)
        if not guarded_line and can[FEATURE_BUILTIN]:
            for m in FEATURE_BUILTIN.finditer(line):
                add(_find(path, "RSM205", no, m.start() + 1, f"__builtin_amdgcn_{m.group(1)} is target-specific "
                          "and unguarded", f"if (__builtin_amdgcn_is_invocable(__builtin_amdgcn_{m.group(1)})) … "
                          "else portable fallback (LLVM >= 23), or hybrid mode", snippet))
        if pp and pp[-1] and RETURN_VALUE.search(line) and len(pp) not in enum_reported:
            enum_reported.add(len(pp))
            add(_find(path, "RSM207", no, (RETURN_VALUE.search(line).start() + 1),  # type: ignore[union-attr]
                      "returns an architecture value chosen by #if; under SPIR-V the fallback is returned",
                      "query __builtin_amdgcn_processor_is at run time in device code, or hipDeviceProp_t."
                      "gcnArchName on the host", snippet))
        depth += line.count("{") - line.count("}")
        if guard_until is not None and depth <= guard_until:
            guard_until = None
    return report
