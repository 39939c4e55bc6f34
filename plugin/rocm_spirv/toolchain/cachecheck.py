"""Does a compiler cache really cache HIP compiles? Compile a real HIP file twice and ask the cache.

Each check runs with a private, empty cache (ccache `CCACHE_DIR`, or an sccache server of its own
on 127.0.0.1 with its own `SCCACHE_DIR`, stopped at the end), so the user's cache is neither read
nor filled. Also used by the tests and the cache benchmark to count hits.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from rocm_spirv.offload import Mode
from rocm_spirv.term import traced
from rocm_spirv.toolchain.launcher import Launcher, launcher_command


@dataclass(frozen=True)
class Stats:
    hits: int
    misses: int
    uncacheable: int


@dataclass(frozen=True)
class CacheCheck:
    launcher: str
    mode: str
    ok: bool
    detail: str


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def private_cache(launcher: Launcher, workdir: Path, env: dict[str, str] | None = None) -> Iterator[dict[str, str]]:
    """The environment for compiles through `launcher` with a private cache under workdir; an sccache
    server is started on 127.0.0.1 for it and stopped when the block ends."""
    out = {**os.environ, **(env or {})}
    if launcher.kind == "ccache":
        out.setdefault("CCACHE_DIR", str(workdir / "ccache"))
        yield out
        return
    out.setdefault("SCCACHE_DIR", str(workdir / "sccache"))
    out["SCCACHE_SERVER_PORT"] = str(free_port())
    out["SCCACHE_IDLE_TIMEOUT"] = "0"
    out.pop("SCCACHE_SERVER_UDS", None)
    started = subprocess.run([launcher.path, "--start-server"], env=out, capture_output=True, text=True,
                             timeout=120, check=False)
    if started.returncode != 0:
        raise RuntimeError(f"sccache --start-server failed: {started.stderr.strip()[-400:]}")
    try:
        yield out
    finally:
        subprocess.run([launcher.path, "--stop-server"], env=out, capture_output=True, timeout=120, check=False)


def read_stats(launcher: Launcher, env: dict[str, str]) -> Stats:
    if launcher.kind == "ccache":
        proc = subprocess.run([launcher.path, "--print-stats"], env=env, capture_output=True, text=True,
                              timeout=60, check=False)
        values = {}
        for line in proc.stdout.splitlines():
            name, _, value = line.partition("\t")
            if value.strip().isdigit():
                values[name] = int(value)
        hits = values.get("direct_cache_hit", 0) + values.get("preprocessed_cache_hit", 0)
        counted = ("direct_cache_hit", "preprocessed_cache_hit", "cache_miss")
        other = sum(v for k, v in values.items() if k not in counted and not k.endswith("_timestamp")
                    and not k.startswith(("max_", "local_storage", "remote_storage", "files_in", "cache_size",
                                          "direct_cache_miss", "preprocessed_cache_miss")))
        return Stats(hits, values.get("cache_miss", 0), other)
    proc = subprocess.run([launcher.path, "--show-stats", "--stats-format", "json"], env=env, capture_output=True,
                          text=True, timeout=60, check=False)
    data = json.loads(proc.stdout or "{}").get("stats", {})

    def total(key: str) -> int:
        counts = data.get(key, {}).get("counts", {})
        return sum(int(v) for v in counts.values()) if isinstance(counts, dict) else 0

    return Stats(total("cache_hits"), total("cache_misses"), int(data.get("non_cacheable_compilations", 0)))


def zero_stats(launcher: Launcher, env: dict[str, str]) -> None:
    flag = "-z" if launcher.kind == "ccache" else "--zero-stats"
    subprocess.run([launcher.path, flag], env=env, capture_output=True, timeout=60, check=False)


def check_mode(launcher: Launcher, compiler: str, prefix: Path | None, mode: Mode, offload_flags: list[str],
               source: str, workdir: Path) -> CacheCheck:
    """Compile source twice for mode through launcher; ok when the second is a hit and the objects match."""
    cmd = [*launcher_command(launcher, prefix), compiler]
    src = workdir / "probe.hip"
    src.write_text(source)
    objects = []
    try:
        with private_cache(launcher, workdir) as env:
            for n in (1, 2):
                obj = workdir / f"probe-{n}.o"
                zero_stats(launcher, env)
                argv = [*cmd, "-x", "hip", *offload_flags, "-O2", "-c", str(src), "-o", str(obj)]
                with traced(argv, workdir) as trace:
                    proc = subprocess.run(argv, env=env, cwd=workdir, capture_output=True, text=True, timeout=600,
                                          check=False)
                    trace.status = proc.returncode
                if proc.returncode != 0:
                    tail = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
                    return CacheCheck(launcher.kind, mode, False, f"compile {n} failed: {tail}")
                objects.append(obj.read_bytes())
                stats = read_stats(launcher, env)
            hit = stats.hits == 1 and stats.misses == 0
    except (RuntimeError, OSError, subprocess.TimeoutExpired, ValueError) as err:
        return CacheCheck(launcher.kind, mode, False, str(err))
    if not hit:
        return CacheCheck(launcher.kind, mode, False,
                          f"second compile not a hit (hits {stats.hits}, misses {stats.misses}, "
                          f"uncacheable {stats.uncacheable})")
    if objects[0] != objects[1]:
        return CacheCheck(launcher.kind, mode, False, "second compile was a hit but the object differs")
    return CacheCheck(launcher.kind, mode, True, "second compile of a HIP file was a hit, same object")


def check_all(launchers: list[Launcher], compiler: str, prefix: Path | None,
              modes: dict[Mode, list[str]], source: str) -> list[CacheCheck]:
    out = []
    for launcher in launchers:
        for mode, flags in modes.items():
            with tempfile.TemporaryDirectory(prefix="rocm-spirv-cachecheck-") as tmp:
                out.append(check_mode(launcher, compiler, prefix, mode, flags, source, Path(tmp)))
    return out
