"""children.py: every tool a command starts runs in a process group of its own, goes down with that
group on a timeout or an interrupt, and stop_all() ends the ones started from other threads."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

import pytest
from rocm_spirv import children


def _gone(pid: int) -> bool:
    """The process ended (it may stay a zombie until init reaps it)."""
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        stat = Path(f"/proc/{pid}/stat")
        if not stat.exists() or stat.read_text().split()[2] == "Z":
            return True
        time.sleep(0.1)
    return False


def test_a_timeout_takes_the_whole_process_group(tmp_path: Path) -> None:
    """cmake -> ninja -> compilers: when the tool is stopped, the grandchildren stop too."""
    pidfile = tmp_path / "pid"
    with pytest.raises(subprocess.TimeoutExpired):
        children.run(["sh", "-c", f"sleep 60 & echo $! > {pidfile}; wait"], timeout=2)
    assert _gone(int(pidfile.read_text())), "the grandchild still runs"
    done = children.run(["sh", "-c", "echo out; echo err >&2; exit 3"])
    assert (done.returncode, done.stdout, done.stderr) == (3, "out\n", "err\n")


def test_stop_all_ends_children_of_other_threads_and_refuses_new_ones(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    result: list[subprocess.CompletedProcess[str]] = []
    worker = threading.Thread(target=lambda: result.append(
        children.run(["sh", "-c", f"sleep 60 & echo $! > {pidfile}; wait"])))
    worker.start()
    for _ in range(600):  # up to 30 s: on a loaded machine the shell may take seconds to start
        if pidfile.exists() and pidfile.read_text().strip():
            break
        time.sleep(0.05)
    assert pidfile.exists(), "the child never started"
    start = time.monotonic()
    try:
        children.stop_all()
        worker.join(timeout=10)
        assert not worker.is_alive() and time.monotonic() - start < 10
        assert result and result[0].returncode == -15  # SIGTERM first (clang removes its temporary files)
        assert _gone(int(pidfile.read_text()))
        with pytest.raises(children.Stopping):
            children.run(["true"])
    finally:
        children.resume()
    assert children.run(["true"]).returncode == 0


def test_a_group_that_ignores_sigterm_is_killed_after_the_grace(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    start = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):  # the ignored SIGTERM is inherited by sleep
        children.run(["sh", "-c", f"trap '' TERM; sleep 60 & echo $! > {pidfile}; wait"], timeout=1)
    assert time.monotonic() - start < 1 + children.GRACE + 5
    assert _gone(int(pidfile.read_text()))
