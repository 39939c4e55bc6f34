"""A tokenizer and command parser for the CMake language that keeps exact source offsets.

Follows the grammar of cmake-language(7) and the legacy forms cmListFileLexer accepts:
quoted arguments (escapes, `\\<newline>` continuations), bracket arguments `[==[ … ]==]`,
bracket comments `#[[ … ]]`, line comments, unquoted arguments with embedded `"…"` and
`$(MAKEVAR)`, and nested parentheses inside a command's arguments. Every token carries its
start/end offsets and line/column, so callers can edit the source without reformatting it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from rocm_spirv.errors import RocmSpirvError


class Kind(Enum):
    SPACE = "space"
    NEWLINE = "newline"
    LINE_COMMENT = "line_comment"
    BRACKET_COMMENT = "bracket_comment"
    IDENT = "ident"
    LPAREN = "lparen"
    RPAREN = "rparen"
    UNQUOTED = "unquoted"
    QUOTED = "quoted"
    BRACKET = "bracket"


@dataclass(frozen=True, slots=True)
class Token:
    kind: Kind
    text: str
    start: int
    end: int
    line: int
    col: int


class CMakeSyntaxError(RocmSpirvError, ValueError):
    def __init__(self, message: str, line: int) -> None:
        self.lineno = line
        super().__init__(f"line {line}: {message}")


# As CMake's lexer (Source/LexerParser/cmListFileLexer.in.l): only \n ends a line (a CRLF is read as
# LF); a lone \r is blank space between arguments and an ordinary character inside a comment, so
# `# note\radd_library(k)` is one comment line to CMake, and must be to every rule that edits it.
_SPACE = re.compile(r"(?:[ \t]|\r(?!\n))+")
_NEWLINE = re.compile(r"\r?\n")
_BRACKET_OPEN = re.compile(r"\[(=*)\[")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LINE_COMMENT = re.compile(r"#(?:[^\r\n]|\r(?!\n))*")
_UNQ_CHAR = r'(?:[^ \t\r\n()#"\\]|\\[\s\S])'
_MAKEVAR = r"\$\([A-Za-z0-9_]*\)"
_LEGACY = rf'(?:{_MAKEVAR}|{_UNQ_CHAR}|"(?:{_MAKEVAR}|{_UNQ_CHAR}|[ \t\[=])*")'
_UNQUOTED = re.compile(rf"(?:{_MAKEVAR}|{_UNQ_CHAR})(?:{_LEGACY})*")


def _bracket_end(src: str, pos: int, equals: str, line: int, what: str) -> int:
    close = f"]{equals}]"
    idx = src.find(close, pos)
    if idx < 0:
        raise CMakeSyntaxError(f"unterminated {what} (missing {close})", line)
    return idx + len(close)


def _quoted_end(src: str, pos: int, line: int) -> int:
    """pos is just after the opening quote; returns the offset after the closing quote."""
    i = pos
    n = len(src)
    while i < n:
        c = src[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i + 1
        i += 1
    raise CMakeSyntaxError("unterminated quoted argument", line)


def tokenize(src: str) -> list[Token]:
    """Split CMake source into tokens covering every character exactly once."""
    tokens: list[Token] = []
    pos = 0
    line = 1
    line_start = 0
    depth = 0
    n = len(src)
    while pos < n:
        c = src[pos]
        kind: Kind
        end: int
        if c in " \t" or (c == "\r" and src[pos + 1 : pos + 2] != "\n"):
            m = _SPACE.match(src, pos)
            assert m is not None
            kind, end = Kind.SPACE, m.end()
        elif c in "\r\n":
            m = _NEWLINE.match(src, pos)
            assert m is not None
            kind, end = Kind.NEWLINE, m.end()
        elif c == "#":
            b = _BRACKET_OPEN.match(src, pos + 1)
            if b is not None:
                kind, end = Kind.BRACKET_COMMENT, _bracket_end(src, b.end(), b.group(1), line, "bracket comment")
            else:
                m = _LINE_COMMENT.match(src, pos)
                assert m is not None
                kind, end = Kind.LINE_COMMENT, m.end()
        elif c == "(":
            kind, end = Kind.LPAREN, pos + 1
            depth += 1
        elif c == ")":
            if depth == 0:
                raise CMakeSyntaxError("unbalanced ')'", line)
            kind, end = Kind.RPAREN, pos + 1
            depth -= 1
        elif depth == 0:
            m = _IDENT.match(src, pos)
            if m is None:
                raise CMakeSyntaxError(f"expected a command name, found {c!r}", line)
            kind, end = Kind.IDENT, m.end()
        elif c == '"':
            kind, end = Kind.QUOTED, _quoted_end(src, pos + 1, line)
        else:
            b = _BRACKET_OPEN.match(src, pos) if c == "[" else None
            if b is not None:
                kind, end = Kind.BRACKET, _bracket_end(src, b.end(), b.group(1), line, "bracket argument")
            else:
                m = _UNQUOTED.match(src, pos)
                if m is None:  # a lone backslash at the end of the file
                    raise CMakeSyntaxError("invalid escape at end of input", line)
                kind, end = Kind.UNQUOTED, m.end()
        text = src[pos:end]
        tokens.append(Token(kind, text, pos, end, line, pos - line_start + 1))
        newlines = text.count("\n")
        if newlines:
            line += newlines
            line_start = pos + text.rfind("\n") + 1
        pos = end
    if depth:
        raise CMakeSyntaxError("unterminated command (missing ')')", line)
    return tokens


# --- arguments and commands -------------------------------------------------------------

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", ";": "\\;", "0": "\0"}


def unescape(raw: str) -> str:
    """Evaluate escape sequences; `\\<newline>` is a line continuation (only valid in quotes)."""
    if "\\" not in raw:
        return raw
    out: list[str] = []
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == "\\" and i + 1 < len(raw):
            nxt = raw[i + 1]
            if nxt == "\n":
                i += 2
                continue
            if nxt == "\r" and raw[i + 2 : i + 3] == "\n":
                i += 3
                continue
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


@dataclass(frozen=True, slots=True)
class Arg:
    """One argument: kind is quoted, unquoted, bracket or paren; value is its evaluated text."""

    kind: str
    raw: str
    value: str
    start: int
    end: int
    line: int


@dataclass(frozen=True, slots=True)
class Command:
    name: str  # lower case; CMake command names are case-insensitive
    args: tuple[Arg, ...]
    start: int  # offset of the command name
    end: int  # offset after the closing ')'
    line: int
    end_line: int
    indent: str  # whitespace before the name on its line ("" if not first on the line)

    def values(self) -> list[str]:
        return [a.value for a in self.args if a.kind != "paren"]


def _arg(tok: Token) -> Arg:
    if tok.kind is Kind.QUOTED:
        value = unescape(tok.text[1:-1])
    elif tok.kind is Kind.BRACKET:
        b = _BRACKET_OPEN.match(tok.text)
        assert b is not None
        body = tok.text[b.end() : len(tok.text) - b.end()]
        value = body[1:] if body.startswith("\n") else body[2:] if body.startswith("\r\n") else body
    else:
        value = unescape(tok.text)
    kind = {Kind.QUOTED: "quoted", Kind.BRACKET: "bracket"}.get(tok.kind, "unquoted")
    return Arg(kind, tok.text, value, tok.start, tok.end, tok.line)


def parse(src: str) -> list[Command]:
    """Commands in source order. Raises CMakeSyntaxError on malformed input."""
    tokens = tokenize(src)
    commands: list[Command] = []
    i = 0
    n = len(tokens)
    while i < n:
        tok = tokens[i]
        if tok.kind is not Kind.IDENT:
            i += 1
            continue
        j = i + 1
        while j < n and tokens[j].kind is Kind.SPACE:
            j += 1
        if j >= n or tokens[j].kind is not Kind.LPAREN:
            raise CMakeSyntaxError(f"expected '(' after {tok.text}", tok.line)
        depth = 0
        args: list[Arg] = []
        k = j
        while k < n:
            t = tokens[k]
            if t.kind is Kind.LPAREN:
                depth += 1
                if depth > 1:
                    args.append(Arg("paren", "(", "(", t.start, t.end, t.line))
            elif t.kind is Kind.RPAREN:
                depth -= 1
                if depth == 0:
                    break
                args.append(Arg("paren", ")", ")", t.start, t.end, t.line))
            elif t.kind in (Kind.QUOTED, Kind.BRACKET, Kind.UNQUOTED):
                args.append(_arg(t))
            k += 1
        close = tokens[k]
        line_begin = src.rfind("\n", 0, tok.start) + 1
        prefix = src[line_begin : tok.start]
        indent = prefix if prefix.strip(" \t") == "" else ""
        commands.append(Command(tok.text.lower(), tuple(args), tok.start, close.end, tok.line, close.line, indent))
        i = k + 1
    return commands


# --- references inside argument values ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ref:
    """A `${name}`, `$ENV{name}`, `$CACHE{name}` or `$<genex>` inside a value."""

    kind: str  # var, env, cache, genex
    name: str  # variable name, or the whole genex body
    start: int
    end: int


_REF_OPEN = re.compile(r"\$(ENV|CACHE)?\{|\$<")


def refs(value: str) -> list[Ref]:
    """References in value, outermost first then nested ones, with balanced braces/angles."""
    found: list[Ref] = []
    for m in _REF_OPEN.finditer(value):
        is_genex = m.group(0) == "$<"
        open_c, close_c = ("<", ">") if is_genex else ("{", "}")
        depth = 1
        i = m.end()
        while i < len(value) and depth:
            if value[i] == close_c:
                depth -= 1
            elif value.startswith("$<" if is_genex else "{", i) or (not is_genex and value[i] == open_c):
                depth += 1
            i += 1
        if depth:
            continue  # unterminated: not a reference
        body = value[m.end() : i - 1]
        kind = "genex" if is_genex else (m.group(1) or "var").lower()
        found.append(Ref(kind, body, m.start(), i))
    return found


def split_list(value: str) -> list[str]:
    """Split a CMake list on unescaped semicolons, dropping empty elements (as most commands do)."""
    if "\\" not in value and "[" not in value:  # the usual case, at C speed (a 4 MiB file calls this ~10^6 times)
        return [x for x in value.split(";") if x]
    items: list[str] = []
    cur: list[str] = []
    depth = 0
    i = 0
    while i < len(value):
        c = value[i]
        if c == "\\" and value[i + 1 : i + 2] == ";":
            cur.append(";")
            i += 2
            continue
        if c == "[":
            depth += 1
        elif c == "]" and depth:
            depth -= 1
        if c == ";" and depth == 0:
            items.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    items.append("".join(cur))
    return [x for x in items if x]
