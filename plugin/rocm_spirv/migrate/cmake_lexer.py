"""A tokenizer and command parser for the CMake language that keeps exact source offsets.

Follows the grammar of cmake-language(7) and the legacy forms cmListFileLexer accepts:
quoted arguments (escapes, `\\<newline>` continuations), bracket arguments `[==[ … ]==]`,
bracket comments `#[[ … ]]`, line comments, unquoted arguments with embedded `"…"` and
`$(MAKEVAR)`, and nested parentheses inside a command's arguments. Every token carries its
start/end offsets and line/column, so callers can edit the source without reformatting it.
"""

from __future__ import annotations

import gc
import re
from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

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


class Token(NamedTuple):  # a tuple: a 4 MiB file has ~10^6 tokens, and a frozen dataclass is 3x slower to make
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
_SPACE = r"(?:[ \t]|\r(?!\n))+"
_BRACKET_OPEN = re.compile(r"\[(=*)\[")
_LINE_COMMENT = r"#(?:[^\r\n]|\r(?!\n))*"
_UNQ_CHAR = r'(?:[^ \t\r\n()#"\\]|\\[\s\S])'
_MAKEVAR = r"\$\([A-Za-z0-9_]*\)"
_LEGACY = rf'(?:{_MAKEVAR}|{_UNQ_CHAR}|"(?:{_MAKEVAR}|{_UNQ_CHAR}|[ \t\[=])*")'
_UNQUOTED = rf"(?:{_MAKEVAR}|{_UNQ_CHAR})(?:{_LEGACY})*"
_COMMON = (rf"(?P<space>{_SPACE})|(?P<newline>\r?\n)|(?P<bracket_comment>#\[(?P<ceq>=*)\[[\s\S]*?\](?P=ceq)\])"
           rf"|(?P<line_comment>{_LINE_COMMENT})|(?P<lparen>\()|(?P<rparen>\))")
# One pattern per state: outside a command's parentheses a name, inside them an argument (the first
# alternative that matches wins, as in CMake's lexer).
_TOP = re.compile(rf"{_COMMON}|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)")
_INNER = re.compile(rf'{_COMMON}|(?P<quoted>"(?:[^"\\]|\\[\s\S])*")'
                    rf"|(?P<bracket>\[(?P<beq>=*)\[[\s\S]*?\](?P=beq)\])|(?P<unquoted>{_UNQUOTED})")
_KINDS = {k.value: k for k in Kind}
_MULTILINE = frozenset({"bracket_comment", "quoted", "bracket", "unquoted"})  # names: an Enum hashes in Python


def _error(src: str, pos: int, line: int, depth: int, kind: Kind | None) -> CMakeSyntaxError:
    """Why no token, or only a shorter one, matched at pos."""
    c = src[pos]
    if kind is Kind.LINE_COMMENT:  # `#[[` without its `]]`
        b = _BRACKET_OPEN.match(src, pos + 1)
        assert b is not None
        return CMakeSyntaxError(f"unterminated bracket comment (missing ]{b.group(1)}])", line)
    if kind is Kind.UNQUOTED:  # `[[` without its `]]`
        b = _BRACKET_OPEN.match(src, pos)
        assert b is not None
        return CMakeSyntaxError(f"unterminated bracket argument (missing ]{b.group(1)}])", line)
    if depth == 0:
        return CMakeSyntaxError(f"expected a command name, found {c!r}", line)
    if c == '"':
        return CMakeSyntaxError("unterminated quoted argument", line)
    return CMakeSyntaxError("invalid escape at end of input", line)  # a lone backslash at the end of the file


def tokenize(src: str) -> list[Token]:
    """Split CMake source into tokens covering every character exactly once."""
    tokens: list[Token] = []
    append = tokens.append
    top, inner = _TOP.match, _INNER.match
    pos = 0
    line = 1
    line_start = 0
    depth = 0
    n = len(src)
    kinds, new = _KINDS, tuple.__new__  # a Token without NamedTuple's Python-level __new__
    space, newline, lparen, rparen = Kind.SPACE, Kind.NEWLINE, Kind.LPAREN, Kind.RPAREN
    while pos < n:
        m = inner(src, pos) if depth else top(src, pos)
        if m is None:
            raise _error(src, pos, line, depth, None)
        group = m.lastgroup or ""
        kind = kinds[group]
        start, end = pos, m.end()
        text = m.group()
        append(new(Token, (kind, text, start, end, line, start - line_start + 1)))
        pos = end
        if kind is space:
            continue
        if kind is newline:
            line += 1
            line_start = end
        elif kind is lparen:
            depth += 1
        elif kind is rparen:
            if depth == 0:
                raise CMakeSyntaxError("unbalanced ')'", line)
            depth -= 1
        elif (kind is Kind.LINE_COMMENT and text.startswith("#[") and _BRACKET_OPEN.match(src, start + 1)) or (
                kind is Kind.UNQUOTED and text[0] == "[" and _BRACKET_OPEN.match(src, start)):
            raise _error(src, start, line, depth, kind)
        elif group in _MULTILINE and "\n" in text:
            line += text.count("\n")
            line_start = start + text.rfind("\n") + 1
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


class Arg(NamedTuple):
    """One argument: kind is quoted, unquoted, bracket or paren; value is its evaluated text."""

    kind: str
    raw: str
    value: str
    start: int
    end: int
    line: int


class Command(NamedTuple):
    name: str  # lower case; CMake command names are case-insensitive
    args: tuple[Arg, ...]
    start: int  # offset of the command name
    end: int  # offset after the closing ')'
    line: int
    end_line: int
    indent: str  # whitespace before the name on its line ("" if not first on the line)
    evaluated: tuple[str, ...] = ()  # the values of args that are not parentheses, as values() gives them

    def values(self) -> list[str]:
        return list(self.evaluated)


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
    kind = "quoted" if tok.kind is Kind.QUOTED else "bracket" if tok.kind is Kind.BRACKET else "unquoted"
    return Arg(kind, tok.text, value, tok.start, tok.end, tok.line)


def parse(src: str) -> list[Command]:
    """Commands in source order. Raises CMakeSyntaxError on malformed input."""
    # Tokens, arguments and commands are tuples that hold no cycle: the cyclic collector, run every
    # few hundred of them, would only walk them (a third of the time of a 4 MiB file).
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _parse(src, tokenize(src))
    finally:
        if enabled:
            gc.enable()


def _parse(src: str, tokens: list[Token]) -> list[Command]:
    commands: list[Command] = []
    new = tuple.__new__  # Arg and Command without NamedTuple's Python-level __new__
    ident, space, lparen, rparen = Kind.IDENT, Kind.SPACE, Kind.LPAREN, Kind.RPAREN
    unquoted, quoted, bracket = Kind.UNQUOTED, Kind.QUOTED, Kind.BRACKET
    i = 0
    n = len(tokens)
    while i < n:
        tok = tokens[i]
        if tok.kind is not ident:
            i += 1
            continue
        j = i + 1
        while j < n and tokens[j].kind is space:
            j += 1
        if j >= n or tokens[j].kind is not lparen:
            raise CMakeSyntaxError(f"expected '(' after {tok.text}", tok.line)
        depth = 0
        args: list[Arg] = []
        values: list[str] = []
        k = j
        while k < n:
            t = tokens[k]
            kind = t.kind
            if kind is unquoted and "\\" not in t.text:  # the usual argument: its text is its value
                args.append(new(Arg, ("unquoted", t.text, t.text, t.start, t.end, t.line)))
                values.append(t.text)
            elif kind is lparen:
                depth += 1
                if depth > 1:
                    args.append(new(Arg, ("paren", "(", "(", t.start, t.end, t.line)))
            elif kind is rparen:
                depth -= 1
                if depth == 0:
                    break
                args.append(new(Arg, ("paren", ")", ")", t.start, t.end, t.line)))
            elif kind is quoted or kind is bracket or kind is unquoted:
                arg = _arg(t)
                args.append(arg)
                values.append(arg.value)
            k += 1
        close = tokens[k]
        line_begin = src.rfind("\n", 0, tok.start) + 1
        prefix = src[line_begin : tok.start]
        indent = prefix if prefix.strip(" \t") == "" else ""
        commands.append(new(Command, (tok.text.lower(), tuple(args), tok.start, close.end, tok.line, close.line,
                                      indent, tuple(values))))
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
    if "$" not in value:  # most values: a 4 MiB file asks ~10^6 times
        return found
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
