"""Findings for build descriptions written in Python, Starlark or TOML: setup.py (setup_rocm.py),
pyproject.toml, Bazel BUILD files, .bzl extensions and .bazelrc. Reported only: --apply never edits them.

Python and Starlark are read by Python's own parser (`ast`: Starlark's syntax is a subset), so comments,
docstrings and the statement a string belongs to are the parser's answer, not a pattern's. A `.bazelrc` is
one option per line, and a pyproject.toml is read line by line: tomllib keeps no line numbers."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass

from rocm_spirv.migrate.cmake_words import GFX
from rocm_spirv.migrate.findings import FileReport, Finding, Redirect, Rule, W
from rocm_spirv.migrate.make_rules import ARCH_FLAG
from rocm_spirv.offload import LEGACY_PROCESSOR, SPIRV_TARGET

RSM303 = Rule("RSM303", "script-arch-list", W, "a Python or Bazel build description names gfx targets",
              "A gfx list or default in setup.py, pyproject.toml, a BUILD/.bzl file or .bazelrc (PYTORCH_ROCM_ARCH's "
              "default, an allow-list, a branch on a gfx name) decides the code objects before any toolchain file "
              "is read.",
              example=("setup.py", 'import os\nos.environ.setdefault("PYTORCH_ROCM_ARCH", "gfx90a;gfx942")\n'),
              status="preview")
RSM304 = Rule("RSM304", "script-arch-flag", W, "a Python or Bazel build description hard-codes --offload-arch=",
              "A literal --offload-arch=gfx… (or --offload-arch=native) in compile arguments or copts builds native "
              "code objects whatever the target list says.",
              example=("BUILD", 'cc_library(\n    name = "k",\n    copts = ["--offload-arch=gfx90a"],\n)\n'),
              status="preview")
RULES = (RSM303, RSM304)
KINDS = frozenset({"python", "pyproject", "bazel"})  # walk.script_kind's answers

LIST_FIX = ("take the list from the build's environment or command line (PYTORCH_ROCM_ARCH, a --repo_env/--define, "
            f"-C cmake.define.…) and build {SPIRV_TARGET}; an allow-list must accept {SPIRV_TARGET}")
FLAG_FIX = f"drop the literal flag and let the target list decide ({SPIRV_TARGET} under SPIR-V)"
SEPARATORS = re.compile(r"[\s;,]+")
# `-DGPU_TARGETS=gfx90a;gfx942`, `TF_ROCM_AMDGPU_TARGETS=gfx900,gfx906`: a setting whose value is the list
SETTING = re.compile(r"^(?:-D)?[A-Za-z_][A-Za-z0-9_.]*(?::[A-Z]+)?=")
# torch.cuda.get_device_properties(0).gcnArchName read by a build script: the build machine's GPU as the target
DEVICE_ARCH_ATTRIBUTE = "gcnArchName"
# Our own Bazel rules take native targets per library (`archs`, hybrid mode by choice): not a construct to migrate
OWN_BAZEL_RULES = frozenset({"hip_library", "hip_binary", "hip_test"})


def _flag(text: str) -> str | None:
    """The per-arch flag a string carries: `--offload-arch=gfx942`, `-mcpu=gfx90a`, `--offload-arch=native`."""
    for m in ARCH_FLAG.finditer(text):
        value = m.group("value")
        if (GFX.search(value) and SPIRV_TARGET not in value) or value == "native" or \
                LEGACY_PROCESSOR.fullmatch(value):
            return m.group(0)
    return None


def _names(text: str) -> list[str]:
    """The gfx names of a string that is nothing but a target list (`"gfx90a;gfx942"`, `"gfx94"`, a setting
    `-DGPU_TARGETS=gfx942`); none for prose (`"supported: gfx90a, gfx942"`)."""
    value = SETTING.sub("", text.strip(), count=1)
    items = [i.strip("\"'") for i in SEPARATORS.split(value) if i.strip("\"'")]
    if not items or not all(GFX.fullmatch(i) or i in ("native", SPIRV_TARGET) for i in items):
        return []
    return [i for i in items if GFX.fullmatch(i)]


@dataclass(frozen=True)
class _Hit:
    line: int
    rule: Rule
    what: str  # the flag or the names found


def _own_nodes(stmt: ast.stmt) -> Iterator[ast.AST]:
    """The expressions that belong to this statement itself, not to the statements nested in its body: an `if`
    owns its test, a `for` its iterable, a `def` its defaults and decorators, a `match` its case patterns."""
    stack: list[ast.AST] = []
    for child in ast.iter_child_nodes(stmt):
        if isinstance(child, ast.match_case):
            stack += [child.pattern] + ([child.guard] if child.guard is not None else [])
        elif not isinstance(child, (ast.stmt, ast.excepthandler)):
            stack.append(child)
    while stack:
        node = stack.pop()
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _nested(stmt: ast.stmt) -> list[ast.stmt]:
    """The statements of its bodies, in order: `else`, `finally`, except handlers and match cases included."""
    out: list[ast.stmt] = []
    for child in ast.iter_child_nodes(stmt):
        if isinstance(child, ast.stmt):
            out.append(child)
        elif isinstance(child, (ast.ExceptHandler, ast.match_case)):
            out += child.body
    return sorted(out, key=lambda s: (s.lineno, s.col_offset))


def _docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _own_rule_archs(stmt: ast.stmt, bazel: bool) -> set[int]:
    """ids of the `archs = […]` values of calls to our own hip_library/hip_binary/hip_test in a Bazel file."""
    out: set[int] = set()
    if not bazel:
        return out
    for node in _own_nodes(stmt):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in OWN_BAZEL_RULES:
            out |= {id(n) for k in node.keywords if k.arg == "archs" for n in ast.walk(k.value)}
    return out


def _statement_hit(stmt: ast.stmt, bazel: bool) -> _Hit | None:
    """One finding per statement: a literal per-arch flag wins over gfx names (RSM304 says the flag)."""
    skip = _own_rule_archs(stmt, bazel)
    names: list[str] = []
    detects = False
    own = sorted(_own_nodes(stmt), key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
    for node in own:
        if id(node) in skip:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            flag = _flag(node.value)
            if flag is not None:
                return _Hit(stmt.lineno, RSM304, flag)
            names += _names(node.value)
        elif isinstance(node, ast.JoinedStr):
            # f"--offload-arch=gfx{n}": a template that can only name gfx targets
            parts = [v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
            if any(re.search(r"(?:--offload-arch|--amdgpu-target|-mcpu)=gfx$", p) for p in parts):
                return _Hit(stmt.lineno, RSM304, "--offload-arch=gfx{…} (names only gfx targets)")
        elif isinstance(node, ast.Attribute) and node.attr == DEVICE_ARCH_ATTRIBUTE:
            detects = True
    if names:
        return _Hit(stmt.lineno, RSM303, " ".join(dict.fromkeys(names)))
    if detects:
        return _Hit(stmt.lineno, RSM303, f"{DEVICE_ARCH_ATTRIBUTE} (the build machine's GPU)")
    return None


def _python_hits(tree: ast.Module, bazel: bool) -> list[_Hit]:
    hits: list[_Hit] = []
    stack: list[ast.stmt] = list(reversed(tree.body))
    while stack:
        stmt = stack.pop()
        hit = None if _docstring(stmt) else _statement_hit(stmt, bazel)
        if hit is not None:
            hits.append(hit)
            if isinstance(stmt, ast.If):
                # what a branch on gfx names does is part of it; an `elif` is a test of its own
                elif_ = stmt.orelse[0] if len(stmt.orelse) == 1 and isinstance(stmt.orelse[0], ast.If) else None
                stack.extend([elif_] if elif_ is not None else [])
                continue
        stack.extend(reversed(_nested(stmt)))
    return sorted(hits, key=lambda h: h.line)


def _token_hits(text: str) -> list[_Hit]:
    """What Python's parser rejects (a Python 2 setup.py, Starlark beyond Python's grammar) read by its
    tokenizer: one finding per logical line, at its first line; a line that is only a string (a docstring) and
    comments say nothing."""
    hits: list[_Hit] = []
    start, other = 0, False
    strings: list[str] = []
    skip = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)

    def flush() -> None:
        found = [v for v in strings if _flag(v)]
        names = [n for v in strings for n in _names(v)]
        if other and (found or names):
            flag = _flag(found[0]) if found else None
            hits.append(_Hit(start, RSM304 if flag else RSM303, flag or " ".join(dict.fromkeys(names))))
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in skip:
            continue
        if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            flush()
            start, strings, other = 0, [], False
            continue
        start = start or tok.start[0]
        if tok.type == tokenize.STRING:
            strings.append(tok.string.lstrip("rRbBuUfF").strip("\"'"))
        else:
            other = True
    return hits


TOML_KEY = re.compile(r'^\s*(?:""|[A-Za-z0-9_-]+)(?:\s*\.\s*(?:""|[A-Za-z0-9_-]+))*\s*=')  # strings already ""
TOML_TABLE = re.compile(r"^\s*\[\[?\s*(?P<name>[^\]]+?)\s*\]\]?")
TOML_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'')


def _toml_hits(text: str) -> list[_Hit]:
    """Strings in pyproject.toml outside the [project] metadata (keywords, classifiers): a key's multi-line
    array is one statement, anchored at the key."""
    hits: list[_Hit] = []
    table, anchor, depth, reported = "", 0, 0, False
    for no, raw in enumerate(text.splitlines(), 1):
        strings = TOML_STRING.findall(raw)
        code = TOML_STRING.sub('""', raw)
        if "#" in code:  # a comment: the strings after it are not values
            code = code.split("#", 1)[0]
            del strings[code.count('""'):]
        if depth == 0:
            m = TOML_TABLE.match(code)
            if m is not None:
                table = m.group("name").strip()
                continue
            if TOML_KEY.match(code):
                anchor, reported = no, False
        depth = max(0, depth + code.count("[") + code.count("{") - code.count("]") - code.count("}"))
        if reported or table == "project" or table.startswith("project."):
            continue
        for s in strings:
            hit = _flag(s[1:-1])
            names = [] if hit else _names(s[1:-1])
            if hit or names:
                hits.append(_Hit(anchor or no, RSM304 if hit else RSM303, hit or " ".join(names)))
                reported = True
                break
    return hits


def _bazelrc_hits(text: str) -> list[_Hit]:
    """One option line each: `build:rocm --action_env=TF_ROCM_AMDGPU_TARGETS=gfx900,gfx906`."""
    hits: list[_Hit] = []
    for no, raw in enumerate(text.splitlines(), 1):
        words = raw.split(" #", 1)[0].split()
        if words and words[0].startswith("#"):
            continue
        if not words:
            continue
        flag = next((f for w in words[1:] if (f := _flag(w)) is not None), None)
        if flag is not None:
            hits.append(_Hit(no, RSM304, flag))
            continue
        names = [n for w in words[1:] for n in _names(w.split("=", 1)[-1].strip("\"'"))]
        if names:
            hits.append(_Hit(no, RSM303, " ".join(dict.fromkeys(names))))
    return hits


def analyze(path: str, text: str, kind: str) -> FileReport:
    report = FileReport(path, kind)
    if "gfx" not in text and "offload-arch" not in text and "amdgpu-target" not in text and "-mcpu=" not in text \
            and DEVICE_ARCH_ATTRIBUTE not in text:
        return report
    name = path.rsplit("/", 1)[-1]
    if kind == "pyproject":
        hits = _toml_hits(text)
    elif name.endswith(".bazelrc"):
        hits = _bazelrc_hits(text)
    else:
        try:
            hits = _python_hits(ast.parse(text, filename=path), kind == "bazel")
        except (SyntaxError, ValueError, MemoryError):  # Python 2, a NUL byte, Starlark Python cannot parse
            try:
                hits = _token_hits(text)
            except (SyntaxError, tokenize.TokenError) as err:
                report.error = f"not readable as Python: {err}; its gfx lists were not checked"
                return report
    lines = text.splitlines()
    for hit in hits:
        snippet = lines[hit.line - 1].strip()[:120] if hit.line <= len(lines) else ""
        if hit.rule is RSM304:
            message = f"{hit.what}: a hard-coded per-arch flag in a {_what(kind, name)}"
            fix = FLAG_FIX
        else:
            message = f"names {hit.what}: a per-arch target list or test in a {_what(kind, name)}"
            fix = LIST_FIX
        report.findings.append(Finding(hit.rule, path, hit.line, 1, message, fix, Redirect.BUILD_FILE, False, snippet))
    return report


def _what(kind: str, name: str) -> str:
    if kind == "pyproject":
        return "pyproject.toml setting"
    if kind == "python":
        return "Python build script"
    return ".bazelrc option" if name.endswith(".bazelrc") else "Bazel build file"
