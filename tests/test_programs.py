"""toolchain/programs.py: one search order, one probe timeout, one failure summary, with real
cmake, ninja and clang-22, and fake tools (shell scripts) on a PATH built per test."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from rocm_spirv.migrate.oracle.run import Oracle
from rocm_spirv.toolchain import programs
from rocm_spirv.toolchain.discover import rocm_roots
from rocm_spirv.toolchain.llvm import parse_version
from rocm_spirv.toolchain.probe import ProbeResult
from rocm_spirv.toolchain.spirv_path import decide
from rocm_spirv.toolchain.spirv_val import find_spirv_val

CLANG = shutil.which("clang++-22")
needs_clang = pytest.mark.skipif(CLANG is None, reason="clang++-22 not installed (apt-get install clang-22)")


def fake(folder: Path, name: str, body: str, executable: bool = True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755 if executable else 0o644)
    return path


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A Python whose bin dir is tmp/pybin, and PATH = tmp/path only."""
    pybin, path = tmp_path / "pybin", tmp_path / "path"
    pybin.mkdir()
    path.mkdir()
    monkeypatch.setattr(sys, "executable", str(pybin / "python"))
    monkeypatch.setenv("PATH", str(path))
    return pybin, path


def test_beside_python_wins_over_path_and_must_be_executable(world: tuple[Path, Path]) -> None:
    pybin, path = world
    on_path = fake(path, "tool", "echo path")
    beside = fake(pybin, "tool", "echo beside")
    assert programs.find(["tool"]) == str(beside)
    assert list(programs.candidates(["tool"])) == [str(beside), str(on_path)]
    beside.chmod(0o644)  # a plain file there is not a tool
    assert programs.find(["tool"]) == str(on_path)
    assert programs.command("absent-tool") == "absent-tool"  # running it names it


def test_folders_given_replace_python_and_names_keep_their_order(world: tuple[Path, Path], tmp_path: Path) -> None:
    """What clang's driver does for llvm-spirv-<major>: each name in its folders, then on PATH."""
    pybin, path = world
    compiler = tmp_path / "llvm" / "bin"
    fake(pybin, "tool-22", "true")
    unversioned = fake(compiler, "tool", "true")
    versioned = fake(path, "tool-22", "true")
    assert programs.find(["tool-22", "tool"], [compiler]) == str(versioned)
    assert programs.find(["tool"], [compiler]) == str(unversioned)
    assert programs.find(["tool-22"], dirs=()) == str(versioned)


@needs_clang
def test_compiler_dirs_follow_the_link() -> None:
    assert CLANG is not None
    dirs = programs.compiler_dirs(Path(CLANG))
    assert dirs[0] == Path(CLANG).parent
    assert Path(os.path.realpath(CLANG)).parent in dirs


def test_real_cmake_and_ninja_versions() -> None:
    """The version probe against real tools, checked with a second source (cmake's capabilities)."""
    cmake = programs.command("cmake")
    found = programs.probe_version(cmake, lambda t: t.split()[2] if t.startswith("cmake version") else None)
    caps = json.loads(subprocess.run([cmake, "-E", "capabilities"], capture_output=True, text=True,
                                     check=True).stdout)
    assert found == programs.Program(cmake, caps["version"]["string"])
    ninja = programs.probe_version(programs.command("ninja"), lambda t: t.strip() or None)
    assert ninja.version is not None and programs.version_key(ninja.version)[:1] >= (1,)


@needs_clang
def test_real_clang_version_and_failure_line(tmp_path: Path) -> None:
    assert CLANG is not None
    program = programs.probe_version(CLANG, parse_version)
    assert program.version is not None and program.version.startswith("22.")
    src = tmp_path / "two.cpp"
    src.write_text("int f() { return undeclared_a; }\nint g() { return undeclared_b; }\n")
    proc = subprocess.run([CLANG, "-fsyntax-only", str(src)], capture_output=True, text=True, check=False)
    assert proc.returncode != 0 and "2 errors generated" in proc.stderr
    line = programs.failure_line(proc.stderr, proc.stdout, proc.returncode)
    assert "error:" in line and "undeclared_a" in line and "\n" not in line


def test_failure_line_falls_back() -> None:
    assert programs.failure_line("", "", 3) == "exit code 3"
    assert programs.failure_line("\n  \n", "") == "no output"
    assert programs.failure_line("warning: w\nsomething\n", "") == "warning: w"
    assert programs.failure_line("1 error generated.\n", "ld: Error: x\n") == "ld: Error: x"


def test_a_hanging_probe_is_cut_at_the_one_timeout(world: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    _, path = world
    slow = fake(path, "slow", "exec /bin/sleep 20")
    monkeypatch.setattr(programs, "PROBE_TIMEOUT", 0.5)
    start = time.monotonic()
    probe = programs.run_probe([str(slow), "--version"])
    assert probe.returncode is None and "timed out" in probe.failure()
    assert programs.probe_version(str(slow), lambda t: "1").version is None
    missing = programs.run_probe([str(path / "absent")])
    assert missing.returncode is None and "No such file" in missing.failure()
    # hipconfig ran without any timeout before: a hung one hung every compiler discovery.
    fake(path, "hipconfig", "exec /bin/sleep 20")
    rocm_roots()
    assert time.monotonic() - start < 8


def test_spirv_path_tells_the_first_error(world: tuple[Path, Path], tmp_path: Path) -> None:
    """The SPIR-V path decision's reason was the LAST line naming an error: clang's count."""
    del world  # PATH without any llvm-spirv: the in-tree backend is tried alone
    compiler = fake(tmp_path / "cc", "clang++",
                    'echo "k.hip:1:1: error: first cause" >&2; echo "k.hip:2:1: error: knock-on" >&2;'
                    ' echo "2 errors generated." >&2; exit 1')
    chosen = decide([str(compiler)], compiler, 22, tmp_path)
    assert chosen.path is None
    assert chosen.errors == ("in-tree SPIR-V backend failed: k.hip:1:1: error: first cause",)


def test_newest_spirv_val_wins_and_ties_keep_the_first(world: tuple[Path, Path], tmp_path: Path) -> None:
    _, path = world
    prefix = tmp_path / "prefix"
    newest = fake(prefix / "bin", "spirv-val", 'echo "SPIRV-Tools v2099.10 unknown hash"')
    fake(path, "spirv-val", 'echo "SPIRV-Tools v2099.9 unknown hash"')
    found = find_spirv_val(prefix)
    assert found is not None and (found.path, found.version, found.origin) == (str(newest), "2099.10", "the prefix")
    programs_found = [programs.Program("a", "1.2"), programs.Program("b", None), programs.Program("c", "1.2.0")]
    assert programs.newest(programs_found) == programs.Program("a", "1.2")


def test_doctor_reports_the_cmake_compare_runs(world: tuple[Path, Path]) -> None:
    """doctor looked on PATH only, compare beside this Python first: one order now."""
    from rocm_spirv.doctor import diagnose

    pybin, _ = world
    cmake = fake(pybin, "cmake", "exit 0")
    fake(pybin, "ninja", "exit 0")
    checks = {c.name: c for c in diagnose([], build=False).checks}
    assert checks["cmake"].ok and checks["cmake"].detail == str(cmake)
    assert checks["ninja"].detail == str(pybin / "ninja")
    assert programs.command("cmake") == str(cmake)


@needs_clang
def test_oracle_disassembles_with_the_compilers_llvm_dis(tmp_path: Path) -> None:
    """With clang++-22 in /usr/bin, the unversioned /usr/bin/llvm-dis beside it may be another
    release (Debian: LLVM 14), which cannot read clang 22's bitcode."""
    assert CLANG is not None
    compiler = ProbeResult(CLANG, "path", [CLANG], version=programs.probe_version(CLANG, parse_version).version)
    dis = Oracle(tmp_path, [], compiler)._llvm_dis()
    src, bc = tmp_path / "k.cpp", tmp_path / "k.bc"
    src.write_text("int f(int x) { return x * 2; }\n")
    subprocess.run([CLANG, "-c", "-emit-llvm", "-O1", str(src), "-o", str(bc)], check=True)
    proc = subprocess.run([dis, str(bc), "-o", "-"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, f"{dis}: {programs.failure_line(proc.stderr, proc.stdout, proc.returncode)}"
    assert "define" in proc.stdout and "@_Z1fi" in proc.stdout


def test_failure_line_names_a_compilers_own_temporary_file_by_tmpdir() -> None:
    """A driver's temporary file is gone when the line is read: it is shown as $TMPDIR/name, not
    as a path that looks cut (test_output_for_logs checks every path shown exists)."""
    tmp = tempfile.gettempdir()
    line = programs.failure_line(f"llvm-link: {tmp}/probe-amdgcnspirv-da5dab.bc: error: bad\n")
    assert line == "llvm-link: $TMPDIR/probe-amdgcnspirv-da5dab.bc: error: bad"
    # A file in a folder under it may be the user's: it stays whole.
    assert programs.failure_line(f"{tmp}/proj/k.hip:3:1: error: x") == f"{tmp}/proj/k.hip:3:1: error: x"
