"""A build's compile_commands.json: the one reader, which entries compile HIP, and the surgery that
turns a translation unit's compile line into one for another target and another output.

compare's JIT proxy (device bitcode per target) and migrate's oracle (preprocess and compile per
target) both start from a TU's exact flags and replace what names outputs, dependency files and GPU
targets; they read the database and tell HIP compiles apart the same way.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rocm_spirv.fsutil import read_regular

MAX_DB = 256 << 20  # tens of thousands of TUs with long flag lists; more is not a database to read

# Arguments that name an output, a dependency file or a GPU target, with their value in the next word.
DROP_WITH_VALUE = frozenset({"-o", "-MF", "-MT", "-MQ", "--offload-arch", "--cuda-gpu-arch"})
# Outputs, dependency files, targets, code-object compression, saved temporaries (written beside the
# output), warnings as errors and colored diagnostics (the callers read the messages): replaced or off.
DROP = re.compile(r"^(?:-c|-MD|-MMD|-M|-MM|-MP|-o.+|-MF.+|-MT.+|-MQ.+|--offload-arch=.*|--cuda-gpu-arch=.*|"
                  r"--(?:no-)?offload-compress|-save-temps.*|-Werror(?:=.*)?|-f(?:no-)?color-diagnostics|"
                  r"-fdiagnostics-color(?:=.*)?)$")


@dataclass(frozen=True)
class Entry:
    """One compile of the database."""

    file: str  # absolute and normalized
    directory: str
    argv: tuple[str, ...]
    output: str  # "" when the entry names none

    @property
    def hip(self) -> bool:
        return is_hip(self.argv, self.file)


def entry(raw: dict[str, Any]) -> Entry:
    argv = [str(a) for a in raw["arguments"]] if "arguments" in raw else shlex.split(str(raw.get("command", "")))
    directory = str(raw.get("directory", ""))
    output = str(raw.get("output") or (argv[argv.index("-o") + 1] if "-o" in argv[:-1] else ""))
    return Entry(os.path.normpath(os.path.join(directory, str(raw.get("file", "")))), directory, tuple(argv), output)


def read(build: Path) -> list[Entry]:
    """The entries of build/compile_commands.json. OSError when it cannot be read, ValueError when it
    is not a database (too large, not JSON, not a list of entries)."""
    db = build / "compile_commands.json"
    data = read_regular(db, MAX_DB)
    if data is None:
        raise ValueError(f"{db} is larger than {MAX_DB >> 20} MiB")
    doc = json.loads(data.decode("utf-8", errors="surrogateescape"))
    if not isinstance(doc, list):
        raise ValueError(f"{db} is not a list of compile commands")
    return [entry(e) for e in doc if isinstance(e, dict)]


def is_hip(argv: Sequence[str], file: str) -> bool:
    """A HIP compile: `-x hip` (or -xhip), a .hip source, or a GPU target on its line."""
    return (file.endswith(".hip") or "-xhip" in argv or ("-x", "hip") in set(itertools.pairwise(argv))
            or any(a.startswith("--offload-arch") for a in argv))


def retarget(argv: Sequence[str], also: Sequence[str] = ()) -> list[str]:
    """The compile line without what names outputs, dependency files and GPU targets (DROP,
    DROP_WITH_VALUE) and without the arguments in `also`: the caller adds its own."""
    out: list[str] = []
    skip = False
    for a in argv:
        if skip:
            skip = False
        elif a in DROP_WITH_VALUE:
            skip = True
        elif not DROP.match(a) and a not in also:
            out.append(a)
    return out
