"""`migrate --configure --build-dir DIR`: the oracle configures the project as an existing build tree was.

A maintainer's build folder holds the options that decide what CMake sees (`-DUSE_FOO=ON`, a build
type, a project's own GPU list): a per-arch construct behind an option the default configure leaves
off is only in a trace configured with it. CMake recorded them in DIR/CMakeCache.txt; both scratch
configures get them back as `-DNAME:TYPE=value`. The tree itself is only read, never configured again.

Not carried over, because the scratch configures decide them or find them again:
- what the oracle sets (the toolchain file, the compilers, the generator, the target-list variables);
- CMake's own entries other than the build type, language standards and flags (the per-configuration
  flags hold CMake's defaults unless a user edits them; an empty value is the same as none);
- what find_* and find_package found (PATH/FILEPATH entries, *_DIR, *_EXECUTABLE, *_LIBRARY …): the
  scratch configures find their own under the generated toolchain;
- INTERNAL and STATIC entries (CMake's bookkeeping).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from rocm_spirv.errors import UserError
from rocm_spirv.fsutil import read_regular
from rocm_spirv.migrate.cmake_words import TARGET_VARS

MAX_CACHE = 64 << 20  # a large project's CMakeCache.txt is well under 1 MiB
ENTRY = re.compile(r'^(?:"(?P<quoted>[^"]+)"|(?P<name>[^:="\s#/][^:=]*)):(?P<type>[A-Z]+)=(?P<value>.*)$')
KEPT_TYPES = frozenset({"BOOL", "STRING", "UNINITIALIZED"})  # options and the user's -D values
CMAKE_KEPT = re.compile(r"^CMAKE_(?:BUILD_TYPE|[A-Z]+_STANDARD|[A-Z]+_FLAGS)$")
FOUND = re.compile(r"(?:_DIR|_EXECUTABLE|_LIBRARY|_LIBRARIES|_INCLUDE_DIRS?|_ROOT|_PATH|_PROGRAM|_COMPILER)$")


@dataclass(frozen=True)
class BuildTree:
    source: str  # CMAKE_HOME_DIRECTORY: the project this tree was configured from
    options: tuple[str, ...]  # -DNAME:TYPE=value, in the cache's order


def carried(name: str) -> bool:
    """Whether an entry of this name goes to the scratch configures (see the module docstring)."""
    if name in TARGET_VARS or name.startswith("ROCM_SPIRV_"):
        return False
    if name.startswith("CMAKE_"):
        return CMAKE_KEPT.match(name) is not None
    return FOUND.search(name) is None


def parse(text: str) -> BuildTree:
    """The project folder and the carried options of a CMakeCache.txt's text."""
    source = ""
    options = []
    for line in text.splitlines():
        m = ENTRY.match(line)
        if m is None:
            continue  # comments (// help, # sections) and blank lines
        name, kind, value = m.group("quoted") or m.group("name"), m.group("type"), m.group("value")
        if name == "CMAKE_HOME_DIRECTORY":
            source = value
        elif kind in KEPT_TYPES and carried(name) and (value or not name.startswith("CMAKE_")):
            options.append(f"-D{name}:{kind}={value}" if kind != "UNINITIALIZED" else f"-D{name}={value}")
    return BuildTree(source, tuple(options))


def read(build: Path, root: Path) -> BuildTree:
    """The build tree's configuration, checked against the project being scanned."""
    cache = build / "CMakeCache.txt"
    remedy = "pass a folder a cmake configure of this project wrote (it holds CMakeCache.txt)"
    try:
        data = read_regular(cache, MAX_CACHE)
    except FileNotFoundError:
        raise UserError(f"--build-dir {build} has no CMakeCache.txt", remedy) from None
    except OSError as err:
        raise UserError(f"--build-dir: cannot read {cache}: {err.strerror}", remedy) from None
    if data is None:
        raise UserError(f"--build-dir: {cache} is larger than {MAX_CACHE >> 20} MiB", remedy)
    tree = parse(data.decode("utf-8", errors="surrogateescape"))
    if not tree.source:
        raise UserError(f"--build-dir: {cache} names no project (no CMAKE_HOME_DIRECTORY)", remedy)
    if Path(tree.source).resolve() != root.resolve():
        raise UserError(f"--build-dir {build} was configured from {tree.source}, not {root.resolve()}",
                        f"scan {tree.source}, or pass a build folder of {root.resolve()}")
    return tree
