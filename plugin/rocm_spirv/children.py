"""The child processes a command starts, and the one way they are stopped.

cmake runs ninja, ninja runs the compilers, the clang driver runs cc1: killing the first alone
(subprocess.run on Ctrl-C or SIGTERM) left the rest building on in a removed directory. So every
child runs in a process group of its own and goes down with its whole group.

Ctrl-C and the SIGTERM the CLI turns into an exception reach the main thread only; tools started
from a thread pool (migrate's oracle) would run on to their end. Every running child is therefore
registered, and `stop_all()` (called by whoever sees the exception) ends all of them and refuses new
ones until `resume()`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from rocm_spirv.term import traced

GRACE = 2.0  # seconds a group has to end on SIGTERM (clang removes its temporary files) before SIGKILL
_LIVE: set[subprocess.Popen[str]] = set()
_LOCK = threading.Lock()
_STOPPING = threading.Event()


class Stopping(Exception):
    """A child was asked for after stop_all(): the command is being interrupted."""


def run(argv: Sequence[str], *, cwd: str | Path | None = None, env: dict[str, str] | None = None,
        timeout: float | None = None, errors: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run one tool to its end and capture its output, as subprocess.run(capture_output=True,
    text=True) does (OSError when it cannot start, TimeoutExpired after `timeout`); on a timeout or
    any exception (KeyboardInterrupt, the CLI's SIGTERM) its process group is killed first."""
    if _STOPPING.is_set():
        raise Stopping(str(argv[0]))
    with traced(argv, cwd) as trace:
        proc = subprocess.Popen(list(argv), cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, errors=errors, start_new_session=True)
        with _LOCK:
            _LIVE.add(proc)
        try:
            out, err = proc.communicate(timeout=timeout)
        except BaseException:
            _stop(proc)
            proc.communicate()  # reaps it and closes the pipes
            raise
        finally:
            with _LOCK:
                _LIVE.discard(proc)
        trace.status = proc.returncode
    return subprocess.CompletedProcess(list(argv), proc.returncode, out, err)


def _signal(proc: subprocess.Popen[str], sig: signal.Signals) -> None:
    # Its own session: the group id is its pid, which the kernel does not hand out again while the
    # group has a member.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


def _stop(proc: subprocess.Popen[str]) -> None:
    """SIGTERM to the group (clang and cmake remove their temporary files on it), SIGKILL to what is
    left of it after GRACE."""
    _signal(proc, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=GRACE)
    _signal(proc, signal.SIGKILL)


def stop_all() -> None:
    """End every running child with its group (by handle, never by name) and start no more."""
    _STOPPING.set()
    with _LOCK:
        live = list(_LIVE)
    for proc in live:
        _signal(proc, signal.SIGTERM)
    deadline = time.monotonic() + GRACE
    while time.monotonic() < deadline and any(p.poll() is None for p in live):
        time.sleep(0.05)
    for proc in live:
        _signal(proc, signal.SIGKILL)


def resume() -> None:
    """Children may start again (a new run after a stop in the same process, as in tests)."""
    _STOPPING.clear()
