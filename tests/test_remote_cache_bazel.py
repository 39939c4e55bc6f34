"""The Bazel rules with BuildGrid (PyPI `buildgrid`) as the remote cache (REAPI v2 CAS + action
cache) on 127.0.0.1: a second checkout with its own output root builds every HIP compile from the
first one's entries, the outputs are byte-identical and `rocm-spirv inspect --require` passes.

BuildGrid (0.4.4, the newest for Python 3.11) has no worker of its own (its bots are buildbox-worker +
buildbox-run-hosttools, C++, in neither Debian nor PyPI), so remote *execution* is not tested here:
docs/caching.md.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import SAMPLES

CLI = [sys.executable, "-m", "rocm_spirv"]
ARTIFACTS = ["libkernels.a", "app", "app_cc", "kernels_test", "libreal.a", "real_app"]
NATIVE = "gfx908,gfx90a,gfx942,gfx1100"
MODES = {"spirv": ([], "spirv-only"), "native": ([f"--@rocm_spirv//:archs={NATIVE}"], f"native:{NATIVE}"),
         "hybrid": ([f"--@rocm_spirv//:archs={NATIVE}"], f"hybrid:{NATIVE}")}
CONFIG = """server:
  - !channel
    address: "127.0.0.1:{port}"
    insecure-mode: true
authorization:
  method: none
storages:
  - !disk-storage &main-storage
    path: {cas}
caches:
  - !lru-action-cache &main-action
    storage: *main-storage
    max-cached-refs: 100000
    allow-updates: true
    cache-failed-actions: false
instances:
  - name: ''
    services:
      - !action-cache
        cache: *main-action
      - !cas
        storage: *main-storage
      - !bytestream
        storage: *main-storage
"""


def bgd_executable() -> str | None:
    """`bgd` on PATH, beside this Python, or in the checkout's .venv-buildgrid (.ci/setup makes it:
    buildgrid's pins would otherwise decide the dev environment's grpc/protobuf versions)."""
    for cand in (shutil.which("bgd"), str(Path(sys.executable).parent / "bgd"),
                 str(SAMPLES.parent / ".venv-buildgrid" / "bin" / "bgd")):
        if cand and Path(cand).is_file():
            return cand
    return None


@pytest.fixture
def buildgrid(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """A BuildGrid server on 127.0.0.1 (CAS, ByteStream, action cache; disk storage in a temp dir),
    stopped when the test ends: each test starts from an empty cache."""
    bgd = bgd_executable()
    if bgd is None:
        pytest.skip("bgd not found: python3 -m venv .venv-buildgrid && .venv-buildgrid/bin/pip install buildgrid "
                    "(.ci/setup does)")
    if shutil.which("bazel") is None:
        pytest.skip("bazel is not on PATH (apt-get install bazel-bootstrap)")
    work = tmp_path_factory.mktemp("buildgrid")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (work / "bgd.yml").write_text(CONFIG.format(port=port, cas=work / "cas"))
    log = (work / "bgd.log").open("w")
    proc = subprocess.Popen([bgd, "server", "start", str(work / "bgd.yml")], stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(600):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if proc.poll() is not None:
                pytest.fail(f"bgd server exited: {(work / 'bgd.log').read_text()[-2000:]}")
            time.sleep(0.1)
        else:
            pytest.fail("bgd server did not listen on 127.0.0.1 within 60 s")
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def _checkout(root: Path, toolchain: Path) -> Path:
    ws = root / "ws"
    shutil.copytree(SAMPLES / "bazel", ws, ignore=shutil.ignore_patterns("rocm_spirv", "bazel-*"))
    out = subprocess.run([*CLI, "bazel", "generate", "--output", str(ws / "rocm_spirv"),
                          "--compiler", str(toolchain / "bin" / "clang++")], capture_output=True, text=True,
                         check=False)
    assert out.returncode == 0, out.stderr
    return ws


def _build(ws: Path, user_root: Path, port: int, flags: list[str]) -> str:
    proc = subprocess.run(["bazel", f"--output_user_root={user_root}", "--max_idle_secs=60", "build",
                           "--noshow_progress", f"--remote_cache=grpc://127.0.0.1:{port}", *flags, "//..."],
                          cwd=ws, capture_output=True, text=True, check=False, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-3000:]
    subprocess.run(["bazel", f"--output_user_root={user_root}", "shutdown"], cwd=ws, capture_output=True,
                   check=False)
    return proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("mode", list(MODES))
def test_second_checkout_builds_from_buildgrid(mode: str, buildgrid: int, toolchain: Path, tmp_path: Path) -> None:
    flags, require = MODES[mode]
    flags = [f"--@rocm_spirv//:offload={mode}", *flags]
    first = _checkout(tmp_path / "one", toolchain)
    second = _checkout(tmp_path / "machines" / "two", toolchain)
    log1 = _build(first, tmp_path / "root1", buildgrid, flags)
    log2 = _build(second, tmp_path / "root2", buildgrid, flags)
    assert "remote cache hit" not in log1, log1[-1500:]
    # Every action that ran on the first checkout is a remote cache hit on the second.
    ran = next(ln for ln in log1.splitlines() if " processes: " in ln)
    hits = next(ln for ln in log2.splitlines() if " processes: " in ln)
    executed = sum(int(w.split()[0]) for w in ran.split(":", 2)[-1].split(",") if "internal" not in w)
    assert f"{executed} remote cache hit" in hits and "linux-sandbox" not in hits, (ran, hits)
    for name in ARTIFACTS:
        a, b = (first / "bazel-bin" / name).read_bytes(), (second / "bazel-bin" / name).read_bytes()
        assert a == b, f"{name} differs between the local and the remote-cached build"
    proc = subprocess.run([*CLI, "inspect", str(second / "bazel-bin" / "libkernels.a"), "--require", require],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
