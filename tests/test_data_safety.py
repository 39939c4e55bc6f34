"""Attacks on everything rocm-spirv writes: no lost byte, no changed mode, no traceback, no leftover."""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rocm_spirv import fsutil
from rocm_spirv.errors import RocmSpirvError, UserError
from rocm_spirv.fsutil import write_atomic


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if fsutil.TMP_MARK in p.name)


# -- the one write path -----------------------------------------------------------------------

def test_new_file_gets_the_umask_mode_not_0600(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "new.txt", "x")
        assert mode_of(tmp_path / "new.txt") == 0o644
        os.umask(0o027)
        write_atomic(tmp_path / "group.txt", "x")
        assert mode_of(tmp_path / "group.txt") == 0o640
    finally:
        os.umask(old)
    assert leftovers(tmp_path) == []


def test_existing_file_keeps_mode_and_owner(tmp_path: Path) -> None:
    f = tmp_path / "CMakeLists.txt"
    f.write_text("old\n")
    f.chmod(0o664)
    if os.geteuid() == 0:
        os.chown(f, 1234, 5678)
    write_atomic(f, "new\n")
    assert f.read_text() == "new\n"
    assert mode_of(f) == 0o664
    if os.geteuid() == 0:
        assert (f.stat().st_uid, f.stat().st_gid) == (1234, 5678)


def test_symlink_edits_its_target_and_stays_a_link(tmp_path: Path) -> None:
    shared = tmp_path / "shared" / "common.cmake"
    shared.parent.mkdir()
    shared.write_text("old\n")
    shared.chmod(0o640)
    link = tmp_path / "proj" / "CMakeLists.txt"
    link.parent.mkdir()
    link.symlink_to(os.path.relpath(shared, link.parent))
    write_atomic(link, "new\n")
    assert link.is_symlink()
    assert shared.read_text() == "new\n"
    assert mode_of(shared) == 0o640
    assert leftovers(link.parent) == [] and leftovers(shared.parent) == []


def test_hard_link_is_refused_and_both_names_keep_their_bytes(tmp_path: Path) -> None:
    a = tmp_path / "a.cmake"
    a.write_text("shared\n")
    os.link(a, tmp_path / "b.cmake")
    with pytest.raises(UserError, match="hard links"):
        write_atomic(a, "new\n")
    assert a.read_text() == (tmp_path / "b.cmake").read_text() == "shared\n"
    assert a.stat().st_ino == (tmp_path / "b.cmake").stat().st_ino


def test_read_only_file_is_refused_even_for_root(tmp_path: Path) -> None:
    f = tmp_path / "ro.cmake"
    f.write_text("keep\n")
    f.chmod(0o444)
    ino = f.stat().st_ino
    with pytest.raises(UserError, match="read-only"):
        write_atomic(f, "new\n")
    assert f.read_text() == "keep\n" and mode_of(f) == 0o444 and f.stat().st_ino == ino


@pytest.mark.parametrize("kind", ["device", "fifo", "folder"])
def test_non_regular_targets_are_refused(tmp_path: Path, kind: str) -> None:
    if kind == "device":
        target = Path("/dev/null")
    elif kind == "fifo":
        target = tmp_path / "pipe"
        os.mkfifo(target)
    else:
        target = tmp_path / "dir"
        target.mkdir()
    before = os.stat(target)
    with pytest.raises(UserError, match="refusing to write"):
        write_atomic(target, "x")
    after = os.stat(target)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)


def test_a_file_where_a_folder_should_be_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("mine\n")
    with pytest.raises(UserError, match="not a folder"):
        write_atomic(tmp_path / "blocker" / "x.cmake", "x")
    assert (tmp_path / "blocker").read_text() == "mine\n"


def test_failed_write_leaves_the_old_file_and_no_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "f.txt"
    f.write_text("old\n")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(fsutil.os, "fsync", full)
    with pytest.raises(OSError):
        write_atomic(f, "new\n")
    assert f.read_text() == "old\n"
    assert leftovers(tmp_path) == []


def test_kill_9_leftovers_are_removed_by_the_next_write(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    # A writer killed between creating its temp file and renaming it.
    code = ("import os, sys; from pathlib import Path; from rocm_spirv import fsutil\n"
            "t = fsutil.check_target(Path(sys.argv[1]))\n"
            "fsutil.stage(t, b'half')\nos.kill(os.getpid(), 9)\n")
    subprocess.run([sys.executable, "-c", code, str(target)], check=False)
    assert len(leftovers(tmp_path)) == 1
    # A live process's temp file is not touched.
    live = tmp_path / f".f.txt{fsutil.TMP_MARK}{os.getpid()}.999"
    live.write_text("mine")
    write_atomic(target, "whole\n")
    assert target.read_text() == "whole\n"
    assert leftovers(tmp_path) == [live.name]


def test_one_exception_base() -> None:
    from rocm_spirv.compare.runner import BuildFailed
    from rocm_spirv.inspect.base import FormatError
    from rocm_spirv.migrate.cmake_lexer import CMakeSyntaxError
    for cls in (UserError, FormatError, BuildFailed, CMakeSyntaxError):
        assert issubclass(cls, RocmSpirvError)


# -- one line for every OS error and bad file, exit 2 --------------------------------------------

def cli(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The real entry point in a child process: a traceback would show on stderr."""
    return subprocess.run([sys.executable, "-m", "rocm_spirv", *argv], capture_output=True, text=True,
                          cwd=cwd, check=False, timeout=300)


def one_line_error(proc: subprocess.CompletedProcess[str], *words: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("rocm-spirv: error: ")
    for w in words:
        assert w in proc.stderr, proc.stderr


@pytest.fixture
def cxx(toolchain: Path) -> str:
    return str(toolchain / "bin" / "clang++")


def presets(folder: Path, cxx: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return cli("presets", "generate", "--compiler", cxx, *extra, cwd=folder)


def test_bad_presets_files_are_one_line(tmp_path: Path, cxx: str) -> None:
    f = tmp_path / "CMakePresets.json"
    f.write_bytes(b'{"version": 3, "displayName": "caf\xe9"}\n')
    one_line_error(presets(tmp_path, cxx), "not UTF-8", "CMakePresets.json")
    f.write_text("[" * 100_000 + "]" * 100_000)
    one_line_error(presets(tmp_path, cxx), "too deeply")
    f.unlink()
    f.mkdir()
    one_line_error(presets(tmp_path, cxx), "is a folder")
    assert not (tmp_path / ".rocm-spirv").exists(), "nothing written before the refusal"
    f.rmdir()
    (tmp_path / ".rocm-spirv").write_text("mine\n")
    one_line_error(presets(tmp_path, cxx), ".rocm-spirv", "not a folder")
    assert (tmp_path / ".rocm-spirv").read_text() == "mine\n" and not f.exists()


def test_prefix_pointing_at_a_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "pfx").write_text("mine\n")
    one_line_error(cli("toolchain", "provision", "--prefix", str(tmp_path / "pfx")), "pfx")
    assert (tmp_path / "pfx").read_text() == "mine\n"


@pytest.mark.parametrize("code,word", [(errno.EROFS, "read-only"), (errno.EACCES, "permission"),
                                       (errno.EPERM, "immutable"), (errno.ENOSPC, "disk is full"),
                                       (errno.ENOTDIR, "folder")])
def test_os_errors_are_one_line_with_a_remedy(tmp_path: Path, cxx: str, code: int, word: str) -> None:
    # The errno raised where the file system would raise it: inside the one write path.
    hook = (f"import errno, os, sys; from rocm_spirv import fsutil\n"
            f"def fail(*a, **k): raise OSError({code}, os.strerror({code}), a[0] if a else None)\n"
            f"fsutil.commit = fail\n"
            f"from rocm_spirv.cli import main; sys.exit(main(sys.argv[1:]))\n")
    out = tmp_path / "t.cmake"
    proc = subprocess.run([sys.executable, "-c", hook, "toolchain", "generate", "--compiler", cxx,
                           "--output", str(out)], capture_output=True, text=True, check=False, timeout=300)
    one_line_error(proc, word)
    assert not out.exists() and leftovers(tmp_path) == []


def test_immutable_file_is_refused_in_one_line(tmp_path: Path, cxx: str) -> None:
    out = tmp_path / "t.cmake"
    assert cli("toolchain", "generate", "--compiler", cxx, "--output", str(out)).returncode == 0
    if subprocess.run(["chattr", "+i", str(out)], capture_output=True, check=False).returncode != 0:
        pytest.skip("chattr +i is not available on this file system")
    try:
        before = out.read_bytes()
        # Another offload mode: the file would change, and the rename over it is not permitted.
        one_line_error(cli("toolchain", "generate", "--compiler", cxx, "--offload", "hybrid",
                           "--output", str(out)), str(out))
        assert out.read_bytes() == before
    finally:
        subprocess.run(["chattr", "-i", str(out)], check=False)
    assert leftovers(tmp_path) == []


# -- ownership by content ----------------------------------------------------------------------

def test_toolchain_generate_refuses_what_it_did_not_write(tmp_path: Path, cxx: str) -> None:
    one_line_error(cli("toolchain", "generate", "--compiler", cxx, "--output", "/dev/null"), "/dev/null")
    assert Path("/dev/null").is_char_device()
    mine = tmp_path / "mine.cmake"
    mine.write_text("set(CMAKE_CXX_COMPILER /opt/mine/clang++)\n")
    mine.chmod(0o640)
    one_line_error(cli("toolchain", "generate", "--compiler", cxx, "--output", str(mine)),
                   "not written by rocm-spirv", "--force", "--output")
    assert mine.read_text() == "set(CMAKE_CXX_COMPILER /opt/mine/clang++)\n"
    # Its own unmodified output is replaced; edited, it is the user's.
    out = tmp_path / "t.cmake"
    assert cli("toolchain", "generate", "--compiler", cxx, "--output", str(out)).returncode == 0
    assert "rocm-spirv-generated sha256=" in out.read_text().splitlines()[-1]
    assert cli("toolchain", "generate", "--compiler", cxx, "--offload", "hybrid",
               "--output", str(out)).returncode == 0
    with out.open("a") as f:
        f.write("# my own line\n")
    edited = out.read_text()
    one_line_error(cli("toolchain", "generate", "--compiler", cxx, "--output", str(out)), "edited since")
    assert out.read_text() == edited
    # --force is the remedy, and the file keeps its mode.
    mine_mode = mode_of(mine)
    assert cli("toolchain", "generate", "--compiler", cxx, "--output", str(mine), "--force").returncode == 0
    assert mode_of(mine) == mine_mode and "rocm-spirv-generated" in mine.read_text()


def test_presets_keep_user_files_and_edited_presets(tmp_path: Path, cxx: str) -> None:
    tc = tmp_path / ".rocm-spirv"
    tc.mkdir()
    (tc / "spirv.cmake").write_text("# my own spirv toolchain\n")
    one_line_error(presets(tmp_path, cxx), "spirv.cmake", "not written by rocm-spirv", "--force")
    assert (tc / "spirv.cmake").read_text() == "# my own spirv toolchain\n"
    assert not (tmp_path / "CMakePresets.json").exists()
    (tc / "spirv.cmake").unlink()
    assert presets(tmp_path, cxx).returncode == 0
    f = tmp_path / "CMakePresets.json"
    doc = json.loads(f.read_text())
    doc["configurePresets"][1]["cacheVariables"] = {"MY_OPTION": "ON"}  # the user edits "spirv"
    f.write_text(json.dumps(doc, indent=2))
    proc = presets(tmp_path, cxx, "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["kept"] == ["spirv"]
    assert json.loads(f.read_text())["configurePresets"][1]["cacheVariables"] == {"MY_OPTION": "ON"}


def test_presets_merge_keeps_the_files_formatting(tmp_path: Path, cxx: str) -> None:
    f = tmp_path / "CMakePresets.json"
    f.write_bytes(b'{\r\n\t"version": 6,\r\n\t"configurePresets": [\r\n\t\t{\r\n\t\t\t"name": "caf\xc3\xa9",\r\n'
                  b'\t\t\t"generator": "Ninja"\r\n\t\t}\r\n\t]\r\n}\r\n')
    assert presets(tmp_path, cxx).returncode == 0
    data = f.read_bytes()
    assert b"\r\n\t\t\t\"name\": \"caf\xc3\xa9\"" in data, data[:200]
    assert data.count(b"\n") == data.count(b"\r\n") and b"\n  " not in data, "CRLF and tabs kept"
    assert [p["name"] for p in json.loads(data)["configurePresets"]] == ["caf\u00e9", "native", "spirv", "hybrid"]


@pytest.mark.parametrize(("text", "words"), [
    ('{"version": 6, "version": 3}', ["'version' twice"]),
    ('{"version": 6, "configurePresets": [{"name": "a", "generator": "Ninja", "generator": "Make"}]}',
     ["'generator' twice"]),
    ('{"version": 6, "configurePresets": [{"name": ["spirv"]}]}', ['configurePresets[0] has a "name" that is a list']),
])
def test_presets_with_duplicate_keys_or_a_list_name_are_one_line(tmp_path: Path, cxx: str, text: str,
                                                                 words: list[str]) -> None:
    (tmp_path / "CMakePresets.json").write_text(text)
    one_line_error(presets(tmp_path, cxx), *words)
    assert (tmp_path / "CMakePresets.json").read_text() == text


def test_presets_in_a_folder_cmake_cannot_name_are_refused_else_read_by_cmake(tmp_path: Path, cxx: str) -> None:
    bad = tmp_path / "q'uote\\back$ENV{HOME}[=["
    bad.mkdir()
    one_line_error(presets(bad, cxx), "CMake rewrites", "rename the folder")
    assert not (bad / "CMakePresets.json").exists()
    good = tmp_path / "q'uote [=[;x"
    good.mkdir()
    (good / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES NONE)\n")
    assert presets(good, cxx).returncode == 0
    done = subprocess.run(["cmake", "--preset", "spirv"], cwd=good, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_concurrent_presets_runs_keep_each_others_presets(tmp_path: Path, cxx: str) -> None:
    for trial in range(4):
        folder = tmp_path / f"t{trial}"
        folder.mkdir()
        cmd = [sys.executable, "-m", "rocm_spirv", "presets", "generate", "--compiler", cxx]
        procs = [subprocess.Popen([*cmd, "--name-prefix", f"{p}-"], cwd=folder, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for p in ("a", "b", "c")]
        for p in procs:
            _, err = p.communicate(timeout=300)
            assert p.returncode == 0, err
        names = {p["name"] for p in json.loads((folder / "CMakePresets.json").read_text())["configurePresets"]}
        assert names == {f"{p}-{m}" for p in "abc" for m in ("native", "spirv", "hybrid")}, trial


# -- escaping --------------------------------------------------------------------------------

def test_compiler_path_with_quote_configures(tmp_path: Path, toolchain: Path) -> None:
    from tcfile import configure
    weird = tmp_path / 'we"ird $x;y\\z'
    weird.mkdir()
    (weird / "clang++").symlink_to(toolchain / "bin" / "clang++")
    (weird / "clang").symlink_to(toolchain / "bin" / "clang")
    out = tmp_path / "t.cmake"
    proc = cli("toolchain", "generate", "--compiler", str(weird / "clang++"), "--output", str(out))
    assert proc.returncode == 0, proc.stderr
    from conftest import SAMPLES
    configure(SAMPLES / "kernels", tmp_path / "build", out)


def test_cmake_quoting_reads_back_the_value(tmp_path: Path) -> None:
    from rocm_spirv.generate.toolchain_file import cmake_quoted
    value = 'a "b" \\c ${HOME} $ENV{X} ;d'
    (tmp_path / "q.cmake").write_text(f'set(V "{cmake_quoted(value)}")\nfile(WRITE "${{OUT}}" "${{V}}")\n')
    subprocess.run(["cmake", f"-DOUT={tmp_path / 'v'}", "-P", str(tmp_path / "q.cmake")], check=True)
    assert (tmp_path / "v").read_text() == value


def test_newline_in_a_path_is_refused(tmp_path: Path, toolchain: Path) -> None:
    weird = tmp_path / "a\nset(EVIL 1)"
    weird.mkdir()
    (weird / "clang++").symlink_to(toolchain / "bin" / "clang++")
    out = tmp_path / "t.cmake"
    one_line_error(cli("toolchain", "generate", "--compiler", str(weird / "clang++"), "--output", str(out)),
                   "line break")
    assert not out.exists()


def test_bazel_generate_keeps_a_users_toolchain_config(tmp_path: Path, cxx: str) -> None:
    repo = tmp_path / "repo"
    assert cli("bazel", "generate", "--output-dir", str(repo), "--compiler", cxx).returncode == 0
    cfg = repo / "toolchain_config.bzl"
    cfg.write_text('CLANG = "/opt/mine/clang++"\n')  # replaced by the user's own
    other = repo / "BUILD.bazel"
    before = other.read_bytes()
    one_line_error(cli("bazel", "generate", "--output-dir", str(repo), "--compiler", cxx),
                   "toolchain_config.bzl", "not written by rocm-spirv", "--force")
    assert cfg.read_text() == 'CLANG = "/opt/mine/clang++"\n' and other.read_bytes() == before
    assert cli("bazel", "generate", "--output-dir", str(repo), "--compiler", cxx, "--force").returncode == 0
    assert "rocm-spirv-generated" in cfg.read_text()


def test_bazel_generate_keeps_a_users_file_mode(tmp_path: Path, cxx: str) -> None:
    repo = tmp_path / "repo"
    assert cli("bazel", "generate", "--output", str(repo), "--compiler", cxx).returncode == 0
    cfg = repo / "toolchain_config.bzl"
    cfg.chmod(0o600)
    before = cfg.read_bytes()
    scripts = [p for p in repo.rglob("*") if p.is_file() and p.stat().st_mode & 0o100]
    other = tmp_path / "other" / "clang++"  # another compiler path: the file is re-rendered
    other.parent.mkdir()
    other.symlink_to(cxx)
    assert cli("bazel", "generate", "--output", str(repo), "--compiler", str(other)).returncode == 0
    assert cfg.read_bytes() != before and mode_of(cfg) == 0o600
    assert all(p.stat().st_mode & 0o100 for p in scripts), "scripts keep their executable bit"


def test_starlark_literals_read_back_the_value() -> None:
    import ast

    from rocm_spirv.bazel import make_var_in, starlark, starlark_in
    value = 'a "b" \\c $(X) ;d é'
    # Starlark string literals are a subset of Python's: Python reads the same value.
    assert ast.literal_eval(starlark(value)) == value
    assert ast.literal_eval('"""' + starlark_in(value) + '"""') == value
    assert ast.literal_eval('"' + make_var_in(value) + '"').replace("$$", "$") == value


# -- migrate --apply edits bytes ---------------------------------------------------------------

TOP = b"cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES CXX HIP)\n"
SUB = b"set(GPU_TARGETS gfx90a)  # caf\xe9 (Latin-1)\r\nadd_library(k{i} k.hip)\n"


def migrate_project(root: Path, subdirs: int = 3) -> Path:
    root.mkdir(parents=True)
    (root / "CMakeLists.txt").write_bytes(TOP + b"".join(b"add_subdirectory(d%d)\n" % i for i in range(subdirs)))
    for i in range(subdirs):
        (root / f"d{i}").mkdir()
        (root / f"d{i}" / "CMakeLists.txt").write_bytes(SUB.replace(b"{i}", str(i).encode()))
    return root


def tree(root: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(root)): (p.read_bytes(), mode_of(p)) for p in sorted(root.rglob("*")) if p.is_file()}


def migrate(*argv: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "rocm_spirv", "migrate", *argv], capture_output=True,
                          check=False, timeout=120)


def test_diff_is_exactly_what_apply_writes_and_applies_with_patch_and_git(tmp_path: Path) -> None:
    root = migrate_project(tmp_path / "p")
    (root / "d1" / "CMakeLists.txt").write_bytes(b"\xef\xbb\xbf" + SUB.replace(b"{i}", b"1"))  # UTF-8 BOM
    (root / "d2" / "CMakeLists.txt").chmod(0o664)
    original = tree(root)
    diff = migrate(str(root), "--diff")
    assert diff.returncode == 1 and diff.stderr == b""  # 1: edits pending
    assert b"caf\xe9" in diff.stdout and b"d1/CMakeLists.txt" in diff.stdout  # the BOM file is edited
    assert migrate(str(root), "--apply").returncode == 0
    applied = tree(root)
    for tool in (["patch", "-s", "-p1"], ["git", "apply", "-p1", "-"]):
        copy = tmp_path / f"copy-{tool[0]}"
        migrate_project(copy)
        for rel, (data, mode) in original.items():
            (copy / rel).write_bytes(data)
            (copy / rel).chmod(mode)
        subprocess.run(tool, input=diff.stdout, cwd=copy, check=True)
        assert {k: v[0] for k, v in tree(copy).items()} == {k: v[0] for k, v in applied.items()}, tool
    for rel, (_, mode) in original.items():
        new, new_mode = applied[rel]
        assert new_mode == mode, rel
        assert b"caf\xe9" in new or rel == "CMakeLists.txt"
    assert applied["d1/CMakeLists.txt"][0].startswith(b"\xef\xbb\xbf")
    assert not [p for p in root.rglob(".*") if p.is_file()], "no temp, staged or journal file left"


def test_the_diff_of_a_large_file_matches_lines_near_each_change(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A 4 MiB CMakeLists.txt of repeated lines with 719 edits took 83 s to --diff: difflib matched the whole
    files. Each change is matched within a window of lines around it, and the patch still applies."""
    import difflib

    from rocm_spirv.migrate.apply import unified_diff

    seen: list[int] = []
    real = difflib.SequenceMatcher.set_seqs

    def spy(self: difflib.SequenceMatcher[bytes], a: list[bytes], b: list[bytes]) -> None:
        seen.append(max(len(a), len(b)))
        real(self, a, b)

    monkeypatch.setattr(difflib.SequenceMatcher, "set_seqs", spy)
    old = b"".join(b"endif()\nadd_library(k STATIC k.cpp)\n" if i % 50 else b"set(GPU_TARGETS gfx90a)\n"
                   for i in range(20_000))
    new = old.replace(b"set(GPU_TARGETS gfx90a)\n", b"if(X)\nset(GPU_TARGETS amdgcnspirv)\nendif()\n")
    diff = unified_diff({"CMakeLists.txt": (old, new)})
    assert diff.count(b"\n@@ ") + diff.startswith(b"@@ ") == 400
    assert seen and max(seen) < 1_000, "no matching over the whole file (40,000 lines)"
    (tmp_path / "CMakeLists.txt").write_bytes(old)
    subprocess.run(["patch", "-s", "-p1"], input=diff, cwd=tmp_path, check=True)
    assert (tmp_path / "CMakeLists.txt").read_bytes() == new


def test_apply_edits_a_symlinks_target_and_refuses_hard_links_and_read_only(tmp_path: Path) -> None:
    root = migrate_project(tmp_path / "p")
    shared = root / "common" / "shared.txt"  # inside the scanned tree: links outside are refused
    shared.parent.mkdir()
    shared.write_bytes((root / "d0" / "CMakeLists.txt").read_bytes())
    (root / "d0" / "CMakeLists.txt").unlink()
    (root / "d0" / "CMakeLists.txt").symlink_to(shared)
    os.link(root / "d1" / "CMakeLists.txt", tmp_path / "other-name.txt")
    before = tree(root)
    proc = migrate(str(root), "--apply")
    assert proc.returncode == 2 and b"hard links" in proc.stderr and b"Traceback" not in proc.stderr
    assert tree(root) == before, "refused before anything was written"
    (tmp_path / "other-name.txt").unlink()
    (root / "d2" / "CMakeLists.txt").chmod(0o444)
    before = tree(root)
    proc = migrate(str(root), "--apply")
    assert proc.returncode == 2 and b"read-only" in proc.stderr and tree(root) == before
    (root / "d2" / "CMakeLists.txt").chmod(0o644)
    assert migrate(str(root), "--apply").returncode == 0
    assert (root / "d0" / "CMakeLists.txt").is_symlink() and b"rocm_spirv_target(k0)" in shared.read_bytes()


def test_apply_stops_when_a_file_changed_after_it_was_read(tmp_path: Path) -> None:
    from rocm_spirv.migrate.apply import as_bytes, commit_order, plan
    from rocm_spirv.migrate.commit import apply_all
    from rocm_spirv.migrate.scan import scan
    root = migrate_project(tmp_path / "p")
    s = scan(root)
    changes = as_bytes(plan(s), s.bom)
    with (root / "d2" / "CMakeLists.txt").open("ab") as f:
        f.write(b"# added while migrate ran\n")
    before = tree(root)
    with pytest.raises(UserError, match="changed while migrate ran"):
        apply_all(root, changes, s.stamps, commit_order(changes))
    assert tree(root) == before


def test_check_fails_when_files_were_skipped(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "CMakeLists.txt").write_text("project(p)\nset(GPU_TARGETS amdgcnspirv)\n")
    assert migrate(str(root), "--check").returncode == 0
    with (root / "big.cmake").open("wb") as f:
        f.truncate(5 << 20)
    proc = migrate(str(root), "--check")
    assert proc.returncode == 1 and b"big.cmake" in proc.stdout and b"larger than 4 MiB" in proc.stdout
    (root / "big.cmake").unlink()
    os.mkfifo(root / "pipe.cmake")  # read, it would block for ever
    proc = migrate(str(root), "--check")
    assert proc.returncode == 1 and b"pipe.cmake" in proc.stdout and b"not a regular file" in proc.stdout


# Runs migrate and SIGKILLs itself just before its Nth file-system call of the write path
# (N = 0: count them and exit normally), so the kill lands at a chosen point of the apply.
KILL_AT = """
import os, signal, sys
from rocm_spirv.cli import main
n = int(sys.argv[1]); count = 0
def hook(name):
    real = getattr(os, name)
    def call(*a, **k):
        global count
        count += 1
        if count == n:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*a, **k)
    setattr(os, name, call)
for name in ("open", "fsync", "replace", "unlink", "fchmod", "write"):
    hook(name)
code = main(sys.argv[2:])
print(count, file=sys.stderr)
sys.exit(code)
"""


def killed_at(n: int, *argv: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-c", KILL_AT, str(n), "migrate", *argv], capture_output=True,
                          check=False, timeout=120)


@pytest.mark.slow
def test_kill_9_during_apply_loses_nothing(tmp_path: Path) -> None:
    import random
    reference = migrate_project(tmp_path / "ref", subdirs=6)
    original = tree(reference)
    counted = killed_at(0, str(reference), "--apply")
    assert counted.returncode == 0
    calls = int(counted.stderr.split()[-1])
    expected = tree(reference)
    rng = random.Random(17)
    states = set()
    for trial in range(20):
        root = migrate_project(tmp_path / f"t{trial}", subdirs=6)
        n = rng.randint(1, calls)
        proc = killed_at(n, str(root), "--apply")
        assert proc.returncode == -9 and b"Traceback" not in proc.stderr, (n, proc.stderr)
        state = tree(root)
        changed = {k for k in original if state[k][0] != original[k][0]}
        states.add(len(changed))
        # Every state configures: a subdirectory's edit never lands before the top level's find_package.
        if changed - {"CMakeLists.txt"}:
            assert "CMakeLists.txt" in changed, (trial, n)
        assert all(state[k][0] in (original[k][0], expected[k][0]) for k in original), "no byte lost or mixed"
        assert all(state[k][1] == original[k][1] for k in original), "no mode changed"
        if (root / ".rocm-spirv-migrate.journal").exists():  # --check writes nothing: it says what to run
            check = migrate(str(root), "--check")
            assert check.returncode == 2 and b"did not finish" in check.stderr and b"--apply" in check.stderr
        fin = migrate(str(root), "--apply")
        assert fin.returncode == 0 and b"Traceback" not in fin.stderr, fin.stderr
        assert tree(root) == expected, (trial, n)
        assert not [p.name for p in root.rglob(".*")], "no leftover after the next run"
    assert len(states) > 2, f"the kills should land before, inside and after the commit: {states}"


NOT_NEWLINE = st.binary(max_size=40).map(lambda b: b.replace(b"\n", b" ").replace(b"\r", b" "))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(before=NOT_NEWLINE, after=NOT_NEWLINE, tail=st.binary(max_size=40),
       eol=st.sampled_from([b"\n", b"\r\n"]), bom=st.booleans())
@pytest.mark.slow
def test_apply_changes_exactly_the_bytes_diff_shows(tmp_path_factory: pytest.TempPathFactory, before: bytes,
                                                    after: bytes, tail: bytes, eol: bytes, bom: bool) -> None:
    root = tmp_path_factory.mktemp("h")
    # Random bytes, in any encoding, in comments around a construct migrate edits, and after it. No `]` in the
    # bracket comment: a tail ending in one closes `#[[…]]` early and leaves a stray `]` (a syntax error, no edit).
    src = ((b"\xef\xbb\xbf" if bom else b"") + b"project(p)" + eol + b"#" + before + eol
           + b"set(GPU_TARGETS gfx90a)" + eol + b"#" + after + eol + b"#[[" + tail.replace(b"]", b"") + b"]]")
    (root / "CMakeLists.txt").write_bytes(src)
    diff = migrate(str(root), "--diff")
    assert diff.returncode == 1 and diff.stdout, diff.stderr
    assert migrate(str(root), "--apply").returncode == 0
    applied = (root / "CMakeLists.txt").read_bytes()
    copy = root / "copy"
    copy.mkdir()
    (copy / "CMakeLists.txt").write_bytes(src)
    subprocess.run(["patch", "-s", "-p1"], input=diff.stdout, cwd=copy, check=True)
    assert (copy / "CMakeLists.txt").read_bytes() == applied
    for part in (before, after, tail.replace(b"]", b"")):
        assert part in applied


# -- a refused toolchain switch, and provision's staging ------------------------------------------

def test_refused_toolchain_switch_leaves_the_cache_as_it_was(tmp_path: Path, cxx: str) -> None:
    from cmakebuild import tool
    from conftest import SAMPLES
    from tcfile import configure, run
    first, other = tmp_path / "spirv.cmake", tmp_path / "hybrid.cmake"
    assert cli("toolchain", "generate", "--compiler", cxx, "--output", str(first)).returncode == 0
    assert cli("toolchain", "generate", "--compiler", cxx, "--offload", "hybrid", "--native-archs", "gfx942",
               "--output", str(other)).returncode == 0
    build = tmp_path / "build"
    configure(SAMPLES / "kernels", build, first)
    cache = (build / "CMakeCache.txt").read_bytes()
    refused = run([tool("cmake"), "-S", str(SAMPLES / "kernels"), "-B", str(build),
                   f"-DCMAKE_TOOLCHAIN_FILE={other}"], check=False)
    assert refused.returncode != 0 and "rocm-spirv:" in refused.stderr
    assert (build / "CMakeCache.txt").read_bytes() == cache
    run([tool("cmake"), "-S", str(SAMPLES / "kernels"), "-B", str(build)])  # a plain reconfigure still works


@pytest.mark.slow
def test_kill_9_during_provision_leaves_nothing_the_next_run_keeps(tmp_path: Path) -> None:
    import random
    import time
    prefix = tmp_path / "data" / "toolchain"
    code = "import sys; from pathlib import Path; from rocm_spirv.toolchain.provision import provision\n" \
           "provision(Path(sys.argv[1]))\n"
    start = time.monotonic()
    first = subprocess.run([sys.executable, "-c", code, str(prefix)], capture_output=True, check=False, timeout=600)
    if first.returncode != 0:
        pytest.skip(f"cannot provision here: {first.stderr.decode()[-300:]}")
    full = time.monotonic() - start
    assert mode_of(prefix) == 0o755 and mode_of(prefix.parent) == 0o755
    rng = random.Random(8)
    for _ in range(4):
        proc = subprocess.Popen([sys.executable, "-c", code, str(prefix)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.3, 0.9) * full)
        proc.kill()
        proc.wait()
    again = subprocess.run([sys.executable, "-c", code, str(prefix)], capture_output=True, check=False, timeout=600)
    assert again.returncode == 0, again.stderr
    assert sorted(p.name for p in prefix.parent.iterdir()) == [".toolchain.lock", "toolchain"]
    assert mode_of(prefix) == 0o755 and (prefix / "manifest.json").is_file()


# -- real read-only and full file systems (a tmpfs mounted for the test; needs root) -----------------

@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)],
                      capture_output=True, check=False).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_read_only_file_system_is_one_line_and_keeps_the_file(tmpfs: Path, cxx: str) -> None:
    out = tmpfs / "t.cmake"
    assert cli("toolchain", "generate", "--compiler", cxx, "--output", str(out)).returncode == 0
    before = out.read_bytes()
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    one_line_error(cli("toolchain", "generate", "--compiler", cxx, "--offload", "hybrid", "--output", str(out)),
                   "Read-only file system", "mounted read-only")
    one_line_error(presets(tmpfs, cxx), "Read-only file system")
    assert out.read_bytes() == before and sorted(p.name for p in tmpfs.iterdir()) == ["t.cmake"]


def test_full_disk_is_one_line_and_keeps_the_file(tmpfs: Path, cxx: str) -> None:
    out = tmpfs / "t.cmake"
    assert cli("toolchain", "generate", "--compiler", cxx, "--output", str(out)).returncode == 0
    before = out.read_bytes()
    fd = os.open(tmpfs / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 1024)
    except OSError as err:
        assert err.errno == errno.ENOSPC
    finally:
        os.close(fd)
    one_line_error(cli("toolchain", "generate", "--compiler", cxx, "--offload", "hybrid", "--output", str(out)),
                   "disk is full")
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmpfs.iterdir()) == ["filler", "t.cmake"], "no temp file left behind"


def test_concurrent_applies_all_succeed_once(tmp_path: Path) -> None:
    reference = migrate_project(tmp_path / "ref", subdirs=6)
    assert migrate(str(reference), "--apply").returncode == 0
    expected = tree(reference)
    for trial in range(3):
        root = migrate_project(tmp_path / f"t{trial}", subdirs=6)
        procs = [subprocess.Popen([sys.executable, "-m", "rocm_spirv", "migrate", str(root), "--apply"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for _ in range(3)]
        for p in procs:
            _, err = p.communicate(timeout=120)
            assert p.returncode == 0, err
        assert tree(root) == expected


def test_unmarked_output_of_an_earlier_version_is_refused_with_its_own_reason(tmp_path: Path, cxx: str) -> None:
    old = tmp_path / "old.cmake"
    old.write_text("# CMake toolchain file generated by rocm-spirv 0.1.0. Do not edit: regenerate with\n"
                   "set(CMAKE_CXX_COMPILER /opt/old/clang++)  # a user's edit, or not: no marker tells\n")
    one_line_error(cli("toolchain", "generate", "--compiler", cxx, "--output", str(old)),
                   "earlier rocm-spirv", "--force")


def test_a_failure_past_the_commit_point_is_finished_by_the_next_run(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from rocm_spirv.migrate import commit as txn
    from rocm_spirv.migrate.apply import as_bytes, commit_order, plan
    from rocm_spirv.migrate.scan import scan
    reference = migrate_project(tmp_path / "ref")
    assert migrate(str(reference), "--apply").returncode == 0
    root = migrate_project(tmp_path / "p")
    s = scan(root)
    changes = as_bytes(plan(s), s.bom)
    real_commit = txn.commit
    calls = []

    def second_fails(staged: Path, target: Path) -> None:
        calls.append(target)
        if len(calls) == 2:
            raise OSError(errno.EIO, "Input/output error", str(target))
        real_commit(staged, target)

    monkeypatch.setattr(txn, "commit", second_fails)
    with pytest.raises(UserError, match="stopped after 1 of 4"):
        txn.apply_all(root, changes, s.stamps, commit_order(changes))
    monkeypatch.setattr(txn, "commit", real_commit)
    assert (root / "CMakeLists.txt").read_bytes() == (reference / "CMakeLists.txt").read_bytes()
    fin = migrate(str(root), "--apply")
    assert fin.returncode == 0 and b"finished an interrupted" in fin.stderr
    assert tree(root) == tree(reference)


def test_default_path_recognises_its_unmarked_output_but_keeps_edits(tmp_path: Path, cxx: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROCM_SPIRV_PREFIX", str(tmp_path / "data" / "toolchain"))
    first = cli("toolchain", "generate", "--compiler", cxx)
    assert first.returncode == 0
    path = Path(first.stdout.strip())
    stamped = path.read_text()
    body = "".join(stamped.splitlines(keepends=True)[:-1])
    path.write_text(body.replace("# Use it on", "# (an older template)\n# Use it on"))  # unmarked, same identity
    assert cli("toolchain", "generate", "--compiler", cxx).returncode == 0
    assert path.read_text() == stamped
    path.write_text(stamped + "# my edit\n")  # marked and edited: the user's
    one_line_error(cli("toolchain", "generate", "--compiler", cxx), "edited since")
    assert path.read_text().endswith("# my edit\n")


# -- trust boundaries of migrate --apply -------------------------------------------------------

def test_apply_refuses_a_link_out_of_the_scanned_tree(tmp_path: Path) -> None:
    root = migrate_project(tmp_path / "p")
    victim = tmp_path / "home" / "user.cmake"  # any CMake file of the user a cloned repository points at
    victim.parent.mkdir()
    victim.write_bytes(b"set(GPU_TARGETS gfx90a)\n")
    (root / "d0" / "evil.cmake").symlink_to(victim)
    before = tree(root)
    proc = migrate(str(root), "--apply")
    assert proc.returncode == 2 and b"outside the scanned folder" in proc.stderr, proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and b"Traceback" not in proc.stderr
    assert victim.read_bytes() == b"set(GPU_TARGETS gfx90a)\n" and tree(root) == before


@pytest.mark.parametrize("layout", ["link-and-target", "two-links"])
def test_one_file_reached_by_two_paths_is_one_plan(tmp_path: Path, layout: str) -> None:
    root = migrate_project(tmp_path / "p")
    real = root / "d0" / "CMakeLists.txt"
    for link in ("d8", "d9")[: 1 if layout == "link-and-target" else 2]:
        (root / link).mkdir()
        (root / link / "CMakeLists.txt").symlink_to("../d0/CMakeLists.txt")
    if layout == "two-links":  # the target itself is not scanned under its own name
        (root / "d0" / "CMakeLists.txt").rename(root / "d0" / "real.txt")
        real = root / "d0" / "real.txt"
        for link in ("d8", "d9"):
            (root / link / "CMakeLists.txt").unlink()
            (root / link / "CMakeLists.txt").symlink_to("../d0/real.txt")
    diff = migrate(str(root), "--diff")
    assert diff.returncode == 1  # edits pending
    assert diff.stdout.count(b"+rocm_spirv_target(k0)") == 1, diff.stdout.decode(errors="replace")
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(root), str(copy)], check=True)
    subprocess.run(["git", "apply", "-p1", "-"], input=diff.stdout, cwd=copy, check=True)
    proc = migrate(str(root), "--apply")
    assert proc.returncode == 0, proc.stderr
    assert real.read_bytes() == (copy / real.relative_to(root)).read_bytes()
    assert b"rocm_spirv_target(k0)" in real.read_bytes() and (root / "d8" / "CMakeLists.txt").is_symlink()
    assert not [p for p in root.rglob(".*") if p.is_file()], "no staged or journal file left"


def test_an_edit_during_the_commit_phase_stops_the_apply_and_is_kept(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from rocm_spirv.migrate import commit as txn
    from rocm_spirv.migrate.apply import as_bytes, commit_order, plan
    from rocm_spirv.migrate.scan import scan
    root = migrate_project(tmp_path / "p")
    s = scan(root)
    changes = as_bytes(plan(s), s.bom)
    order = commit_order(changes)
    real_commit = txn.commit
    victim = root / order[2]

    def edit_while_committing(staged: Path, target: Path) -> None:
        real_commit(staged, target)
        if target == root / order[0]:  # the user saves the third file just after the first rename
            with victim.open("ab") as f:
                f.write(b"# my edit\n")

    monkeypatch.setattr(txn, "commit", edit_while_committing)
    with pytest.raises(UserError, match=f"{order[2]} changed while migrate --apply was replacing"):
        txn.apply_all(root, changes, s.stamps, order)
    assert victim.read_bytes().endswith(b"# my edit\n"), "the user's edit is kept"
    proc = migrate(str(root), "--apply")  # the next run does not overwrite it either
    assert proc.returncode == 2 and b"changed after an interrupted" in proc.stderr
    assert victim.read_bytes().endswith(b"# my edit\n")


def test_apply_keeps_posix_acls_and_user_xattrs(tmp_path: Path) -> None:
    import struct
    root = migrate_project(tmp_path / "p")
    f = root / "d1" / "CMakeLists.txt"
    # A POSIX ACL granting user 1234 rw- (the binary form setfacl writes): tags USER_OBJ, USER, GROUP_OBJ, MASK, OTHER.
    acl = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", t, perm, i) for t, perm, i in
                                          [(1, 6, 0xFFFFFFFF), (2, 6, 1234), (4, 4, 0xFFFFFFFF),
                                           (0x10, 6, 0xFFFFFFFF), (0x20, 4, 0xFFFFFFFF)])
    try:
        os.setxattr(f, "system.posix_acl_access", acl)
        os.setxattr(f, "user.origin", b"vendored from upstream")
    except OSError as err:
        pytest.skip(f"the file system of {tmp_path} holds no ACLs or user xattrs ({err.strerror})")
    mode = mode_of(f)
    assert migrate(str(root), "--apply").returncode == 0
    assert b"rocm_spirv_target" in f.read_bytes()
    assert os.getxattr(f, "system.posix_acl_access") == acl
    assert os.getxattr(f, "user.origin") == b"vendored from upstream"
    assert mode_of(f) == mode


def test_sigterm_while_the_journal_is_written_leaves_no_litter(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from rocm_spirv.cli import Terminated
    from rocm_spirv.migrate import commit as txn
    from rocm_spirv.migrate.apply import as_bytes, commit_order, plan
    from rocm_spirv.migrate.scan import scan
    for state in ("staging", "commit"):
        root = migrate_project(tmp_path / state, subdirs=5)
        before = tree(root)
        s = scan(root)
        changes = as_bytes(plan(s), s.bom)
        def terminated_inside(path: Path, data: str | bytes, *a: object, _state: str = state,
                              real_write: Callable[..., None] = txn.write_atomic, **k: object) -> None:
            if f'"state": "{_state}"' in str(data):
                real_write(path, data)  # the journal is on disk: the signal lands just after its rename
                raise Terminated()
            real_write(path, data)

        monkeypatch.setattr(txn, "write_atomic", terminated_inside)
        with pytest.raises(Terminated):
            txn.apply_all(root, changes, s.stamps, commit_order(changes))
        monkeypatch.undo()
        assert tree(root) == before, state
        assert not [p.name for p in root.rglob(".*")], f"journal or staged copies left ({state})"


def test_check_reports_a_folder_it_cannot_list() -> None:
    import shutil
    import tempfile
    if os.geteuid() != 0:
        pytest.skip("needs root to drop to another user (root itself may list any folder)")
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable]
    env = {**os.environ, "PYTHONPATH": str(Path(fsutil.__file__).parents[1])}
    probe = subprocess.run([*nobody, "-c", "import rocm_spirv"], capture_output=True, check=False, timeout=60, env=env)
    if probe.returncode != 0:
        pytest.skip(f"user 65534 cannot run this checkout's Python and import rocm_spirv (a checkout under a "
                    f"mode-0700 folder such as `mktemp -d`): {probe.stderr.decode(errors='replace').strip()}")
    top = Path(tempfile.mkdtemp(prefix="rocm-spirv-unlisted-"))  # pytest's tmp_path is private to root
    top.chmod(0o755)
    root = top / "p"
    (root / "private").mkdir(parents=True)
    (root / "CMakeLists.txt").write_text("project(p)\nset(GPU_TARGETS amdgcnspirv)\nadd_subdirectory(private)\n")
    (root / "private" / "CMakeLists.txt").write_text("set(GPU_TARGETS gfx90a)\n")
    (root / "private").chmod(0)
    try:
        # As a user who may not list it (root may list anything, so the test drops to nobody).
        proc = subprocess.run([*nobody, "-m", "rocm_spirv", "migrate", str(root), "--check"],
                              capture_output=True, check=False, timeout=120, env=env)
    finally:
        (root / "private").chmod(0o755)
        shutil.rmtree(top)
    assert proc.returncode == 1, proc.stderr
    assert b"private/" in proc.stdout and b"cannot be listed" in proc.stdout
