"""CMake if() conditions as the generated toolchain file decides them: GPU_TARGETS, AMDGPU_TARGETS,
CMAKE_HIP_ARCHITECTURES and HCC_AMDGPU_TARGET are `amdgcnspirv` (CACHE FORCE). Pure: a parsed command in,
True, False or None (depends on anything else) out."""

from __future__ import annotations

import re

from rocm_spirv.migrate.cmake_lexer import Arg, Command
from rocm_spirv.offload import SPIRV_TARGET

TOOLCHAIN_LISTS = frozenset({"CMAKE_HIP_ARCHITECTURES", "GPU_TARGETS", "AMDGPU_TARGETS", "HCC_AMDGPU_TARGET"})
TOOLCHAIN_LIST_VALUE = SPIRV_TARGET  # what the generated toolchain file sets them to (CACHE FORCE)
REF = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")


def _list_var(arg: Arg) -> str:
    """The toolchain-set list an if() operand names: `GPU_TARGETS` or `"${GPU_TARGETS}"`."""
    m = REF.match(arg.value)
    name = m.group(1) if m else arg.value if arg.kind == "unquoted" else ""
    return name if name in TOOLCHAIN_LISTS else ""


def _atom(args: list[Arg]) -> bool | None:
    neg = False
    while args and args[0].kind == "unquoted" and args[0].value.upper() == "NOT":
        neg, args = not neg, args[1:]
    value: bool | None = None
    if len(args) == 2 and args[0].value.upper() == "DEFINED" and args[0].kind == "unquoted":
        value = True if _list_var(args[1]) else None
    elif len(args) == 1 and _list_var(args[0]):
        value = True  # amdgcnspirv is a true constant
    elif len(args) == 3 and _list_var(args[0]) and args[1].value.upper() in ("STREQUAL", "MATCHES"):
        lit = args[2].value
        if "${" in lit:
            return None
        try:
            value = lit == TOOLCHAIN_LIST_VALUE if args[1].value.upper() == "STREQUAL" else bool(
                re.search(lit, TOOLCHAIN_LIST_VALUE))
        except re.error:
            return None
    return None if value is None else value != neg


def toolchain_value(cmd: Command) -> bool | None:
    """An if()/elseif() condition once the toolchain file has set GPU_TARGETS & co. to amdgcnspirv:
    True, False, or None when it depends on anything else. Handles NOT, DEFINED, STREQUAL, MATCHES,
    AND and OR without parentheses, which covers `if(GPU_TARGETS STREQUAL "all")` and `if(NOT DEFINED …)`."""
    args = list(cmd.args)
    if any(a.kind == "unquoted" and a.value in ("(", ")") for a in args):
        return None
    ors: list[list[list[Arg]]] = [[[]]]
    for a in args:
        word = a.value.upper() if a.kind == "unquoted" else ""
        if word == "OR":
            ors.append([[]])
        elif word == "AND":
            ors[-1].append([])
        else:
            ors[-1][-1].append(a)
    result: bool | None = False
    for ands in ors:
        conj: bool | None = True
        for atom in ands:
            v = _atom(atom)
            conj = False if v is False or conj is False else None if v is None or conj is None else True
        result = True if conj is True or result is True else None if conj is None or result is None else False
    return result
