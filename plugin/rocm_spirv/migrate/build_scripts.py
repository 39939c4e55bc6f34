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
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Literal

from rocm_spirv.migrate.cmake_checks.flags import BACKEND_OPTION_FIX, RSM105
from rocm_spirv.migrate.cmake_words import DETECT, GFX
from rocm_spirv.migrate.findings import FileReport, Finding, Redirect, Rule, W
from rocm_spirv.migrate.make_rules import ARCH_FLAG, BACKEND_OPTION, names_gpu
from rocm_spirv.migrate.walk import SCRIPT_KINDS
from rocm_spirv.offload import ARCH_FLAG_OPTIONS, ARCH_OPTION_PATTERN, PROCESSOR_PATTERN, SPIRV_TARGET

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
KINDS = SCRIPT_KINDS
# Python's syntax tree takes ~190 bytes per source byte (a 1 MiB setup.py: 190 MB, 3.3 s); the largest real
# build description in the blind corpus is 57 KB
MAX_PARSED = 1 << 20

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
        # -mcpu=native in a host compiler's flags tunes for the build machine's CPU: only --offload-arch=native
        # names its GPU
        native = value == "native" and m.group(0).startswith("--offload-arch")
        if names_gpu(value) or native:
            return m.group(0)
    return None


# `-DROCM_GFX950=1`, `-DGGML_HIP_GFX906`: a macro named for one GPU that the build defines for every compile
GFX_MACRO_DEFINE = re.compile(r"(?<![\w-])-D(?P<name>[A-Za-z_]\w*?GFX[0-9]\w*)", re.IGNORECASE)
# a Bazel --define naming a gfx target (`--define=gfx950=true`), which config_settings select on
BAZEL_ARCH_DEFINE = re.compile(r"^--define=(?P<name>gfx[0-9][0-9a-z]*)=", re.IGNORECASE)


def _define(text: str) -> str | None:
    """The per-arch macro a flag string defines."""
    m = GFX_MACRO_DEFINE.search(text)
    return None if m is None else f"-D{m.group('name')}"


# a gfx name inside a longer string: a ROCm distribution built for one family (`"rocm_7.13.0_gfx94X"`,
# `".../therock-dist-linux-gfx908-7.12.0.tar.gz"`); a processor of offload's vocabulary, or one of TheRock's family
# names (a trailing X)
EMBEDDED_GFX = re.compile(rf"(?<![A-Za-z0-9])(?:{PROCESSOR_PATTERN}|gfx[0-9]{{2,4}}X)(?![A-Za-z0-9])")


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
    kind: Part | Literal[""] = ""  # the part that made it


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


# The parts of one statement, strongest first: a literal flag, gfx names, the build machine's GPU (an environment
# default of "native", or a detection), a test that reads gfx names (a "gfx" prefix, a regex: how a detection
# parses a tool's output, or a construct of its own elsewhere), an AMDGPU backend option
Part = Literal["flag", "names", "fallback", "native", "detect", "parse", "match", "backend"]
ENV_GETTERS = frozenset({"getenv", "get", "setdefault"})  # os.getenv(…), os.environ.get(…), os.environ.setdefault(…)
REGEX_CALLS = frozenset({"search", "match", "fullmatch", "findall", "finditer", "compile", "sub", "fnmatch"})
PREFIX = "a test of the gfx prefix (amdgcnspirv fails it)"
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
SAY_CALLS = re.compile(r"^(?:print|warn|debug|info|warning|log)$")  # print(), warnings.warn(), logger.info()
# a call that stops the build: an allow-list's rejection
FAIL_CALLS = re.compile(r"^(?:fail|\w*_fail|exit|abort)$")
GFX_PATTERN = re.compile(r"gfx(?:[0-9]|\[|\\d|\()")  # a regex over gfx names: "_gfx1[12]", "^gfx9"


@dataclass(frozen=True)
class _Part:
    kind: Part
    what: str


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _env_default(node: ast.Call) -> str | None:
    """The default of os.getenv("X", d) / os.environ.get("X", d) / os.environ.setdefault("X", d)."""
    if _call_name(node) in ENV_GETTERS and len(node.args) == 2 and isinstance(node.args[1], ast.Constant) and \
            isinstance(node.args[0], ast.Constant) and isinstance(node.args[1].value, str):
        return node.args[1].value
    return None


def _filters(node: ast.AST, lists: frozenset[str]) -> bool:
    """A membership test against a gfx list the file sets (`if arch in SUPPORTED:`, `[a for a in archs if a in
    SUPPORTED]`) or a set intersection with one (`set(SUPPORTED) & set(archs)`, `.intersection(SUPPORTED)`): an
    allow-list, which drops or rejects amdgcnspirv."""
    def named(n: ast.AST) -> bool:
        if isinstance(n, ast.Call) and _call_name(n) in ("set", "frozenset", "list") and n.args:
            n = n.args[0]
        return isinstance(n, ast.Name) and n.id in lists
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd):
        return named(node.left) or named(node.right)
    if isinstance(node, ast.Call) and _call_name(node) == "intersection":
        return any(named(a) for a in node.args) or (isinstance(node.func, ast.Attribute) and named(node.func.value))
    if isinstance(node, ast.Compare):
        return any(isinstance(op, (ast.In, ast.NotIn)) and named(c)
                   for op, c in zip(node.ops, node.comparators, strict=True))
    return False


OFFLOAD_OPTIONS = tuple(f"{o}=" for o in ARCH_FLAG_OPTIONS)  # the device compiler's spellings, one home
# f"--offload-arch=gfx{n}" (or -mcpu=gfx{n}): a template that can only name gfx targets
GFX_TEMPLATE = re.compile(rf"(?<![\w-]){ARCH_OPTION_PATTERN}=gfx$")


def _offload_names(tree: ast.AST) -> frozenset[str]:
    """Names an f-string puts after an arch flag (`f"--offload-arch={__ARCH__}"`)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            for before, value in zip(node.values, node.values[1:], strict=False):
                if isinstance(before, ast.Constant) and str(before.value).endswith(OFFLOAD_OPTIONS) and \
                        isinstance(value, ast.FormattedValue) and isinstance(value.value, ast.Name):
                    out.add(value.value.id)
    return frozenset(out)


def _native_binding(stmt: ast.stmt, offload: frozenset[str]) -> str | None:
    """`__ARCH__ = "native"` where an f-string passes __ARCH__ to --offload-arch: the build machine's GPU."""
    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant) and stmt.value.value == "native":
        return next((t.id for t in stmt.targets if isinstance(t, ast.Name) and t.id in offload), None)
    return None


def _distribution(stmt: ast.stmt) -> str | None:
    """A Starlark module constant whose string names a gfx build (`ROCM_URL = ".../dist-linux-gfx908-…"`): the
    hermetic ROCm the build downloads by default, built for that family only."""
    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str) \
            and not _names(stmt.value.value) and (m := EMBEDDED_GFX.search(stmt.value.value)):
        return m.group(0)
    return None


def _parts(stmt: ast.stmt, bazel: bool, lists: frozenset[str] = frozenset(),
           offload: frozenset[str] = frozenset(), local: frozenset[str] = frozenset(),
           module: bool = False) -> list[_Part]:
    """What one statement carries that is per-arch, in source order. local: the gfx lists bound in the
    statement's own function (or module); module: the statement is at the file's top level."""
    skip = _own_rule_archs(stmt, bazel)
    out: list[_Part] = []
    strings: list[str] = []
    # a membership test that rejects (`assert a in ALLOWED`, `if a not in ALLOWED: raise`) beside its list, in
    # the same function, is the allow-list's own check, reported with the list; one in another function (a
    # module's SUPPORTED enforced where an environment value is read), or one that filters (keeps members,
    # drops the rest), is a construct of its own
    rejects = isinstance(stmt, ast.Assert) or (isinstance(stmt, ast.If) and _rejects(stmt))
    # `if t in PREBUILT: … else: build it` chooses between two ways of building t; a filter drops the others
    chooses = isinstance(stmt, ast.If) and not _only_says_or_nothing(stmt.orelse)
    lists = frozenset() if chooses else lists - local if rejects else lists
    if (bound := _native_binding(stmt, offload)) is not None:
        out.append(_Part("native", f'{bound} = "native", passed to --offload-arch'))
    if bazel and module and (family := _distribution(stmt)) is not None:
        out.append(_Part("names", f"{family} (a ROCm distribution built for it)"))
    if isinstance(stmt, (ast.For, ast.AsyncFor)) and isinstance(stmt.iter, ast.Name) and stmt.iter.id in lists:
        # in a detector, `for s in SUPPORTED: if s in line:` matches the tool's answer against the list
        out.append(_Part("match", f"the build machine's GPU matched against {stmt.iter.id}"))
    own = sorted(_own_nodes(stmt), key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
    for node in own:
        if id(node) in skip:
            continue
        if lists and _filters(node, lists):
            out.append(_Part("names", "an allow-list check against a gfx list (amdgcnspirv is rejected)" if rejects
                             else "a filter through a gfx list (amdgcnspirv is dropped)"))
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            strings.append(node.value)
            flag = _flag(node.value)
            if flag is not None:
                out.append(_Part("flag", flag))
            elif define := _define(node.value):
                out.append(_Part("names", f"{define} (a per-arch macro every compile gets)"))
            elif names := _names(node.value):
                out.append(_Part("names", " ".join(names)))
            elif node.value == DEVICE_ARCH_ATTRIBUTE or (DETECT.search(node.value) and " " not in node.value.strip()):
                out.append(_Part("detect", node.value))  # getattr(props, "gcnArchName"), ["rocminfo"]
        elif isinstance(node, ast.JoinedStr):
            parts = [v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
            if any(GFX_TEMPLATE.search(p) for p in parts):
                out.append(_Part("flag", "--offload-arch=gfx{…} (names only gfx targets)"))
            elif any(p.endswith("-D__") for p in parts):
                # f"-D__{arch}__": the arch macro clang defines only in that GPU's device pass, now in every pass
                out.append(_Part("names", "-D__{target}__ (an arch macro defined in every pass, host included)"))
        elif isinstance(node, ast.Attribute) and node.attr == DEVICE_ARCH_ATTRIBUTE:
            out.append(_Part("detect", DEVICE_ARCH_ATTRIBUTE))
        elif isinstance(node, ast.Call):
            if _env_default(node) == "native":
                out.append(_Part("native", f"{ast.unparse(node.func)}(…, \"native\")"))
            elif _call_name(node) in REGEX_CALLS and any(
                    isinstance(a, ast.Constant) and isinstance(a.value, str) and GFX_PATTERN.search(a.value)
                    for a in node.args):
                out.append(_Part("parse", "a pattern over gfx names"))
            elif _call_name(node) == "startswith" and any(
                    isinstance(a, ast.Constant) and a.value == "gfx" for a in node.args):
                out.append(_Part("parse", PREFIX))
        elif isinstance(node, ast.Compare) and any(
                isinstance(c, ast.Constant) and c.value == "gfx" for c in [node.left, *node.comparators]):
            out.append(_Part("parse", PREFIX))  # x[:3] != "gfx"
    backend = BACKEND_OPTION.search(" ".join(strings))
    if backend is not None:
        out.append(_Part("backend", f"-mllvm {backend.group('option')}"))
    return out


def _hit(line: int, parts: list[_Part]) -> _Hit | None:
    """One finding per statement: a literal flag wins (RSM304), then gfx names and the build machine's GPU
    (RSM303); a backend option (RSM105) is said in that finding, or is the finding."""
    rank: tuple[Part, ...] = ("flag", "names", "native", "detect", "parse", "match")
    main = min((p for p in parts if p.kind in rank), key=lambda p: rank.index(p.kind), default=None)
    backend = next((p for p in parts if p.kind == "backend"), None)
    if main is None:
        return None if backend is None else _Hit(line, RSM105, backend.what, "backend")
    if main.kind == "names":
        what = " ".join(dict.fromkeys(w for p in parts if p.kind == "names" for w in p.what.split()
                                      if GFX.fullmatch(w))) or main.what
    elif main.kind == "native":
        what = f"{main.what}: the build machine's GPU"
    elif main.kind == "detect":
        what = f"{main.what} (the build machine's GPU)"
    else:
        what = main.what
    extra = f"; it also passes the backend option {backend.what}, which the SPIR-V JIT does not see" if backend else ""
    return _Hit(line, RSM304 if main.kind == "flag" else RSM303, what + extra, main.kind)


def _rejects(stmt: ast.If) -> bool:
    """The branch stops the build: raise, fail(), auto_configure_fail(), sys.exit()."""
    return any(isinstance(n, ast.Raise) or (isinstance(n, ast.Call) and FAIL_CALLS.match(_call_name(n)) is not None)
               for b in stmt.body for n in ast.walk(b))


def _only_says_or_nothing(body: list[ast.stmt]) -> bool:
    """Every statement prints, warns or logs, or passes (an empty list too)."""
    return all(isinstance(b, (ast.Pass, ast.Continue)) or (isinstance(b, ast.Expr) and isinstance(b.value, ast.Call)
               and SAY_CALLS.match(_call_name(b.value)) is not None) for b in body)


def _only_says(stmt: ast.If) -> bool:
    """Every statement of the branch (and of its else) prints, warns or logs."""
    return _only_says_or_nothing(stmt.body + stmt.orelse)


def _scoped(tree: ast.Module) -> Iterator[tuple[ast.stmt, ast.AST | None]]:
    """Every statement with the function it is in (None: the module's top level)."""
    stack: list[tuple[ast.stmt, ast.AST | None]] = [(s, None) for s in tree.body]
    while stack:
        stmt, scope = stack.pop()
        yield stmt, scope
        inner = stmt if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) else scope
        stack.extend((s, inner) for s in _nested(stmt))


def _python_hits(tree: ast.Module, bazel: bool, text: str = "") -> list[_Hit]:
    """Statement by statement, with the function each is in. The build machine's GPU: a function that detects
    it (runs rocminfo, reads gcnArchName) is reported where the file calls it, the statement that makes its
    answer the build's target; the "gfx" tests and regexes that parse the tool's output are part of it, and
    hard-coded fallbacks it returns are constructs of their own. Beside an environment default of "native", the
    detection is how that default is resolved; in a function that tests gfx names of its own while reading the
    tool's answer (`line != "gfx000" and line in SUPPORTED`), it is part of that test. A "gfx" prefix test that
    stops the build is an allow-list. In a setup script, a function nothing in the file names again is dead: its
    findings go."""
    hits: list[tuple[_Hit, ast.AST | None]] = []
    calls: dict[str, list[int]] = {}
    # names the file binds to a gfx list, in any scope: `allowed = {"gfx942", "gfx950"}` inside `if rocm:`,
    # by the function they are bound in (None: the module)
    bound: dict[int, set[str]] = {}
    for s, in_scope in _scoped(tree):
        if isinstance(s, (ast.Assign, ast.AnnAssign)) and any(p.kind == "names" for p in _parts(s, bazel)):
            bound.setdefault(id(in_scope), set()).update(
                t.id for t in (s.targets if isinstance(s, ast.Assign) else [s.target]) if isinstance(t, ast.Name))
    lists = frozenset(n for names in bound.values() for n in names)
    offload = _offload_names(tree)
    stack: list[tuple[ast.stmt, ast.AST | None]] = [(s, None) for s in reversed(tree.body)]
    while stack:
        stmt, scope = stack.pop()
        for node in _own_nodes(stmt):
            if isinstance(node, ast.Call) and _call_name(node):
                calls.setdefault(_call_name(node), []).append(stmt.lineno)
        hit = None if _docstring(stmt) else _hit(stmt.lineno, _parts(
            stmt, bazel, lists, offload, frozenset(bound.get(id(scope), ())), scope is None))
        if hit is not None and hit.kind == "parse" and isinstance(stmt, ast.If) and _rejects(stmt):
            hit = replace(hit, kind="names")
        if hit is not None and hit.kind == "names" and isinstance(stmt, ast.Return) and \
                isinstance(stmt.value, ast.Constant):
            hit = replace(hit, kind="fallback")  # `return "gfx942"` when detection fails: a default of its own
        if hit is not None and isinstance(stmt, ast.If) and _only_says(stmt):
            continue  # a branch that only warns or prints picks no build content
        if hit is not None and isinstance(stmt, ast.If) and hit.kind == "backend":
            hit = None  # `if check_flag("-mllvm -amdgpu-…"):` probes the option; the body passes it
        if hit is not None:
            hits.append((hit, scope))
            if isinstance(stmt, ast.If) and hit.kind != "backend":
                # what a branch on gfx names does is part of it; an `elif` is a test of its own
                elif_ = stmt.orelse[0] if len(stmt.orelse) == 1 and isinstance(stmt.orelse[0], ast.If) else None
                stack.extend([(elif_, scope)] if elif_ is not None else [])
                continue
        inner = stmt if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) else scope
        stack.extend((s, inner) for s in reversed(_nested(stmt)))
    kinds: dict[int, set[str]] = {}
    for h, scope in hits:
        kinds.setdefault(id(scope), set()).add(h.kind)
    out: list[_Hit] = []
    moved: set[int] = set()
    # a setup script's function whose name the file never mentions again: nothing runs it (a .bzl macro is
    # loaded by BUILD files, so only setup scripts are judged)
    words = Counter(WORD.findall(text)) if not bazel else Counter()
    dead = {id(f) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
            and words[f.name] == 1}
    for h, scope in hits:
        own = kinds[id(scope)]
        function = isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef))
        if id(scope) in dead:
            continue
        if h.kind == "parse" and "detect" in own:
            continue  # `re.search(r"Name:\s+(gfx…)", out)` over rocminfo's lines: how the detection reads its answer
        if h.kind == "match" and "detect" not in own:
            continue  # a loop over the file's own gfx list elsewhere turns that list (the construct) into flags
        if h.kind != "detect":
            out.append(h)
        elif "native" in own or (function and own & {"names", "flag", "match"}):
            continue  # resolves a "native" default, or is read through the function's own gfx tests (mori, xla)
        elif isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and calls.get(scope.name):
            if id(scope) not in moved:  # one finding per calling statement, none inside the detector
                moved.add(id(scope))
                out += [replace(h, line=n, what=f"{scope.name}() returns the build machine's GPU", kind="names")
                        for n in sorted(set(calls[scope.name]))]
        else:
            out.append(h)
    return sorted(set(out), key=lambda h: (h.line, h.rule.id))


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
        defines = [d for w in words[1:] if (d := _define(w) or (
            f"--define={m.group('name')}" if (m := BAZEL_ARCH_DEFINE.match(w)) else None))]
        if names:
            hits.append(_Hit(no, RSM303, " ".join(dict.fromkeys(names))))
        elif defines:
            hits.append(_Hit(no, RSM303, f"{defines[0]} (a per-arch switch every build of this config gets)"))
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
    elif len(text) > MAX_PARSED:
        report.error = f"larger than {MAX_PARSED >> 20} MiB, which no hand-written build description is; not parsed"
        return report
    else:
        try:
            hits = _python_hits(ast.parse(text, filename=path), kind == "bazel", text)
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
        elif hit.rule is RSM105:
            message = f"backend option {hit.what} in a {_what(kind, name)}"
            fix = BACKEND_OPTION_FIX
        else:
            lead = f"names {hit.what}" if GFX.match(hit.what) else hit.what
            message = f"{lead}: a per-arch target list or test in a {_what(kind, name)}"
            fix = LIST_FIX
        report.findings.append(Finding(hit.rule, path, hit.line, 1, message, fix, Redirect.BUILD_FILE, False, snippet))
    return report


def _what(kind: str, name: str) -> str:
    if kind == "pyproject":
        return "pyproject.toml setting"
    if kind == "python":
        return "Python build script"
    return ".bazelrc option" if name.endswith(".bazelrc") else "Bazel build file"
