"""Which files a migrate scan reads: CMake files, presets and HIP/C++ sources, minus excludes."""

from __future__ import annotations

import fnmatch
import os
import re
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

from rocm_spirv.fsutil import open_regular
from rocm_spirv.migrate.make_rules import ASSIGN  # make's assignment, as the make rules read it

MAKEFILES = frozenset({"Makefile", "makefile", "GNUmakefile", "make.inc"})
CMAKELISTS_VARIANT = ("CMakeLists_", "CMakeLists-", "CMakeLists.")
# Makefile.kokkos, and the variants a project keeps beside its main one (EigenG-Batched's Makefile_hip and
# Makefile_cuda, Makefile-hip)
MAKEFILES_PREFIX = ("Makefile.", "makefile.", "Makefile_", "makefile_", "Makefile-", "makefile-")
PRESETS = frozenset({"CMakePresets.json", "CMakeUserPresets.json"})
SOURCE_SUFFIXES = frozenset({".hip", ".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c++", ".c", ".h", ".hh", ".hpp",
                             ".hxx", ".inl", ".ipp", ".tpp", ".cl"})
# Python and Bazel build descriptions: setup.py (and setup_rocm.py-style variants), pyproject.toml, BUILD files,
# Starlark extensions and .bazelrc. Other Python modules are not build descriptions: a runtime table that picks
# a kernel config by gfx name is dispatch, not a build construct.
BAZEL_FILES = frozenset({"BUILD", "BUILD.bazel"})
SCRIPT_KINDS = frozenset({"python", "pyproject", "bazel"})  # script_kind's answers


def script_kind(name: str) -> str | None:
    """python, pyproject or bazel for a build description written in Python, TOML or Starlark."""
    if name == "setup.py" or (name.startswith("setup_") and name.endswith(".py")):
        return "python"
    if name == "pyproject.toml":
        return "pyproject"
    if name in BAZEL_FILES or name.endswith(".bzl") or name.endswith(".bazelrc"):
        return "bazel"
    return None


SKIP_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", ".tox", ".venv", "node_modules", ".rocm-spirv"})


# configure_file() templates named after what they become, not CMake scripts: kmp_config.h.cmake (a header, read
# as a source), protobuf.pc.cmake (a pkg-config file, not read)
TEMPLATE_SUFFIXES = frozenset({".pc", ".py", ".sh", ".bat", ".txt", ".json", ".xml", ".yaml", ".yml", ".rc", ".cfg",
                               ".ini", ".md", ".rst", ".spec", ".desktop", ".plist", ".f90"})


def classify(name: str) -> str | None:
    """cmake, make, presets, source, python, pyproject, bazel, or None for files the scan ignores."""
    if name.endswith(".cmake"):
        stem = name[:-len(".cmake")]
        inner = stem[stem.rfind("."):].lower() if stem.rfind(".") > 0 else ""
        if inner in SOURCE_SUFFIXES:
            return "source"
        return None if inner in TEMPLATE_SUFFIXES else "cmake"
    # and a project's variants a build script copies into place (sglang-das' CMakeLists_rocm.txt, moved over
    # sgl-kernel/CMakeLists.txt before the ROCm wheel build), as Makefile_<name> is make's
    if name == "CMakeLists.txt" or (name.startswith(CMAKELISTS_VARIANT) and name.endswith(".txt") and len(name) > 15):
        return "cmake"
    # Makefile.<name> (Makefile.kokkos, Makefile.common, Makefile_hip), *.mk and make.inc (magma's and LAPACK-style
    # libraries' settings file, with make.inc.<platform> examples to copy) are make include files
    if name in MAKEFILES or name.endswith(".mk") or (name.startswith(MAKEFILES_PREFIX) and len(name) > 9) or \
            name.startswith("make.inc."):
        return "make"
    if name in PRESETS:
        return "presets"
    dot = name.rfind(".")
    if dot > 0 and name[dot:].lower() in SOURCE_SUFFIXES:
        return "source"
    return script_kind(name)


# SW4's `configs/make.CC`, `configs/make.hip`, `configs/make.amdclang`, Cholla's `builds/make.host.frontier` (machine
# files a Makefile includes) carry a source suffix or none the scan knows; a file named make.<suffix>[.<suffix>…]
# is read as make when its text is make's:
# assignments, no C statement or #include (make.bat, make.sh and the like are something else)
MAKE_NAMED = "make."
NOT_MAKE_SUFFIXES = frozenset({"bat", "cmd", "ps1", "sh", "bash", "zsh", "jl", "md", "rst", "txt", "json", "yml",
                               "yaml", "toml", "html", "log"})
SNIFF_BYTES = 16384
_C_SIGNS = re.compile(r"^\s*#\s*(?:include|define|pragma|if|ifdef|ifndef)\b|;\s*$|^\s*[{}]\s*$", re.M)


def make_shaped(text: str) -> bool:
    """Whether a file's text reads as a make file: two assignments or more, and nothing C-like."""
    return sum(1 for line in text.splitlines() if ASSIGN.match(line)) >= 2 and _C_SIGNS.search(text) is None


def file_kind(path: str, name: str) -> str | None:
    """classify's answer, or for a file whose name alone misleads (make.<suffix> holding make text) what its
    first SNIFF_BYTES say (read once, without blocking on a FIFO). The one answer walk and _walked give."""
    kind = classify(name)
    # make.<name>, and make.<kind>.<name> (Cholla's builds/make.host.frontier, make.type.hydro): the last
    # suffix decides what the file is not (make.sh, make.host.yml)
    if kind not in ("source", None) or not name.startswith(MAKE_NAMED) or len(name) == len(MAKE_NAMED) or \
            name[name.rfind(".") + 1:].lower() in NOT_MAKE_SUFFIXES:
        return kind
    try:
        with open_regular(Path(path)) as f:
            head = f.read(SNIFF_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return kind  # the scan reports what it cannot read
    return "make" if make_shaped(head) else kind


def excluded(rel: str, patterns: Sequence[str]) -> bool:
    """rel is '/'-separated. A pattern matches the whole path, any path suffix, or a single name;
    a trailing '/' or '/**' matches a directory and everything below it."""
    parts = rel.split("/")
    for pat in patterns:
        p = pat.rstrip("/")
        if p.endswith("/**"):
            p = p[:-3]
        if fnmatch.fnmatchcase(rel, p) or any(fnmatch.fnmatchcase(x, p) for x in parts):
            return True
        if any(fnmatch.fnmatchcase("/".join(parts[i:]), p) for i in range(1, len(parts))):
            return True
    return False


UNREADABLE = "unreadable"  # the kind of a folder walk could not list: scan reports it as an error


def walk(root: Path, exclude: Sequence[str] = ()) -> Iterator[tuple[str, str]]:
    """(relative '/'-path, kind) for every file to scan, in a stable order, streaming (no full listing).
    A single file as root yields just that file. Symlinked directories and CMake build trees
    (folders holding a CMakeCache.txt) are not entered. A folder that cannot be listed is yielded
    as (its path + '/', UNREADABLE): a gate must not pass on files it never saw. A file reached by
    two paths (a symlink and its target, two symlinks) is yielded once, under the first path."""
    if root.is_file():
        kind = file_kind(str(root), root.name)
        if kind is not None:
            yield root.name, kind
        return
    # Nothing is kept per file (memory stays flat on 50,000 files): whether a symlink's target was yielded
    # under its own name is decided again at the end, for the few symlinks.
    top = os.path.realpath(root)
    links: list[tuple[str, str, str]] = []  # (resolved, rel, kind) of symlinks, checked once all files are known
    stack: list[tuple[str, str]] = [(top, "")]
    while stack:
        path, rel = stack.pop()
        try:
            with os.scandir(path) as it:
                entries = sorted(it, key=lambda e: e.name)
        except FileNotFoundError:
            continue  # removed while the walk ran: nothing left to check
        except OSError:
            yield rel or "./", UNREADABLE
            continue
        subdirs: list[tuple[str, str]] = []
        for e in entries:
            r = f"{rel}{e.name}"
            if e.is_dir(follow_symlinks=False):
                # A CMake build tree (in-source build/ dirs) holds generated copies, not the project.
                if (e.name not in SKIP_DIRS and not excluded(r, exclude)
                        and not os.path.exists(os.path.join(e.path, "CMakeCache.txt"))):
                    subdirs.append((e.path, r + "/"))
                continue
            kind = classify(e.name)
            if (kind is None and not e.name.startswith(MAKE_NAMED)) or excluded(r, exclude):
                continue
            if e.name.startswith(MAKE_NAMED):
                kind = file_kind(e.path, e.name)  # read only once it is not excluded
            if kind is not None:
                if e.is_symlink():
                    links.append((os.path.realpath(e.path), r, kind))
                else:
                    yield r, kind
        stack.extend(reversed(subdirs))
    # Symlinks last: one whose target was already yielded under its own name is the same file.
    seen: set[str] = set()  # resolved paths of the symlinked files yielded
    for real, r, kind in links:
        if real not in seen and not _walked(real, top, exclude):
            seen.add(real)
            yield r, kind


def _walked(real: str, top: str, exclude: Sequence[str]) -> bool:
    """Whether walk from the resolved folder top yielded the file at the resolved path real under its own
    name: the folders down to it were entered (the tests walk makes, again) and the file is one it yields."""
    prefix = top.rstrip(os.sep) + os.sep
    if not real.startswith(prefix):
        return False
    parts = real[len(prefix):].split(os.sep)
    folder = top
    for i, name in enumerate(parts[:-1]):
        folder = os.path.join(folder, name)
        if name in SKIP_DIRS or excluded("/".join(parts[:i + 1]), exclude) or \
                os.path.exists(os.path.join(folder, "CMakeCache.txt")):
            return False
        try:
            with os.scandir(folder):
                pass
        except OSError:
            return False  # walk reported it as a folder it could not list
    try:
        mode = os.lstat(real).st_mode
    except OSError:
        return False
    return not stat.S_ISDIR(mode) and not stat.S_ISLNK(mode) and not excluded("/".join(parts), exclude) and \
        file_kind(real, parts[-1]) is not None
