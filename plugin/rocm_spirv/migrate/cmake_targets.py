"""Target names and source lists of one CMake file as far as its text fixes them.

Example collections name targets and sources through variables (`set(example_name hip_saxpy)`,
`add_executable(${example_name} ${sources})`) and pick the language through one
(`set_source_files_properties(${sources} PROPERTIES LANGUAGE ${GPU_RUNTIME})` with GPU_RUNTIME
defaulting to HIP). Variables tracks the directory-scope values set()/list()/file(GLOB) give, in
file order, so the analyzer can see which targets compile HIP; assigned_names and module_paths say which
variables a module sets and where an include() may find it. Pure: commands in, strings out.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from rocm_spirv.migrate.cmake_lexer import Command, split_list

MAX_VALUE = 1 << 16  # characters per variable: list(APPEND x ${x} ${x}) doubles; past this it is unknown
MAX_DEPTH = 8  # nesting of references: ${CMAKE_${GPU_RUNTIME}_STANDARD} is two deep
HIP_SUFFIXES = (".hip",)
_NAME = re.compile(r"[A-Za-z0-9_./+-]+")
_SOURCE_DIR = ("${CMAKE_CURRENT_SOURCE_DIR}/", "${CMAKE_CURRENT_LIST_DIR}/", "./")
_SET_OPTIONS = frozenset({"PARENT_SCOPE"})
_GLOB_OPTIONS = frozenset({"CONFIGURE_DEPENDS", "FOLLOW_SYMLINKS"})
_SOURCE_SCOPES = frozenset({"DIRECTORY", "TARGET_DIRECTORY"})


@dataclass
class Variables:
    """Directory-scope variables whose values this file gives. A foreach variable is unknown inside
    its loop (the loop's body stands for every item). A function() or macro() body sees the
    directory's values but not its parameters (unknown: they are the caller's), and what it sets
    stays in the body. Unknown references stay as written, so two spellings of one unresolved name
    still compare equal."""

    values: dict[str, str] = field(default_factory=dict)
    _loops: list[tuple[str, str | None, list[str]]] = field(default_factory=list)  # variable, value before, items
    _outer: list[dict[str, str]] = field(default_factory=list)  # the scopes around function()/macro() bodies

    def expand(self, text: str) -> str:
        """text with each known `${name}` replaced by its value, once: a value is what set() expanded
        when it ran, so a reference it kept (unknown then) is not bound later to another value."""
        if "${" not in text:
            return text
        return self._expand(text, 0, len(text), 0)[0]

    def _expand(self, text: str, pos: int, stop: int, depth: int) -> tuple[str, int]:
        """Expand text[pos:] up to an unmatched `}` (inside a name) or stop; returns the text and where it ended."""
        out: list[str] = []
        size = 0
        while pos < stop:
            nxt = text.find("${", pos, stop)
            close = text.find("}", pos, stop) if depth else -1
            if close >= 0 and (nxt < 0 or close < nxt):  # the end of the name being read
                out.append(text[pos:close])
                return "".join(out), close
            if nxt < 0 or depth >= MAX_DEPTH:
                out.append(text[pos:stop])
                break
            out.append(text[pos:nxt])
            name, end = self._expand(text, nxt + 2, stop, depth + 1)
            if end >= stop:  # unterminated: not a reference
                out.append(text[nxt:stop])
                break
            value = self.values.get(name) if _NAME.fullmatch(name) else None
            piece = value if value is not None and size + len(value) <= MAX_VALUE else f"${{{name}}}"
            out.append(piece)
            size += len(piece)
            pos = end + 1
        return "".join(out), stop

    def items(self, values: list[str]) -> list[str]:
        """The list elements a command sees for these arguments (unquoted ones split after expansion)."""
        return [i for v in values for i in split_list(self.expand(v))]

    def update(self, cmd: Command) -> None:
        name = cmd.name
        if name in ("function", "macro"):
            self._outer.append(self.values)
            params = {*cmd.values()[1:], "ARGN", "ARGV", "ARGC"}
            self.values = {k: v for k, v in self.values.items() if k not in params and not k.startswith("ARGV")}
        elif name in ("endfunction", "endmacro") and self._outer:
            self.values = self._outer.pop()
        elif name == "foreach":
            var = cmd.values()[0] if cmd.values() else ""
            self._loops.append((var, self.values.pop(var, None), self._loop_items(cmd.values()[1:])))
        elif name == "endforeach" and self._loops:
            var, before, _ = self._loops.pop()
            self.values.pop(var, None)
            if before is not None:
                self.values[var] = before
        elif name == "set":
            self._set(cmd.values())
        elif name == "unset" and cmd.values():
            self.values.pop(self._name(cmd.values()[0]), None)
        elif name == "list":
            self._list(cmd.values())
        elif name == "file":
            self._glob(cmd.values())

    def label(self, raw: str) -> str:
        """A name for messages: `${example} (each of hip_warp_shuffle, hip_warp_vote)` inside a loop whose
        items are known, else the expanded name."""
        name = self.expand(raw)
        for var, _, items in reversed(self._loops):
            if items and name == f"${{{var}}}":
                return f"{name} (each of {', '.join(items)})"
        return name

    def _loop_items(self, args: list[str]) -> list[str]:
        """The items foreach(var a b …) or foreach(var IN LISTS l ITEMS a …) walks; [] for RANGE,
        ZIP_LISTS or a list not known here."""
        if not args or args[0] == "RANGE":
            return []
        if args[0] != "IN":
            return self.items(args)
        items: list[str] = []
        mode = ""
        for a in args[1:]:
            if a in ("LISTS", "ITEMS", "ZIP_LISTS"):
                mode = a
            elif mode == "ITEMS":
                items += self.items([a])
            elif mode == "LISTS" and a in self.values:
                items += split_list(self.values[a])
            else:
                return []
        return items

    def _store(self, var: str, items: list[str]) -> None:
        value = ";".join(items)
        if len(value) > MAX_VALUE:
            self.values.pop(var, None)
        else:
            self.values[var] = value

    def _name(self, raw: str) -> str:
        """A variable name as set() sees it (`${prefix}_SOURCES` expanded); "" if it stays unknown."""
        name = self.expand(raw)
        return "" if "${" in name or "$<" in name else name

    def _set(self, values: list[str]) -> None:
        var = self._name(values[0]) if values else ""
        if not var or var.startswith("ENV{"):
            return
        rest = values[1:]
        if "CACHE" in rest:  # set(V default CACHE TYPE doc): the default, unless the user gave one
            rest = rest[: rest.index("CACHE")]
        rest = [v for v in rest if v not in _SET_OPTIONS]
        if not rest:
            self.values.pop(var, None)
            return
        self._store(var, self.items(rest))

    def _list(self, values: list[str]) -> None:
        if len(values) < 2:
            return
        op, var = values[0].upper(), self._name(values[1])
        if not var:
            return
        if op in ("APPEND", "PREPEND"):
            known = self.values.get(var, "")
            old = split_list(known)
            new = self.items(values[2:])
            self._store(var, [*old, *new] if op == "APPEND" else [*new, *old])
        elif op == "REMOVE_ITEM" and var in self.values:
            drop = set(self.items(values[2:]))
            self._store(var, [i for i in split_list(self.values[var]) if i not in drop])
        elif op not in ("LENGTH", "GET", "JOIN", "FIND"):
            self.values.pop(var, None)  # changed in a way not followed here

    def _glob(self, values: list[str]) -> None:
        """file(GLOB var [options] patterns…): the patterns stand for the files (`src/*.hip` is HIP)."""
        if len(values) < 2 or values[0].upper() not in ("GLOB", "GLOB_RECURSE"):
            return
        var = self._name(values[1])
        if not var:
            return
        patterns: list[str] = []
        skip = False
        for v in values[2:]:
            if skip:
                skip = False
            elif v in ("RELATIVE", "LIST_DIRECTORIES"):
                skip = True
            elif v not in _GLOB_OPTIONS:
                patterns.append(v)
        self._store(var, self.items(patterns))


def source_key(item: str) -> str:
    """One spelling per source file: `${CMAKE_CURRENT_SOURCE_DIR}/a.cpp`, `./a.cpp` and `a.cpp` agree."""
    for prefix in _SOURCE_DIR:
        if item.startswith(prefix):
            return item[len(prefix) :]
    return item


def is_hip_source(item: str, hip_sources: set[str]) -> bool:
    """A .hip file (or a pattern for them), or one a LANGUAGE HIP property marks."""
    key = source_key(item)
    return key.lower().endswith(HIP_SUFFIXES) or key in hip_sources


def hip_language_sources(cmd: Command, variables: Variables) -> list[str]:
    """Sources that set_source_files_properties(… PROPERTIES LANGUAGE HIP) or
    set_property(SOURCE … PROPERTY LANGUAGE HIP) make HIP, the language given literally or through a
    variable whose value here is HIP (`LANGUAGE ${GPU_RUNTIME}`)."""
    values = cmd.values()
    if cmd.name == "set_source_files_properties":
        if "PROPERTIES" not in values:
            return []
        end = values.index("PROPERTIES")
        files, props = values[:end], values[end + 1 :]
    elif cmd.name == "set_property" and values[:1] == ["SOURCE"] and "PROPERTY" in values:
        end = values.index("PROPERTY")
        files, props = values[1:end], values[end + 1 :]
    else:
        return []
    for keyword in _SOURCE_SCOPES:
        if keyword in files:
            files = files[: files.index(keyword)]
    pairs = zip(props[0::2], props[1::2], strict=False) if cmd.name == "set_source_files_properties" else [
        (props[0], ";".join(props[1:]))] if props else []
    if not any(k == "LANGUAGE" and variables.expand(v) == "HIP" for k, v in pairs):
        return []
    return [source_key(i) for i in variables.items(files)]


# --- what an include()d project module gives the file that includes it ----------------------------------------

_INCLUDE_MODULE = re.compile(r'^[ \t]*include[ \t]*\([ \t]*"?([^\s")]+)', re.M | re.I)
_MODULE_DIRS = ("cmake", "cmake/Modules", "cmake/modules")


def module_paths(here: str, text: str) -> list[str]:
    """The tree paths (relative to the root) the include() calls of a CMake file in folder `here` may read.
    Where include() looks (CMAKE_MODULE_PATH) is configure-time state, approximated by the usual places: a path
    relative to the file or the root, else `<name>.cmake` in a cmake/ (cmake/Modules, cmake/modules) folder
    beside the file or at the root."""
    if "include" not in text:
        return []
    return [p for name in _INCLUDE_MODULE.findall(text) for p in _module_paths(here, name)]


# Where a command names the variable it gives a value: set(X …), list(APPEND X …), string(REPLACE a b X …).
_STRING_OUT = {"REPLACE": 3, "TOLOWER": 2, "TOUPPER": 2, "STRIP": 2, "CONCAT": 1, "JOIN": 2, "SUBSTRING": 4,
               "LENGTH": 2, "FIND": 3, "CONFIGURE": 2, "GENEX_STRIP": 2}


def assigned_names(commands: list[Command]) -> frozenset[str]:
    """The directory-scope variables a module's commands give a value (a function's or macro's body runs only
    where it is called, into its own scope or its caller's: not counted)."""
    out: set[str] = set()
    depth = 0
    for cmd in commands:
        if cmd.name in ("function", "macro"):
            depth += 1
        elif cmd.name in ("endfunction", "endmacro"):
            depth = max(0, depth - 1)
        if depth:
            continue
        v = cmd.values()
        if cmd.name in ("set", "option") and v:
            out.add(v[0])
        elif cmd.name in ("list", "math") and len(v) > 1:
            out.add(v[1])
        elif cmd.name == "string" and v:
            at = (4 if v[1:2] == ["REPLACE"] else 3) if v[0] == "REGEX" else _STRING_OUT.get(v[0].upper(), -1)
            if 0 <= at < len(v):
                out.add(v[at])
    return frozenset(out)


def _module_paths(here: str, name: str) -> list[str]:
    for prefix in ("${CMAKE_CURRENT_SOURCE_DIR}/", "${CMAKE_CURRENT_LIST_DIR}/"):
        name = name.removeprefix(prefix)
    at_root = name.startswith(("${PROJECT_SOURCE_DIR}/", "${CMAKE_SOURCE_DIR}/"))
    if at_root:
        name = name.split("/", 1)[1]
    if "$" in name or name.startswith("/"):
        return []
    if name.endswith(".cmake") or "/" in name:
        paths = [name] if at_root else [posixpath.join(here, name), name]
    else:
        paths = [posixpath.join(d, sub, f"{name}.cmake") for d in dict.fromkeys((here, "")) for sub in _MODULE_DIRS]
    return [p for p in dict.fromkeys(posixpath.normpath(p) for p in paths) if not p.startswith("..")]
