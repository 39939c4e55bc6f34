"""Where `migrate --apply` puts find_package(RocmSpirv): once in each project that needs it.

A directory whose CMakeLists.txt calls project() can be configured on its own (`cmake -S examples/saxpy`),
so the rocm_spirv_target() calls and guards --apply writes there and in the directories below it
(down to the next project) need the package found inside that project, not only at the top. Finding
the package again when the whole tree is configured changes nothing: RocmSpirvConfig.cmake is made to
be found from any directory any number of times. Pure: per-file facts in, edits out.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from rocm_spirv.migrate.cmake_rules import CMakeFacts
from rocm_spirv.migrate.findings import Edit

FIND_PACKAGE = "find_package(RocmSpirv REQUIRED)  # rocm-spirv migrate: ROCM_SPIRV_OFFLOAD, rocm_spirv_target()"
LISTS = "CMakeLists.txt"


def _dir(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _lists(directory: str) -> str:
    return f"{directory}/{LISTS}" if directory else LISTS


def _up(directory: str) -> Iterator[str]:
    """directory, its parent, …, the scan root ("")."""
    while True:
        yield directory
        if not directory:
            return
        directory = _dir(directory)


def _is_lists(path: str) -> bool:
    return path == LISTS or path.endswith("/" + LISTS)


def projects(facts: Mapping[str, CMakeFacts]) -> set[str]:
    """Directories (relative, "" for the scan root) whose CMakeLists.txt calls project()."""
    return {_dir(p) for p, f in facts.items() if _is_lists(p) and f.project_end is not None}


def project_of(path: str, roots: set[str]) -> str | None:
    """The project a CMake file is configured in when its nearest enclosing project is configured alone."""
    return next((d for d in _up(_dir(path)) if d in roots), None)


def _insert(facts: CMakeFacts) -> Edit:
    """Just after project(), else after cmake_minimum_required(), else first."""
    at = facts.project_end if facts.project_end is not None else facts.minimum_end
    if at is None:
        return Edit(0, 0, FIND_PACKAGE + facts.newline)
    return Edit(at, at, facts.newline + FIND_PACKAGE)


def package_edits(facts: Mapping[str, CMakeFacts], edited: Iterable[str]) -> dict[str, Edit]:
    """{CMake file: the find_package(RocmSpirv) insertion} so that every edited file, and every file of a
    project that already calls rocm_spirv_*() (an earlier --apply found the package at the top only), is
    configured with the package found, whichever project holding it is configured.

    Such a file is covered by a find_package in itself, in a CMakeLists.txt of a directory between it
    and its project (those run before it), or in a .cmake file of its project (an include() of the
    project's). Otherwise its project's CMakeLists.txt gets one after project(); an edited file in no
    project of the scan (a subdirectory was scanned) gets its own."""
    roots = projects(facts)
    finding_dirs = {_dir(p) for p, f in facts.items() if f.has_find_package and _is_lists(p)}
    finding_projects = {project_of(p, roots) for p, f in facts.items() if f.has_find_package and not _is_lists(p)}
    callers = {p for p, f in facts.items() if f.calls_package and project_of(p, roots) is not None}
    out: dict[str, Edit] = {}
    for path in sorted({*edited, *callers}):
        own = facts[path]
        if own.has_find_package:
            continue
        root = project_of(path, roots)
        chain = []
        for d in _up(_dir(path)):
            chain.append(d)
            if d == root:
                break
        if root in finding_projects or finding_dirs.intersection(chain):
            continue
        target = path if root is None else _lists(root)
        out.setdefault(target, _insert(facts[target]))
    return out
