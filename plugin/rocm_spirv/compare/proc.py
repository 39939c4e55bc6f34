"""Run a child in a process group of its own, and take the whole group down when compare stops.

cmake runs ninja, ninja runs the compilers, the clang driver runs cc1: killing the first alone
(subprocess.run on Ctrl-C or SIGTERM) left the rest building on in a removed directory.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path

from rocm_spirv.term import traced


def run(cmd: list[str], env: dict[str, str] | None = None, cwd: Path | None = None,
        timeout: float | None = None) -> tuple[int, str, str]:
    """(exit status, stdout, stderr); on any exception (KeyboardInterrupt, the SIGTERM the CLI
    raises, a timeout) the child's process group is killed before the exception goes on."""
    with traced(cmd, cwd) as trace, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                                     env=env, cwd=cwd, start_new_session=True) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except BaseException:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
        trace.status = proc.returncode
    return proc.returncode, out, err
