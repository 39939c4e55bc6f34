"""Attacks on everything rocm-spirv writes: no lost byte, no changed mode, no traceback, no leftover."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
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
