"""One lock helper (fsutil.locked): it waits by default, or refuses at once with the caller's one-line
error; compare's build folders use it, so a second compare of one project is refused, not mixed in."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

import pytest
from rocm_spirv.compare.session import work_dir
from rocm_spirv.errors import UserError
from rocm_spirv.fsutil import locked


def _hold(path: str, ready: multiprocessing.synchronize.Event, release: multiprocessing.synchronize.Event) -> None:
    with locked(Path(path)):
        ready.set()
        release.wait(30)


def test_a_held_lock_refuses_with_the_callers_error_or_waits(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    ready, release = ctx.Event(), ctx.Event()
    holder = ctx.Process(target=_hold, args=(str(tmp_path / "x.lock"), ready, release))
    holder.start()
    try:
        assert ready.wait(30)
        with pytest.raises(UserError, match="busy; wait"), locked(tmp_path / "x.lock", UserError("busy", "wait")):
            pass
        t0 = time.monotonic()
        release.set()
        with locked(tmp_path / "x.lock"):  # waits until the holder lets go
            assert time.monotonic() - t0 < 30
    finally:
        release.set()
        holder.join(30)


def test_a_second_compare_of_one_project_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROCM_SPIRV_CACHE", str(tmp_path / "cache"))
    project = tmp_path / "proj"
    with work_dir(project) as first:
        assert first.is_dir()
        with pytest.raises(UserError, match=r"another rocm-spirv compare of .* is running"), work_dir(project):
            pass
    assert not first.exists()
